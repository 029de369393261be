import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

// Migration 0019 (docs/stock.md "Indexes of the write path"): on PostgreSQL no index of
// store_products may cover stock_modified_at, or the stamp every booking writes can no
// longer be a HOT update; SQLite keeps the index for the `last_stock_modified_datetime` pull.
for (const dialect of DIALECTS) {
  describe(`store_products and stock_modified_at (${dialect.name})`, () => {
    let t: TestApp | undefined;
    afterAll(async () => {
      await t?.close();
      await dialect.cleanup();
    });

    it(
      dialect.name === 'postgres'
        ? 'no index covers it, and pages keep room for HOT updates'
        : 'keeps its (store_id, stock_modified_at) index',
      async () => {
        t = await buildTestApp(dialect);
        const db = t.app.ctx.db;
        if (dialect.name === 'postgres') {
          const { rows } = await sql<{ indexdef: string }>`
          select indexdef from pg_indexes where schemaname = current_schema() and tablename = 'store_products'`.execute(
            db,
          );
          expect(rows.length).toBeGreaterThan(0);
          expect(rows.filter((r) => r.indexdef.includes('stock_modified_at'))).toEqual([]);
          const { rows: options } = await sql<{ reloptions: string[] | null }>`
          select reloptions from pg_class where oid = 'store_products'::regclass`.execute(db);
          expect(options[0]?.reloptions).toContain('fillfactor=85');
        } else {
          const { rows } = await sql<{
            name: string;
          }>`select name from pragma_index_info('store_products_stock_modified')`.execute(db);
          expect(rows.map((r) => r.name)).toEqual(['store_id', 'stock_modified_at']);
        }
      },
    );
  });
}
