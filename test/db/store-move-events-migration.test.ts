import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { migrationProviderFor } from '../../src/db/migrations/index.js';
import { DIALECTS } from '../helpers/dialects.js';

// Migration 0028 (issue 40 item 2): the update triggers of every table whose events carry a
// store tell the old store of a move. Its down gives back exactly the triggers 0027 built,
// and its up again the same as the first time.

const THROUGH_0027 = '2026-11-29T0027_change_feed';
const MIGRATION_0028 = '2026-12-07T0028_store_move_events';

/** Tables, triggers and functions as the catalog shows them. */
async function schemaOf(handle: DbHandle): Promise<string[]> {
  if (handle.dialect.name === 'sqlite') {
    const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master where name not like 'kysely_%' order by type, name`.execute(handle.db);
    return rows.map((r) => `${r.type} ${r.name}: ${r.sql}`);
  }
  const { rows } = await sql<{ item: string }>`
    select 'trigger ' || pg_get_triggerdef(t.oid) as item from pg_trigger t join pg_class c on c.oid = t.tgrelid
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and not t.tgisinternal
    union all
    select 'function ' || p.proname || ': ' || p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = current_schema()
    union all
    select 'column ' || table_name || '.' || column_name || ' ' || data_type from information_schema.columns where table_schema = current_schema()
    order by 1`.execute(handle.db);
  return rows.map((r) => r.item);
}

for (const dialect of DIALECTS) {
  describe(`migration 0028, events of store moves (${dialect.name})`, () => {
    const handles: DbHandle[] = [];
    afterAll(async () => {
      for (const handle of handles) await handle.close();
      await dialect.cleanup();
    });

    it("goes down to exactly 0027's triggers and up again to the same schema", async () => {
      const handle = createDb(await dialect.freshDatabaseUrl());
      handles.push(handle);
      if (handle.schema) await sql`create schema if not exists ${sql.id(handle.schema)}`.execute(handle.db);
      const migrations = await migrationProviderFor(handle.dialect.name).getMigrations();
      const names = Object.keys(migrations);
      for (const name of names.slice(0, names.indexOf(THROUGH_0027) + 1)) await migrations[name]!.up(handle.db);
      const of0027 = await schemaOf(handle);
      await migrations[MIGRATION_0028]!.up(handle.db);
      const of0028 = await schemaOf(handle);
      expect(of0028).not.toEqual(of0027);
      expect(of0028.some((item) => item.includes('product_prices_event_update') && item.includes('store_number'))).toBe(
        true,
      );
      await migrations[MIGRATION_0028]!.down!(handle.db);
      expect(await schemaOf(handle)).toEqual(of0027);
      await migrations[MIGRATION_0028]!.up(handle.db);
      expect(await schemaOf(handle)).toEqual(of0028);
    });
  });
}
