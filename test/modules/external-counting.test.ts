import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { balancesOf } from '../helpers/stock.js';
import { productInput, storeInput } from '../helpers/factories.js';

const COUNT = `${API}/externalcountinglines`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;

for (const dialect of DIALECTS) {
  describe(`external counting lines (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    /** A product with a barcode, an extra barcode and a unit barcode counting 6 each. */
    async function newProduct(): Promise<{ number: string; barcode: string; extra: string; unit: string }> {
      const n = ++counter;
      const p = { number: `EC-${n}`, barcode: `800${n}`, extra: `801${n}`, unit: `806${n}` };
      const response = await t.post(`${API}/products`, {
        products: [
          productInput(p.number, {
            barcode: p.barcode,
            barcodes_array: [{ barcode: p.extra }],
            units: [{ unit_barcode: p.unit, unit_name: 'tray', unit_quantity: 6 }],
          }),
        ],
      });
      expect(response.statusCode).toBe(200);
      return p;
    }

    const total = (productNumber: string, store = 'E1') => balancesOf(t.app.ctx.db, productNumber, store);

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('E1'), storeInput('E2')] });
      await t.post(`${API}/stores/E1/locations`, { locations: [{ location_code: 'SHELF', default_stock_pool: 1 }] });
    });

    // store-ops verify's checks hold after every single test, not only at the end.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('resolves every kind of barcode, adds lines of one product up, and books one count per product', async () => {
      const a = await newProduct();
      const b = await newProduct();
      const response = await t.post(COUNT, {
        CountingDateTime: '2026-05-01T06:00:00Z',
        StoreNo: 'E1',
        Lines: [
          { product_barcode: a.barcode, counted_quantity: 2 },
          { product_barcode: a.extra, counted_quantity: 1 },
          { product_barcode: a.unit, counted_quantity: 2 }, // 2 trays of 6
          { product_barcode: b.barcode, counted_quantity: 0 },
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().message).toBe('counted 2 products from 4 lines; unresolved 0');
      expect(await total(a.number)).toEqual({ '-|1|-': 15 });
      expect(await total(b.number)).toEqual({});
      const logs = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${a.number}`)).json().list;
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        counted_quantity: 15,
        expected_quantity: 0,
        quantity: 15,
        source: 'external_counting',
      });
    });

    it('a count is a store total: located stock stays, unlocated stock absorbs the difference, later sales stay on top', async () => {
      const p = await newProduct();
      await t.post(LOGS('E1'), {
        storeproductlog: [
          {
            product_number: p.number,
            quantity: 4,
            location_code: 'SHELF',
            customer_order_line_number: 0,
            modification_datetime: '2026-05-01T05:00:00Z',
          },
          {
            product_number: p.number,
            quantity: 10,
            customer_order_line_number: 0,
            modification_datetime: '2026-05-01T05:00:00Z',
          },
          {
            product_number: p.number,
            quantity: -1,
            customer_order_line_number: 0,
            modification_datetime: '2026-05-01T09:00:00Z',
          },
        ],
      });
      // Counted 9 in total at 06:00 (arrives after the 09:00 sale): 4 on the shelf, so 5 unlocated, then −1.
      await t.post(COUNT, {
        CountingDateTime: '2026-05-01T06:00:00Z',
        StoreNo: 'E1',
        Lines: [{ product_barcode: p.barcode, counted_quantity: 9 }],
      });
      expect(await total(p.number)).toEqual({ 'SHELF|1|-': 4, '-|1|-': 4 });
    });

    it('unknown barcodes never fail the batch: kept, counted in the message and listed', async () => {
      const p = await newProduct();
      const response = await t.post(COUNT, {
        CountingDateTime: '2026-05-02T06:00:00Z',
        StoreNo: 'E2',
        Lines: [
          { product_barcode: p.barcode, counted_quantity: 3 },
          { product_barcode: 'UNKNOWN-1', counted_quantity: 2.5 },
          { counted_quantity: 1 },
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().message).toBe('counted 1 products from 3 lines; unresolved 2');
      expect(await total(p.number, 'E2')).toEqual({ '-|1|-': 3 });
      const unresolved = (await t.get(`${API}/stores/E2/externalcountinglines/unresolved`)).json();
      expect(unresolved.total_count).toBe(2);
      expect(unresolved.list[0]).toMatchObject({
        barcode: 'UNKNOWN-1',
        counted_quantity: 2.5,
        counting_datetime: '2026-05-02T06:00:00.000Z',
      });
      expect(typeof unresolved.list[0].received_on).toBe('string');
      expect(
        (await t.get(`${API}/stores/E1/externalcountinglines/unresolved`))
          .json()
          .list.some((l: { barcode: string }) => l.barcode === 'UNKNOWN-1'),
      ).toBe(false);
    });

    it('missing StoreNo is a 400, an unknown store a 404, bad lines a 400 with paths', async () => {
      const missing = await t.post(COUNT, { CountingDateTime: '2026-05-02T06:00:00Z', Lines: [] });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().errors[0].path).toBe('StoreNo');
      expect(
        (await t.post(COUNT, { CountingDateTime: '2026-05-02T06:00:00Z', StoreNo: 'NOPE', Lines: [] })).statusCode,
      ).toBe(404);
      const bad = await t.post(COUNT, {
        CountingDateTime: 'today',
        StoreNo: 'E1',
        Lines: [{ product_barcode: 'x', counted_quantity: -1 }, { product_barcode: 'y' }],
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors.map((e: { path: string }) => e.path)).toEqual(
        expect.arrayContaining(['CountingDateTime', 'Lines[0].counted_quantity', 'Lines[1].counted_quantity']),
      );
      expect((await t.get(`${API}/stores/NOPE/externalcountinglines/unresolved`)).statusCode).toBe(404);
    });

    it('a unit barcode whose items are not whole thousandths is a 422 naming the line, never rounded (PRODUCT §3)', async () => {
      const n = ++counter;
      const number = `EC-${n}`;
      const half = `807${n}`;
      const added = await t.post(`${API}/products`, {
        products: [
          productInput(number, {
            barcode: `808${n}`,
            units: [{ unit_barcode: half, unit_name: 'half', unit_quantity: 0.5 }],
          }),
        ],
      });
      expect(added.statusCode).toBe(200);
      const refused = await t.post(COUNT, {
        CountingDateTime: '2026-05-03T06:00:00Z',
        StoreNo: 'E1',
        Lines: [
          { product_barcode: half, counted_quantity: 4 },
          { product_barcode: half, counted_quantity: 0.001 },
        ],
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors.map((e: { path: string }) => e.path)).toEqual(['Lines[1].counted_quantity']);
      expect(await total(number)).toEqual({});
      // Whole thousandths are counted exactly: 0.002 scans of a half unit are 0.001 items.
      const counted = await t.post(COUNT, {
        CountingDateTime: '2026-05-03T06:00:00Z',
        StoreNo: 'E1',
        Lines: [{ product_barcode: half, counted_quantity: 4.002 }],
      });
      expect(counted.statusCode).toBe(200);
      expect(await total(number)).toEqual({ '-|1|-': 2.001 });
    });

    it('store tokens count only their own stores', async () => {
      const token = await t.token('store', ['E2']);
      expect(
        (await t.post(COUNT, { CountingDateTime: '2026-05-02T06:00:00Z', StoreNo: 'E1', Lines: [] }, token)).statusCode,
      ).toBe(403);
      expect(
        (await t.post(COUNT, { CountingDateTime: '2026-05-02T06:00:00Z', StoreNo: 'E2', Lines: [] }, token)).statusCode,
      ).toBe(200);
    });
  });
}
