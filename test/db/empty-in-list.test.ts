import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnIn } from '../../src/db/in-list.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

/**
 * "A value in an empty list matches nothing" (db/in-list.ts columnIn). Written by hand in
 * four repositories it once bound a boolean, which better-sqlite3 refuses: two lists
 * answered 500 on SQLite (issue 10 §2). Each list that filters by a list is asked here
 * with an empty one, on every database.
 */
for (const dialect of DIALECTS) {
  describe(`an empty IN list matches nothing (${dialect.name})`, () => {
    let t: TestApp;
    let storeTokenWithoutStores: string;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('E1')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: [productInput('EP-1')] })).statusCode).toBe(200);
      const located = await t.post(`${API}/stores/E1/locations`, {
        locations: [{ location_code: 'A-01', location_order: 1, tags: ['front'] }],
      });
      expect(located.statusCode).toBe(200);
      const booked = await t.post(`${API}/stores/E1/products/stock/storeproductlogs`, {
        storeproductlog: [
          {
            product_number: 'EP-1',
            quantity: 5,
            location_code: 'A-01',
            customer_order_line_number: 0,
            modification_datetime: '2026-01-10T10:00:00Z',
          },
        ],
      });
      expect(booked.statusCode, booked.body).toBe(200);
      // The CLI refuses a store token without stores; the code path exists, so the service makes one.
      storeTokenWithoutStores = await t.token('store', []);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const emptyList = async (url: string, token?: string) => {
      const response = await t.get(url, token);
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body.list).toEqual([]);
      expect(body.total_count).toBe(0);
    };

    it('GET /stores/{s}/locations/products?jsonTag=[] (no tag asked: no location)', async () => {
      const all = (await t.get(`${API}/stores/E1/locations/products`)).json();
      expect(all.total_count).toBe(1);
      await emptyList(`${API}/stores/E1/locations/products?jsonTag=${encodeURIComponent('[]')}`);
    });

    it('GET /products/stock/storeproductlogs for a store token with no stores', async () => {
      expect((await t.get(`${API}/products/stock/storeproductlogs`)).json().total_count).toBe(1);
      await emptyList(`${API}/products/stock/storeproductlogs`, storeTokenWithoutStores);
    });

    it('the other lists a store token is limited on: stores and stock', async () => {
      await emptyList(`${API}/stores`, storeTokenWithoutStores);
      await emptyList(`${API}/storeproducts/stock`, storeTokenWithoutStores);
    });

    it('columnIn: an empty list is false, a list is IN, on the database itself', async () => {
      const db = t.app.ctx.db;
      const count = async (numbers: string[]) =>
        (
          await db
            .selectFrom('stores')
            .select('store_number')
            .where((eb) => columnIn(eb, 'store_number', numbers))
            .execute()
        ).length;
      expect(await count([])).toBe(0);
      expect(await count(['E1', 'nope'])).toBe(1);
      const negated = await db
        .selectFrom('stores')
        .select('store_number')
        .where((eb) => eb.not(columnIn(eb, 'store_number', [])))
        .execute();
      expect(negated).toHaveLength(1);
    });
  });
}
