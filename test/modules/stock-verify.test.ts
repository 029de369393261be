import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

const LOGS = `${API}/stores/V1/products/stock/storeproductlogs`;
const entry = (quantity: number, at: string) => ({
  product_number: 'VP1',
  quantity,
  customer_order_line_number: 0,
  modification_datetime: at,
});

/**
 * `store-ops verify` sees what the ledger engine relies on: a balance equal to its ledger sum,
 * and a clock (`last_at`, `last_count_at`) equal to its latest ledger entry and count — the
 * clock decides whether an entry is late, so a wrong one would book later entries wrongly
 * while every sum still matched (docs/stock.md "Cost"). And the postings themselves (one row
 * per entry, migration 0022): each names a balance that exists, and every applied entry has
 * one — else its stock is lost.
 */
for (const dialect of DIALECTS) {
  describe(`verify: balances against their ledger (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('V1')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: [productInput('VP1')] })).statusCode).toBe(200);
      expect(
        (await t.post(LOGS, { storeproductlog: [entry(5, '2026-01-01T10:00:00Z'), entry(2, '2026-01-01T12:00:00Z')] }))
          .statusCode,
      ).toBe(200);
      expect(
        (await t.post(`${LOGS}?is_counted_quantity=true`, { storeproductlog: [entry(4, '2026-01-01T11:00:00Z')] }))
          .statusCode,
      ).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const tamper = async (
      change: Partial<{ quantity: number; last_at: number | null; last_count_at: number | null }>,
    ) => {
      const balance = await t.app.ctx.db.selectFrom('stock_balances').selectAll().executeTakeFirstOrThrow();
      await t.app.ctx.db.updateTable('stock_balances').set(change).where('id', '=', balance.id).execute();
      const found = await verifyAll(t.app.ctx.handle);
      await t.app.ctx.db
        .updateTable('stock_balances')
        .set({ quantity: balance.quantity, last_at: balance.last_at, last_count_at: balance.last_count_at })
        .where('id', '=', balance.id)
        .execute();
      return found.map((v) => v.detail);
    };

    it('is clean after real postings, late count included', async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('reports a balance that differs from its ledger sum', async () => {
      expect(await tamper({ quantity: 1 })).toEqual([expect.stringMatching(/balance 0\.001, ledger sum 6$/)]);
    });

    it('reports a clock that is not the latest ledger entry or count', async () => {
      expect(await tamper({ last_at: Date.parse('2026-01-01T11:00:00Z') })).toEqual([
        expect.stringContaining('last_at 2026-01-01T11:00:00.000Z, latest ledger entry 2026-01-01T12:00:00.000Z'),
      ]);
      expect(await tamper({ last_count_at: null })).toEqual([
        expect.stringContaining('last_count_at none, latest ledger count 2026-01-01T11:00:00.000Z'),
      ]);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    /** The one-balance entry at 12:00 (+2): its posting lives in its own stock_logs row. */
    const lastEntry = () =>
      t.app.ctx.db
        .selectFrom('stock_logs')
        .select(['id', 'balance_id', 'delta'])
        .where('modification_at', '=', Date.parse('2026-01-01T12:00:00Z'))
        .executeTakeFirstOrThrow();
    /** Runs verify with the entry's posting moved to `balanceId`, then puts it back. */
    const posted = async (balanceId: number | null) => {
      const entry = await lastEntry();
      expect(entry).toMatchObject({ delta: 2000, balance_id: expect.any(Number) });
      const moveTo = (id: number | null) =>
        t.app.ctx.db.updateTable('stock_logs').set({ balance_id: id }).where('id', '=', entry.id).execute();
      await moveTo(balanceId);
      try {
        return { entry, found: (await verifyAll(t.app.ctx.handle)).map((v) => v.detail) };
      } finally {
        await moveTo(entry.balance_id);
      }
    };
    /** What the balance says once the 12:00 entry's posting has gone elsewhere. */
    const leftBehind =
      'balance 6, ledger sum 4; last_at 2026-01-01T12:00:00.000Z, latest ledger entry 2026-01-01T11:00:00.000Z';

    it('reports ledger rows whose balance does not exist (SQLite keeps no foreign key on stock_logs.balance_id)', async () => {
      if (dialect.name === 'postgres') {
        const entry = await lastEntry();
        await expect(
          t.app.ctx.db.updateTable('stock_logs').set({ balance_id: 999_999 }).where('id', '=', entry.id).execute(),
        ).rejects.toThrow(/foreign key/i);
        expect(await lastEntry()).toEqual(entry);
        return;
      }
      const { entry, found } = await posted(999_999);
      expect(found).toEqual([
        expect.stringMatching(new RegExp(`: ${leftBehind}$`)),
        `balance 999999 does not exist, but entries ${entry.id} post to it (ledger sum 2)`,
      ]);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('reports an applied entry without ledger rows: its stock is lost', async () => {
      const { entry, found } = await posted(null);
      expect(found).toEqual([
        expect.stringMatching(new RegExp(`: ${leftBehind}$`)),
        `entry ${entry.id} is applied but has no ledger rows (its stock is lost)`,
      ]);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('reports a part whose entry does not exist (PostgreSQL partitions stock_logs by month: no foreign key names it)', async () => {
      const entry = await lastEntry();
      const part = {
        log_id: 999_999,
        seq: 999_999,
        balance_id: entry.balance_id!,
        at: Date.parse('2026-01-01T00:00:00Z'),
        delta: 0,
        is_count: 0 as const,
        counted: null,
        expected: null,
      };
      const insert = () => t.app.ctx.db.insertInto('stock_log_parts').values(part).execute();
      if (dialect.name === 'sqlite') {
        await expect(insert()).rejects.toThrow(/foreign key/i);
        return;
      }
      await insert();
      try {
        const found = (await verifyAll(t.app.ctx.handle)).map((v) => v.detail);
        expect(found).toEqual([`entry 999999 does not exist, but a part of it posts to balance ${entry.balance_id}`]);
      } finally {
        await t.app.ctx.db.deleteFrom('stock_log_parts').where('log_id', '=', 999_999).execute();
      }
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('takes an applied delta of zero without ledger rows as booking nothing, not as stock lost', async () => {
      expect((await t.post(LOGS, { storeproductlog: [entry(0, '2026-01-01T13:00:00Z')] })).statusCode).toBe(200);
      const zero = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select(['is_applied', 'balance_id'])
        .where('modification_at', '=', Date.parse('2026-01-01T13:00:00Z'))
        .executeTakeFirstOrThrow();
      expect(zero).toEqual({ is_applied: 1, balance_id: null });
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });
  });
}
