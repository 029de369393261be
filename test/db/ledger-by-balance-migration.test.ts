import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProviderFor } from '../../src/db/migrations/index.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { bringUpLaterThan, takeDownLaterThan } from '../helpers/migrations.js';
import { locationInput, productInput, storeInput } from '../helpers/factories.js';

// Migration 0021 moves every ledger row from its balance's five key columns to the balance's
// id. A database written by the previous schema is made here the way that schema wrote it:
// entries of every kind booked through the service, then 0022 (one row per entry: the ledger
// a view) taken down to give back the ledger table 0021 left, then 0021 taken down (the rows
// back on their keys, same ids), then both up again.

const NAME = '2026-11-28T0021_ledger_by_balance';
const LOGS = `${API}/stores/M1/products/stock/storeproductlogs`;

for (const dialect of DIALECTS) {
  describe(`migration 0021: the ledger by balance id (${dialect.name})`, () => {
    let t: TestApp;
    const keyedLedger = () =>
      sql<{
        id: number;
        log_id: number;
        store_id: number;
        product_id: number;
        location_id: number;
        pool: number;
        order_key: string;
        at: number;
        delta: number;
        expected: number | null;
      }>`
        select id, log_id, store_id, product_id, location_id, pool, order_key, at, delta, expected from stock_ledger order by id`.execute(
        t.app.ctx.db,
      );
    const ledgerByBalance = () =>
      sql<{
        id: number;
        log_id: number;
        store_id: number;
        product_id: number;
        location_id: number;
        pool: number;
        order_key: string;
        at: number;
        delta: number;
        expected: number | null;
      }>`
        select g.id, g.log_id, b.store_id, b.product_id, b.location_id, b.pool, b.order_key, g.at, g.delta, g.expected
        from stock_ledger g join stock_balances b on b.id = g.balance_id order by g.id, g.balance_id`.execute(
        t.app.ctx.db,
      );
    const migration = async (name = NAME) =>
      (await migrationProviderFor(t.app.ctx.handle.dialect.name).getMigrations())[name]!;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('M1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: ['MP1', 'MP2'].map((n) => productInput(n)) })).statusCode,
      ).toBe(200);
      expect((await t.post(`${API}/stores/M1/locations`, { locations: [locationInput('A-01')] })).statusCode).toBe(200);
      const entry = (product_number: string, quantity: number, at: string, extra: Record<string, unknown> = {}) => ({
        product_number,
        quantity,
        customer_order_line_number: 0,
        modification_datetime: at,
        ...extra,
      });
      const posts = [
        [entry('MP1', 10, '2026-01-01T08:00:00Z'), entry('MP1', 4, '2026-01-01T09:00:00Z', { location_code: 'A-01' })],
        // Split over pools: one entry, two ledger rows.
        [entry('MP2', 5, '2026-01-01T10:00:00Z', { stock_pool_1: 3, stock_pool_2: 2 })],
        [entry('MP1', 6, '2026-01-02T08:00:00Z')],
        // A late delta before it, which re-bases the count in place.
        [entry('MP1', 1, '2025-12-31T08:00:00Z')],
      ];
      for (const storeproductlog of posts) expect((await t.post(LOGS, { storeproductlog })).statusCode).toBe(200);
      expect(
        (
          await t.post(`${LOGS}?is_counted_quantity=true`, {
            storeproductlog: [entry('MP1', 7, '2026-01-01T12:00:00Z')],
          })
        ).statusCode,
      ).toBe(200);
      expect((await t.post(LOGS, { storeproductlog: [entry('MP1', 2, '2026-01-01T11:00:00Z')] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('carries every ledger row over with its id, entry, balance, moment and figures, and verify holds before and after', async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      await takeDownLaterThan(t.app.ctx.handle, NAME);
      const before = (await ledgerByBalance()).rows;
      expect(before.length).toBe(8);
      const { down, up } = await migration();
      await down!(t.app.ctx.db);
      expect((await keyedLedger()).rows).toEqual(before);
      await up(t.app.ctx.db);
      expect((await ledgerByBalance()).rows).toEqual(before);
      await bringUpLaterThan(t.app.ctx.handle, NAME);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      // New entries continue the log ids (the ledger view's ids since 0022) and book as before.
      const after = await t.post(LOGS, {
        storeproductlog: [
          {
            product_number: 'MP2',
            quantity: 1,
            customer_order_line_number: 0,
            modification_datetime: '2026-01-03T08:00:00Z',
          },
        ],
      });
      expect(after.statusCode).toBe(200);
      const rows = (await ledgerByBalance()).rows;
      expect(rows).toHaveLength(9);
      expect(Number(rows.at(-1)!.id)).toBeGreaterThan(Math.max(...before.map((row) => Number(row.log_id))));
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      const stock = (await t.get(`${API}/stores/M1/products/MP2/stock`)).json();
      expect(stock.products[0]).toMatchObject({ most_likely_stock: 6, stock_pool_1: 4, stock_pool_2: 2 });
    });

    it('refuses to move a ledger whose rows name a balance that does not exist, and leaves it as it was', async () => {
      await takeDownLaterThan(t.app.ctx.handle, NAME);
      const { down, up } = await migration();
      await down!(t.app.ctx.db);
      const orphan = (await keyedLedger()).rows[0]!;
      await sql`update stock_ledger set pool = 9 where id = ${orphan.id}`.execute(t.app.ctx.db);
      await expect(up(t.app.ctx.db)).rejects.toThrow(/1 ledger rows have no balance/);
      expect((await keyedLedger()).rows.find((row) => Number(row.id) === Number(orphan.id))!.pool).toBe(9);
      await sql`update stock_ledger set pool = ${orphan.pool} where id = ${orphan.id}`.execute(t.app.ctx.db);
      await up(t.app.ctx.db);
      await bringUpLaterThan(t.app.ctx.handle, NAME);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });
  });
}
