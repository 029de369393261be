import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { orderNumberErrors } from '../../src/modules/customer-orders/bound-stock.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

// PRODUCT §5 "Order-bound stock": bound stock is never stranded, whatever order number it
// carries, and verify holds after any sequence of operations (issue 26, defect class 3;
// docs/customer-orders.md "Bound stock", customer-orders/bound-stock.ts).

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const REVIEW = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs/review`;
const LOG_LIST = `${API}/products/stock/storeproductlogs`;
const ORDERS = (store: string) => `${API}/stores/${store}/orders/customerorders`;
const ORDER = (store: string) => `${API}/stores/${store}/orders/customerorder`;
const CLEARANCE = `${API}/customerorders/clearance`;
const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const SINGLE = (store: string, product: string) => `${API}/stores/${store}/products/${product}/stock`;

const REJECTION_CODE = 200;
const REVIEWED_CODE = 300;

for (const dialect of DIALECTS) {
  describe(`order-bound stock is never stranded (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    const ok = (response: LightMyRequestResponse) => {
      expect(response.statusCode, response.body).toBe(200);
      return response;
    };

    async function product(): Promise<string> {
      const number = `BS-${++counter}`;
      ok(await t.post(`${API}/products`, { products: [productInput(number)] }));
      return number;
    }

    const entry = (productNumber: string, quantity: number, extra: Record<string, unknown> = {}) => ({
      product_number: productNumber,
      quantity,
      customer_order_line_number: 0,
      modification_datetime: '2026-01-01T00:00:00Z',
      ...extra,
    });

    const post = (store: string, entries: unknown[], query = '') =>
      t.post(`${LOGS(store)}${query}`, { storeproductlog: entries });
    const importOrder = (store: string, orderNumber: string, lines: unknown[]) =>
      t.post(ORDERS(store), { orders: [{ order_number: orderNumber, lines }] });
    const put = (store: string, body: Record<string, unknown>) => t.put(ORDER(store), body);
    const clear = (store: string, orderNumber: string) =>
      t.post(CLEARANCE, { store_number: store, order_number: orderNumber });
    const balances = (productNumber: string, store = 'S1') => balancesOf(t.app.ctx.db, productNumber, store);
    const nextOrder = () => `BO-${++counter}`;

    /** The store's total of the product (most_likely_stock), with or without order-bound stock. */
    async function total(productNumber: string, excludeBound = false, store = 'S1'): Promise<number> {
      const response = ok(
        await t.get(`${SINGLE(store, productNumber)}${excludeBound ? '?exclude_customer_order_stock=true' : ''}`),
      );
      return response.json().products[0].most_likely_stock;
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      ok(await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2')] }));
      ok(
        await t.post(`${API}/reasoncodes`, {
          reason_codes: [
            reasonCodeInput(REJECTION_CODE, { reason_code_type: 2, reason_code_description: 'Customer gone' }),
            reasonCodeInput(REVIEWED_CODE, { default_review_status: 1, reason_code_description: 'Needs review' }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/stores/S1/locations`, {
          locations: [
            { location_code: 'SHELF', location_order: 10, default_stock_pool: 1 },
            { location_code: 'BACK', location_order: 20, default_stock_pool: 2 },
          ],
        }),
      );
    });

    // store-ops verify holds after every sequence below.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('the found case: an entry naming an order before its import, the import, the clearance: nothing left bound, verify clean', async () => {
      const p = await product();
      const number = nextOrder();
      ok(await post('S1', [entry(p, 10, { location_code: 'SHELF' }), entry(p, 3, { customer_order_number: number })]));
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 10, [`-|1|${number}`]: 3 });
      expect(await total(p)).toBe(13);
      expect(await total(p, true)).toBe(10);

      ok(await importOrder('S1', number, [{ line_number: 1, product_number: p, quantity: 3 }]));
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      // Once the order exists its stock moves only by its own operations.
      const release = await post('S1', [entry(p, -3, { customer_order_number: number })]);
      expect(release.statusCode, release.body).toBe(422);
      expect(release.json().errors).toEqual([
        { path: 'storeproductlog[0].customer_order_number', message: expect.stringContaining(number) },
      ]);

      const cleared = ok(await clear('S1', number));
      expect(cleared.json().success).toBe(true);
      // What was bound to the order was handed over: it left the store.
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 10 });
      expect(await total(p)).toBe(10);
      const logged = ok(await t.get(`${LOG_LIST}?customer_order_number=${number}&page_size=100`)).json().list as Array<
        Record<string, unknown>
      >;
      expect(logged.filter((e) => e.source === 'customer_order_clearance').map((e) => e.quantity)).toEqual([-3]);

      // Closed: nothing binds to it again, and a second clearance is a 409.
      expect((await post('S1', [entry(p, 1, { customer_order_number: number })])).statusCode).toBe(422);
      expect((await clear('S1', number)).statusCode).toBe(409);
    });

    it('an entry before the import, then a pick, then the clearance: the pick and the entry-bound stock both leave', async () => {
      const p = await product();
      const number = nextOrder();
      ok(
        await post('S1', [
          entry(p, 10, { location_code: 'SHELF' }),
          entry(p, 2, { location_code: 'SHELF', customer_order_number: number }),
        ]),
      );
      ok(
        await importOrder('S1', number, [
          { line_number: 1, product_number: p, quantity: 3, preferred_location_code: 'SHELF' },
        ]),
      );
      ok(await put('S1', { order_number: number, lines: [{ line_number: 1, picked_quantity: 3 }] }));
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 7, [`SHELF|1|${number}`]: 2, [`-|1|${number}`]: 3 });
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      // The entry-bound units are not free: a pick cannot take them.
      const greedy = await put('S1', { order_number: number, lines: [{ line_number: 1, picked_quantity: 11 }] });
      expect(greedy.statusCode, greedy.body).toBe(409);

      ok(await clear('S1', number));
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 7 });
      expect(await total(p)).toBe(7);
      const order = ok(await t.get(`${ORDERS('S1')}?order_number=${number}`)).json().list[0];
      expect(order).toMatchObject({ status_id: 5 });
      expect(order.lines[0].picked_quantity).toBe(3);
    });

    it('an entry before the import, then a pick, then the rejection: picks go back where they came from, the rest to its own location and pool', async () => {
      const p = await product();
      const number = nextOrder();
      ok(
        await post('S1', [
          entry(p, 10, { location_code: 'SHELF' }),
          entry(p, 4, { location_code: 'BACK', pool_location: 2, customer_order_number: number }),
        ]),
      );
      ok(
        await importOrder('S1', number, [
          { line_number: 1, product_number: p, quantity: 1, preferred_location_code: 'SHELF' },
        ]),
      );
      ok(await put('S1', { order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] }));
      expect(await total(p, true)).toBe(9);

      ok(await put('S1', { order_number: number, is_rejected: true, rejection_reason_code: REJECTION_CODE }));
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 10, 'BACK|2|-': 4 });
      expect(await total(p)).toBe(14);
      expect(await total(p, true)).toBe(14);
      const logged = ok(await t.get(`${LOG_LIST}?reference=${number}&page_size=100`)).json().list as Array<
        Record<string, unknown>
      >;
      expect(
        logged
          .filter((e) => e.source === 'customer_order_release')
          .map((e) => [e.location_code, e.quantity, e.customer_order_number ?? null])
          .sort(),
      ).toEqual(
        [
          ['BACK', -4, number],
          ['BACK', 4, null],
        ].sort(),
      );
    });

    it('an entry before the import, then a cancel with nothing picked: everything bound is free again', async () => {
      const p = await product();
      const number = nextOrder();
      ok(
        await post('S1', [
          entry(p, 5, { customer_order_number: number }),
          entry(p, 1, { location_code: 'SHELF', customer_order_number: number }),
        ]),
      );
      ok(await importOrder('S1', number, [{ line_number: 1, product_number: p, quantity: 6 }]));
      ok(await put('S1', { order_number: number, status_id: 7 }));
      expect(await balances(p)).toEqual({ '-|1|-': 5, 'SHELF|1|-': 1 });
      expect(await total(p, true)).toBe(6);
    });

    it('a number never imported: a negative entry with the same number releases it (never a permanent 422); so does a movement', async () => {
      const p = await product();
      const number = nextOrder();
      ok(await post('S1', [entry(p, 3, { location_code: 'SHELF', customer_order_number: number })]));
      ok(await post('S1', [entry(p, -2, { location_code: 'SHELF', customer_order_number: number })]));
      expect(await balances(p)).toEqual({ [`SHELF|1|${number}`]: 1 });
      ok(
        await t.post(MOVE('S1'), {
          body: [
            {
              product_number: p,
              quantity: 1,
              from_location: { location_code: 'SHELF', customer_order_number: number },
              to_location: { location_code: 'SHELF' },
            },
          ],
        }),
      );
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 1 });
    });

    it("an order of another store with the same number: each store's stock under it is released where it is", async () => {
      const p = await product();
      const number = nextOrder();
      ok(await importOrder('S2', number, [{ line_number: 1, product_number: p, quantity: 1 }]));
      // In S1 the number names no order: entries bind and release under it.
      ok(await post('S1', [entry(p, 2, { customer_order_number: number })]));
      ok(await clear('S2', number));
      expect(await balances(p)).toEqual({ [`-|1|${number}`]: 2 });
      ok(await post('S1', [entry(p, -2, { customer_order_number: number })]));
      expect(await balances(p)).toEqual({});
    });

    it('a pending entry naming a number that is imported before its review: approval is a 422, rejection works; nothing is stranded', async () => {
      const p = await product();
      const number = nextOrder();
      const posted = ok(await post('S1', [entry(p, 2, { reason_code: REVIEWED_CODE, customer_order_number: number })]));
      const [id] = posted.json().data as number[];
      ok(await importOrder('S1', number, [{ line_number: 1, product_number: p, quantity: 2 }]));
      const approve = await t.post(REVIEW('S1'), { ids: [id], approve: true });
      expect(approve.statusCode, approve.body).toBe(422);
      expect(approve.json().errors).toEqual([{ path: 'ids[0]', message: expect.stringContaining(number) }]);
      ok(await t.post(REVIEW('S1'), { ids: [id], approve: false }));
      ok(await clear('S1', number));
      expect(await balances(p)).toEqual({});
    });

    it('an entry stamped ahead of the clock on the bound stock: the settlement lands after it and leaves nothing bound', async () => {
      const p = await product();
      const number = nextOrder();
      const ahead = new Date(Date.now() + 60_000).toISOString();
      ok(
        await post(
          'S1',
          [entry(p, 4, { customer_order_number: number, modification_datetime: ahead })],
          '?is_counted_quantity=true',
        ),
      );
      expect(await balances(p)).toEqual({ [`-|1|${number}`]: 4 });
      ok(await importOrder('S1', number, [{ line_number: 1, product_number: p, quantity: 4 }]));
      ok(await clear('S1', number));
      expect(await balances(p)).toEqual({});
    });

    // A post checks "no such order" and commits later: the import of that number waits for it
    // (both take the number's turn), so its bound stock exists before the order does and the
    // clearance settles it. On SQLite a write transaction already excludes the other.
    it.runIf(dialect.name === 'postgres')(
      'an import waits for an open stock post that has checked its number',
      async () => {
        const p = await product();
        const number = nextOrder();
        const store = await t.app.ctx.db
          .selectFrom('stores')
          .select('id')
          .where('store_number', '=', 'S1')
          .executeTakeFirstOrThrow();
        const done: string[] = [];
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let checked!: () => void;
        const hasChecked = new Promise<void>((resolve) => (checked = resolve));
        const post = t.app.ctx.db.transaction().execute(async (trx) => {
          expect(
            await orderNumberErrors(trx, t.app.ctx.dialect, Number(store.id), [{ orderNumber: number, path: 'x' }]),
          ).toEqual([]);
          checked();
          await released;
        });
        await hasChecked;
        const importing = importOrder('S1', number, [{ line_number: 1, product_number: p, quantity: 1 }]).then(
          (response) => {
            done.push('import');
            return response;
          },
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        done.push('post');
        release();
        await post;
        ok(await importing);
        expect(done).toEqual(['post', 'import']);
      },
    );

    it("the order's own sources are not for other posts: 422 naming the field", async () => {
      const p = await product();
      const number = nextOrder();
      const forged = await post('S1', [
        entry(p, 1, { customer_order_number: number, source: 'customer_order_picking' }),
      ]);
      expect(forged.statusCode, forged.body).toBe(422);
      expect(forged.json().errors).toEqual([
        { path: 'storeproductlog[0].source', message: expect.stringContaining('reserved') },
      ]);
      const moved = await t.post(MOVE('S1'), {
        body: [
          {
            product_number: p,
            quantity: 1,
            source: 'customer_order_clearance',
            to_location: { customer_order_number: number },
            allow_overage: true,
          },
        ],
      });
      expect(moved.statusCode, moved.body).toBe(422);
      expect(moved.json().errors.map((e: { path: string }) => e.path)).toEqual(['body[0].source']);
      expect(await balances(p)).toEqual({});
    });
  });
}
