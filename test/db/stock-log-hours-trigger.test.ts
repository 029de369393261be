import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logHourViolations } from '../../src/ledger/invariants.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';
import { bareLogRow, insertBareProduct } from '../helpers/stock.js';

// The hour counts of the log pull (migration 0020) follow one statement that updates
// thousands of entries, moving some to other hours or none. On PostgreSQL the statement
// trigger pairs old and new rows by id with a hash join (migration 0024): planned as a
// nested loop, an update that moved no entry compared every pair (10,000 rows: 19.4 s, 0.26 s
// with the hash join).
const HOUR = 3_600_000;
const ENTRIES = 3_000;

for (const dialect of DIALECTS) {
  describe(`stock log hours after a statement that moves thousands of entries (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('H1')] })).statusCode).toBe(200);
      const storeId = (
        await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'H1').executeTakeFirstOrThrow()
      ).id;
      const productId = await insertBareProduct(t.app.ctx, 'HP1');
      const start = Date.UTC(2026, 0, 1);
      const rows = Array.from({ length: ENTRIES }, (_, i) => ({
        ...bareLogRow(storeId, productId, start, { updated_on: start + (i % 5) * HOUR, is_applied: 0 }),
        review_status: 3,
      }));
      for (let i = 0; i < rows.length; i += 500)
        await t.app.ctx.db
          .insertInto('stock_logs')
          .values(rows.slice(i, i + 500))
          .execute();
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('keeps every hour exact when one update moves them all, some into hours of their own', async () => {
      expect(await logHourViolations(t.app.ctx.handle)).toEqual([]);
      await sql`update stock_logs set updated_on = updated_on + ${HOUR} * (id % 3)`.execute(t.app.ctx.db);
      expect(await logHourViolations(t.app.ctx.handle)).toEqual([]);
      // One that moves none (a repair, a migration filling a column): the case that was quadratic.
      await sql`update stock_logs set remarks = 'checked'`.execute(t.app.ctx.db);
      expect(await logHourViolations(t.app.ctx.handle)).toEqual([]);
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from stock_logs`.execute(t.app.ctx.db);
      expect(Number(rows[0]!.n)).toBe(ENTRIES);
    });

    it.skipIf(dialect.name !== 'postgres')('pairs old and new rows without a nested loop', async () => {
      const { rows } = await sql<{ proconfig: string[] | null }>`
        select proconfig from pg_proc where proname = 'count_stock_log_hours' and pronamespace = current_schema()::regnamespace`.execute(
        t.app.ctx.db,
      );
      expect(rows[0]?.proconfig).toContain('enable_nestloop=off');
    });
  });
}
