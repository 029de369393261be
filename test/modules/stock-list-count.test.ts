import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, productInput, storeInput } from '../helpers/factories.js';

/**
 * total_count of GET /storeproducts/stock is kept per filter set while the versions it
 * depends on hold (store-stock/count-cache.ts). Each test changes what the count counts —
 * through the API and behind the service's back, as another process or a manual fix would —
 * and the next page must count it, never an older total.
 */

const LIST = `${API}/storeproducts/stock`;
const entry = (productNumber: string) => ({
  product_number: productNumber,
  quantity: 1,
  customer_order_line_number: 0,
  modification_datetime: '2026-01-10T10:00:00Z',
});

for (const dialect of DIALECTS) {
  describe(`stock list total_count follows every change (${dialect.name})`, () => {
    let t: TestApp;

    const ok = async (response: Promise<{ statusCode: number; body: string }>) => {
      const answered = await response;
      expect(answered.statusCode, answered.body).toBe(200);
    };
    const book = (store: string, products: string[]) =>
      ok(t.post(`${API}/stores/${store}/products/stock/storeproductlogs`, { storeproductlog: products.map(entry) }));
    const total = async (query: string) => {
      const response = await t.get(`${LIST}?page_size=1&${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { total_count: number }).total_count;
    };

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await ok(t.post(`${API}/stores`, { stores: [storeInput('C1'), storeInput('C2')] }));
      await ok(t.post(`${API}/categories`, { categories: [categoryInput('KA'), categoryInput('KB')] }));
      await ok(
        t.post(`${API}/products`, {
          products: ['Q1', 'Q2', 'Q3', 'Q4', 'Q5'].map((number, index) =>
            productInput(number, { category_code: index < 3 ? 'KA' : 'KB', barcode: `99${index}` }),
          ),
        }),
      );
      await book('C1', ['Q1', 'Q2']);
      await book('C2', ['Q1']);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('a product booked for the first time in a store is counted on the next page', async () => {
      expect(await total('store_number=C1')).toBe(2);
      expect(await total('store_number=C1')).toBe(2);
      await book('C1', ['Q3']);
      expect(await total('store_number=C1')).toBe(3);
      // Stock of products the store already has changes no count.
      await book('C1', ['Q1', 'Q2']);
      expect(await total('store_number=C1')).toBe(3);
      expect(await total('store_number=C2')).toBe(1);
    });

    it('a soft-deleted product leaves the count, and comes back when it is sent again', async () => {
      const before = await total('store_number=C1');
      await ok(t.request({ method: 'DELETE', url: `${API}/products`, payload: { product_number: ['Q2'] } }));
      expect(await total('store_number=C1')).toBe(before - 1);
      await ok(t.post(`${API}/products`, { products: [productInput('Q2', { category_code: 'KA', barcode: '991' })] }));
      expect(await total('store_number=C1')).toBe(before);
    });

    it('product filters follow the products and categories they depend on', async () => {
      expect(await total('store_number=C1&category_code=KB')).toBe(0);
      await ok(t.post(`${API}/products`, { products: [productInput('Q1', { category_code: 'KB', barcode: '990' })] }));
      expect(await total('store_number=C1&category_code=KB')).toBe(1);
      expect(await total('store_number=C1&parent_category_code=TOP')).toBe(0);
      await ok(
        t.post(`${API}/categories`, {
          categories: [categoryInput('TOP'), categoryInput('KB', { parent_category_code: 'TOP' })],
        }),
      );
      expect(await total('store_number=C1&parent_category_code=TOP')).toBe(1);
      expect(await total('barcode=990')).toBe(2);
    });

    it('store products written or soft-deleted behind the service (another process, a manual fix) are counted at once', async () => {
      const db = t.app.ctx.db;
      const before = await total('store_number=C2');
      const store = await db
        .selectFrom('stores')
        .select(['id', 'store_number'])
        .where('store_number', '=', 'C2')
        .executeTakeFirstOrThrow();
      const product = await db
        .selectFrom('products')
        .select(['id', 'product_number'])
        .where('product_number', '=', 'Q5')
        .executeTakeFirstOrThrow();
      const now = Date.now();
      await db
        .insertInto('store_products')
        .values({
          store_id: store.id,
          store_number: store.store_number,
          product_id: product.id,
          product_number: product.product_number,
          created_on: now,
          updated_on: now,
          created_by: 'manual',
          modified_by: 'manual',
          deleted_on: null,
          content_hash: '',
        } as never)
        .execute();
      expect(await total('store_number=C2')).toBe(before + 1);
      await db
        .updateTable('store_products')
        .set({ deleted_on: now })
        .where('store_id', '=', store.id)
        .where('product_id', '=', product.id)
        .execute();
      expect(await total('store_number=C2')).toBe(before);
      await db
        .updateTable('store_products')
        .set({ deleted_on: null })
        .where('store_id', '=', store.id)
        .where('product_id', '=', product.id)
        .execute();
      expect(await total('store_number=C2')).toBe(before + 1);
      await db
        .deleteFrom('store_products')
        .where('store_id', '=', store.id)
        .where('product_id', '=', product.id)
        .execute();
      expect(await total('store_number=C2')).toBe(before);
    });

    it('a soft-deleted store leaves the cross-store count', async () => {
      const everything = await total('');
      const inC2 = await total('store_number=C2');
      await ok(t.post(`${API}/stores?flush=true`, { stores: [storeInput('C1')] }));
      expect(await total('')).toBe(everything - inC2);
      await ok(t.post(`${API}/stores`, { stores: [storeInput('C2')] }));
      expect(await total('')).toBe(everything);
    });
  });
}
