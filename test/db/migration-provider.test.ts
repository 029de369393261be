import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
} from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrationProviderFor } from '../../src/db/migrations/index.js';
import { DialectMigrationProvider, type MigrationDialect } from '../../src/db/migrations/provider.js';
import { DIALECTS } from '../helpers/dialects.js';

// Migrations learn the dialect from the provider (constructed with the handle's
// `dialect.name`, db/migrate.ts), never from the Kysely instance's adapter class: a class
// name does not survive a bundler that renames classes.

/** The names databases have recorded: they must never change. */
const MIGRATION_NAMES = [
  '2026-11-22T0001_foundation',
  '2026-11-22T0002_categories_reason_codes',
  '2026-11-22T0003_products',
  '2026-11-22T0004_stock',
  '2026-11-22T0006_stock_read_indexes',
  '2026-11-22T0007_resource_versions',
  '2026-11-22T0008_unresolved_counting_lines',
  '2026-11-22T0009_stock_read_versions',
  '2026-11-24T0010_ledger_count_index',
  '2026-11-24T0011_deliveries_receipts',
  '2026-11-25T0013_customer_orders',
  '2026-11-25T0014_product_lists',
  '2026-11-25T0015_store_product_membership_version',
  '2026-11-25T0016_stock_log_partial_indexes',
  '2026-11-26T0017_stock_version_by_engine',
  '2026-11-26T0018_balance_location_index',
  '2026-11-27T0019_stock_modified_hot',
  '2026-11-28T0020_stock_log_hours',
  '2026-11-28T0021_ledger_by_balance',
  '2026-11-28T0022_one_row_per_entry',
  '2026-11-28T0023_stock_log_review_partial',
  '2026-11-28T0024_stock_log_hours_hash_join',
  '2026-11-29T0025_ledger_by_month',
  '2026-11-29T0026_ledger_archive',
  '2026-11-29T0027_change_feed',
  '2026-12-07T0028_store_move_events',
  '2026-12-07T0029_oauth_clients',
  '2026-12-07T0030_stock_moment_at_creation',
  '2026-12-08T0032_photos',
  '2026-12-08T0033_counting_assignments',
];

/** A Kysely that compiles SQLite SQL and records every statement instead of running it. */
function recordingSqliteKysely(statements: string[]): Kysely<any> {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery) {
      statements.push(query.sql);
      return { rows: [] as R[] };
    },
    async *streamQuery() {
      throw new Error('not streamed');
    },
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => undefined,
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  return new Kysely<any>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createQueryCompiler: () => new SqliteQueryCompiler(),
      createIntrospector: (db) => new SqliteIntrospector(db),
    },
  });
}

/** Every statement of every migration's `up` as the provider for `dialect` runs them, by migration. */
async function upStatements(dialect: MigrationDialect): Promise<Record<string, string[]>> {
  const migrations = await migrationProviderFor(dialect).getMigrations();
  const byMigration: Record<string, string[]> = {};
  for (const [name, migration] of Object.entries(migrations)) {
    const statements: string[] = [];
    await migration.up(recordingSqliteKysely(statements));
    byMigration[name] = statements;
  }
  return byMigration;
}

describe('DialectMigrationProvider', () => {
  it('hands every migration, up and down, the dialect it was constructed with, under the same names in the same order', async () => {
    const calls: string[] = [];
    const recorded = (name: string) => ({
      up: async (_db: Kysely<any>, dialect: MigrationDialect) => void calls.push(`${name} up ${dialect}`),
      down: async (_db: Kysely<any>, dialect: MigrationDialect) => void calls.push(`${name} down ${dialect}`),
    });
    const set = {
      b_second: recorded('b_second'),
      a_first: recorded('a_first'),
      c_no_down: { up: recorded('c_no_down').up },
    };
    const db = recordingSqliteKysely([]);
    for (const dialect of ['sqlite', 'postgres'] as const) {
      calls.length = 0;
      const migrations = await new DialectMigrationProvider(set, dialect).getMigrations();
      expect(Object.keys(migrations)).toEqual(['b_second', 'a_first', 'c_no_down']);
      expect(migrations.c_no_down!.down).toBeUndefined();
      for (const migration of Object.values(migrations)) {
        await migration.up(db);
        await migration.down?.(db);
      }
      expect(calls).toEqual([
        `b_second up ${dialect}`,
        `b_second down ${dialect}`,
        `a_first up ${dialect}`,
        `a_first down ${dialect}`,
        `c_no_down up ${dialect}`,
      ]);
    }
  });

  it('gives the migrations under the names databases have recorded', async () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      expect(Object.keys(await migrationProviderFor(dialect).getMigrations())).toEqual(MIGRATION_NAMES);
    }
  });

  it("the same Kysely instance gets each dialect's schema from the dialect handed over, not from its adapter", async () => {
    const forSqlite = await upStatements('sqlite');
    const forPostgres = await upStatements('postgres');
    const all = (statements: Record<string, string[]>) => Object.values(statements).flat().join('\n');

    // Surrogate keys (support.ts withId).
    expect(all(forPostgres)).toMatch(/"id" bigint generated by default as identity primary key/);
    expect(all(forPostgres)).not.toMatch(/autoincrement/);
    expect(all(forSqlite)).toMatch(/"id" integer primary key autoincrement/);
    expect(all(forSqlite)).not.toMatch(/generated by default as identity/);
    // 0014: product_list_lines is WITHOUT ROWID on SQLite only.
    expect(forSqlite['2026-11-25T0014_product_lists']!.join('\n')).toMatch(
      /create table "product_list_lines".* without rowid/s,
    );
    expect(forPostgres['2026-11-25T0014_product_lists']!.join('\n')).not.toMatch(/without rowid/);
    // 0019: PostgreSQL only.
    expect(forSqlite['2026-11-27T0019_stock_modified_hot']).toEqual([]);
    expect(forPostgres['2026-11-27T0019_stock_modified_hot']).toEqual([
      'drop index "store_products_stock_modified"',
      'alter table store_products set (fillfactor = 85)',
    ]);
    // 0025: the ledger by month, PostgreSQL only.
    expect(forSqlite['2026-11-29T0025_ledger_by_month']).toEqual([]);
    expect(forPostgres['2026-11-29T0025_ledger_by_month']!.join('\n')).toMatch(
      /partition by range \(modification_at\)/,
    );
    // 0007: statement triggers through a plpgsql function on PostgreSQL, row triggers on SQLite.
    expect(forPostgres['2026-11-22T0007_resource_versions']!.join('\n')).toMatch(
      /create or replace function bump_resource_version\(\)/,
    );
    expect(forSqlite['2026-11-22T0007_resource_versions']!.join('\n')).not.toMatch(/plpgsql/);
    expect(forSqlite['2026-11-22T0007_resource_versions']!.join('\n')).toMatch(
      /create trigger "stores_bump_version_insert"/,
    );
  });
});

describe('migration sources', () => {
  it('no migration decides the dialect from the adapter class', () => {
    const dir = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
    const files = readdirSync(dir).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(MIGRATION_NAMES.length);
    const sniffing = files.filter((file) =>
      /constructor\.name|getExecutor\(\)\.adapter|PostgresAdapter|SqliteAdapter/.test(readFileSync(dir + file, 'utf8')),
    );
    expect(sniffing).toEqual([]);
  });
});

/** The schema objects a migration can create, as text, for comparing before and after. */
async function schemaOf(handle: DbHandle): Promise<string[]> {
  if (handle.dialect.name === 'sqlite') {
    const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master where name not like 'kysely_%' order by type, name`.execute(handle.db);
    return rows.map((r) => `${r.type} ${r.name}: ${r.sql}`);
  }
  const { rows } = await sql<{ item: string }>`
    select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as item
      from information_schema.columns where table_schema = current_schema() and table_name not like 'kysely_%'
    union all
    select 'index ' || indexdef from pg_indexes where schemaname = current_schema() and tablename not like 'kysely_%'
    union all
    select 'trigger ' || pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and not t.tgisinternal
    union all
    select 'function ' || p.proname || ': ' || p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = current_schema()
    union all
    select 'options ' || c.relname || ' ' || array_to_string(c.reloptions, ',') from pg_class c
      join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.reloptions is not null
    order by 1`.execute(handle.db);
  return rows.map((r) => r.item);
}

for (const dialect of DIALECTS) {
  describe(`migrations on ${dialect.name}`, () => {
    const handles: DbHandle[] = [];
    afterAll(async () => {
      for (const handle of handles) await handle.close();
      await dialect.cleanup();
    });

    it("migrateToLatest records every migration under its name and builds the dialect's schema", async () => {
      const handle = createDb(await dialect.freshDatabaseUrl());
      handles.push(handle);
      expect(await migrateToLatest(handle)).toEqual(MIGRATION_NAMES);
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db);
      expect(rows.map((r) => r.name)).toEqual(MIGRATION_NAMES);
      if (dialect.name === 'sqlite') {
        const { rows: tables } = await sql<{ sql: string }>`
          select sql from sqlite_master where type = 'table' and name = 'product_list_lines'`.execute(handle.db);
        expect(tables[0]?.sql).toMatch(/without rowid$/);
        const { rows: engine } = await sql<{ name: string }>`
          select name from sqlite_master where type = 'table' and name = 'engine_balance_writes'`.execute(handle.db);
        expect(engine).toHaveLength(1);
      } else {
        const { rows: options } = await sql<{ relname: string; reloptions: string[] | null }>`
          select relname, reloptions from pg_class
          where relnamespace = current_schema()::regnamespace and relname in ('stock_balances', 'store_products')
          order by relname`.execute(handle.db);
        expect(options).toEqual([
          { relname: 'stock_balances', reloptions: ['fillfactor=80'] },
          { relname: 'store_products', reloptions: ['fillfactor=85'] },
        ]);
        const { rows: partitioned } = await sql<{ relname: string }>`
          select c.relname from pg_partitioned_table p join pg_class c on c.oid = p.partrelid
          where c.relnamespace = current_schema()::regnamespace order by c.relname`.execute(handle.db);
        expect(partitioned.map((r) => r.relname)).toEqual(['stock_log_parts', 'stock_logs']);
        const { rows: identity } = await sql<{ is_identity: string }>`
          select is_identity from information_schema.columns
          where table_schema = current_schema() and table_name = 'stores' and column_name = 'id'`.execute(handle.db);
        expect(identity).toEqual([{ is_identity: 'YES' }]);
      }
    });

    it('the latest migrations go down and up again, handed the same dialect, to the same schema', async () => {
      const handle = createDb(await dialect.freshDatabaseUrl());
      handles.push(handle);
      await migrateToLatest(handle);
      const before = await schemaOf(handle);
      const migrations = await migrationProviderFor(handle.dialect.name).getMigrations();
      const latest = MIGRATION_NAMES.slice(-13); // 0020 … 0033: each differs by dialect, up and down
      for (const name of [...latest].reverse()) await migrations[name]!.down!(handle.db);
      const down = await schemaOf(handle);
      expect(down).not.toEqual(before);
      expect(down.some((item) => item.includes('stock_log_hours'))).toBe(false);
      for (const name of latest) await migrations[name]!.up(handle.db);
      expect(await schemaOf(handle)).toEqual(before);
    });
  });
}
