import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLedgerMonths, partitionsOf } from '../../src/db/dialect/postgres-partitions.js';
import { addMonths, monthName, monthStart } from '../../src/db/months.js';
import { createDb } from '../../src/db/connect.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, productInput, stockLogInput, storeInput } from '../helpers/factories.js';
import { withParentIndexNames } from '../helpers/plans.js';
import { bareLogRow } from '../helpers/stock.js';

// Migration 0025: on PostgreSQL the ledger (stock_logs, stock_log_parts) is partitioned by the
// month of the entry's moment; the service makes the coming months ahead, moving into a new
// month whatever the DEFAULT partition caught for it. SQLite stays one table.

const LOGS = `${API}/stores/LMS/products/stock/storeproductlogs`;
const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`the ledger by month (${dialect.name})`, () => {
    let t: TestApp;
    const db = () => t.app.ctx.db;
    const entry = (quantity: number, at: number, extra: Record<string, unknown> = {}) =>
      stockLogInput('LM1', quantity, at, extra);
    const book = async (entries: unknown[], query = '') => {
      const response = await t.post(`${LOGS}${query}`, { storeproductlog: entries });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { data: number[] }).data;
    };

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('LMS')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: [productInput('LM1')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/stores/LMS/locations`, { locations: [locationInput('A-01')] })).statusCode).toBe(
        200,
      );
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    if (dialect.name === 'sqlite') {
      it('keeps one table on SQLite: nothing to make', async () => {
        expect(await t.app.ctx.handle.dialect.ensureLedgerMonths(db(), Date.now())).toEqual([]);
        await book([entry(5, Date.now() - 400 * DAY), entry(2, Date.now() - DAY)]);
        expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      });
      return;
    }

    it('has a partition per month from the current one to two months ahead, one before and a DEFAULT', async () => {
      const now = Date.now();
      for (const table of ['stock_logs', 'stock_log_parts']) {
        const names = (await partitionsOf(db(), table)).map((p) => p.name);
        expect(names[0]).toBe(`${table}_before`);
        expect(names.at(-1)).toBe(`${table}_later`);
        for (let m = 0; m <= 2; m++) expect(names).toContain(`${table}_${monthName(addMonths(monthStart(now), m))}`);
      }
    });

    it('puts each entry, and each part of a split entry, in the partition of its moment; reads and verify see them all', async () => {
      const now = Date.now();
      const old = now - 800 * DAY;
      await book([entry(10, old), entry(4, now - 60_000)]);
      await book([entry(3, now - 30_000, { stock_pool_1: 2, stock_pool_2: 1 })]);
      await book([entry(20, now - 20_000)], '?is_counted_quantity=true');
      const { rows } = await sql<{ partition: string; n: string }>`
        select tableoid::regclass::text as partition, count(*) as n from stock_logs group by 1 order by 1`.execute(
        db(),
      );
      const current = `stock_logs_${monthName(monthStart(now - 20_000))}`;
      expect(Number(rows.find((r) => r.partition === 'stock_logs_before')?.n)).toBe(1);
      expect(Number(rows.find((r) => r.partition === current)?.n)).toBeGreaterThanOrEqual(2);
      const parts = await sql<{
        partition: string;
      }>`select distinct tableoid::regclass::text as partition from stock_log_parts`.execute(db());
      expect(parts.rows.map((r) => r.partition)).toEqual([`stock_log_parts_${monthName(monthStart(now - 30_000))}`]);
      const stock = (await t.get(`${API}/stores/LMS/products/LM1/stock`)).json();
      // The count sets the first pool to 20; the second pool keeps the split entry's 1.
      expect(stock.products[0].most_likely_stock).toBe(21);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('makes the months a later clock needs, moving in what the DEFAULT partition caught, and keeps the hour counts', async () => {
      const now = Date.now();
      const storeId = Number(
        (await db().selectFrom('stores').select('id').where('store_number', '=', 'LMS').executeTakeFirstOrThrow()).id,
      );
      const productId = Number(
        (await db().selectFrom('products').select('id').where('product_number', '=', 'LM1').executeTakeFirstOrThrow())
          .id,
      );
      // An entry beyond the months made (written directly: the API refuses future moments), not applied.
      const far = addMonths(monthStart(now), 4) + 5 * DAY;
      const [caught] = await db()
        .insertInto('stock_logs')
        .values(bareLogRow(storeId, productId, far, { is_applied: 0 }))
        .returning('id')
        .execute();
      const where = async () =>
        (
          await sql<{
            partition: string;
          }>`select tableoid::regclass::text as partition from stock_logs where id = ${caught!.id}`.execute(db())
        ).rows[0]?.partition;
      expect(await where()).toBe('stock_logs_later');

      const made = await ensureLedgerMonths(db(), addMonths(monthStart(now), 3));
      expect(made).toEqual(
        [3, 4, 5]
          .flatMap((m) => [`stock_logs_${monthName(addMonths(monthStart(now), m))}`])
          .concat([3, 4, 5].map((m) => `stock_log_parts_${monthName(addMonths(monthStart(now), m))}`)),
      );
      expect(await where()).toBe(`stock_logs_${monthName(addMonths(monthStart(now), 4))}`);
      // Made again: nothing left to make.
      expect(await ensureLedgerMonths(db(), addMonths(monthStart(now), 3))).toEqual([]);
      // The moved row kept its indexes' entries (made on attach) and the hour counts did not move.
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      await db().deleteFrom('stock_logs').where('id', '=', caught!.id).execute();
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('lets two processes make the same months at once: each month is made once', async () => {
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.searchParams.set('schema', t.app.ctx.handle.schema!);
      const other = createDb(url.toString());
      try {
        // Months up to +5 exist (the test before): +6 … +10 are missing.
        const later = addMonths(monthStart(Date.now()), 8);
        const [a, b] = await Promise.all([ensureLedgerMonths(db(), later), ensureLedgerMonths(other.db, later)]);
        const made = [...a, ...b].sort();
        expect(new Set(made).size).toBe(made.length);
        expect(made.filter((name) => name.startsWith('stock_logs_'))).toHaveLength(5);
      } finally {
        await other.close();
      }
    });

    it("reads a late entry's history within the months from its moment on", async () => {
      const balance = await db().selectFrom('stock_balances').select('id').orderBy('id').executeTakeFirstOrThrow();
      const from = Date.now() - 2 * DAY;
      const plan = await db()
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{
            'QUERY PLAN': string;
          }>`explain select id, at from stock_ledger where balance_id = ${sql.lit(Number(balance.id))}
          and is_count = 1 and at > ${sql.lit(from)} order by at, id limit 1`.execute(trx);
          return withParentIndexNames(trx, rows.map((row) => row['QUERY PLAN']).join('\n'));
        });
      expect(plan).not.toContain('stock_logs_before');
      expect(plan).not.toContain(`stock_logs_${monthName(addMonths(monthStart(from), -1))}`);
      expect(plan).toContain(`stock_logs_${monthName(monthStart(from))}`);
    });
  });
}
