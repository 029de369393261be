import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, priceInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const LIST = `${API}/storeproducts/stock`;
const SINGLE = (store: string, product: string) => `${API}/stores/${store}/products/${product}/stock`;
const AROUND = (store: string, product: string) => `${API}/stores/${store}/storeproducts/${product}/surrounding`;

const entry = (productNumber: string, quantity: number, overrides: Record<string, unknown> = {}) => ({
  product_number: productNumber,
  quantity,
  customer_order_line_number: 0,
  modification_datetime: '2026-01-10T10:00:00Z',
  ...overrides,
});

interface Item {
  id: number;
  store_number: string;
  product_number: string;
  [field: string]: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of DIALECTS) {
  describe(`stock reads (${dialect.name})`, () => {
    let t: TestApp;

    async function book(store: string, lines: unknown[], query = ''): Promise<void> {
      const response = await t.post(`${LOGS(store)}${query}`, { storeproductlog: lines });
      expect(response.statusCode, response.body).toBe(200);
    }

    async function list(
      query: string,
      token?: string,
    ): Promise<{ total_count: number; list: Item[]; [k: string]: unknown }> {
      const response = await t.get(`${LIST}${query}`, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    }

    const keys = (items: Item[]) => items.map((i) => `${i.store_number}/${i.product_number}`).sort();
    const itemOf = (items: Item[], store: string, product: string) =>
      items.find((i) => i.store_number === store && i.product_number === product)!;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const ok = (r: { statusCode: number; body: string }) => expect(r.statusCode, r.body).toBe(200);
      ok(
        await t.post(`${API}/stores`, {
          stores: [
            storeInput('S1', {
              area_id: 'A',
              area_description: 'North',
              store_stock_pool_3: 'Backroom',
              price_line_id: 7,
            }),
            storeInput('S2', { area_id: 'A', area_description: 'North' }),
            storeInput('S3', { area_id: 'A', is_active: false }),
            storeInput('S4', { area_id: 'B' }),
            storeInput('S5', { area_id: 'A', area_description: 'North' }),
            storeInput('W1', { area_id: 'C', area_description: 'Central', is_warehouse: true }),
            storeInput('W2', { area_id: 'A', is_warehouse: true, is_active: false }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/categories`, {
          categories: [
            categoryInput('FOOD'),
            categoryInput('FRUIT', { parent_category_code: 'FOOD' }),
            categoryInput('DAIRY', { parent_category_code: 'FOOD' }),
            categoryInput('TOOLS'),
          ],
        }),
      );
      ok(
        await t.post(`${API}/products`, {
          products: [
            productInput('P1', {
              product_name: 'Apple',
              product_description: 'Granny Smith',
              barcode: '8710001',
              barcodes_array: [{ barcode: '8710002' }],
              units: [{ unit_barcode: '8710003', unit_name: 'tray', unit_quantity: 6 }],
              category_code: 'FRUIT',
              price: 1.99,
              purchase_unit_quantity: 12,
              purchase_unit_name: 'box',
              smallest_quantity: 0.5,
              smallest_product_number: 'P1-S',
              attention_code: ['A', 'B'],
              referral_product_number: 'P9',
            }),
            productInput('P2', { product_name: 'Milk', barcode: '5000001', category_code: 'DAIRY', price: 1.1 }),
            productInput('P3', { product_name: 'Hammer', category_code: 'TOOLS', price: 10, is_stock: false }),
            productInput('P4', { product_name: 'Gone' }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/products/prices`, {
          prices: [
            priceInput('PR1', 'P1', 1.79, { store_number: 'S1' }),
            priceInput('PR2', 'P2', 1.05),
            priceInput('PR3', 'P3', 9.5, { price_group: '7' }),
          ],
        }),
      );
      ok(await t.post(`${API}/reasoncodes`, { reason_codes: [reasonCodeInput(10, { is_loss: true })] }));
      ok(
        await t.post(`${API}/stores/S1/locations`, {
          locations: [
            { location_code: 'A-01', location_order: 2, tags: ['front'], default_stock_pool: 3 },
            { location_code: 'B-01', location_order: 1, tags: ['back'] },
            { location_code: 'C-01', location_order: 3 },
          ],
        }),
      );
      // S1/P1: unlocated 5 (pool 1) + 1 (pool 2); A-01 4 − 1 loss (pool 3); B-01 2 + 3 bound to CO-1 (pool 1); C-01 +1 −1 = a zero line.
      await book('S1', [
        entry('P1', 5),
        entry('P1', 1, { pool_location: 2 }),
        entry('P1', 4, { location_code: 'A-01' }),
        entry('P1', 2, { location_code: 'B-01' }),
        entry('P1', 3, { location_code: 'B-01', customer_order_number: 'CO-1' }),
        entry('P1', 1, { location_code: 'C-01' }),
        entry('P1', -1, { location_code: 'C-01' }),
        entry('P1', 1, { location_code: 'A-01', reason_code: 10, app_user_name: 'bob' }),
      ]);
      await book(
        'S1',
        [entry('P3', 7, { modification_datetime: '2026-01-10T12:00:00Z' })],
        '?is_counted_quantity=true&appUserName=anna',
      );
      await book('S2', [entry('P1', 7), entry('P1', 2, { customer_order_number: 'CO-2' })]);
      await book('S3', [entry('P1', 50)]);
      await book('S4', [entry('P1', 100)]);
      await book('W1', [entry('P1', 8, { pool_location: 2 })]);
      await book('S1', [entry('P4', 1)]);
      ok(
        await t.post(`${API}/stores/S1/storeproducts`, {
          products: [
            {
              product_number: 'P2',
              price: 2.5,
              min: 2,
              max: 10,
              order_level: 3,
              is_replenishment: true,
              attention_codes: ['X', 'Y'],
              average_keys: ['w1', 'w2'],
              average_array: [1.5, 2],
              next_delivery_date: '2026-02-01T06:00:00Z',
              delivery_datetimes: ['2026-02-01T06:00:00+01:00', '2026-02-08T06:00:00Z'],
            },
          ],
        }),
      );
      ok(await t.del(`${API}/products`, { product_number: ['P4'] }));
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('GET /storeproducts/stock', () => {
      it('lists every store product of live products in live stores, in id order', async () => {
        const body = await list('');
        expect(keys(body.list)).toEqual(['S1/P1', 'S1/P2', 'S1/P3', 'S2/P1', 'S3/P1', 'S4/P1', 'W1/P1']);
        expect(body.total_count).toBe(7);
        const ids = body.list.map((i) => i.id);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(body).toMatchObject({ sort_column: 'id', sort_order: 'asc', next_page: null, scroll_id: null });
        expect(body.project_last_modified_date).toEqual(expect.any(String));
      });

      it('sums every balance into most_likely_quantity and the ten pools, order-bound stock included', async () => {
        const p1 = itemOf((await list('?store_number=S1')).list, 'S1', 'P1');
        expect(p1).toMatchObject({
          most_likely_quantity: 14,
          most_likely_pool_1: 10,
          most_likely_pool_2: 1,
          most_likely_pool_3: 3,
          most_likely_pool_4: 0,
          most_likely_pool_10: 0,
        });
        expect(p1.store_locations).toBeUndefined();
      });

      it('exclude_customer_order_stock leaves order-bound balances out of every quantity', async () => {
        const body = await list('?store_number=S1&exclude_customer_order_stock=true&include_locations=true');
        const p1 = itemOf(body.list, 'S1', 'P1');
        expect(p1).toMatchObject({ most_likely_quantity: 11, most_likely_pool_1: 7 });
        expect(
          (p1.store_locations as Array<{ store_location_code?: string; quantity: number }>).find(
            (l) => l.store_location_code === 'B-01',
          )!.quantity,
        ).toBe(2);
        expect(body.list_filters).toMatchObject({ store_number: ['S1'], exclude_customer_order_stock: ['true'] });
      });

      it('include_locations adds one entry per location and one for unlocated stock; zero lines are left out', async () => {
        const p1 = itemOf((await list('?store_number=S1&include_locations=true')).list, 'S1', 'P1');
        const locations = p1.store_locations as Array<Record<string, unknown>>;
        expect(locations.map((l) => l.store_location_code)).toEqual(['B-01', 'A-01', undefined]);
        expect(locations[0]).toMatchObject({ quantity: 5, stock_pool_1: 5, stock_pool_3: 0, tags: ['back'] });
        expect(locations[0]!.default_stock_pool).toBeUndefined();
        expect(locations[1]).toMatchObject({
          quantity: 3,
          stock_pool_3: 3,
          default_stock_pool: 'Backroom',
          tags: ['front'],
        });
        expect(locations[2]).toEqual({
          quantity: 6,
          ...Object.fromEntries(
            Array.from({ length: 10 }, (_, i) => [`stock_pool_${i + 1}`, i === 0 ? 5 : i === 1 ? 1 : 0]),
          ),
        });
        expect(locations.every((l) => l.carrier_code === undefined)).toBe(true);
      });

      it('fills the §2.5 fields from the store product, the product master, the category and the ledger bookkeeping', async () => {
        const items = (await list('?store_number=S1')).list;
        expect(itemOf(items, 'S1', 'P1')).toMatchObject({
          is_stock: true,
          is_replenishment: false,
          product_description: 'Apple',
          barcode: '8710001',
          category_code: 'FRUIT',
          category_name: 'Category FRUIT',
          price: 1.79, // store-scoped price record beats the master price
          purchase_unit_quantity: 12,
          purchase_unit_name: 'box',
          smallest_item_quantity: 0.5,
          smallest_product_number: 'P1-S',
          attention_codes: 'A,B',
          referral_product: 'P9',
          last_loss_updatedby: 'bob',
          most_likely_datetime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        });
        expect(itemOf(items, 'S1', 'P2')).toMatchObject({
          is_replenishment: true,
          most_likely_quantity: 0,
          price: 2.5, // the store product's own price beats the chain price record (1.05)
          min: 2,
          max: 10,
          order_level: 3,
          original_min: 2,
          original_max: 10,
          storeproduct_attention_codes: 'X,Y',
          average_array: '1.5,2',
          next_delivery_datetime: '2026-02-01T06:00:00.000Z',
          delivery_datetimes: ['2026-02-01T05:00:00.000Z', '2026-02-08T06:00:00.000Z'],
        });
        // Never booked: its stock moment is the moment it was created (PRODUCT §3.1, issue 41).
        const p2 = await t.app.ctx.db
          .selectFrom('store_products')
          .select('created_on')
          .where('store_number', '=', 'S1')
          .where('product_number', '=', 'P2')
          .executeTakeFirstOrThrow();
        expect(itemOf(items, 'S1', 'P2').most_likely_datetime).toBe(new Date(Number(p2.created_on)).toISOString());
        expect(itemOf(items, 'S1', 'P3')).toMatchObject({
          is_stock: false,
          price: 9.5, // price-group record matching the store's price line
          most_likely_quantity: 7,
          last_counted_datetime: '2026-01-10T12:00:00.000Z',
        });
        const s2 = (await list('?store_number=S2')).list;
        expect(itemOf(s2, 'S2', 'P1')).toMatchObject({ price: 1.99, most_likely_quantity: 9 }); // master price; S1's record does not apply
      });

      it('filters by product number, article_no, barcode (product, barcodes_array, unit), category and parent category', async () => {
        const p1Everywhere = ['S1/P1', 'S2/P1', 'S3/P1', 'S4/P1', 'W1/P1'];
        expect(keys((await list('?product_number=P1')).list)).toEqual(p1Everywhere);
        expect(keys((await list('?article_no=P1')).list)).toEqual(p1Everywhere);
        expect((await list('?article_no=P1&product_number=P2')).total_count).toBe(0);
        for (const barcode of ['8710001', '8710002', '8710003'])
          expect(keys((await list(`?barcode=${barcode}`)).list)).toEqual(p1Everywhere);
        expect((await list('?barcode=999')).total_count).toBe(0);
        expect(keys((await list('?category_code=DAIRY')).list)).toEqual(['S1/P2']);
        expect(keys((await list('?parent_category_code=FOOD&store_number=S1')).list)).toEqual(['S1/P1', 'S1/P2']);
        expect((await list('?parent_category_code=FRUIT')).total_count).toBe(0);
      });

      it('search_text: case-insensitive literal substring of number, name, description or barcode', async () => {
        const s1 = (q: string) =>
          list(`?store_number=S1&search_text=${encodeURIComponent(q)}`).then((b) => keys(b.list));
        expect(await s1('hAMM')).toEqual(['S1/P3']);
        expect(await s1('smith')).toEqual(['S1/P1']);
        expect(await s1('0001')).toEqual(['S1/P1', 'S1/P2']); // 8710001 and 5000001
        expect(await s1('10003')).toEqual(['S1/P1']); // unit barcode
        expect(await s1('p')).toEqual(['S1/P1', 'S1/P2', 'S1/P3']);
        expect(await s1('%')).toEqual([]);
      });

      it('from_id and to_id are an inclusive id range', async () => {
        const ids = (await list('')).list.map((i) => i.id);
        expect((await list(`?from_id=${ids[1]}&to_id=${ids[2]}`)).list.map((i) => i.id)).toEqual([ids[1], ids[2]]);
        expect((await list(`?from_id=${ids[6]}`)).list.map((i) => i.id)).toEqual([ids[6]]);
      });

      it('pages by page_start and walks by scroll_id to the same records', async () => {
        const all = (await list('')).list.map((i) => i.id);
        const walked: number[] = [];
        let page = await list('?page_size=3');
        expect(page).toMatchObject({ page_size: 3, page_start: 1, total_count: 7, next_page: 2, previous_page: null });
        walked.push(...page.list.map((i) => i.id));
        while (page.scroll_id) {
          page = await list(`?page_size=3&scroll_id=${encodeURIComponent(page.scroll_id as string)}`);
          walked.push(...page.list.map((i) => i.id));
        }
        expect(walked).toEqual(all);
        expect(page).toMatchObject({ page_start: 3, next_page: null, previous_page: 2 });
        expect((await list('?page_size=3&page_start=2')).list.map((i) => i.id)).toEqual(all.slice(3, 6));
        const past = await list('?page_size=3&page_start=9');
        expect(past.list).toEqual([]);
        expect(past.total_count).toBe(7);
      });

      it('last_modified_date and last_stock_modified_datetime select what changed since', async () => {
        await sleep(5);
        const since = new Date().toISOString();
        expect((await list(`?last_modified_date=${since}`)).total_count).toBe(0);
        expect((await list(`?last_stock_modified_datetime=${since}`)).total_count).toBe(0);
        expect(
          (await t.put(`${API}/stores/S1/storeproducts`, { products: [{ product_number: 'P2', group_code: 'G7' }] }))
            .statusCode,
        ).toBe(200);
        await book('S2', [entry('P1', 1)]);
        const modified = (await list(`?last_modified_date=${since}`)).list;
        expect(keys(modified)).toEqual(['S1/P2']);
        expect(modified[0]!.group_code).toBe('G7');
        const stockChanged = (await list(`?last_stock_modified_datetime=${since}`)).list;
        expect(keys(stockChanged)).toEqual(['S2/P1']);
        expect(stockChanged[0]!.most_likely_quantity).toBe(10);
        expect((await list('?last_stock_modified_datetime=2100-01-01T00:00:00Z')).total_count).toBe(0);
      });

      it('query names are case-insensitive', async () => {
        expect(keys((await list('?Store_Number=S1&Product_Number=P3')).list)).toEqual(['S1/P3']);
      });

      it('a store token sees only its stores', async () => {
        const token = await t.token('store', ['S1']);
        expect(keys((await list('', token)).list)).toEqual(['S1/P1', 'S1/P2', 'S1/P3']);
        expect((await list('?store_number=S2', token)).total_count).toBe(0);
        expect((await list('?store_number=NOPE')).total_count).toBe(0);
      });

      it('bad input is a 400', async () => {
        for (const query of [
          'page_size=abc',
          'last_modified_date=yesterday',
          'last_stock_modified_datetime=2026-02-30T00:00:00Z',
          'from_id=1.5',
          'include_locations=maybe',
          'scroll_id=forged',
        ]) {
          const response = await t.get(`${LIST}?${query}`);
          expect(response.statusCode, query).toBe(400);
          expect(response.json().code).toBe('VALIDATION_FAILED');
        }
        const first = await list('?page_size=2');
        const otherFilters = await t.get(
          `${LIST}?page_size=2&store_number=S1&scroll_id=${encodeURIComponent(first.scroll_id as string)}`,
        );
        expect(otherFilters.statusCode).toBe(400);
      });
    });

    describe('GET /stores/{s}/products/{p}/stock', () => {
      const single = async (url: string, token?: string) => {
        const response = await t.get(url, token);
        expect(response.statusCode, response.body).toBe(200);
        return response.json().products as Array<Record<string, unknown>>;
      };

      it('by product number: total and the non-zero pools; zero pools are left out by default', async () => {
        const [entry] = await single(SINGLE('S1', 'P1'));
        expect(entry).toEqual({
          most_likely_stock: 14,
          stock_pool_1: 10,
          stock_pool_2: 1,
          stock_pool_3: 3,
          product_number: 'P1',
          store_number: 'S1',
        });
      });

      it('by product barcode, barcodes_array barcode or unit barcode', async () => {
        for (const barcode of ['8710001', '8710002', '8710003']) {
          const [entry] = await single(SINGLE('S1', barcode));
          expect(entry).toMatchObject({ product_number: 'P1', most_likely_stock: 14 });
        }
      });

      it('include_zero_lines keeps every pool and the zero location line', async () => {
        const [entry] = await single(`${SINGLE('S1', 'P1')}?include_zero_lines=true&include_locations=true`);
        expect(entry).toMatchObject({ stock_pool_4: 0, stock_pool_10: 0 });
        const locations = entry!.store_locations as Array<Record<string, unknown>>;
        expect(locations.map((l) => l.store_location_code)).toEqual(['B-01', 'A-01', 'C-01', undefined]);
        expect(locations[2]).toMatchObject({ quantity: 0, stock_pool_1: 0 });
      });

      it('include_locations without zero lines: non-zero pools only', async () => {
        const [entry] = await single(`${SINGLE('S1', 'P1')}?include_locations=true`);
        expect(entry!.store_locations).toEqual([
          { quantity: 5, stock_pool_1: 5, store_location_code: 'B-01', tags: ['back'] },
          {
            quantity: 3,
            stock_pool_3: 3,
            store_location_code: 'A-01',
            tags: ['front'],
            default_stock_pool: 'Backroom',
          },
          { quantity: 6, stock_pool_1: 5, stock_pool_2: 1 },
        ]);
      });

      it('exclude_customer_order_stock leaves the order-bound balance out', async () => {
        const [entry] = await single(`${SINGLE('S1', 'P1')}?exclude_customer_order_stock=true&include_locations=true`);
        expect(entry).toMatchObject({ most_likely_stock: 11, stock_pool_1: 7 });
        expect((entry!.store_locations as Array<{ quantity: number }>)[0]!.quantity).toBe(2);
      });

      it('a product without stock in the store answers 0 with its schedule', async () => {
        expect(await single(SINGLE('S1', 'P2'))).toEqual([
          {
            most_likely_stock: 0,
            product_number: 'P2',
            store_number: 'S1',
            next_delivery_datetime: '2026-02-01T06:00:00.000Z',
            delivery_datetimes: ['2026-02-01T05:00:00.000Z', '2026-02-08T06:00:00.000Z'],
          },
        ]);
        expect(await single(`${SINGLE('S5', '5000001')}?include_locations=true`)).toEqual([
          { most_likely_stock: 0, product_number: 'P2', store_number: 'S5', store_locations: [] },
        ]);
      });

      it('unknown store, unknown product or barcode, and a deleted product are 404', async () => {
        for (const url of [SINGLE('NOPE', 'P1'), SINGLE('S1', 'NOPE'), SINGLE('S1', '0000000'), SINGLE('S1', 'P4')]) {
          const response = await t.get(url);
          expect(response.statusCode, url).toBe(404);
          expect(response.json().code).toBe('NOT_FOUND');
        }
      });

      it("a store token may read its store's stock only", async () => {
        const token = await t.token('store', ['S1']);
        expect((await t.get(SINGLE('S1', 'P1'), token)).statusCode).toBe(200);
        expect((await t.get(SINGLE('S2', 'P1'), token)).statusCode).toBe(403);
        expect((await t.get(`${SINGLE('S1', 'P1')}?include_zero_lines=sometimes`)).statusCode).toBe(400);
        expect((await t.get(SINGLE('S1', 'x'.repeat(65)))).statusCode).toBe(400);
      });
    });

    describe('GET /stores/{s}/storeproducts/{p}/surrounding', () => {
      const around = async (url: string, token?: string) => {
        const response = await t.get(url, token);
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as Array<Record<string, unknown>>;
      };

      it('other active stores of the area, zero stock included, then every active warehouse', async () => {
        const entries = await around(AROUND('S1', 'P1'));
        expect(entries.map((e) => e.store_number)).toEqual(['S2', 'S5', 'W1']);
        expect(entries[0]).toMatchObject({
          is_warehouse: false,
          most_likely_quantity: 10,
          most_likely_pool_1: 10,
          store_name: 'Store S2',
          area_id: 'A',
          area_description: 'North',
        });
        expect(entries[1]).toMatchObject({ is_warehouse: false, most_likely_quantity: 0, most_likely_pool_1: 0 });
        expect(entries[2]).toMatchObject({
          is_warehouse: true,
          most_likely_quantity: 8,
          most_likely_pool_1: 0,
          most_likely_pool_2: 8,
          area_id: 'C',
        });
      });

      it('the product by barcode; another area sees only the warehouses', async () => {
        expect((await around(AROUND('S1', '8710003'))).map((e) => e.store_number)).toEqual(['S2', 'S5', 'W1']);
        expect((await around(AROUND('S4', '8710002'))).map((e) => e.store_number)).toEqual(['W1']);
        expect((await around(AROUND('W1', 'P1'))).map((e) => e.store_number)).toEqual([]);
      });

      it('order-bound stock counts unless exclude_customer_order_stock=true', async () => {
        const s2 = (await around(`${AROUND('S1', 'P1')}?exclude_customer_order_stock=true`))[0]!;
        expect(s2).toMatchObject({ store_number: 'S2', most_likely_quantity: 8 });
      });

      it('404 for an unknown store or product, 403 for another store of a store token', async () => {
        expect((await t.get(AROUND('NOPE', 'P1'))).statusCode).toBe(404);
        expect((await t.get(AROUND('S1', 'NOPE'))).statusCode).toBe(404);
        const token = await t.token('store', ['S1']);
        expect((await t.get(AROUND('S1', 'P1'), token)).statusCode).toBe(200);
        expect((await t.get(AROUND('S2', 'P1'), token)).statusCode).toBe(403);
      });
    });
  });
}
