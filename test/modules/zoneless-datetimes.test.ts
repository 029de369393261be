import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, stockLogInput, storeInput } from '../helpers/factories.js';

/**
 * PRODUCT §3 "Date-times" (issue 41): a date-time without `Z` or an offset is read as UTC, in
 * queries and bodies alike — tap-colleqtive's `start_date` and stored bookmarks look like
 * `2026-06-15T06:30:24.557` — and what the service emits keeps its `Z`.
 */
const zoneless = (at: number | string) => (typeof at === 'number' ? new Date(at).toISOString() : at).replace(/Z$/, '');

for (const dialect of DIALECTS) {
  describe(`date-times without a zone are UTC (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('Z1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: [productInput('ZP1'), productInput('ZP2')] })).statusCode,
      ).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('a body date-time without a zone is stored as that UTC moment and emitted with its Z', async () => {
      const answer = await t.post(`${API}/stores`, {
        stores: [
          storeInput('Z2', {
            store_next_delivery_datetime: '2026-06-15T06:30:24.557',
            store_next_ordering_datetime: '2026-06-15T06:30',
          }),
        ],
      });
      expect(answer.statusCode, answer.body).toBe(200);
      const store = (await t.get(`${API}/stores?search_text=Z2`)).json().list[0];
      expect(store.store_next_delivery_datetime).toBe('2026-06-15T06:30:24.557Z');
      expect(store.store_next_ordering_datetime).toBe('2026-06-15T06:30:00.000Z');
      // The same instant with its Z is the same value: nothing changes, not even updated_on.
      const before = (await t.get(`${API}/stores?page_size=1`)).json().project_last_modified_date;
      const again = await t.post(`${API}/stores`, {
        stores: [
          storeInput('Z2', {
            store_next_delivery_datetime: '2026-06-15T06:30:24.557Z',
            store_next_ordering_datetime: '2026-06-15T08:30:00+02:00',
          }),
        ],
      });
      expect(again.json().message).toMatch(/unchanged 1|created 0, updated 0/);
      expect((await t.get(`${API}/stores?page_size=1`)).json().project_last_modified_date).toBe(before);
    });

    it('an event time without a zone is booked at that UTC moment; an invalid one is still a 400', async () => {
      const at = Date.now() - 60_000;
      const booked = await t.post(`${API}/stores/Z1/products/stock/storeproductlogs?is_counted_quantity=true`, {
        storeproductlog: [stockLogInput('ZP1', 4, zoneless(at))],
      });
      expect(booked.statusCode, booked.body).toBe(200);
      const item = (await t.get(`${API}/storeproducts/stock?store_number=Z1&product_number=ZP1`)).json().list[0];
      expect(item.last_counted_datetime).toBe(new Date(at).toISOString());
      for (const bad of ['2026-02-30T10:00:00', '2026-06-15', '0000-12-31T23:59:59.999', '10000-01-01T00:00:00']) {
        const refused = await t.post(`${API}/stores/Z1/products/stock/storeproductlogs`, {
          storeproductlog: [stockLogInput('ZP1', 1, bad)],
        });
        expect(refused.statusCode, bad).toBe(400);
        expect(
          refused.json().errors.map((e: { path: string }) => e.path),
          bad,
        ).toEqual(['storeproductlog[0].modification_datetime']);
      }
      // Zone-less is UTC, so a zone-less moment 10 minutes ahead of the server's clock is in the future.
      const future = await t.post(`${API}/stores/Z1/products/stock/storeproductlogs`, {
        storeproductlog: [stockLogInput('ZP1', 1, zoneless(Date.now() + 10 * 60_000))],
      });
      expect(future.statusCode).toBe(400);
    });

    it('last_modified_date without a zone filters a list as the same moment in UTC', async () => {
      const newest = await t.app.ctx.db
        .selectFrom('products')
        .select((eb) => eb.fn.max('updated_on').as('at'))
        .executeTakeFirstOrThrow();
      const updated = Number(newest.at);
      const listed = async (value: string) => {
        const answer = await t.get(`${API}/products?last_modified_date=${encodeURIComponent(value)}`);
        expect(answer.statusCode, answer.body).toBe(200);
        return answer.json().records.map((p: { product_number: string }) => p.product_number) as string[];
      };
      expect((await listed(zoneless(updated))).length).toBeGreaterThan(0);
      expect(await listed(zoneless(updated + 1))).toEqual([]);
      expect(await listed(zoneless(updated))).toEqual(await listed(new Date(updated).toISOString()));
      // The shape tap-colleqtive sends (its own tests' start_date).
      expect((await t.get(`${API}/products?last_modified_date=2026-06-15T06:30:24.557`)).statusCode).toBe(200);
      expect(
        (await t.get(`${API}/products/stock/storeproductlogs?last_modified_date=2026-06-15T06:30:24.557`)).statusCode,
      ).toBe(200);
      expect((await t.get(`${API}/products?last_modified_date=2026-02-30T06:30:24.557`)).statusCode).toBe(400);
    });

    it('last_stock_modified_datetime without a zone pulls as the same moment in UTC', async () => {
      const before = Date.now() - 1;
      expect(
        (
          await t.post(`${API}/stores/Z1/products/stock/storeproductlogs`, {
            storeproductlog: [stockLogInput('ZP2', 2, Date.now() - 1000)],
          })
        ).statusCode,
      ).toBe(200);
      const pulled = async (value: string) => {
        const answer = await t.get(
          `${API}/storeproducts/stock?last_stock_modified_datetime=${encodeURIComponent(value)}&store_number=Z1`,
        );
        expect(answer.statusCode, answer.body).toBe(200);
        return answer.json().list.map((item: { product_number: string }) => item.product_number) as string[];
      };
      expect(await pulled(zoneless(before))).toEqual(['ZP2']);
      expect(await pulled(zoneless(before))).toEqual(await pulled(new Date(before).toISOString()));
      expect(await pulled(zoneless(Date.now() + 60_000))).toEqual([]);
      const page = (
        await t.get(`${API}/storeproducts/stock?last_stock_modified_datetime=2026-06-15T06:30:24.557`)
      ).json();
      expect(page.server_time).toMatch(/Z$/);
    });
  });
}
