import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';
import { SPARSE_MEMBERS } from '../../src/modules/store-stock/delta-pull.js';
import { deltaPullsOf } from '../../src/modules/store-stock/service.js';
import { stampViolations } from '../../src/ledger/stamp-invariants.js';

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
      expect(
        (
          await t.post(`${API}/products`, {
            products: ['DP1', 'DP2', 'DP3', 'DP4', 'DP5', 'DP6'].map((p) => productInput(p)),
          })
        ).statusCode,
      ).toBe(200);
      const reason = reasonCodeInput(REVIEWED, { default_review_status: 1, reason_code_type: 1, is_loss: true });
      expect((await t.post(`${API}/reasoncodes`, { reason_codes: [reason] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const book = async (store: string, entries: Array<Record<string, unknown>>, counted = false) => {
      const answer = await t.post(
        `${API}/stores/${store}/products/stock/storeproductlogs${counted ? '?is_counted_quantity=true' : ''}`,
        {
          storeproductlog: entries.map((e) => ({
            customer_order_line_number: 0,
            modification_datetime: new Date().toISOString(),
            ...e,
          })),
        },
      );
      expect(answer.statusCode, answer.body).toBe(200);
    };
    /** Every page of the pull, as store/product keys. */
    const pulled = async (since: number) => {
      const keys: string[] = [];
      for (let page = 1; ; page++) {
        const answer = await t.get(
          `${API}/storeproducts/stock?last_stock_modified_datetime=${new Date(since).toISOString()}&Page_Size=2&Page_Start=${page}`,
        );
        expect(answer.statusCode).toBe(200);
        const body = answer.json();
        keys.push(
          ...body.list.map(
            (item: { store_number: string; product_number: string }) => `${item.store_number}/${item.product_number}`,
          ),
        );
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
      await book('D1', [
        { product_number: 'DP1', quantity: 5 },
        { product_number: 'DP2', quantity: 3 },
      ]);
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
      expect(
        (
          await t.post(`${API}/stores/D2/products/stock/storeproductlogs/review`, {
            ids: pending.map((p) => p.id),
            approve: true,
          })
        ).statusCode,
      ).toBe(200);
      await expectPullMatchesStamps(beforeReview, ['D2/DP4']);

      // A late entry before a count re-bases the count: the store product changed now.
      await sleep(5);
      const beforeLate = Date.now();
      await book('D2', [
        { product_number: 'DP3', quantity: 2, modification_datetime: new Date(start - 60_000).toISOString() },
      ]);
      await expectPullMatchesStamps(beforeLate, ['D2/DP3']);
      await expectPullMatchesStamps(start, ['D1/DP1', 'D1/DP2', 'D2/DP3', 'D2/DP4']);
      await expectPullMatchesStamps(Date.now() + 60_000, []);
    });

    it('a store product created without stock is pulled by its creation moment until its first stock change (PRODUCT §3.1, issue 41)', async () => {
      const live = async () =>
        (
          await t.app.ctx.db
            .selectFrom('store_products')
            .select(['store_number', 'product_number'])
            .where('deleted_on', 'is', null)
            .execute()
        ).map((row) => `${row.store_number}/${row.product_number}`);
      /** Both ways the pull finds its candidates: from the window's entries and by walking the stamps. */
      const bothPaths = async (check: () => Promise<void>) => {
        for (const sparse of [SPARSE_MEMBERS, 0]) {
          deltaPullsOf(t.app.ctx.handle).sparseMembers = sparse;
          await check();
        }
        deltaPullsOf(t.app.ctx.handle).sparseMembers = SPARSE_MEMBERS;
      };
      await sleep(5);
      const beforeCreation = Date.now();
      // The ERP creates two with no stock; a booking whose only entry awaits review creates a third.
      const created = await t.post(`${API}/stores/D1/storeproducts`, {
        products: [
          { product_number: 'DP5', min: 2 },
          { product_number: 'DP6', max: 9 },
        ],
      });
      expect(created.statusCode, created.body).toBe(200);
      await book('D2', [{ product_number: 'DP5', quantity: 1, reason_code: REVIEWED }]);
      await sleep(5);
      const afterCreation = Date.now();
      const fresh = ['D1/DP5', 'D1/DP6', 'D2/DP5'];

      await bothPaths(async () => {
        // A first full pull lists every store product, each once across the pages.
        const first = await pulled(0);
        expect(new Set(first.keys).size).toBe(first.keys.length);
        expect([...first.keys].sort()).toEqual((await live()).sort());
        expect(first.total).toBe(first.keys.length);
        await expectPullMatchesStamps(beforeCreation, fresh);
        await expectPullMatchesStamps(afterCreation, []);
      });
      // Its stock moment is its creation.
      const row = await t.app.ctx.db
        .selectFrom('store_products')
        .select(['created_on', 'stock_modified_at'])
        .where('store_number', '=', 'D1')
        .where('product_number', '=', 'DP6')
        .executeTakeFirstOrThrow();
      expect(Number(row.stock_modified_at)).toBe(Number(row.created_on));
      const item = (await t.get(`${API}/storeproducts/stock?store_number=D1&product_number=DP6`)).json().list[0];
      expect(item.most_likely_datetime).toBe(new Date(Number(row.created_on)).toISOString());
      // An update by the ERP is no stock change: the moment stays.
      expect(
        (await t.post(`${API}/stores/D1/storeproducts`, { products: [{ product_number: 'DP6', max: 10 }] })).statusCode,
      ).toBe(200);
      await bothPaths(() => expectPullMatchesStamps(afterCreation, []));
      expect(await stampViolations(t.app.ctx.handle)).toEqual([]);
      expect(await stampViolations(t.app.ctx.handle, beforeCreation)).toEqual([]);

      // Its first stock entry: pulled by that entry's moment from then on.
      await sleep(5);
      const beforeBooking = Date.now();
      await book('D1', [{ product_number: 'DP6', quantity: 4 }]);
      await bothPaths(async () => {
        await expectPullMatchesStamps(beforeBooking, ['D1/DP6']);
        await expectPullMatchesStamps(afterCreation, ['D1/DP6']);
        await expectPullMatchesStamps(beforeCreation, fresh);
        await expectPullMatchesStamps(Date.now() + 60_000, []);
      });
      expect(await stampViolations(t.app.ctx.handle)).toEqual([]);

      // A stamp of nothing is still found: a never-booked store product without its creation moment.
      await t.app.ctx.db
        .updateTable('store_products')
        .set({ stock_modified_at: null })
        .where('store_number', '=', 'D1')
        .where('product_number', '=', 'DP5')
        .execute();
      await t.app.ctx.db
        .updateTable('store_products')
        .set({ stock_modified_at: Date.now() - 3_600_000 })
        .where('store_number', '=', 'D2')
        .where('product_number', '=', 'DP5')
        .execute();
      const found = (await stampViolations(t.app.ctx.handle)).map((v) => v.detail);
      expect(found).toEqual([
        expect.stringMatching(/'DP5' of store 'D1' has no stock_modified_at/),
        expect.stringMatching(/'DP5' of store 'D2' has stock_modified_at/),
      ]);
      expect((await stampViolations(t.app.ctx.handle, beforeCreation)).map((v) => v.detail)).toEqual([
        expect.stringMatching(/'DP5' of store 'D1'/),
      ]);
    });
  });
}
