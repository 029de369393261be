import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  entriesOfDay,
  productNumberOf,
  seededRandom,
  storeNumberOf,
  type ChainOptions,
} from '../../src/generate/chain-plan.js';
import { generateChain } from '../../src/generate/generate-chain.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

const OPTIONS: ChainOptions = { stores: 3, products: 40, days: 12, entriesPerDay: 150, seed: 7 };

describe('chain plan', () => {
  it('gives the same history for the same seed, in time order within a day', () => {
    const day = Date.UTC(2026, 0, 1);
    const one = entriesOfDay(OPTIONS, seededRandom(3), day);
    expect(entriesOfDay(OPTIONS, seededRandom(3), day)).toEqual(one);
    expect(entriesOfDay(OPTIONS, seededRandom(4), day)).not.toEqual(one);
    expect(one.map((e) => e.at)).toEqual([...one.map((e) => e.at)].sort((a, b) => a - b));
    expect(
      one.every(
        (e) => e.at >= day && e.at < day + 86_400_000 && e.store < OPTIONS.stores && e.product < OPTIONS.products,
      ),
    ).toBe(true);
  });
});

/**
 * `store-ops generate` writes a chain the service reads and writes on as if the API had
 * built it: verify is clean, every level is its ledger sum and the stock read shows it, the
 * ERP pulls count it exactly, and new postings continue the id sequences.
 */
for (const dialect of DIALECTS) {
  describe(`store-ops generate (${dialect.name})`, () => {
    let t: TestApp;
    const now = Date.now();
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const summary = await generateChain(t.app.ctx, OPTIONS, () => undefined, now);
      expect(summary).toMatchObject({ stores: 3, products: 40, storeProducts: 120, entries: 120 + 12 * 150 });
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('leaves every invariant holding', async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('shows each level as the sum of its ledger entries in the stock read', async () => {
      const sums = await t.app.ctx.db
        .selectFrom('stock_ledger as g')
        .innerJoin('stock_balances as b', 'b.id', 'g.balance_id')
        .select(['b.store_id', 'b.product_id', (eb) => eb.fn.sum<number>('g.delta').as('total')])
        .groupBy(['b.store_id', 'b.product_id'])
        .execute();
      expect(sums).toHaveLength(120);
      const stores = new Map(
        (await t.app.ctx.db.selectFrom('stores').select(['id', 'store_number']).execute()).map((s) => [
          s.id,
          s.store_number,
        ]),
      );
      const products = new Map(
        (await t.app.ctx.db.selectFrom('products').select(['id', 'product_number']).execute()).map((p) => [
          p.id,
          p.product_number,
        ]),
      );
      for (const sum of sums.filter((_, i) => i % 17 === 0)) {
        const answer = await t.get(
          `${API}/stores/${stores.get(sum.store_id)}/products/${products.get(sum.product_id)}/stock`,
        );
        expect(answer.statusCode).toBe(200);
        expect(answer.json().products[0].most_likely_stock).toBe(Number(sum.total) / 1000);
      }
    });

    it('counts the ERP log pull exactly by last_modified_date', async () => {
      const since = now - 3 * 86_400_000;
      const expected = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('updated_on', '>=', since)
        .executeTakeFirstOrThrow();
      const page = await t.get(
        `${API}/products/stock/storeproductlogs?last_modified_date=${new Date(since).toISOString()}&Page_Size=200&Page_Start=1`,
      );
      expect(page.statusCode).toBe(200);
      expect(page.json().total_count).toBe(Number(expected.n));
      expect(Number(expected.n)).toBeGreaterThan(300);
    });

    it('takes new postings after the generated ids, and stays consistent', async () => {
      const before = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow();
      const path = `${API}/stores/${storeNumberOf(1)}/products/stock/storeproductlogs`;
      const stock = async () =>
        (await t.get(`${API}/stores/${storeNumberOf(1)}/products/${productNumberOf(5)}/stock`)).json().products[0]
          .most_likely_stock;
      const level = await stock();
      const posted = await t.post(path, {
        storeproductlog: [
          {
            product_number: productNumberOf(5),
            quantity: 4,
            customer_order_line_number: 0,
            modification_datetime: new Date(now).toISOString(),
          },
        ],
      });
      expect(posted.statusCode).toBe(200);
      expect(await stock()).toBe(level + 4);
      const after = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow();
      expect(Number(after.id)).toBe(Number(before.id) + 1);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('refuses to write into a database that already has a chain', async () => {
      await expect(generateChain(t.app.ctx, OPTIONS, () => undefined, now)).rejects.toThrow(/empty database/);
    });
  });
}
