import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

/**
 * PRODUCT §3 "Exact numbers", §5 (issue 26): every sum the service keeps stays within
 * ±999,999,999,999 (the most a request may state); a write whose result would leave it is
 * refused with a 422 naming the quantity, nothing of the request applied, never rounded.
 * The sums: balances, a count's expected level (also when a late entry re-bases it), a store
 * product's balances added up by size (which bounds every stock figure a read shows), a
 * delivery line's received total, a customer order's total and picked total, a merged list
 * line, the counted total of one product's counting lines. (docs/stock.md "Exact sums".)
 */

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const DELIVERIES = (store: string) => `${API}/stores/${store}/orders/deliveries`;
const RECEIVE = (store: string, order: string) => `${API}/stores/${store}/orders/deliveries/${order}/receive`;
const ORDERS = (store: string) => `${API}/stores/${store}/orders/customerorders`;
const ORDER = (store: string) => `${API}/stores/${store}/orders/customerorder`;
const LISTS = (store: string) => `${API}/stores/${store}/productlists`;
const COUNT = `${API}/externalcountinglines`;
const SINGLE = (store: string, product: string) => `${API}/stores/${store}/products/${product}/stock`;

/** The largest quantity the service keeps. */
const MAX = 999_999_999_999;

type Json = Record<string, any>;

function expect422(response: LightMyRequestResponse, path: string, message: RegExp = /999999999999/): void {
  expect(response.statusCode, response.body).toBe(422);
  expect(response.json().code).toBe('UNPROCESSABLE');
  const errors = response.json().errors as Array<{ path: string; message: string }>;
  expect(
    errors.map((e) => e.path),
    JSON.stringify(errors),
  ).toEqual([path]);
  expect(errors[0]!.message).toMatch(message);
}

for (const dialect of DIALECTS) {
  describe(`exact sums: kept quantities never leave the exact range (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    async function product(extra: Json = {}): Promise<string> {
      const number = `XS-${++counter}`;
      const response = await t.post(`${API}/products`, {
        products: [productInput(number, { barcode: `55${counter}`, ...extra })],
      });
      expect(response.statusCode, response.body).toBe(200);
      return number;
    }

    let clock = Date.parse('2026-03-01T00:00:00Z');
    /** Strictly increasing moments, so entries are not late unless a test says so. */
    const nextMoment = () => new Date((clock += 1000)).toISOString();
    const entry = (product_number: string, quantity: number, extra: Json = {}) => ({
      product_number,
      quantity,
      customer_order_line_number: 0,
      modification_datetime: nextMoment(),
      ...extra,
    });
    const post = (entries: Json[], query = '') => t.post(`${LOGS('X1')}${query}`, { storeproductlog: entries });
    async function postOk(entries: Json[], query = ''): Promise<void> {
      const response = await post(entries, query);
      expect(response.statusCode, response.body).toBe(200);
    }
    const balances = (p: string) => balancesOf(t.app.ctx.db, p, 'X1');
    const logCount = async (p: string) =>
      Number(
        (
          await t.app.ctx.db
            .selectFrom('stock_logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('product_number', '=', p)
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('X1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/stores/X1/locations`, { locations: [{ location_code: 'A' }, { location_code: 'B' }] }))
          .statusCode,
      ).toBe(200);
    });
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('balances', () => {
      it('the review finding: ten entries of 999,999,999,999 and one of 0.001 — 422 at the entry that crosses, nothing applied; 0.001 on a large balance is kept exactly', async () => {
        const p = await product();
        const entries = [...Array.from({ length: 10 }, () => entry(p, MAX)), entry(p, 0.001)];
        expect422(await post(entries), 'storeproductlog[1].quantity', /its balance/);
        expect(await balances(p)).toEqual({});
        expect(await logCount(p)).toBe(0);

        await postOk([entry(p, MAX - 1), entry(p, 0.001)]);
        expect(await balances(p)).toEqual({ '-|1|-': 999_999_999_998.001 });
        const single = await t.get(SINGLE('X1', p));
        expect(single.statusCode).toBe(200);
        expect(single.json().products[0].most_likely_stock).toBe(999_999_999_998.001);
        expect(single.body).toContain('999999999998.001');
        // Up to the bound exactly, then not one thousandth more.
        await postOk([entry(p, 0.999)]);
        expect422(await post([entry(p, 0.001)]), 'storeproductlog[0].quantity');
        expect422(await post([entry(p, -MAX), entry(p, -MAX), entry(p, -MAX)]), 'storeproductlog[2].quantity');
        expect(await balances(p)).toEqual({ '-|1|-': MAX });
      });

      it('a count re-based by late entries keeps its expected level in range', async () => {
        const p = await product();
        const early = nextMoment();
        const countAt = nextMoment();
        await postOk([entry(p, 0, { modification_datetime: countAt })], '?is_counted_quantity=true');
        // Late deltas before the count are absorbed by it: its expected level grows, the balance stays 0.
        await postOk([entry(p, MAX, { modification_datetime: early })]);
        expect(await balances(p)).toEqual({});
        expect422(
          await post([entry(p, 0.001, { modification_datetime: early })]),
          'storeproductlog[0].quantity',
          /expected/,
        );
        const count = await t.app.ctx.db
          .selectFrom('stock_ledger as g')
          .innerJoin('stock_balances as b', 'b.id', 'g.balance_id')
          .innerJoin('products as pr', 'pr.id', 'b.product_id')
          .select(['g.expected', 'g.delta'])
          .where('pr.product_number', '=', p)
          .where('g.is_count', '=', 1)
          .executeTakeFirstOrThrow();
        expect(Number(count.expected)).toBe(MAX * 1000);
        expect(Number(count.delta)).toBe(-MAX * 1000);
      });

      it("a store product's balances add up by size to at most the range, so every figure a read shows is exact", async () => {
        const p = await product();
        await postOk([entry(p, MAX - 1, { location_code: 'A' })]);
        // Another location, another pool, bound stock: each balance alone is small, together they would pass the range.
        expect422(
          await post([entry(p, 0.5, { location_code: 'B' }), entry(p, 0.6, { pool_location: 2 })]),
          'storeproductlog[1].quantity',
          /added up by size/,
        );
        expect422(
          await post([entry(p, -1.001, { location_code: 'B' })]),
          'storeproductlog[0].quantity',
          /added up by size/,
        );
        expect422(
          await post([entry(p, 2, { customer_order_number: 'XS-CO' })]),
          'storeproductlog[0].quantity',
          /added up by size/,
        );
        expect(await balances(p)).toEqual({ 'A|1|-': MAX - 1 });
        // Shrinking is always possible, and moving within the product does not grow it.
        await postOk([entry(p, 0.5, { location_code: 'B' }), entry(p, 0.5, { pool_location: 2 })]);
        const move = await t.post(MOVE('X1'), {
          body: [
            {
              product_number: p,
              quantity: 0.5,
              from_location: { location_code: 'B' },
              to_location: { location_code: 'A' },
            },
          ],
        });
        expect(move.statusCode, move.body).toBe(200);
        const single = (await t.get(`${SINGLE('X1', p)}?include_zero_lines=true`)).json().products[0];
        expect(single.most_likely_stock).toBe(MAX);
        expect(single.stock_pool_1).toBe(MAX - 0.5);
        expect(single.stock_pool_2).toBe(0.5);
      });

      it('two writers growing different balances of one store product at once: the later one sees the other, exactly one is refused', async () => {
        for (let round = 0; round < 3; round++) {
          const p = await product();
          const half = 600_000_000_000;
          const [a, b] = await Promise.all([
            post([entry(p, half, { location_code: 'A' })]),
            post([entry(p, half, { location_code: 'B' })]),
          ]);
          expect([a.statusCode, b.statusCode].sort()).toEqual([200, 422]);
          expect(Object.values(await balances(p))).toEqual([half]);
        }
      });

      it('a movement leg that would leave its balance out of range: 422 at the move, nothing moved', async () => {
        const p = await product();
        await postOk([entry(p, MAX, { location_code: 'B' })]);
        const move = await t.post(MOVE('X1'), {
          body: [
            {
              product_number: p,
              quantity: 1,
              allow_overage: true,
              from_location: { location_code: 'A' },
              to_location: { location_code: 'B' },
            },
          ],
        });
        expect422(move, 'body[0].quantity');
        expect(await balances(p)).toEqual({ 'B|1|-': MAX });
      });
    });

    describe('delivery line totals', () => {
      it('receiving past the range on one line: 422 at the received quantity, the line total and stock unchanged', async () => {
        const p = await product();
        const order = `XS-D-${++counter}`;
        const announced = await t.post(DELIVERIES('X1'), {
          orders: [
            {
              order_number: order,
              order_type: 1,
              datetime_expected: '2026-03-01T08:00:00Z',
              no_of_containers: 1,
              order_lines: [{ line_number: 1, product_number: p, quantity: 5, target_stock_pool: 1 }],
            },
          ],
        });
        expect(announced.statusCode, announced.body).toBe(200);
        expect(
          (await t.post(RECEIVE('X1', order), { lines: [{ line_number: 1, received_quantity: MAX }] })).statusCode,
        ).toBe(200);
        // The stock is sold, so only the line's received total is at the bound.
        await postOk([entry(p, -MAX, { modification_datetime: new Date().toISOString() })]);
        expect422(
          await t.post(RECEIVE('X1', order), { lines: [{ line_number: 1, received_quantity: 1 }] }),
          'lines[0].received_quantity',
          /received total of line 1/,
        );
        expect422(
          await post(
            [entry(p, 0.001, { reference: order, modification_datetime: new Date().toISOString() })],
            '?is_from_receipt=true',
          ),
          'storeproductlog[0].quantity',
          /received total/,
        );
        const lines = (await t.get(`${API}/orders/deliveries?order_number=${order}`)).json().list[0]
          .order_lines as Json[];
        expect(lines[0]!.received_quantity).toBe(MAX);
        expect(await balances(p)).toEqual({});
      });
    });

    describe('customer orders', () => {
      it("an order's lines add up to at most the range: 422 at the line that passes it", async () => {
        const p = await product();
        const response = await t.post(ORDERS('X1'), {
          orders: [
            {
              order_number: `XS-O-${++counter}`,
              lines: [
                { line_number: 1, product_number: p, quantity: MAX },
                { line_number: 2, product_number: p, quantity: 0.001 },
              ],
            },
          ],
        });
        expect422(response, 'orders[0].lines[1].quantity', /total quantity/);
      });

      it('the picked total stays in range: 422 at the pick, nothing bound', async () => {
        const a = await product();
        const b = await product();
        await postOk([entry(a, MAX, { location_code: 'A' }), entry(b, 1, { location_code: 'A' })]);
        const order = `XS-O-${++counter}`;
        const created = await t.post(ORDERS('X1'), {
          orders: [
            {
              order_number: order,
              lines: [
                { line_number: 1, product_number: a, quantity: 1 },
                { line_number: 2, product_number: b, quantity: 1 },
              ],
            },
          ],
        });
        expect(created.statusCode, created.body).toBe(200);
        const first = await t.put(ORDER('X1'), {
          order_number: order,
          lines: [{ line_number: 1, picked_quantity: MAX, stock_location: 'A' }],
        });
        expect(first.statusCode, first.body).toBe(200);
        const second = await t.put(ORDER('X1'), {
          order_number: order,
          lines: [{ line_number: 2, picked_quantity: 1, stock_location: 'A' }],
        });
        expect422(second, 'lines[0].picked_quantity', /picked total/);
        expect(await balances(b)).toEqual({ 'A|1|-': 1 });
        const read = (await t.get(`${ORDERS('X1')}?order_number=${order}`)).json().list[0] as Json;
        expect(read.total_delivery_quantity).toBe(MAX);
      });
    });

    describe('merged list lines and counting lines', () => {
      it('a product list that merges lines of one product past the range: 422 at the line, no list', async () => {
        const p = await product();
        const response = await t.post(LISTS('X1'), {
          product_list_name: `Sums ${counter}`,
          product_list_type: 1,
          is_allow_duplicate_products: false,
          lines: [
            { product_number: p, quantity: MAX },
            { product_number: p, quantity: 0.001 },
          ],
        });
        expect422(response, 'lines[1].quantity', /merged quantity/);
        expect((await t.get(LISTS('X1'))).json().total_count).toBe(0);
      });

      it('counting lines of one product that add up past the range: 422 at the line, nothing counted or kept', async () => {
        const unit = `UB-${counter + 1}`;
        const p = await product({ units: [{ unit_barcode: unit, unit_name: 'pallet', unit_quantity: 1000 }] });
        const barcode = `55${counter}`;
        const lines = [
          { product_barcode: barcode, counted_quantity: MAX },
          { product_barcode: 'NOT-KNOWN', counted_quantity: 1 },
          { product_barcode: barcode, counted_quantity: 0.001 },
        ];
        expect422(
          await t.post(COUNT, { CountingDateTime: nextMoment(), StoreNo: 'X1', Lines: lines }),
          'Lines[2].counted_quantity',
          /counted total/,
        );
        // A unit barcode multiplies: 1,000,000,000 pallets of 1,000 is past the range too.
        expect422(
          await t.post(COUNT, {
            CountingDateTime: nextMoment(),
            StoreNo: 'X1',
            Lines: [{ product_barcode: unit, counted_quantity: 1_000_000_000 }],
          }),
          'Lines[0].counted_quantity',
        );
        expect(await balances(p)).toEqual({});
        const unresolved = (await t.get(`${API}/stores/X1/externalcountinglines/unresolved`)).json();
        expect(unresolved.total_count).toBe(0);
        // Exactly at the bound through a unit barcode: 999,999,999.999 pallets of 1,000.
        const ok = await t.post(COUNT, {
          CountingDateTime: nextMoment(),
          StoreNo: 'X1',
          Lines: [{ product_barcode: unit, counted_quantity: 999_999_999.999 }],
        });
        expect(ok.statusCode, ok.body).toBe(200);
        expect(await balances(p)).toEqual({ '-|1|-': MAX });
      });
    });
  });
}
