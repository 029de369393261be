import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProviderFor } from '../../src/db/migrations/index.js';
import { addMonths, monthName, monthStart } from '../../src/db/months.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, stockLogInput, storeInput } from '../helpers/factories.js';
import { bringUpLaterThan, takeDownLaterThan } from '../helpers/migrations.js';

// Migration 0025 on a ledger written before it: every entry and part moves into the
// partition of its month (old ones below the first month), the ledger view gives back the
// same rows, ids go on from where they were, and verify holds. SQLite: nothing changes.

const NAME = '2026-11-29T0025_ledger_by_month';
const LOGS = `${API}/stores/LB1/products/stock/storeproductlogs`;
const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`migration 0025: the ledger by month (${dialect.name})`, () => {
    let t: TestApp;
    const db = () => t.app.ctx.db;
    const now = Date.now();
    const entry = stockLogInput;
    const ledger = async () =>
      (
        await sql<
          Record<string, unknown>
        >`select id, log_id, balance_id, at, delta, is_count, counted, expected from stock_ledger order by balance_id, at, id`.execute(
          db(),
        )
      ).rows;

    beforeAll(async () => {
      // The entries below are booked on the schema as it was before 0025, which has no events
      // table (migration 0027): the app writes no stock events for them.
      t = await buildTestApp(dialect, { benchWithoutStockEvents: true });
      expect((await t.post(`${API}/stores`, { stores: [storeInput('LB1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: [productInput('LB1P'), productInput('LB2P')] })).statusCode,
      ).toBe(200);
      // Written by the schema before 0025: a year back, last month, now; a split entry and a count.
      await takeDownLaterThan(t.app.ctx.handle, NAME);
      await (await migrationProviderFor(t.app.ctx.handle.dialect.name).getMigrations())[NAME]!.down!(db());
      // Today's engine asks for the archive boundary (migration 0026) before booking an entry
      // dated before last month: an empty stand-in while the old schema books, gone before 0026 runs again.
      if (dialect.name === 'postgres') await sql`create table ledger_archives (boundary_at bigint)`.execute(db());
      // Today's engine writes the log's counting columns (migration 0033): stand-ins while the old schema books.
      await sql`alter table stock_logs add column counting_assignment_id bigint`.execute(db());
      await sql`alter table stock_logs add column counting_lines_remaining integer`.execute(db());
      for (const body of [
        [entry('LB1P', 10, now - 400 * DAY), entry('LB2P', 4, now - 35 * DAY)],
        [entry('LB1P', 3, now - 40 * DAY, { stock_pool_1: 2, stock_pool_2: 1 })],
        [entry('LB2P', 1, now - 60_000)],
      ]) {
        expect((await t.post(LOGS, { storeproductlog: body })).statusCode).toBe(200);
      }
      expect(
        (await t.post(`${LOGS}?is_counted_quantity=true`, { storeproductlog: [entry('LB1P', 9, now - 30_000)] }))
          .statusCode,
      ).toBe(200);
      if (dialect.name === 'postgres') await sql`drop table ledger_archives`.execute(db());
      await sql`alter table stock_logs drop column counting_lines_remaining`.execute(db());
      await sql`alter table stock_logs drop column counting_assignment_id`.execute(db());
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('moves every entry and part into its month, keeps the ledger and the ids, and verify holds', async () => {
      const before = await ledger();
      expect(before.length).toBe(6);
      const lastId = Number(
        (
          await db()
            .selectFrom('stock_logs')
            .select((eb) => eb.fn.max('id').as('id'))
            .executeTakeFirstOrThrow()
        ).id,
      );
      await (await migrationProviderFor(t.app.ctx.handle.dialect.name).getMigrations())[NAME]!.up(db());
      await bringUpLaterThan(t.app.ctx.handle, NAME);
      expect(await ledger()).toEqual(before);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      if (dialect.name === 'postgres') {
        const { rows } = await sql<{ partition: string; n: number }>`
          select tableoid::regclass::text as partition, count(*)::int as n from stock_logs group by 1 order by 1`.execute(
          db(),
        );
        // The oldest entry's month is the first: nothing lies before it.
        const first = monthStart(now - 400 * DAY);
        expect(rows.map((r) => r.partition)).toContain(`stock_logs_${monthName(first)}`);
        expect(rows.map((r) => r.partition)).not.toContain('stock_logs_before');
        const names = (
          await sql<{
            name: string;
          }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'stock_logs'::regclass`.execute(
            db(),
          )
        ).rows.map((r) => r.name);
        expect(names).toContain(`stock_logs_${monthName(addMonths(monthStart(now), 2))}`);
      }
      const next = await t.post(LOGS, { storeproductlog: [entry('LB2P', 2, now - 10_000)] });
      expect(next.statusCode).toBe(200);
      expect(Number(next.json().data[0])).toBeGreaterThan(lastId);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      expect((await t.get(`${API}/stores/LB1/products/LB2P/stock`)).json().products[0].most_likely_stock).toBe(7);
    });
  });
}
