import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const REVIEWED = 778;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The ERP's stock delta pull (`GET /storeproducts/stock?last_stock_modified_datetime=…`)
 * finds the store products through the entries written since (store-stock/repository.ts):
 * exact only while every stamp of stock_modified_at comes with an entry of that store product
 * written or reviewed at that moment. Checked here after each way stock changes, against
 * the column itself.
 */
for (const dialect of DIALECTS) {
  describe(`stock delta pull (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: ['D1', 'D2'].map((s) => storeInput(s)) })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: ['DP1', 'DP2', 'DP3', 'DP4'].map((p) => productInput(p)) })).statusCode).toBe(200);
      const reason = reasonCodeInput(REVIEWED, { default_review_status: 1, reason_code_type: 1, is_loss: true });
      expect((await t.post(`${API}/reasoncodes`, { reason_codes: [reason] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const book = async (store: string, entries: Array<Record<string, unknown>>, counted = false) => {
      const answer = await t.post(`${API}/stores/${store}/products/stock/storeproductlogs${counted ? '?is_counted_quantity=true' : ''}`, {
        storeproductlog: entries.map((e) => ({ customer_order_line_number: 0, modification_datetime: new Date().toISOString(), ...e })),
      });
      expect(answer.statusCode, answer.body).toBe(200);
    };
    /** Every page of the pull, as store/product keys. */
    const pulled = async (since: number) => {
      const keys: string[] = [];
      for (let page = 1; ; page++) {
        const answer = await t.get(`${API}/storeproducts/stock?last_stock_modified_datetime=${new Date(since).toISOString()}&Page_Size=2&Page_Start=${page}`);
        expect(answer.statusCode).toBe(200);
        const body = answer.json();
        keys.push(...body.list.map((item: { store_number: string; product_number: string }) => `${item.store_number}/${item.product_number}`));
        if (body.next_page === null) return { keys, total: body.total_count as number };
      }
    };
    const stamped = async (since: number) =>
      (
        await t.app.ctx.db
          .selectFrom('store_products')
          .select(['store_number', 'product_number'])
          .where('stock_modified_at', '>=', since)
          .where('deleted_on', 'is', null)
          .orderBy('id')
          .execute()
      ).map((row) => `${row.store_number}/${row.product_number}`);
    const expectPullMatchesStamps = async (since: number, expected: string[]) => {
      const { keys, total } = await pulled(since);
      expect(keys).toEqual(await stamped(since));
      expect([...keys].sort()).toEqual([...expected].sort());
      expect(total).toBe(keys.length);
    };

    it('finds exactly the store products whose stock changed since, whichever way it changed', async () => {
      const start = Date.now();
      await book('D1', [{ product_number: 'DP1', quantity: 5 }, { product_number: 'DP2', quantity: 3 }]);
      await sleep(5);
      const afterPosts = Date.now();
      await book('D2', [{ product_number: 'DP3', quantity: 7 }], true);
      await expectPullMatchesStamps(start, ['D1/DP1', 'D1/DP2', 'D2/DP3']);
      await expectPullMatchesStamps(afterPosts, ['D2/DP3']);

      // Pending entries change no stock; their review does, and stamps the store product then.
      await book('D2', [{ product_number: 'DP4', quantity: 1, reason_code: REVIEWED }]);
      await sleep(5);
      const beforeReview = Date.now();
      await expectPullMatchesStamps(beforeReview, []);
      const pending = await t.app.ctx.db.selectFrom('stock_logs').select('id').where('review_status', '=', 1).execute();
      expect((await t.post(`${API}/stores/D2/products/stock/storeproductlogs/review`, { ids: pending.map((p) => p.id), approve: true })).statusCode).toBe(200);
      await expectPullMatchesStamps(beforeReview, ['D2/DP4']);

      // A late entry before a count re-bases the count: the store product changed now.
      await sleep(5);
      const beforeLate = Date.now();
      await book('D2', [{ product_number: 'DP3', quantity: 2, modification_datetime: new Date(start - 60_000).toISOString() }]);
      await expectPullMatchesStamps(beforeLate, ['D2/DP3']);
      await expectPullMatchesStamps(start, ['D1/DP1', 'D1/DP2', 'D2/DP3', 'D2/DP4']);
      await expectPullMatchesStamps(Date.now() + 60_000, []);
    });
  });
}
