import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

// PRODUCT §4 "everything a store token reads — lists, counts, project_last_modified_date,
// total_count — reflects only its stores", §3.1: every list figure comes from the same store
// scope as its rows (shared/access.ts listScope, db/page.ts inStores and newestUpdatedOn).
// Each list gets S1's rows first and S2's later, then S2's are changed again: an S1 token
// must keep seeing S1's count and S1's newest updated_on; the admin token the whole resource.

type Json = Record<string, any>;

const DELIVERIES = `${API}/orders/deliveries`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const RECEIVE = (store: string, order: string) =>
  `${API}/stores/${store}/orders/deliveries/${encodeURIComponent(order)}/receive`;

/** Lets the clock pass the last write, so a later write gets a later updated_on and an as-of listing sees it. */
async function tick(): Promise<void> {
  const at = Date.now();
  while (Date.now() <= at + 1) await new Promise((resolve) => setTimeout(resolve, 1));
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

for (const dialect of DIALECTS) {
  describe(`what a store token's lists show (${dialect.name})`, () => {
    let t: TestApp;
    let s1: string;
    let s1Id: number;

    /** Newest updated_on of a table's rows, all or one store's, as the list would show it. */
    async function newest(
      table: 'stores' | 'delivery_orders' | 'receipt_orders' | 'stock_logs' | 'customer_orders',
      store?: string,
    ): Promise<string | null> {
      let query = t.app.ctx.db.selectFrom(table).select((eb) => eb.fn.max('updated_on').as('last'));
      if (store !== undefined) query = query.where('store_number', '=', store);
      return iso((await query.executeTakeFirst())?.last);
    }

    async function newestStoreProduct(storeId?: number): Promise<string | null> {
      let query = t.app.ctx.db.selectFrom('store_products').select((eb) => eb.fn.max('updated_on').as('last'));
      if (storeId !== undefined) query = query.where('store_id', '=', storeId);
      return iso((await query.executeTakeFirst())?.last);
    }

    async function page(url: string, token?: string): Promise<Json> {
      const response = await t.get(url, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    }

    /** What an S1 token and the admin token read of a list, against what they should. */
    async function expectFigures(
      url: string,
      s1Count: number,
      s1Newest: string | null,
      allCount: number,
      allNewest: string | null,
    ): Promise<void> {
      const mine = await page(url, s1);
      expect({ total_count: mine.total_count, project_last_modified_date: mine.project_last_modified_date }).toEqual({
        total_count: s1Count,
        project_last_modified_date: s1Newest,
      });
      const all = await page(url);
      expect({ total_count: all.total_count, project_last_modified_date: all.project_last_modified_date }).toEqual({
        total_count: allCount,
        project_last_modified_date: allNewest,
      });
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('S1')] })).statusCode).toBe(200);
      await tick();
      expect((await t.post(`${API}/stores`, { stores: [storeInput('S2')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: [productInput('LP1'), productInput('LP2')] })).statusCode,
      ).toBe(200);
      s1 = await t.token('store', ['S1']);
      s1Id = (
        await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'S1').executeTakeFirstOrThrow()
      ).id;
    });

    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
    });

    it('stores', async () => {
      await expectFigures(`${API}/stores?page_size=1`, 1, await newest('stores', 'S1'), 2, await newest('stores'));
      await tick();
      expect(
        (await t.post(`${API}/stores`, { stores: [storeInput('S2', { city: 'Later' })] })).json().message,
      ).toContain('updated 1');
      expect(await newest('stores')).not.toBe(await newest('stores', 'S1'));
      await expectFigures(`${API}/stores?page_size=1`, 1, await newest('stores', 'S1'), 2, await newest('stores'));
    });

    describe('deliveries and receipts', () => {
      const delivery = (number: string, store: string, extra: Json = {}) => ({
        order_number: number,
        order_type: 1,
        datetime_expected: '2026-02-01T08:00:00Z',
        no_of_containers: 1,
        store_number: store,
        supplier_name: 'Acme',
        order_lines: [{ line_number: 1, product_number: 'LP1', quantity: 5, target_stock_pool: 1 }],
        ...extra,
      });

      beforeAll(async () => {
        expect(
          (await t.post(DELIVERIES, { orders: [delivery('SD-1', 'S1'), delivery('SD-2', 'S1')] })).statusCode,
        ).toBe(200);
        expect(
          (await t.post(RECEIVE('S1', 'SD-1'), { lines: [{ line_number: 1, received_quantity: 2 }] })).statusCode,
        ).toBe(200);
        await tick();
        expect((await t.post(DELIVERIES, { orders: [delivery('SD-3', 'S2')] })).statusCode).toBe(200);
        expect(
          (await t.post(RECEIVE('S2', 'SD-3'), { lines: [{ line_number: 1, received_quantity: 1 }] })).statusCode,
        ).toBe(200);
      });

      it('GET /orders/deliveries', async () => {
        await expectFigures(
          `${DELIVERIES}?page_size=1`,
          2,
          await newest('delivery_orders', 'S1'),
          3,
          await newest('delivery_orders'),
        );
        await tick();
        expect(
          (await t.post(DELIVERIES, { orders: [delivery('SD-3', 'S2', { description: 'changed later' })] })).json()
            .message,
        ).toContain('updated 1');
        expect(await newest('delivery_orders')).not.toBe(await newest('delivery_orders', 'S1'));
        await expectFigures(
          `${DELIVERIES}?page_size=1`,
          2,
          await newest('delivery_orders', 'S1'),
          3,
          await newest('delivery_orders'),
        );
        // A filter narrows the rows and the count, not the figure (PRODUCT §3.1: the resource type's).
        const filtered = await page(`${DELIVERIES}?status=open`, s1);
        expect(filtered).toMatchObject({
          total_count: 1,
          project_last_modified_date: await newest('delivery_orders', 'S1'),
        });
      });

      it('GET /orders/receipts and GET /stores/{s}/orders/receipts', async () => {
        await tick();
        expect(
          (await t.post(RECEIVE('S2', 'SD-3'), { lines: [{ line_number: 1, received_quantity: 1 }] })).statusCode,
        ).toBe(200);
        await tick();
        expect(await newest('receipt_orders')).not.toBe(await newest('receipt_orders', 'S1'));
        await expectFigures(
          `${API}/orders/receipts?receipt_type=1`,
          1,
          await newest('receipt_orders', 'S1'),
          2,
          await newest('receipt_orders'),
        );
        // The store path answers for its store, whoever asks.
        await expectFigures(
          `${API}/stores/S1/orders/receipts?receipt_type=1`,
          1,
          await newest('receipt_orders', 'S1'),
          1,
          await newest('receipt_orders', 'S1'),
        );
      });
    });

    it('GET /products/stock/storeproductlogs', async () => {
      const entry = (product: string, quantity: number) => ({
        product_number: product,
        quantity,
        customer_order_line_number: 0,
        modification_datetime: '2026-01-05T10:00:00Z',
      });
      expect((await t.post(LOGS('S1'), { storeproductlog: [entry('LP2', 3), entry('LP2', 1)] })).statusCode).toBe(200);
      await tick();
      expect((await t.post(LOGS('S2'), { storeproductlog: [entry('LP2', 7)] })).statusCode).toBe(200);
      const url = `${API}/products/stock/storeproductlogs?article_number=LP2&page_size=1`;
      const count = async (store?: string) => {
        let query = t.app.ctx.db
          .selectFrom('stock_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('product_number', '=', 'LP2');
        if (store !== undefined) query = query.where('store_number', '=', store);
        return Number((await query.executeTakeFirstOrThrow()).n);
      };
      expect(await newest('stock_logs')).not.toBe(await newest('stock_logs', 'S1'));
      await expectFigures(
        url,
        await count('S1'),
        await newest('stock_logs', 'S1'),
        await count(),
        await newest('stock_logs'),
      );
    });

    it('GET /storeproducts/stock', async () => {
      expect(
        (await t.post(`${API}/stores/S1/storeproducts`, { products: [{ product_number: 'LP1', min: 1 }] })).statusCode,
      ).toBe(200);
      await tick();
      expect(
        (await t.post(`${API}/stores/S2/storeproducts`, { products: [{ product_number: 'LP1', min: 1 }] })).statusCode,
      ).toBe(200);
      await tick();
      expect(
        (await t.post(`${API}/stores/S2/storeproducts`, { products: [{ product_number: 'LP1', min: 2 }] })).json()
          .message,
      ).toContain('updated 1');
      const count = async (storeId?: number) => {
        let query = t.app.ctx.db.selectFrom('store_products').select((eb) => eb.fn.countAll<number>().as('n'));
        if (storeId !== undefined) query = query.where('store_id', '=', storeId);
        return Number((await query.executeTakeFirstOrThrow()).n);
      };
      expect(await newestStoreProduct()).not.toBe(await newestStoreProduct(s1Id));
      await expectFigures(
        `${API}/storeproducts/stock?page_size=1`,
        await count(s1Id),
        await newestStoreProduct(s1Id),
        await count(),
        await newestStoreProduct(),
      );
      // A store token asking for another store's rows sees none of them, and still only its own figure.
      const elsewhere = await page(`${API}/storeproducts/stock?store_number=S2`, s1);
      expect(elsewhere).toMatchObject({
        total_count: 0,
        list: [],
        project_last_modified_date: await newestStoreProduct(s1Id),
      });
    });

    it('GET /stores/{s}/orders/customerorders', async () => {
      const order = (number: string, extra: Json = {}) => ({
        order_number: number,
        lines: [{ line_number: 1, product_number: 'LP1', quantity: 1 }],
        ...extra,
      });
      expect((await t.post(`${API}/stores/S1/orders/customerorders`, { orders: [order('SC-1')] })).statusCode).toBe(
        200,
      );
      await tick();
      expect(
        (await t.post(`${API}/stores/S2/orders/customerorders`, { orders: [order('SC-2'), order('SC-3')] })).statusCode,
      ).toBe(200);
      await tick();
      expect(
        (
          await t.post(`${API}/stores/S2/orders/customerorders`, { orders: [order('SC-2', { comment: 'later' })] })
        ).json().message,
      ).toContain('updated 1');
      expect(await newest('customer_orders')).not.toBe(await newest('customer_orders', 'S1'));
      await expectFigures(
        `${API}/stores/S1/orders/customerorders`,
        1,
        await newest('customer_orders', 'S1'),
        1,
        await newest('customer_orders', 'S1'),
      );
    });

    it('a store token with no stores sees empty lists with no figure', async () => {
      const none = await t.token('store', []);
      for (const url of [
        `${API}/stores`,
        DELIVERIES,
        `${API}/orders/receipts?receipt_type=1`,
        `${API}/products/stock/storeproductlogs`,
        `${API}/storeproducts/stock`,
      ]) {
        const body = await page(url, none);
        expect({
          url,
          total_count: body.total_count,
          list: body.list,
          project_last_modified_date: body.project_last_modified_date,
        }).toEqual({
          url,
          total_count: 0,
          list: [],
          project_last_modified_date: null,
        });
      }
    });
  });
}
