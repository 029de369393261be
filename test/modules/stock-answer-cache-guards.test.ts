import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StockAnswerCache } from '../../src/shared/stock-answer-cache.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

// What keeps the single-product stock answer cache exact when the application's own code
// is not the writer (an older build still running during an upgrade, a repair by hand), and
// what bounds its memory.

describe('StockAnswerCache bounds (store-stock/answer-cache.ts)', () => {
  it('keeps at most `capacity` answers, dropping the one stored longest ago', () => {
    const cache = new StockAnswerCache(2, 1_000);
    cache.set('a', 'v1', 'A');
    cache.set('b', 'v1', 'B');
    cache.set('c', 'v1', 'C');
    expect([cache.get('a', 'v1'), cache.get('b', 'v1'), cache.get('c', 'v1')]).toEqual([undefined, 'B', 'C']);
    expect(cache.get('b', 'v2')).toBeUndefined();
  });

  it('keeps at most about `maxHeld` characters of answers, a replaced answer counted once', () => {
    const cache = new StockAnswerCache(100, 10);
    cache.set('a', 'v1', 'xxxx');
    cache.set('a', 'v2', 'yyyy');
    cache.set('b', 'v1', 'zzzz');
    expect(cache.size).toBe(2);
    cache.set('c', 'v1', 'wwww');
    expect([cache.get('a', 'v2'), cache.get('b', 'v1'), cache.get('c', 'v1')]).toEqual([undefined, 'zzzz', 'wwww']);
    cache.set('d', 'v1', 'x'.repeat(11));
    expect(cache.size).toBe(0);
  });
});

for (const dialect of DIALECTS) {
  describe(`stock answers and writers outside the ledger's code (${dialect.name})`, () => {
    let t: TestApp;
    const stockOf = async () => {
      const response = await t.get(`${API}/stores/G1/products/G-1/stock`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().products[0].most_likely_stock as number;
    };

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('G1')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: [productInput('G-1')] })).statusCode).toBe(200);
      const post = await t.post(`${API}/stores/G1/products/stock/storeproductlogs`, {
        storeproductlog: [
          {
            product_number: 'G-1',
            quantity: 5,
            customer_order_line_number: 0,
            modification_datetime: '2026-01-10T10:00:00Z',
          },
        ],
      });
      expect(post.statusCode, post.body).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('a balance changed by plain SQL is seen at once: the database bumps the stock version', async () => {
      expect(await stockOf()).toBe(5);
      expect(await stockOf()).toBe(5); // now answered from the cache
      // What an older build (or a repair by hand) would do: change the balance, nothing else.
      await t.app.ctx.db
        .updateTable('stock_balances')
        .set((eb) => ({ quantity: eb('quantity', '+', 7000) }))
        .execute();
      expect(await stockOf()).toBe(12);
      // Balances are deleted only with the postings that name them (on PostgreSQL a foreign key):
      // since migration 0022 an entry's posting lives in its stock_logs row, a split entry's in
      // stock_log_parts.
      await t.app.ctx.db.updateTable('stock_logs').set({ balance_id: null, delta: null, expected: null }).execute();
      await t.app.ctx.db.deleteFrom('stock_log_parts').execute();
      await t.app.ctx.db.deleteFrom('stock_balances').execute();
      expect(await stockOf()).toBe(0);
    });

    it('a post bumps each store product it changes once, however many of its balances move; the triggers stay out of it', async () => {
      const versionOf = async () =>
        Number(
          (
            await t.app.ctx.db
              .selectFrom('store_products')
              .select('stock_version')
              .where('product_id', '=', productId)
              .executeTakeFirstOrThrow()
          ).stock_version,
        );
      const productId = Number(
        (
          await t.app.ctx.db
            .selectFrom('products')
            .select('id')
            .where('product_number', '=', 'G-1')
            .executeTakeFirstOrThrow()
        ).id,
      );
      const before = await versionOf();
      // Six balances of one product (pools 1–6), created and moved by one request.
      const entries = [1, 2, 3, 4, 5, 6].map((pool) => ({
        product_number: 'G-1',
        quantity: pool,
        customer_order_line_number: 0,
        pool_location: pool,
        modification_datetime: '2026-01-11T10:00:00Z',
      }));
      const post = await t.post(`${API}/stores/G1/products/stock/storeproductlogs`, { storeproductlog: entries });
      expect(post.statusCode, post.body).toBe(200);
      expect(await versionOf()).toBe(before + 1);
      if (dialect.name === 'sqlite') {
        // The engine's marker row lives only inside its own write transaction.
        const { rows } = await sql<{ n: number }>`select count(*) as n from engine_balance_writes`.execute(
          t.app.ctx.db,
        );
        expect(Number(rows[0]!.n)).toBe(0);
      }
      // And a writer outside the engine is still seen, after the engine wrote in this session.
      await t.app.ctx.db
        .updateTable('stock_balances')
        .set((eb) => ({ quantity: eb('quantity', '+', 1000) }))
        .where('pool', '=', 6)
        .execute();
      expect(await versionOf()).toBe(before + 2);
    });
  });
}
