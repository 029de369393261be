import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageOf } from '../../src/db/page.js';
import { applyFilters, countStockLogs, type StockLogFilters } from '../../src/modules/stock-logs/repository.js';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { withParentIndexNames } from '../helpers/plans.js';

// Migration 0023 (docs/stock.md "Indexes of the write path"): the review index keeps only
// the entries that needed a review, and the log list's review filters can still use it on
// both databases — the list query states `review_status <> 0` itself (SQLite matches a
// partial index's terms literally). A filter on status 0 never could, so it is not asked.
for (const dialect of DIALECTS) {
  describe(`the stock log review index (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    /** The plan of a query as one text, with sequential scans ruled out on PostgreSQL so only what is possible counts. */
    async function planOf(query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
      const db = t.app.ctx.db;
      if (dialect.name === 'sqlite') {
        const { rows } = await sql<{ detail: string }>`explain query plan ${sql.raw(inline(query))}`.execute(db);
        return rows.map((row) => row.detail).join('\n');
      }
      return db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(inline(query))}`.execute(trx);
        return withParentIndexNames(trx, rows.map((row) => row['QUERY PLAN']).join('\n'));
      });
    }

    it('is partial: only entries with a review status other than 0', async () => {
      const definition =
        dialect.name === 'sqlite'
          ? (
              await sql<{ sql: string }>`select sql from sqlite_master where name = 'stock_logs_review'`.execute(
                t.app.ctx.db,
              )
            ).rows[0]!.sql
          : (
              await sql<{
                indexdef: string;
              }>`select indexdef from pg_indexes where schemaname = current_schema() and indexname = 'stock_logs_review'`.execute(
                t.app.ctx.db,
              )
            ).rows[0]!.indexdef;
      expect(definition).toMatch(/where .*review_status.* <> 0/i);
    });

    // reviewed=true is two statuses: its page may as well walk the primary key in id order
    // (PostgreSQL does on an empty table), so only its count is held to the index.
    const filters: Array<[string, Partial<StockLogFilters>, boolean]> = [
      ['review_status=1', { reviewStatus: 1 }, true],
      ['review_status=3', { reviewStatus: 3 }, true],
      ['reviewed=true', { reviewed: true }, false],
    ];
    for (const [name, filter, pageByIndex] of filters) {
      it(`serves the list filtered by ${name}, its page and its count`, async () => {
        const f: StockLogFilters = { scope: undefined, ...filter };
        // The list's page and count, from the list's own filters (repository.ts applyFilters).
        const page = pageOf(applyFilters(t.app.ctx.db.selectFrom('stock_logs').selectAll(), f), 'id', {
          offset: 0,
          fetchLimit: 201,
        }).compile();
        if (pageByIndex) expect(await planOf(page)).toContain('stock_logs_review');
        const count = applyFilters(t.app.ctx.db.selectFrom('stock_logs'), f)
          .select((eb) => eb.fn.countAll().as('n'))
          .compile();
        expect(await planOf(count)).toContain('stock_logs_review');
        expect(await countStockLogs(t.app.ctx.db, f)).toBe(0);
      });
    }
  });
}

/** The statement with its parameters written in (numbers only here), for EXPLAIN. */
function inline(query: { sql: string; parameters: readonly unknown[] }): string {
  let index = 0;
  return query.sql.replace(/\?|\$\d+/g, (marker) => {
    const value = marker === '?' ? query.parameters[index++] : query.parameters[Number(marker.slice(1)) - 1];
    if (typeof value !== 'number') throw new Error(`parameter ${marker} is not a number: ${String(value)}`);
    return String(value);
  });
}
