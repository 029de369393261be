import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import { ensureStoreProducts } from '../../src/ledger/store-products.js';
import { STORE_PRODUCT_CHECKS } from '../../src/modules/store-products/verify-checks.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

const url = (store: string) => `${API}/stores/${store}/storeproducts`;

for (const dialect of DIALECTS) {
  describe(`store products (${dialect.name})`, () => {
    let t: TestApp;
    let storeId: number;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('SP1'), storeInput('SP2')] })).statusCode).toBe(200);
      const products = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'E1', 'E2', 'E3'].map((n) => productInput(n));
      expect((await t.post(`${API}/products`, { products })).statusCode).toBe(200);
      storeId = (
        await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'SP1').executeTakeFirstOrThrow()
      ).id;
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const stored = (productNumber: string, store = 'SP1') =>
      t.app.ctx.db
        .selectFrom('store_products')
        .selectAll()
        .where('store_number', '=', store)
        .where('product_number', '=', productNumber)
        .executeTakeFirst();

    it('POST creates store products with exact scaled numbers, UTC epoch dates and JSON arrays', async () => {
      const res = await t.post(url('SP1'), {
        products: [
          {
            product_number: 'A1',
            min: 1.5,
            max: 10.125,
            order_level: 3,
            demand_until_delivery: 0.001,
            price: 2.1234,
            discount_price: 1.99,
            default_salesorder_type: 'web',
            expiry_date_time: '2026-03-01T12:00:00+01:00',
            next_delivery_date: '2026-03-02T00:00:00Z',
            next_ordering_date: '2026-03-01T08:30:00Z',
            validate_expiry_date_time: '2026-03-05T00:00:00Z',
            is_promotion: true,
            is_replenishment: false,
            attention_codes: ['X', 'Y'],
            average_keys: ['w1', 'w2'],
            average_array: [1.5, 2],
            forecast_keys: ['w3'],
            forecast_array: [4],
            history_keys: [],
            history_array: [],
            delivery_datetimes: ['2026-03-02T06:00:00+02:00'],
            ordering_datetimes: ['2026-03-01T08:30:00Z'],
          },
          { product_number: 'A2' },
        ],
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, message: 'created 2, updated 0, unchanged 0, deleted 0' });
      const row = (await stored('A1'))!;
      expect(row).toMatchObject({
        store_id: storeId,
        min: 1500,
        max: 10125,
        order_level: 3000,
        demand_until_delivery: 1,
        price: 21234,
        discount_price: 19900,
        default_salesorder_type: 'web',
        expiry_at: Date.parse('2026-03-01T11:00:00Z'),
        next_delivery_at: Date.parse('2026-03-02T00:00:00Z'),
        is_promotion: 1,
        is_replenishment: 0,
        original_min: 1500,
        original_max: 10125,
        created_by: expect.stringMatching(/admin|bootstrap/i),
      });
      expect(JSON.parse(row.attention_codes!)).toEqual(['X', 'Y']);
      expect(JSON.parse(row.average_array!)).toEqual([1.5, 2]);
      expect(JSON.parse(row.delivery_datetimes!)).toEqual(['2026-03-02T04:00:00.000Z']);
      expect(row.last_minmax_at).not.toBeNull();
      expect(row.last_minmax_by).toBe(row.created_by);
      expect(row.last_expiry_at).not.toBeNull();
      const empty = (await stored('A2'))!;
      expect(empty.min).toBeNull();
      expect(empty.last_minmax_at).toBeNull();
    });

    it('an identical re-send is unchanged and writes nothing, not even updated_on', async () => {
      const body = { products: [{ product_number: 'A3', min: 2, max: 4, average_keys: ['a'], average_array: [1] }] };
      expect((await t.post(url('SP1'), body)).json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      const before = (await stored('A3'))!;
      await new Promise((r) => setTimeout(r, 5));
      expect((await t.post(url('SP1'), body)).json().message).toBe('created 0, updated 0, unchanged 1, deleted 0');
      expect((await t.put(url('SP1'), body)).json().message).toBe('created 0, updated 0, unchanged 1, deleted 0');
      const after = (await stored('A3'))!;
      expect(after.updated_on).toBe(before.updated_on);
      expect(after.last_minmax_at).toBe(before.last_minmax_at);
    });

    it('equal date-times in different zones hash equal (unchanged)', async () => {
      await t.post(url('SP1'), { products: [{ product_number: 'A8', next_delivery_date: '2026-05-01T10:00:00Z' }] });
      const res = await t.post(url('SP1'), {
        products: [{ product_number: 'A8', next_delivery_date: '2026-05-01T12:00:00+02:00' }],
      });
      expect(res.json().message).toBe('created 0, updated 0, unchanged 1, deleted 0');
    });

    it('PUT merges: fields left out keep their value, null clears, min/max changes are stamped, originals stay', async () => {
      await t.post(url('SP1'), {
        products: [{ product_number: 'A4', min: 1, max: 5, price: 3.5, group_code: 'ignored-on-post' }],
      });
      const first = (await stored('A4'))!;
      expect(first.group_code).toBeNull(); // PUT-only field: POST ignores it
      const token = await t.token('integration');
      const put = await t.put(
        url('SP1'),
        { products: [{ product_number: 'A4', min: 2, forecast: 7.25, group_code: 'G1' }] },
        token,
      );
      expect(put.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      const second = (await stored('A4'))!;
      expect(second).toMatchObject({
        min: 2000,
        max: 5000,
        price: 35000,
        forecast: 7250,
        group_code: 'G1',
        original_min: 1000,
        original_max: 5000,
      });
      expect(second.last_minmax_by).toMatch(/^integration-/);
      expect(second.last_minmax_at).toBeGreaterThanOrEqual(first.last_minmax_at!);
      expect(second.modified_by).toMatch(/^integration-/);
      expect(second.created_by).toBe(first.created_by);
      expect(second.created_on).toBe(first.created_on);

      // A change that does not touch min/max leaves the min/max stamp alone; null clears.
      const third = await t.put(url('SP1'), { products: [{ product_number: 'A4', price: null, group_code: null }] });
      expect(third.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      const row = (await stored('A4'))!;
      expect(row).toMatchObject({ price: null, group_code: null, min: 2000, forecast: 7250 });
      expect(row.last_minmax_by).toBe(second.last_minmax_by);
      expect(row.last_minmax_at).toBe(second.last_minmax_at);
    });

    it('original_min/original_max are the first values ever set', async () => {
      await t.put(url('SP1'), { products: [{ product_number: 'A5', max: 9 }] });
      await t.put(url('SP1'), { products: [{ product_number: 'A5', min: 1, max: 12 }] });
      await t.put(url('SP1'), { products: [{ product_number: 'A5', min: 3, max: null }] });
      expect(await stored('A5')).toMatchObject({ min: 3000, max: null, original_min: 1000, original_max: 9000 });
    });

    it('unknown product numbers → 422 listing every one with its path; nothing is written', async () => {
      const res = await t.post(url('SP1'), {
        products: [{ product_number: 'NOPE1' }, { product_number: 'A6', min: 1 }, { product_number: 'NOPE2' }],
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('UNPROCESSABLE');
      expect(res.json().errors).toEqual([
        { path: 'products[0].product_number', message: expect.stringContaining('NOPE1') },
        { path: 'products[2].product_number', message: expect.stringContaining('NOPE2') },
      ]);
      expect(await stored('A6')).toBeUndefined();
    });

    it('keyed arrays of unequal length, or one without its keys → 400 naming the fields', async () => {
      const res = await t.put(url('SP1'), {
        products: [
          { product_number: 'A6', average_keys: ['a', 'b'], average_array: [1] },
          { product_number: 'A7', forecast_array: [1, 2] },
          { product_number: 'E1', history_keys: ['h'], history_array: [1], forecast_keys: ['x'], forecast_array: [] },
        ],
      });
      expect(res.statusCode).toBe(400);
      const errors = res.json().errors as Array<{ path: string; message: string }>;
      expect(errors.map((e) => e.path)).toEqual([
        'products[0].average_array',
        'products[1].forecast_array',
        'products[2].forecast_array',
      ]);
      expect(errors[0]!.message).toContain('average_keys');
      expect(errors[1]!.message).toContain('forecast_keys');
      expect(await stored('A6')).toBeUndefined();
    });

    it('bad shapes → 400 with every failing path: decimals, dates, missing product_number, duplicates', async () => {
      const res = await t.put(url('SP1'), {
        products: [
          { product_number: 'A6', min: 1.0001 },
          { product_number: 'A6', price: 1.00001 },
          { product_number: 'A6', expiry_date_time: '2026-02-30T00:00:00Z' },
          { product_number: 'A6', next_delivery_date: '2026-03-01' },
          { min: 1 },
          { product_number: 'A6', delivery_datetimes: ['yesterday'] },
          { product_number: 'A6', forecast: 'many' },
          { product_number: 'A6', max: 1e400 },
        ],
      });
      expect(res.statusCode).toBe(400);
      const paths = (res.json().errors as Array<{ path: string }>).map((e) => e.path);
      for (const path of [
        'products[0].min',
        'products[1].price',
        'products[2].expiry_date_time',
        'products[3].next_delivery_date',
        'products[4].product_number',
        'products[5].delivery_datetimes[0]',
        'products[6].forecast',
      ]) {
        expect(paths).toContain(path);
      }
      const duplicates = await t.post(url('SP1'), { products: [{ product_number: 'A6' }, { product_number: 'A6' }] });
      expect(duplicates.statusCode).toBe(400);
      expect(duplicates.json().errors[0].path).toBe('products[1].product_number');
    });

    it('unknown store → 404; store tokens only for their own store; read tokens cannot write', async () => {
      const missing = await t.post(url('NOSUCH'), { products: [{ product_number: 'A1' }] });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().code).toBe('NOT_FOUND');
      const storeToken = await t.token('store', ['SP2']);
      expect((await t.post(url('SP1'), { products: [{ product_number: 'A1' }] }, storeToken)).statusCode).toBe(403);
      const own = await t.put(url('SP2'), { products: [{ product_number: 'A1', min: 1 }] }, storeToken);
      expect(own.statusCode).toBe(200);
      expect(own.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      const read = await t.token('read');
      expect((await t.put(url('SP2'), { products: [{ product_number: 'A1' }] }, read)).statusCode).toBe(403);
      // The store's own product in the other store is untouched.
      expect((await stored('A1', 'SP2'))!.min).toBe(1000);
      expect((await stored('A1', 'SP1'))!.min).toBe(1500);
    });

    it('ensureStoreProducts creates empty store products once; an empty POST of them is unchanged', async () => {
      const { db, handle, ledger } = t.app.ctx;
      const products = await db
        .selectFrom('products')
        .select(['id', 'product_number'])
        .where('product_number', 'in', ['E1', 'E2'])
        .orderBy('id')
        .execute();
      const store = { id: storeId, store_number: 'SP1' };
      const first = await inTransaction(handle, (trx) =>
        ensureStoreProducts(trx, ledger, store, [...products, products[0]!], 1_000, 'ledger'),
      );
      expect([...first.keys()].sort()).toEqual(products.map((p) => p.id).sort());
      const again = await inTransaction(handle, (trx) =>
        ensureStoreProducts(trx, ledger, store, products, 2_000, 'ledger'),
      );
      expect(again).toEqual(first);
      const count = await db
        .selectFrom('store_products')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('product_number', 'in', ['E1', 'E2'])
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(2);
      const row = (await stored('E1'))!;
      expect(row).toMatchObject({
        id: first.get(products[0]!.id),
        min: null,
        price: null,
        created_on: 1_000,
        created_by: 'ledger',
        deleted_on: null,
      });

      const res = await t.post(url('SP1'), { products: [{ product_number: 'E1' }, { product_number: 'E2' }] });
      expect(res.json().message).toBe('created 0, updated 0, unchanged 2, deleted 0');

      // Stock bookkeeping the ledger keeps survives a property update.
      await db
        .updateTable('store_products')
        .set({ stock_modified_at: 5_000, last_counted_at: 4_000, last_counted_by: 'clerk' })
        .where('id', '=', row.id)
        .execute();
      await t.put(url('SP1'), { products: [{ product_number: 'E1', min: 1 }] });
      expect(await stored('E1')).toMatchObject({
        min: 1000,
        stock_modified_at: 5_000,
        last_counted_at: 4_000,
        last_counted_by: 'clerk',
      });
    });

    it('POST of a store product created by the ledger fills it (updated, not created)', async () => {
      const { db, handle, ledger } = t.app.ctx;
      const product = await db
        .selectFrom('products')
        .select(['id', 'product_number'])
        .where('product_number', '=', 'E3')
        .executeTakeFirstOrThrow();
      await inTransaction(handle, (trx) =>
        ensureStoreProducts(trx, ledger, { id: storeId, store_number: 'SP1' }, [product], Date.now(), 'ledger'),
      );
      const res = await t.post(url('SP1'), { products: [{ product_number: 'E3', min: 4 }] });
      expect(res.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      expect(await stored('E3')).toMatchObject({ min: 4000, original_min: 4000, created_by: 'ledger' });
    });

    it('verify: every stored store product hashes to its content with aligned keyed arrays; drift is reported', async () => {
      const { handle, db } = t.app.ctx;
      expect(await STORE_PRODUCT_CHECKS[0]!.run(handle)).toEqual([]);
      const row = (await stored('A3'))!;
      await db.updateTable('store_products').set({ average_array: '[1,2]' }).where('id', '=', row.id).execute();
      try {
        const details = (await STORE_PRODUCT_CHECKS[0]!.run(handle)).map((v) => v.detail);
        expect(details).toEqual([
          "store product 'A3' of store 'SP1' has a content hash that does not match its properties",
          "store product 'A3' of store 'SP1' has 2 average_array for 1 average_keys",
        ]);
      } finally {
        await db
          .updateTable('store_products')
          .set({ average_array: row.average_array })
          .where('id', '=', row.id)
          .execute();
      }
      expect(await STORE_PRODUCT_CHECKS[0]!.run(handle)).toEqual([]);
    });

    it('a bulk request of many products commits whole', async () => {
      const numbers = Array.from({ length: 1200 }, (_, i) => `B${i}`);
      expect((await t.post(`${API}/products`, { products: numbers.map((n) => productInput(n)) })).statusCode).toBe(200);
      const res = await t.put(url('SP2'), {
        products: numbers.map((n, i) => ({
          product_number: n,
          min: i,
          max: i + 0.5,
          history_keys: ['k'],
          history_array: [i],
        })),
      });
      expect(res.json().message).toBe('created 1200, updated 0, unchanged 0, deleted 0');
      expect(await stored('B1199', 'SP2')).toMatchObject({ min: 1_199_000, max: 1_199_500 });
    });
  });
}
