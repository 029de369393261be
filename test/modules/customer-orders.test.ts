import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

// docs/customer-orders.md, PRODUCT §5 (order-bound stock) and §7, interface §2.9 and §4.12.

const ORDERS = (store: string) => `${API}/stores/${store}/orders/customerorders`;
const CROSS = `${API}/orders/customerorders`;
const ORDER = (store: string) => `${API}/stores/${store}/orders/customerorder`;
const CLEARANCE = `${API}/customerorders/clearance`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const LOG_LIST = `${API}/products/stock/storeproductlogs`;
const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const SINGLE = (store: string, product: string) => `${API}/stores/${store}/products/${product}/stock`;
const STOCK_LIST = `${API}/storeproducts/stock`;

const REJECTION_CODE = 200;
const PLAIN_CODE = 100;

type FieldError = { path: string; message: string };

interface StoreLocation {
  location_order: number;
  quantity: number;
  location_code?: string;
  default_stock_pool?: string;
  tags?: string[];
  [pool: string]: unknown;
}

interface Line {
  id: number;
  line_number: number;
  product_number?: string;
  quantity: number;
  picked_quantity: number;
  is_picked: boolean;
  stock_pool: number;
  stock_location?: string;
  picked_username?: string;
  store_walking_order: number;
  store_locations?: StoreLocation[];
  [field: string]: unknown;
}

interface Order {
  order_number: string;
  store_number?: string;
  status_id: number;
  is_active: boolean;
  is_claimed: boolean;
  is_picked: boolean;
  is_rejected: boolean;
  total_lines: number;
  total_quantity: number;
  total_delivery_quantity?: number;
  rejection_reason_code?: string;
  rejection_reason_code_description?: string;
  lines: Line[];
  [field: string]: unknown;
}

interface Page {
  total_count: number;
  list: Order[];
  next_page: number | null;
  previous_page: number | null;
  scroll_id: string | null;
  list_filters?: Record<string, string[]>;
  [field: string]: unknown;
}

const ack = (created: number, updated: number, unchanged: number) => ({
  success: true,
  message: `created ${created}, updated ${updated}, unchanged ${unchanged}, deleted 0`,
});

const errorsOf = (response: LightMyRequestResponse): FieldError[] => response.json().errors;
const pathsOf = (response: LightMyRequestResponse): string[] => errorsOf(response).map((e) => e.path);

async function pastMoment(at: number): Promise<void> {
  while (Date.now() <= at + 1) await new Promise((resolve) => setTimeout(resolve, 2));
}

for (const dialect of DIALECTS) {
  describe(`customer orders (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    // ---- helpers -----------------------------------------------------------------------

    /** A new product (unique per call) through the products API. */
    async function product(overrides: Record<string, unknown> = {}): Promise<string> {
      const number = `CP-${++counter}`;
      const response = await t.post(`${API}/products`, { products: [productInput(number, overrides)] });
      expect(response.statusCode, response.body).toBe(200);
      return number;
    }

    /** A stock log entry (a delta) of a product in a store. */
    async function stock(
      productNumber: string,
      quantity: number,
      extra: Record<string, unknown> = {},
      store = 'S1',
    ): Promise<void> {
      const response = await t.post(LOGS(store), {
        storeproductlog: [
          {
            product_number: productNumber,
            quantity,
            customer_order_line_number: 0,
            modification_datetime: '2026-01-01T00:00:00Z',
            ...extra,
          },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
    }

    const nextOrderNumber = (prefix = 'CO') => `${prefix}-${++counter}`;

    const line = (
      lineNumber: number,
      productNumber: string,
      quantity: number,
      extra: Record<string, unknown> = {},
    ) => ({
      line_number: lineNumber,
      product_number: productNumber,
      quantity,
      ...extra,
    });

    const importStore = (store: string, orders: unknown[], token?: string | null) =>
      t.post(ORDERS(store), { orders }, token);
    const importCross = (orders: unknown[], token?: string | null) => t.post(CROSS, { orders }, token);

    /** A new order in the store; returns its number. */
    async function newOrder(lines: unknown[], overrides: Record<string, unknown> = {}, store = 'S1'): Promise<string> {
      const orderNumber = (overrides.order_number as string | undefined) ?? nextOrderNumber();
      const response = await importStore(store, [{ order_number: orderNumber, lines, ...overrides }]);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual(ack(1, 0, 0));
      return orderNumber;
    }

    const put = (body: Record<string, unknown>, store = 'S1', token?: string | null) =>
      t.put(ORDER(store), body, token);

    async function putOk(body: Record<string, unknown>, store = 'S1'): Promise<void> {
      const response = await put(body, store);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().success).toBe(true);
    }

    const clear = (orderNumber: string, store = 'S1', token?: string | null) =>
      t.post(CLEARANCE, { store_number: store, order_number: orderNumber }, token);

    async function list(store: string, query = ''): Promise<Page> {
      const response = await t.get(`${ORDERS(store)}${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    }

    async function read(orderNumber: string, store = 'S1'): Promise<Order | undefined> {
      const page = await list(store, `?order_number=${encodeURIComponent(orderNumber)}`);
      return page.list[0];
    }

    async function mustRead(orderNumber: string, store = 'S1'): Promise<Order> {
      const order = await read(orderNumber, store);
      expect(order, `order ${orderNumber} in ${store}`).toBeDefined();
      return order!;
    }

    const picked = (order: Order) => order.lines.map((l) => [l.line_number, l.picked_quantity]);
    const balances = (productNumber: string, store?: string) => balancesOf(t.app.ctx.db, productNumber, store);

    const orderRow = (orderNumber: string) =>
      t.app.ctx.db.selectFrom('customer_orders').selectAll().where('order_number', '=', orderNumber).executeTakeFirst();

    async function ledgerOf(orderNumber: string): Promise<Array<Record<string, unknown>>> {
      const response = await t.get(`${LOG_LIST}?reference=${encodeURIComponent(orderNumber)}&page_size=1000`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().list;
    }

    // ---- set-up ------------------------------------------------------------------------

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const ok = (r: LightMyRequestResponse) => expect(r.statusCode, r.body).toBe(200);
      ok(await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2'), storeInput('L1')] }));
      ok(
        await t.post(`${API}/reasoncodes`, {
          reason_codes: [
            reasonCodeInput(REJECTION_CODE, { reason_code_type: 2, reason_code_description: 'Customer gone' }),
            reasonCodeInput(PLAIN_CODE, { reason_code_type: 1 }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/stores/S1/locations`, {
          locations: [
            { location_code: 'EMPTY', location_order: 1, default_stock_pool: 1 },
            { location_code: 'SHELF', location_order: 10, default_stock_pool: 1, tags: ['front'] },
            { location_code: 'BACK', location_order: 20, default_stock_pool: 2, tags: ['back'] },
          ],
        }),
      );
      ok(
        await t.post(`${API}/stores/S2/locations`, {
          locations: [{ location_code: 'SHELF', location_order: 1, default_stock_pool: 1 }],
        }),
      );
    });

    // store-ops verify's checks (bound = picked, order states, balance = Σ ledger) hold after every test.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    // ---- create and upsert -------------------------------------------------------------

    describe('create and upsert', () => {
      it('store path: creates an order; the list shows every field of §2.9 with lines, totals and pick locations', async () => {
        const p = await product({ barcode: '8800001', product_name: 'Master name P' });
        const q = await product({ barcode: '8800002', product_name: 'Master name Q' });
        await stock(p, 4, { location_code: 'SHELF' });
        await stock(p, 1, { location_code: 'SHELF', pool_location: 3 });
        await stock(p, 6, { location_code: 'BACK' });
        await stock(p, 2); // unlocated: not a pick location
        await stock(p, 5, { location_code: 'SHELF', customer_order_number: 'EXT-LIST-1' }); // bound to an unmanaged order: not free
        const number = nextOrderNumber();
        const response = await importStore('S1', [
          {
            order_number: number,
            store_number: 'IGNORED',
            order_type_code: 'CC',
            description: 'Click and collect',
            customer_name: 'Jane Doe',
            comment: 'Fragile',
            reference: 'WEB-1',
            pickup_date: '2026-12-01T12:00:00+02:00',
            sales_order_id: 'SO-1',
            stores_allowed: 'S1,S2',
            lines: [
              line(1, p, 3, {
                price: 2.5,
                barcode: 'LINE-BC',
                description: 'Line description',
                delivery_date: '2026-11-30T08:00:00Z',
                preferred_location_code: 'SHELF',
                reference: 'L-REF',
              }),
              line(2, q, 1.5),
            ],
          },
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(ack(1, 0, 0));

        const page = await list('S1', `?order_number=${number}`);
        expect(page.total_count).toBe(1);
        const order = page.list[0]!;
        const { lines, ...header } = order;
        expect(header).toEqual({
          is_active: true,
          is_claimed: false,
          is_picked: false,
          is_rejected: false,
          status_id: 1,
          total_lines: 2,
          total_quantity: 4.5,
          total_delivery_quantity: 0,
          comment: 'Fragile',
          customer_name: 'Jane Doe',
          description: 'Click and collect',
          order_number: number,
          order_type_code: 'CC',
          pickup_date: '2026-12-01T10:00:00.000Z',
          reference: 'WEB-1',
          sales_order_id: 'SO-1',
          store_number: 'S1',
          stores_allowed: 'S1,S2',
        });
        expect(lines).toHaveLength(2);
        const [first, second] = lines;
        expect(first).toMatchObject({
          id: expect.any(Number),
          explicit_order: false,
          is_template: false,
          is_picked: false,
          line_number: 1,
          picked_quantity: 0,
          price: 2.5,
          quantity: 3,
          stock_pool: 1,
          store_walking_order: 10,
          barcode: 'LINE-BC',
          description: 'Line description',
          delivery_date: '2026-11-30T08:00:00.000Z',
          pickup_date: '2026-12-01T10:00:00.000Z',
          preferred_location_code: 'SHELF',
          product_number: p,
          reference: 'L-REF',
        });
        // Where the free stock is, per location and pool (the unlocated and the order-bound stock are no pick locations).
        expect(first!.store_locations).toHaveLength(2);
        expect(first!.store_locations![0]).toMatchObject({
          location_order: 10,
          location_code: 'SHELF',
          quantity: 5,
          most_likely_pool_1: 4,
          most_likely_pool_3: 1,
          tags: ['front'],
          default_stock_pool: '1',
        });
        expect(first!.store_locations![0]!.most_likely_pool_2 ?? 0).toBe(0);
        expect(first!.store_locations![1]).toMatchObject({
          location_order: 20,
          location_code: 'BACK',
          quantity: 6,
          most_likely_pool_2: 6,
          tags: ['back'],
          default_stock_pool: '2',
        });
        expect(first!.store_locations![1]!.most_likely_pool_1 ?? 0).toBe(0);
        // Barcode and description fall back to the product master; no stock anywhere: walking order 0.
        expect(second).toMatchObject({
          line_number: 2,
          product_number: q,
          quantity: 1.5,
          price: 0,
          stock_pool: 1,
          picked_quantity: 0,
          is_picked: false,
          barcode: '8800002',
          description: 'Master name Q',
          store_walking_order: 0,
          explicit_order: false,
          is_template: false,
        });
        expect(second!.store_locations ?? []).toEqual([]);
        expect(first!.id).not.toBe(second!.id);
      });

      it('cross-store path: store_number per order decides the store; the order is listed there only', async () => {
        const p = await product();
        const a = nextOrderNumber();
        const b = nextOrderNumber();
        const response = await importCross([
          { order_number: a, store_number: 'S2', lines: [line(1, p, 2)] },
          { order_number: b, store_number: 'S1', lines: [line(1, p, 1)] },
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(ack(2, 0, 0));
        expect(await mustRead(a, 'S2')).toMatchObject({ store_number: 'S2', status_id: 1, total_quantity: 2 });
        expect(await read(a, 'S1')).toBeUndefined();
        expect(await mustRead(b, 'S1')).toMatchObject({ store_number: 'S1' });
        expect(await read(b, 'S2')).toBeUndefined();
      });

      it('cross-store path: store_number is required per order (400 naming it); nothing is stored', async () => {
        const p = await product();
        const a = nextOrderNumber();
        const b = nextOrderNumber();
        const response = await importCross([
          { order_number: a, store_number: 'S1', lines: [line(1, p, 1)] },
          { order_number: b, lines: [line(1, p, 1)] },
        ]);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(response)).toEqual(['orders[1].store_number']);
        expect(await read(a)).toBeUndefined();
      });

      it('unknown store: 404 on the store path; on the cross-store path the envelope lists orders[i].store_number', async () => {
        const p = await product();
        const a = nextOrderNumber();
        const onPath = await importStore('NOPE', [{ order_number: a, lines: [line(1, p, 1)] }]);
        expect(onPath.statusCode).toBe(404);
        expect(onPath.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        const b = nextOrderNumber();
        const cross = await importCross([
          { order_number: b, store_number: 'S1', lines: [line(1, p, 1)] },
          { order_number: a, store_number: 'NOPE', lines: [line(1, p, 1)] },
        ]);
        expect(cross.statusCode).toBe(404);
        expect(cross.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        expect(pathsOf(cross)).toEqual(['orders[1].store_number']);
        expect(await read(b)).toBeUndefined();
        expect((await t.get(ORDERS('NOPE'))).statusCode).toBe(404);
      });

      it('identical re-send: unchanged, nothing written (updated_on kept); a header change is an update', async () => {
        const p = await product();
        const number = nextOrderNumber();
        const sent = {
          order_number: number,
          customer_name: 'A',
          pickup_date: '2026-12-05T10:00:00Z',
          lines: [line(1, p, 2, { price: 1.25 }), line(2, p, 1)],
        };
        expect((await importStore('S1', [sent])).json()).toEqual(ack(1, 0, 0));
        const before = (await orderRow(number))!;
        await pastMoment(Number(before.updated_on));

        const again = await importStore('S1', [sent]);
        expect(again.statusCode).toBe(200);
        expect(again.json()).toEqual(ack(0, 0, 1));
        expect(Number((await orderRow(number))!.updated_on)).toBe(Number(before.updated_on));
        // The same order sent again with the same pickup moment in another offset is the same order.
        expect((await importStore('S1', [{ ...sent, pickup_date: '2026-12-05T12:00:00+02:00' }])).json()).toEqual(
          ack(0, 0, 1),
        );

        const changed = await importStore('S1', [{ ...sent, customer_name: 'B' }]);
        expect(changed.statusCode).toBe(200);
        expect(changed.json()).toEqual(ack(0, 1, 0));
        expect(Number((await orderRow(number))!.updated_on)).toBeGreaterThan(Number(before.updated_on));
        const order = await mustRead(number);
        expect(order.customer_name).toBe('B');
        expect(order.lines.map((l) => [l.line_number, l.quantity, l.price])).toEqual([
          [1, 2, 1.25],
          [2, 1, 0],
        ]);
      });

      it('lines present are the whole line set (absent lines removed, new added, changed updated); lines absent leave them', async () => {
        const p = await product();
        const q = await product();
        const number = await newOrder([line(1, p, 2), line(2, q, 1), line(3, p, 4)]);
        const ids = Object.fromEntries((await mustRead(number)).lines.map((l) => [l.line_number, l.id]));

        const set = await importStore('S1', [
          { order_number: number, lines: [line(1, p, 5), line(3, p, 4), line(4, q, 7, { stock_pool: 2 })] },
        ]);
        expect(set.statusCode, set.body).toBe(200);
        expect(set.json()).toEqual(ack(0, 1, 0));
        let order = await mustRead(number);
        expect(order.lines.map((l) => [l.line_number, l.product_number, l.quantity, l.stock_pool])).toEqual([
          [1, p, 5, 1],
          [3, p, 4, 1],
          [4, q, 7, 2],
        ]);
        expect(order.lines[0]!.id).toBe(ids[1]);
        expect(order.lines[1]!.id).toBe(ids[3]);
        expect(order).toMatchObject({ total_lines: 3, total_quantity: 16 });

        const headerOnly = await importStore('S1', [{ order_number: number, comment: 'header only' }]);
        expect(headerOnly.statusCode).toBe(200);
        expect(headerOnly.json()).toEqual(ack(0, 1, 0));
        order = await mustRead(number);
        expect(order.comment).toBe('header only');
        expect(order.lines.map((l) => [l.line_number, l.quantity])).toEqual([
          [1, 5],
          [3, 4],
          [4, 7],
        ]);

        const empty = await importStore('S1', [{ order_number: number, comment: 'header only', lines: [] }]);
        expect(empty.json()).toEqual(ack(0, 1, 0));
        expect(await mustRead(number)).toMatchObject({ total_lines: 0, lines: [] });
      });

      it('a repeated order_number or line_number, or a missing order_number, is a 400 naming it; nothing is stored', async () => {
        const p = await product();
        const a = nextOrderNumber();
        const b = nextOrderNumber();
        const repeatedOrder = await importStore('S1', [
          { order_number: a, lines: [line(1, p, 1)] },
          { order_number: a, lines: [line(1, p, 2)] },
        ]);
        expect(repeatedOrder.statusCode).toBe(400);
        expect(repeatedOrder.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(repeatedOrder)).toEqual(['orders[1].order_number']);

        const repeatedLine = await importStore('S1', [
          { order_number: b, lines: [line(1, p, 1)] },
          { order_number: a, lines: [line(1, p, 1), line(2, p, 1), line(1, p, 3)] },
        ]);
        expect(repeatedLine.statusCode).toBe(400);
        expect(pathsOf(repeatedLine)).toEqual(['orders[1].lines[2].line_number']);

        const missing = await importStore('S1', [
          { order_number: b, lines: [line(1, p, 1)] },
          { lines: [line(1, p, 1)] },
        ]);
        expect(missing.statusCode).toBe(400);
        expect(pathsOf(missing)).toEqual(['orders[1].order_number']);

        const missingCross = await importCross([{ store_number: 'S1', lines: [line(1, p, 1)] }]);
        expect(missingCross.statusCode).toBe(400);
        expect(pathsOf(missingCross)).toEqual(['orders[0].order_number']);

        expect(await read(a)).toBeUndefined();
        expect(await read(b)).toBeUndefined();
      });

      it('an unknown product is a 422 naming orders[i].lines[j].product_number; the batch is atomic (nothing stored)', async () => {
        const p = await product();
        const good = nextOrderNumber();
        const bad = nextOrderNumber();
        const response = await importStore('S1', [
          { order_number: good, lines: [line(1, p, 1)] },
          { order_number: bad, lines: [line(1, p, 1), line(2, 'NO-SUCH-PRODUCT', 1)] },
        ]);
        expect(response.statusCode).toBe(422);
        expect(response.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
        expect(errorsOf(response)).toEqual([
          { path: 'orders[1].lines[1].product_number', message: expect.stringContaining('NO-SUCH-PRODUCT') },
        ]);
        expect(await read(good)).toBeUndefined();
        expect(await read(bad)).toBeUndefined();
        expect(await orderRow(good)).toBeUndefined();

        // An update of an existing order in a failing batch is not applied either.
        const existing = await newOrder([line(1, p, 1)], { comment: 'before' });
        const mixed = await importStore('S1', [
          { order_number: existing, comment: 'after', lines: [line(1, p, 1)] },
          { order_number: bad, lines: [line(1, 'NO-SUCH-PRODUCT', 1)] },
        ]);
        expect(mixed.statusCode).toBe(422);
        expect(pathsOf(mixed)).toEqual(['orders[1].lines[0].product_number']);
        expect((await mustRead(existing)).comment).toBe('before');
      });

      it("another store's order number is a 409 naming orders[i].order_number; that order stays as it was", async () => {
        const p = await product();
        const number = await newOrder([line(1, p, 1)], { comment: 'mine' });
        const other = nextOrderNumber();
        const response = await importStore('S2', [
          { order_number: other, lines: [line(1, p, 1)] },
          { order_number: number, comment: 'theirs', lines: [line(1, p, 9)] },
        ]);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(pathsOf(response)).toEqual(['orders[1].order_number']);
        expect(await mustRead(number)).toMatchObject({ comment: 'mine', store_number: 'S1', total_quantity: 1 });
        expect(await read(number, 'S2')).toBeUndefined();
        expect(await read(other, 'S2')).toBeUndefined();

        const cross = await importCross([{ order_number: number, store_number: 'S2', lines: [line(1, p, 1)] }]);
        expect(cross.statusCode).toBe(409);
        expect(pathsOf(cross)).toEqual(['orders[0].order_number']);
      });
    });

    // ---- list --------------------------------------------------------------------------

    describe('list filters and paging (store L1)', () => {
      const numbers: string[] = [];

      beforeAll(async () => {
        const p = await product();
        for (const [index, pickup] of [
          '2026-12-01T09:00:00Z',
          '2026-12-01T23:30:00Z',
          '2026-12-02T00:00:00Z',
          undefined,
        ].entries()) {
          const number = `L-${dialect.name}-${index + 1}`;
          numbers.push(number);
          const response = await importStore('L1', [
            { order_number: number, pickup_date: pickup, lines: [line(1, p, 1)] },
          ]);
          expect(response.statusCode, response.body).toBe(200);
        }
        await putOk({ order_number: numbers[1], is_claimed: true }, 'L1');
        await putOk({ order_number: numbers[2], status_id: 7 }, 'L1');
        await putOk({ order_number: numbers[3], is_rejected: true, rejection_reason_code: REJECTION_CODE }, 'L1');
        // Known modification moments for last_modified_date.
        for (const [index, number] of numbers.entries()) {
          await t.app.ctx.db
            .updateTable('customer_orders')
            .set({ updated_on: Date.parse(`2026-03-0${index + 1}T00:00:00Z`) })
            .where('order_number', '=', number)
            .execute();
        }
      });

      const numbersOf = (page: Page) => page.list.map((o) => o.order_number);

      it("lists the store's own orders only, in id order", async () => {
        const page = await list('L1');
        expect(numbersOf(page)).toEqual(numbers);
        expect(page.total_count).toBe(4);
        expect(page).toMatchObject({ next_page: null, previous_page: null, scroll_id: null });
        expect(page.list.map((o) => [o.status_id, o.is_active, o.is_claimed, o.is_rejected])).toEqual([
          [1, true, false, false],
          [2, true, true, false],
          [7, false, false, false],
          [6, false, false, true],
        ]);
        const s1 = await list('S1', '?page_size=1000');
        expect(s1.list.some((o) => numbers.includes(o.order_number))).toBe(false);
        expect(s1.list.every((o) => o.store_number === 'S1')).toBe(true);
      });

      it('status_id, order_number and is_active filter', async () => {
        expect(numbersOf(await list('L1', '?status_id=2'))).toEqual([numbers[1]]);
        expect(numbersOf(await list('L1', '?status_id=6'))).toEqual([numbers[3]]);
        expect(numbersOf(await list('L1', '?status_id=4'))).toEqual([]);
        expect(numbersOf(await list('L1', `?order_number=${numbers[2]}`))).toEqual([numbers[2]]);
        expect(numbersOf(await list('L1', '?order_number=NOT-THERE'))).toEqual([]);
        const active = await list('L1', '?is_active=true');
        expect(numbersOf(active)).toEqual([numbers[0], numbers[1]]);
        expect(active.total_count).toBe(2);
        expect(numbersOf(await list('L1', '?is_active=false'))).toEqual([numbers[2], numbers[3]]);
        expect((await list('L1', '?status_id=2')).list_filters).toMatchObject({ status_id: ['2'] });
      });

      it('last_modified_date: orders updated at or after the moment', async () => {
        expect(numbersOf(await list('L1', '?last_modified_date=2026-03-03T00:00:00Z'))).toEqual([
          numbers[2],
          numbers[3],
        ]);
        expect(numbersOf(await list('L1', '?last_modified_date=2026-03-02T00:00:00.001Z'))).toEqual([
          numbers[2],
          numbers[3],
        ]);
        expect(numbersOf(await list('L1', '?last_modified_date=2026-03-02T02:00:00%2B02:00'))).toEqual([
          numbers[1],
          numbers[2],
          numbers[3],
        ]);
        expect((await t.get(`${ORDERS('L1')}?last_modified_date=yesterday`)).statusCode).toBe(400);
      });

      it('pickup_date: a day or a date-time selects that UTC day; garbage is a 400', async () => {
        expect(numbersOf(await list('L1', '?pickup_date=2026-12-01'))).toEqual([numbers[0], numbers[1]]);
        expect(numbersOf(await list('L1', '?pickup_date=2026-12-01T15:00:00Z'))).toEqual([numbers[0], numbers[1]]);
        // 00:30 at +01:00 is 23:30 UTC of the day before.
        expect(numbersOf(await list('L1', '?pickup_date=2026-12-02T00:30:00%2B01:00'))).toEqual([
          numbers[0],
          numbers[1],
        ]);
        expect(numbersOf(await list('L1', '?pickup_date=2026-12-02'))).toEqual([numbers[2]]);
        expect(numbersOf(await list('L1', '?pickup_date=2026-12-03'))).toEqual([]);
        for (const garbage of ['garbage', '2026-13-45', '01-12-2026']) {
          const response = await t.get(`${ORDERS('L1')}?pickup_date=${garbage}`);
          expect(response.statusCode, garbage).toBe(400);
          expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
          expect(
            pathsOf(response).some((p) => p.includes('pickup_date')),
            garbage,
          ).toBe(true);
        }
      });

      it('paging: page_size/page_start and scroll_id walk every order once', async () => {
        const first = await list('L1', '?page_size=1');
        expect(first).toMatchObject({ total_count: 4, page_size: 1, page_start: 1, next_page: 2, previous_page: null });
        expect(numbersOf(first)).toEqual([numbers[0]]);
        const third = await list('L1', '?page_size=1&page_start=3');
        expect(numbersOf(third)).toEqual([numbers[2]]);
        expect(third).toMatchObject({ next_page: 4, previous_page: 2 });
        expect(numbersOf(await list('L1', '?page_size=1&page_start=9'))).toEqual([]);

        const seen: string[] = [];
        let page = await list('L1', '?page_size=3');
        seen.push(...numbersOf(page));
        expect(page.scroll_id).toEqual(expect.any(String));
        page = await list('L1', `?page_size=3&scroll_id=${encodeURIComponent(page.scroll_id!)}`);
        seen.push(...numbersOf(page));
        expect(page.scroll_id).toBeNull();
        expect(seen).toEqual(numbers);
        // Filters and paging together.
        const active = await list('L1', '?is_active=true&page_size=1');
        expect(numbersOf(active)).toEqual([numbers[0]]);
        const activeNext = await list(
          'L1',
          `?is_active=true&page_size=1&scroll_id=${encodeURIComponent(active.scroll_id!)}`,
        );
        expect(numbersOf(activeNext)).toEqual([numbers[1]]);
      });

      it('is_picked, is_rejected and the rejection reason with its description on read', async () => {
        const rejected = (await list('L1', `?order_number=${numbers[3]}`)).list[0]!;
        expect(rejected).toMatchObject({
          status_id: 6,
          is_rejected: true,
          is_active: false,
          is_picked: false,
          rejection_reason_code: String(REJECTION_CODE),
          rejection_reason_code_description: 'Customer gone',
        });
      });
    });

    // ---- picking -----------------------------------------------------------------------

    describe('PUT: claim and pick', () => {
      it('claim: status 2, is_claimed, picked_username', async () => {
        const p = await product();
        const number = await newOrder([line(1, p, 2), line(2, p, 1)]);
        await putOk({ order_number: number, is_claimed: true, picked_username: 'ann' });
        const order = await mustRead(number);
        expect(order).toMatchObject({
          status_id: 2,
          is_claimed: true,
          is_active: true,
          is_picked: false,
          total_delivery_quantity: 0,
        });
        expect(order.lines.map((l) => l.picked_username)).toEqual(['ann', 'ann']);
        expect(await balances(p)).toEqual({});
        // Claiming again changes nothing; is_claimed false does not move the status back.
        await putOk({ order_number: number, is_claimed: false });
        expect(await mustRead(number)).toMatchObject({ status_id: 2 });
      });

      it('partial pick: status 3; the quantity moves from its location and pool into the order-bound unlocated balance', async () => {
        const p = await product();
        const q = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        await stock(q, 4, { location_code: 'BACK' });
        const number = await newOrder([
          line(1, p, 3, { preferred_location_code: 'SHELF' }),
          line(2, q, 2, { stock_pool: 2, preferred_location_code: 'BACK' }),
        ]);
        await putOk({ order_number: number, picked_username: 'bob', lines: [{ line_number: 1, picked_quantity: 2 }] });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 3, [`-|1|${number}`]: 2 });
        expect(await balances(q)).toEqual({ 'BACK|2|-': 4 });
        const order = await mustRead(number);
        expect(order).toMatchObject({
          status_id: 3,
          is_picked: false,
          is_active: true,
          total_delivery_quantity: 2,
          total_quantity: 5,
        });
        expect(order.lines[0]).toMatchObject({
          picked_quantity: 2,
          is_picked: false,
          stock_location: 'SHELF',
          picked_username: 'bob',
        });
        expect(order.lines[1]).toMatchObject({ picked_quantity: 0, is_picked: false });

        // The ledger: a pair of entries per move, carrying the order number, the line and the source.
        const entries = await ledgerOf(number);
        expect(entries).toHaveLength(2);
        const free = entries.find((e) => e.customer_order_number === undefined)!;
        const bound = entries.find((e) => e.customer_order_number === number)!;
        expect(free).toMatchObject({
          quantity: -2,
          location_code: 'SHELF',
          stock_pool_1: -2,
          reference: number,
          customer_order_line_number: 1,
          source: 'customer_order_picking',
          product_number: p,
        });
        expect(bound).toMatchObject({
          quantity: 2,
          stock_pool_1: 2,
          reference: number,
          customer_order_line_number: 1,
          source: 'customer_order_picking',
        });
        expect(bound.location_code).toBeUndefined();

        // picked_quantity is the new total, not an increment: sending 2 again binds nothing more.
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 3, [`-|1|${number}`]: 2 });
      });

      it('complete pick: every line in full is status 4 (is_picked), lines is_picked', async () => {
        const p = await product();
        const q = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        await stock(q, 4, { location_code: 'BACK' });
        const number = await newOrder([
          line(1, p, 3, { preferred_location_code: 'SHELF' }),
          line(2, q, 2, { stock_pool: 2, preferred_location_code: 'BACK' }),
        ]);
        await putOk({ order_number: number, is_claimed: true });
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] });
        expect((await mustRead(number)).status_id).toBe(3);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 3 }] });
        expect((await mustRead(number)).status_id).toBe(3);
        await putOk({ order_number: number, lines: [{ line_number: 2, picked_quantity: 2 }] });
        const order = await mustRead(number);
        expect(order).toMatchObject({ status_id: 4, is_picked: true, is_active: true, total_delivery_quantity: 5 });
        expect(order.lines.map((l) => l.is_picked)).toEqual([true, true]);
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 2, [`-|1|${number}`]: 3 });
        expect(await balances(q)).toEqual({ 'BACK|2|-': 2, [`-|2|${number}`]: 2 });
      });

      it('statuses may skip: picking everything at once takes a new order from 1 to 4', async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 2), line(2, p, 1)]);
        await putOk({
          order_number: number,
          lines: [
            { line_number: 1, picked_quantity: 2 },
            { line_number: 2, picked_quantity: 1 },
          ],
        });
        expect(await mustRead(number)).toMatchObject({ status_id: 4, is_picked: true, total_delivery_quantity: 3 });
        expect(await balances(p)).toEqual({ '-|1|-': 2, [`-|1|${number}`]: 3 });
      });

      it('is_picked: true completes the order (status 4) also when lines are short; short lines stay is_picked false', async () => {
        const p = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 3, { preferred_location_code: 'SHELF' }), line(2, p, 2)]);
        await putOk({ order_number: number, is_picked: true, lines: [{ line_number: 1, picked_quantity: 1 }] });
        const order = await mustRead(number);
        expect(order).toMatchObject({ status_id: 4, is_picked: true, total_delivery_quantity: 1 });
        expect(order.lines.map((l) => [l.picked_quantity, l.is_picked])).toEqual([
          [1, false],
          [0, false],
        ]);
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 4, [`-|1|${number}`]: 1 });
      });

      it('lowering picked_quantity releases the difference back to where the line was picked (or to a named stock_location)', async () => {
        const p = await product();
        await stock(p, 5, { location_code: 'BACK', pool_location: 1 });
        await stock(p, 5, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 4, { preferred_location_code: 'SHELF' })]);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 3, stock_location: 'BACK' }] });
        expect(await balances(p)).toEqual({ 'BACK|1|-': 2, 'SHELF|1|-': 5, [`-|1|${number}`]: 3 });

        // Back to BACK, where it was picked (not to the preferred SHELF).
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] });
        expect(await balances(p)).toEqual({ 'BACK|1|-': 4, 'SHELF|1|-': 5, [`-|1|${number}`]: 1 });
        let order = await mustRead(number);
        expect(order.lines[0]).toMatchObject({ picked_quantity: 1, is_picked: false });
        expect(order.status_id).toBe(3);

        // A named stock_location takes the release.
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 0, stock_location: 'SHELF' }] });
        expect(await balances(p)).toEqual({ 'BACK|1|-': 4, 'SHELF|1|-': 6 });
        order = await mustRead(number);
        expect(order).toMatchObject({ total_delivery_quantity: 0 });
        // The status does not move back.
        expect(order.status_id).toBe(3);
        const entries = await ledgerOf(number);
        expect(entries).toHaveLength(6);
        expect(entries.every((e) => e.source === 'customer_order_picking' && e.customer_order_line_number === 1)).toBe(
          true,
        );
      });

      it('the source of a pick: the named stock_location, else the last pick location, else the preferred location, else unlocated', async () => {
        const p = await product();
        await stock(p, 10, { location_code: 'SHELF' });
        await stock(p, 10, { location_code: 'BACK', pool_location: 1 });
        await stock(p, 10);
        const preferred = await newOrder([line(1, p, 10, { preferred_location_code: 'SHELF' })]);
        await putOk({ order_number: preferred, lines: [{ line_number: 1, picked_quantity: 1 }] });
        expect(await balances(p)).toMatchObject({ 'SHELF|1|-': 9, 'BACK|1|-': 10, '-|1|-': 10 });

        await putOk({
          order_number: preferred,
          lines: [{ line_number: 1, picked_quantity: 3, stock_location: 'BACK' }],
        });
        expect(await balances(p)).toMatchObject({ 'SHELF|1|-': 9, 'BACK|1|-': 8, '-|1|-': 10 });
        expect((await mustRead(preferred)).lines[0]!.stock_location).toBe('BACK');

        // No stock_location: from where the line was last picked (BACK), not the preferred location.
        await putOk({ order_number: preferred, lines: [{ line_number: 1, picked_quantity: 4 }] });
        expect(await balances(p)).toMatchObject({
          'SHELF|1|-': 9,
          'BACK|1|-': 7,
          '-|1|-': 10,
          [`-|1|${preferred}`]: 4,
        });

        // Neither a stock_location nor a preferred location: the unlocated stock.
        const unlocated = await newOrder([line(1, p, 2)]);
        await putOk({ order_number: unlocated, lines: [{ line_number: 1, picked_quantity: 2 }] });
        expect(await balances(p)).toEqual({
          'SHELF|1|-': 9,
          'BACK|1|-': 7,
          '-|1|-': 8,
          [`-|1|${preferred}`]: 4,
          [`-|1|${unlocated}`]: 2,
        });
        expect((await mustRead(unlocated)).lines[0]!.stock_location).toBeUndefined();
      });

      it("stock_pool: the line's pool (default 1) is the source and bound pool; it may change while nothing is picked, else 409", async () => {
        const p = await product();
        await stock(p, 4, { location_code: 'SHELF' });
        await stock(p, 4, { location_code: 'SHELF', pool_location: 3 });
        const number = await newOrder([line(1, p, 5, { preferred_location_code: 'SHELF' })]);
        await putOk({ order_number: number, lines: [{ line_number: 1, stock_pool: 3, picked_quantity: 2 }] });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 4, 'SHELF|3|-': 2, [`-|3|${number}`]: 2 });
        expect((await mustRead(number)).lines[0]).toMatchObject({ stock_pool: 3, picked_quantity: 2 });

        const change = await put({ order_number: number, lines: [{ line_number: 1, stock_pool: 1 }] });
        expect(change.statusCode, change.body).toBe(409);
        expect(change.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(pathsOf(change)).toEqual(['lines[0].stock_pool']);
        expect((await mustRead(number)).lines[0]).toMatchObject({ stock_pool: 3, picked_quantity: 2 });

        // Released first, the pool may change.
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 0 }] });
        await putOk({ order_number: number, lines: [{ line_number: 1, stock_pool: 1, picked_quantity: 1 }] });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 3, 'SHELF|3|-': 4, [`-|1|${number}`]: 1 });
        expect((await mustRead(number)).lines[0]).toMatchObject({ stock_pool: 1, picked_quantity: 1 });
      });

      it('picking more than is free at the source is a 409 naming lines[i].picked_quantity with what is free; nothing of the request is bound', async () => {
        const p = await product();
        const q = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        await stock(q, 2, { location_code: 'SHELF' });
        await stock(q, 9, { location_code: 'BACK', pool_location: 1 });
        await stock(q, 9, { location_code: 'SHELF', pool_location: 2 });
        const number = await newOrder([
          line(1, p, 3, { preferred_location_code: 'SHELF' }),
          line(2, q, 3, { preferred_location_code: 'SHELF' }),
        ]);

        const alone = await put({ order_number: number, lines: [{ line_number: 2, picked_quantity: 3 }] });
        expect(alone.statusCode, alone.body).toBe(409);
        expect(alone.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(errorsOf(alone)).toEqual([
          { path: 'lines[0].picked_quantity', message: expect.stringMatching(/\b2\b.*free/) },
        ]);

        // An earlier line of the same request that would fit is not bound either.
        const mixed = await put({
          order_number: number,
          is_claimed: true,
          lines: [
            { line_number: 1, picked_quantity: 3 },
            { line_number: 2, picked_quantity: 3 },
          ],
        });
        expect(mixed.statusCode, mixed.body).toBe(409);
        expect(errorsOf(mixed)).toEqual([
          { path: 'lines[1].picked_quantity', message: expect.stringMatching(/\b2\b.*free/) },
        ]);
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 5 });
        expect(await balances(q)).toEqual({ 'SHELF|1|-': 2, 'BACK|1|-': 9, 'SHELF|2|-': 9 });
        const order = await mustRead(number);
        expect(order).toMatchObject({ status_id: 1, is_claimed: false, total_delivery_quantity: 0 });
        expect(picked(order)).toEqual([
          [1, 0],
          [2, 0],
        ]);
        expect(await ledgerOf(number)).toEqual([]);

        // Exactly what is free works.
        await putOk({
          order_number: number,
          lines: [
            { line_number: 1, picked_quantity: 3 },
            { line_number: 2, picked_quantity: 2 },
          ],
        });
        expect(await balances(q)).toEqual({ 'BACK|1|-': 9, 'SHELF|2|-': 9, [`-|1|${number}`]: 2 });
      });

      it("stock bound to another order is not free: neither a managed order's picks nor an unmanaged order's stock at the location", async () => {
        const p = await product();
        await stock(p, 5);
        const first = await newOrder([line(1, p, 3)]);
        const second = await newOrder([line(1, p, 3)]);
        await putOk({ order_number: first, lines: [{ line_number: 1, picked_quantity: 3 }] });
        const refused = await put({ order_number: second, lines: [{ line_number: 1, picked_quantity: 3 }] });
        expect(refused.statusCode, refused.body).toBe(409);
        expect(errorsOf(refused)).toEqual([
          { path: 'lines[0].picked_quantity', message: expect.stringMatching(/\b2\b.*free/) },
        ]);
        expect(await balances(p)).toEqual({ '-|1|-': 2, [`-|1|${first}`]: 3 });

        const q = await product();
        await stock(q, 1, { location_code: 'SHELF' });
        await stock(q, 6, { location_code: 'SHELF', customer_order_number: 'EXT-BOUND-1' });
        const third = await newOrder([line(1, q, 2, { preferred_location_code: 'SHELF' })]);
        const bound = await put({ order_number: third, lines: [{ line_number: 1, picked_quantity: 2 }] });
        expect(bound.statusCode, bound.body).toBe(409);
        expect(pathsOf(bound)).toEqual(['lines[0].picked_quantity']);
        expect(await balances(q)).toEqual({ 'SHELF|1|-': 1, 'SHELF|1|EXT-BOUND-1': 6 });
        expect((await mustRead(third)).lines[0]!.picked_quantity).toBe(0);
      });

      it('no interleaving binds a unit twice: concurrent picks of one line bind the total once; two orders racing for the last units', async () => {
        const p = await product();
        await stock(p, 10);
        const number = await newOrder([line(1, p, 4)]);
        const same = await Promise.all(
          Array.from({ length: 6 }, () =>
            put({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] }),
          ),
        );
        expect(same.map((r) => r.statusCode)).toEqual(Array(6).fill(200));
        expect(await balances(p)).toEqual({ '-|1|-': 8, [`-|1|${number}`]: 2 });

        const q = await product();
        await stock(q, 5);
        const a = await newOrder([line(1, q, 3)]);
        const b = await newOrder([line(1, q, 3)]);
        const raced = await Promise.all(
          [a, b].map((n) => put({ order_number: n, lines: [{ line_number: 1, picked_quantity: 3 }] })),
        );
        expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 409]);
        const winner = raced[0]!.statusCode === 200 ? a : b;
        expect(await balances(q)).toEqual({ '-|1|-': 2, [`-|1|${winner}`]: 3 });
      });

      it('unknown order (or another store’s) is 404; an unknown line 422 lines[i].line_number; an unknown location 422 lines[i].stock_location', async () => {
        const p = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 3, { preferred_location_code: 'SHELF' })]);

        const unknown = await put({ order_number: 'NO-SUCH-ORDER', is_claimed: true });
        expect(unknown.statusCode).toBe(404);
        expect(unknown.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        const otherStore = await put({ order_number: number, is_claimed: true }, 'S2');
        expect(otherStore.statusCode).toBe(404);
        expect((await put({ order_number: number, is_claimed: true }, 'NOPE')).statusCode).toBe(404);

        const line9 = await put({
          order_number: number,
          lines: [
            { line_number: 1, picked_quantity: 1 },
            { line_number: 9, picked_quantity: 1 },
          ],
        });
        expect(line9.statusCode).toBe(422);
        expect(line9.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
        expect(pathsOf(line9)).toEqual(['lines[1].line_number']);

        const location = await put({
          order_number: number,
          lines: [{ line_number: 1, picked_quantity: 1, stock_location: 'NOWHERE' }],
        });
        expect(location.statusCode).toBe(422);
        expect(errorsOf(location)).toEqual([
          { path: 'lines[0].stock_location', message: expect.stringContaining('NOWHERE') },
        ]);

        // A location of another store is unknown here.
        const q = await product();
        await stock(q, 3, { location_code: 'SHELF' }, 'S2');
        const foreign = await newOrder([line(1, q, 1, { preferred_location_code: 'BACK' })], {}, 'S2');
        const preferredUnknown = await put(
          { order_number: foreign, lines: [{ line_number: 1, picked_quantity: 1 }] },
          'S2',
        );
        expect(preferredUnknown.statusCode).toBe(422);
        expect(pathsOf(preferredUnknown)).toEqual(['lines[0].stock_location']);

        expect(await balances(p)).toEqual({ 'SHELF|1|-': 5 });
        expect(await balances(q)).toEqual({ 'SHELF|1|-': 3 });
        expect(await mustRead(number)).toMatchObject({ status_id: 1, is_claimed: false, total_delivery_quantity: 0 });
      });

      it('Idempotency-Key on the PUT: the same key and body twice binds once', async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 4)]);
        const send = (picked: number) =>
          t.request({
            method: 'PUT',
            url: ORDER('S1'),
            payload: { order_number: number, lines: [{ line_number: 1, picked_quantity: picked }] },
            headers: { 'idempotency-key': `co-pick-${dialect.name}-${number}` },
          });
        const first = await send(2);
        expect(first.statusCode, first.body).toBe(200);
        // Lowered in between without a key: a replay must not bind again.
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] });
        const replay = await send(2);
        expect(replay.statusCode).toBe(200);
        expect(replay.body).toBe(first.body);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(await balances(p)).toEqual({ '-|1|-': 4, [`-|1|${number}`]: 1 });
        expect((await mustRead(number)).lines[0]!.picked_quantity).toBe(1);
        // The same key with another body is a 409.
        expect((await send(3)).statusCode).toBe(409);
        expect(await balances(p)).toEqual({ '-|1|-': 4, [`-|1|${number}`]: 1 });
      });
    });

    // ---- statuses, rejection, cancel ---------------------------------------------------

    describe('PUT: statuses, rejection and cancel', () => {
      it('rejection needs a type-2 code (missing 400, unknown 422, other type 422); nothing changes on refusal', async () => {
        const p = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 3, { preferred_location_code: 'SHELF' })]);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] });

        const missing = await put({ order_number: number, is_rejected: true });
        expect(missing.statusCode).toBe(400);
        expect(missing.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(missing)).toEqual(['rejection_reason_code']);

        const unknown = await put({ order_number: number, is_rejected: true, rejection_reason_code: 999 });
        expect(unknown.statusCode).toBe(422);
        expect(unknown.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
        expect(pathsOf(unknown)).toEqual(['rejection_reason_code']);

        const wrongType = await put({ order_number: number, is_rejected: true, rejection_reason_code: PLAIN_CODE });
        expect(wrongType.statusCode).toBe(422);
        expect(pathsOf(wrongType)).toEqual(['rejection_reason_code']);

        const withPicks = await put({
          order_number: number,
          is_rejected: true,
          rejection_reason_code: REJECTION_CODE,
          lines: [{ line_number: 1, picked_quantity: 0 }],
        });
        expect(withPicks.statusCode).toBe(400);
        expect(pathsOf(withPicks)).toContain('lines');

        const statusSix = await put({ order_number: number, status_id: 6, rejection_reason_code: REJECTION_CODE });
        expect(statusSix.statusCode).toBe(400);
        expect(pathsOf(statusSix)).toContain('status_id');

        expect(await mustRead(number)).toMatchObject({ status_id: 3, is_rejected: false, total_delivery_quantity: 2 });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 3, [`-|1|${number}`]: 2 });
      });

      it('rejection releases every line back to where it was picked: status 6, picks 0, reason on read', async () => {
        const p = await product();
        const q = await product();
        await stock(p, 5, { location_code: 'BACK', pool_location: 1 });
        await stock(q, 4);
        const number = await newOrder([line(1, p, 3, { preferred_location_code: 'SHELF' }), line(2, q, 2)]);
        await putOk({
          order_number: number,
          lines: [
            { line_number: 1, picked_quantity: 3, stock_location: 'BACK' },
            { line_number: 2, picked_quantity: 1 },
          ],
        });
        expect(await balances(p)).toEqual({ 'BACK|1|-': 2, [`-|1|${number}`]: 3 });
        expect(await balances(q)).toEqual({ '-|1|-': 3, [`-|1|${number}`]: 1 });

        await putOk({ order_number: number, is_rejected: true, rejection_reason_code: REJECTION_CODE });
        expect(await balances(p)).toEqual({ 'BACK|1|-': 5 });
        expect(await balances(q)).toEqual({ '-|1|-': 4 });
        const order = await mustRead(number);
        expect(order).toMatchObject({
          status_id: 6,
          is_rejected: true,
          is_active: false,
          is_picked: false,
          total_delivery_quantity: 0,
          rejection_reason_code: String(REJECTION_CODE),
          rejection_reason_code_description: 'Customer gone',
        });
        expect(picked(order)).toEqual([
          [1, 0],
          [2, 0],
        ]);
        // status_id 6 together with is_rejected is a rejection too.
        const other = await newOrder([line(1, q, 1)]);
        await putOk({ order_number: other, status_id: 6, is_rejected: true, rejection_reason_code: REJECTION_CODE });
        expect(await mustRead(other)).toMatchObject({ status_id: 6, is_rejected: true });
      });

      it('cancel (status_id 7) releases every line; status 7, inactive', async () => {
        const p = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 3, { preferred_location_code: 'SHELF' })]);
        await putOk({ order_number: number, is_picked: true, lines: [{ line_number: 1, picked_quantity: 2 }] });
        await putOk({ order_number: number, status_id: 7 });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 5 });
        const order = await mustRead(number);
        expect(order).toMatchObject({
          status_id: 7,
          is_active: false,
          is_picked: false,
          is_rejected: false,
          total_delivery_quantity: 0,
        });
        expect(picked(order)).toEqual([[1, 0]]);
        // A new order cancels too.
        const fresh = await newOrder([line(1, p, 1)]);
        await putOk({ order_number: fresh, status_id: 7 });
        expect((await mustRead(fresh)).status_id).toBe(7);
      });

      it('statuses move forward only: an explicit lower status_id is a 409; status_id 5 on the PUT is a 400', async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 3)]);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] });
        const back = await put({ order_number: number, status_id: 2 });
        expect(back.statusCode).toBe(409);
        expect(back.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        const backWithPick = await put({
          order_number: number,
          status_id: 1,
          lines: [{ line_number: 1, picked_quantity: 2 }],
        });
        expect(backWithPick.statusCode).toBe(409);
        expect(await balances(p)).toEqual({ '-|1|-': 4, [`-|1|${number}`]: 1 });

        const collected = await put({ order_number: number, status_id: 5 });
        expect(collected.statusCode).toBe(400);
        expect(collected.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(collected)).toEqual(['status_id']);
        expect(await mustRead(number)).toMatchObject({ status_id: 3, is_active: true });

        // Forward and the same status are fine.
        await putOk({ order_number: number, status_id: 3 });
        await putOk({ order_number: number, status_id: 4 });
        expect(await mustRead(number)).toMatchObject({ status_id: 4, is_picked: true });
      });

      it('after 5, 6 or 7 every change is a 409: PUT, clearance and an upsert that changes the order', async () => {
        const p = await product();
        await stock(p, 10);
        const collected = await newOrder([line(1, p, 1)]);
        await putOk({ order_number: collected, lines: [{ line_number: 1, picked_quantity: 1 }] });
        expect((await clear(collected)).statusCode).toBe(200);
        const rejected = await newOrder([line(1, p, 1)]);
        await putOk({ order_number: rejected, is_rejected: true, rejection_reason_code: REJECTION_CODE });
        const cancelled = await newOrder([line(1, p, 1)]);
        await putOk({ order_number: cancelled, status_id: 7 });
        const before = await balances(p);

        for (const [number, status] of [
          [collected, 5],
          [rejected, 6],
          [cancelled, 7],
        ] as const) {
          for (const body of [
            { order_number: number, is_claimed: true },
            { order_number: number, comment: 'late' },
            { order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] },
            { order_number: number, status_id: 7 },
            { order_number: number, is_rejected: true, rejection_reason_code: REJECTION_CODE },
          ]) {
            const response = await put(body);
            expect(response.statusCode, `${status} ${JSON.stringify(body)}`).toBe(409);
            expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT' });
          }
          const clearance = await clear(number);
          expect(clearance.statusCode, `clearance at ${status}`).toBe(409);
          const upsert = await importStore('S1', [
            { order_number: number, comment: 'changed', lines: [line(1, p, 2)] },
          ]);
          expect(upsert.statusCode, `upsert at ${status}`).toBe(409);
          expect(pathsOf(upsert)).toEqual(['orders[0].order_number']);
          // An identical re-send is no change.
          expect((await importStore('S1', [{ order_number: number, lines: [line(1, p, 1)] }])).json()).toEqual(
            ack(0, 0, 1),
          );
          expect((await mustRead(number)).status_id).toBe(status);
        }
        expect(await balances(p)).toEqual(before);
        expect((await mustRead(collected)).lines[0]!.picked_quantity).toBe(1);
      });
    });

    // ---- clearance ---------------------------------------------------------------------

    describe('clearance', () => {
      it('the bound stock leaves the store; status 5; lines keep picked_quantity; a second clearance is a 409', async () => {
        const p = await product();
        const q = await product();
        await stock(p, 5, { location_code: 'SHELF' });
        await stock(q, 4, { location_code: 'BACK' });
        const number = await newOrder([
          line(1, p, 3, { preferred_location_code: 'SHELF' }),
          line(2, q, 2, { stock_pool: 2, preferred_location_code: 'BACK' }),
        ]);
        await putOk({
          order_number: number,
          lines: [
            { line_number: 1, picked_quantity: 3 },
            { line_number: 2, picked_quantity: 1 },
          ],
        });
        await putOk({ order_number: number, is_picked: true });

        const response = await clear(number);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().success).toBe(true);
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 2 });
        expect(await balances(q)).toEqual({ 'BACK|2|-': 3 });
        const order = await mustRead(number);
        expect(order).toMatchObject({
          status_id: 5,
          is_picked: true,
          is_active: false,
          is_rejected: false,
          total_delivery_quantity: 4,
        });
        expect(picked(order)).toEqual([
          [1, 3],
          [2, 1],
        ]);
        const clearances = (await ledgerOf(number)).filter((e) => e.source === 'customer_order_clearance');
        expect(
          clearances
            .map((e) => [e.product_number, e.quantity, e.customer_order_number, e.customer_order_line_number])
            .sort(),
        ).toEqual(
          [
            [p, -3, number, 1],
            [q, -1, number, 2],
          ].sort(),
        );

        const again = await clear(number);
        expect(again.statusCode).toBe(409);
        expect(again.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 2 });
        // Store totals: what was handed over is gone, also without exclude_customer_order_stock.
        const [entry] = (await t.get(SINGLE('S1', p))).json().products;
        expect(entry.most_likely_stock).toBe(2);
      });

      it("clearance of another store's order is a 404, an unknown store a 404, an unknown order a 404; nothing leaves", async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 2)]);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] });
        const elsewhere = await clear(number, 'S2');
        expect(elsewhere.statusCode).toBe(404);
        expect(elsewhere.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        expect((await clear(number, 'NOPE')).statusCode).toBe(404);
        expect((await clear('NO-SUCH-ORDER')).statusCode).toBe(404);
        const missing = await t.post(CLEARANCE, { order_number: number });
        expect(missing.statusCode).toBe(400);
        expect(pathsOf(missing)).toEqual(['store_number']);
        expect(await balances(p)).toEqual({ '-|1|-': 3, [`-|1|${number}`]: 2 });
        expect(await mustRead(number)).toMatchObject({ status_id: 4, is_active: true });
      });

      it('a clearance and a rejection racing on one order: exactly one succeeds', async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 2)]);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] });
        const [cleared, rejected] = await Promise.all([
          clear(number),
          put({ order_number: number, is_rejected: true, rejection_reason_code: REJECTION_CODE }),
        ]);
        expect([cleared.statusCode, rejected.statusCode].sort()).toEqual([200, 409]);
        const order = await mustRead(number);
        if (cleared.statusCode === 200) {
          expect(order.status_id).toBe(5);
          expect(await balances(p)).toEqual({ '-|1|-': 3 });
        } else {
          expect(order.status_id).toBe(6);
          expect(await balances(p)).toEqual({ '-|1|-': 5 });
        }
      });
    });

    // ---- upsert against picked lines ---------------------------------------------------

    describe('upsert vs picked lines', () => {
      it('removing a line with picked stock, or changing its product or pool, is a 409 naming the line; its quantity may change', async () => {
        const p = await product();
        const q = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 3), line(2, q, 1)], { comment: 'c' });
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] });
        const unchanged = async () => {
          const order = await mustRead(number);
          expect(
            order.lines.map((l) => [l.line_number, l.product_number, l.quantity, l.stock_pool, l.picked_quantity]),
          ).toEqual([
            [1, p, 3, 1, 2],
            [2, q, 1, 1, 0],
          ]);
          expect(order.comment).toBe('c');
          expect(await balances(p)).toEqual({ '-|1|-': 3, [`-|1|${number}`]: 2 });
        };

        const removed = await importStore('S1', [{ order_number: number, comment: 'x', lines: [line(2, q, 1)] }]);
        expect(removed.statusCode).toBe(409);
        expect(removed.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(errorsOf(removed)).toEqual([{ path: 'orders[0].lines', message: expect.stringMatching(/\bline 1\b/) }]);
        await unchanged();

        const product2 = await importStore('S1', [
          { order_number: number, comment: 'x', lines: [line(1, q, 3), line(2, q, 1)] },
        ]);
        expect(product2.statusCode).toBe(409);
        expect(pathsOf(product2)).toEqual(['orders[0].lines[0].product_number']);
        await unchanged();

        const pool = await importStore('S1', [
          { order_number: number, comment: 'x', lines: [line(1, p, 3, { stock_pool: 2 }), line(2, q, 1)] },
        ]);
        expect(pool.statusCode).toBe(409);
        expect(errorsOf(pool)).toEqual([
          { path: expect.stringMatching(/^orders\[0\]\.lines/), message: expect.stringMatching(/\bline 1\b/) },
        ]);
        await unchanged();

        // A line without picks may go; the picked line's quantity may change (also below what is picked).
        const ok = await importStore('S1', [{ order_number: number, comment: 'x', lines: [line(1, p, 2)] }]);
        expect(ok.statusCode, ok.body).toBe(200);
        expect(ok.json()).toEqual(ack(0, 1, 0));
        const order = await mustRead(number);
        expect(order.lines.map((l) => [l.line_number, l.quantity, l.picked_quantity, l.is_picked])).toEqual([
          [1, 2, 2, true],
        ]);
        expect(await balances(p)).toEqual({ '-|1|-': 3, [`-|1|${number}`]: 2 });
      });
    });

    // ---- pick locations on read --------------------------------------------------------

    describe('read model: pick locations', () => {
      it('store_locations list free stock only: picked (bound) stock and emptied locations are left out; walking order follows', async () => {
        const p = await product();
        await stock(p, 2, { location_code: 'SHELF' });
        await stock(p, 3, { location_code: 'BACK' });
        const number = await newOrder([line(1, p, 4, { preferred_location_code: 'SHELF' })]);
        let lineRead = (await mustRead(number)).lines[0]!;
        expect(lineRead.store_walking_order).toBe(10);
        expect(lineRead.store_locations!.map((l) => [l.location_code, l.quantity])).toEqual([
          ['SHELF', 2],
          ['BACK', 3],
        ]);

        // SHELF is emptied: 2 picked from it are bound now, not free there.
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] });
        expect(await balances(p)).toEqual({ 'BACK|2|-': 3, [`-|1|${number}`]: 2 });
        lineRead = (await mustRead(number)).lines[0]!;
        expect(lineRead.store_locations!.map((l) => [l.location_code, l.quantity])).toEqual([['BACK', 3]]);
        expect(lineRead.store_walking_order).toBe(20);
      });

      it('a line ordered 0 counts as picked (picked ≥ ordered)', async () => {
        const p = await product();
        const number = await newOrder([line(1, p, 0)]);
        expect((await mustRead(number)).lines[0]).toMatchObject({ quantity: 0, picked_quantity: 0, is_picked: true });
      });
    });

    // ---- stock reads and stock posts ---------------------------------------------------

    describe('stock reads and posts around order-bound stock', () => {
      it('picked stock counts in the totals and is left out with exclude_customer_order_stock=true (single product and listing)', async () => {
        const p = await product();
        await stock(p, 10, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 6, { preferred_location_code: 'SHELF' })]);
        // Warm the answers before the pick: they must not be served stale afterwards.
        for (const query of [
          '',
          '?exclude_customer_order_stock=true',
          '?exclude_customer_order_stock=true&include_locations=true',
        ]) {
          expect((await t.get(`${SINGLE('S1', p)}${query}`)).json().products[0].most_likely_stock).toBe(10);
        }
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 4 }] });

        const all = (await t.get(SINGLE('S1', p))).json().products[0];
        expect(all).toMatchObject({ most_likely_stock: 10, stock_pool_1: 10 });
        const sellable = (await t.get(`${SINGLE('S1', p)}?exclude_customer_order_stock=true`)).json().products[0];
        expect(sellable).toMatchObject({ most_likely_stock: 6, stock_pool_1: 6 });
        const located = (
          await t.get(`${SINGLE('S1', p)}?exclude_customer_order_stock=true&include_locations=true`)
        ).json().products[0];
        expect(located.most_likely_stock).toBe(6);
        expect(located.store_locations).toEqual([
          expect.objectContaining({ store_location_code: 'SHELF', quantity: 6, stock_pool_1: 6 }),
        ]);
        const withBound = (await t.get(`${SINGLE('S1', p)}?include_locations=true`)).json().products[0];
        expect(
          withBound.store_locations.map((l: { store_location_code?: string; quantity: number }) => [
            l.store_location_code,
            l.quantity,
          ]),
        ).toEqual([
          ['SHELF', 6],
          [undefined, 4],
        ]);

        const listed = async (query: string) => {
          const response = await t.get(`${STOCK_LIST}?store_number=S1&product_number=${p}${query}`);
          expect(response.statusCode, response.body).toBe(200);
          const body = response.json();
          expect(body.list).toHaveLength(1);
          return body.list[0];
        };
        expect(await listed('')).toMatchObject({ most_likely_quantity: 10, most_likely_pool_1: 10 });
        expect(await listed('&exclude_customer_order_stock=true')).toMatchObject({
          most_likely_quantity: 6,
          most_likely_pool_1: 6,
        });

        // Released again: sellable again.
        await putOk({ order_number: number, status_id: 7 });
        expect(
          (await t.get(`${SINGLE('S1', p)}?exclude_customer_order_stock=true`)).json().products[0].most_likely_stock,
        ).toBe(10);
        expect(await listed('&exclude_customer_order_stock=true')).toMatchObject({ most_likely_quantity: 10 });
      });

      it("a stock log entry or a movement naming a managed order's number is a 422 naming the field; unmanaged numbers work as before", async () => {
        const p = await product();
        await stock(p, 10, { location_code: 'SHELF' });
        const number = await newOrder([line(1, p, 2)]);
        const before = await balances(p);

        const entry = await t.post(LOGS('S1'), {
          storeproductlog: [
            {
              product_number: p,
              quantity: 1,
              customer_order_line_number: 0,
              modification_datetime: '2026-01-02T00:00:00Z',
            },
            {
              product_number: p,
              quantity: 2,
              customer_order_number: number,
              customer_order_line_number: 1,
              modification_datetime: '2026-01-02T00:00:00Z',
            },
          ],
        });
        expect(entry.statusCode, entry.body).toBe(422);
        expect(entry.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
        expect(errorsOf(entry)).toEqual([
          { path: 'storeproductlog[1].customer_order_number', message: expect.stringContaining(number) },
        ]);

        const moveTo = await t.post(MOVE('S1'), {
          body: [
            {
              product_number: p,
              quantity: 1,
              from_location: { location_code: 'SHELF' },
              to_location: { location_code: 'SHELF', customer_order_number: number },
            },
          ],
        });
        expect(moveTo.statusCode, moveTo.body).toBe(422);
        expect(pathsOf(moveTo)).toEqual(['body[0].to_location.customer_order_number']);
        const moveFrom = await t.post(MOVE('S1'), {
          body: [
            {
              product_number: p,
              quantity: 1,
              from_location: { customer_order_number: number },
              to_location: { location_code: 'SHELF' },
              allow_overage: true,
            },
          ],
        });
        expect(moveFrom.statusCode, moveFrom.body).toBe(422);
        expect(pathsOf(moveFrom)).toEqual(['body[0].from_location.customer_order_number']);
        expect(await balances(p)).toEqual(before);

        // An order number this service does not manage still books order-bound stock.
        await stock(p, 2, {
          location_code: 'SHELF',
          customer_order_number: 'EXT-UNMANAGED-1',
          customer_order_line_number: 1,
        });
        const moved = await t.post(MOVE('S1'), {
          body: [
            {
              product_number: p,
              quantity: 1,
              from_location: { location_code: 'SHELF' },
              to_location: { location_code: 'SHELF', customer_order_number: 'EXT-UNMANAGED-1' },
            },
          ],
        });
        expect(moved.statusCode, moved.body).toBe(200);
        expect(await balances(p)).toEqual({ 'SHELF|1|-': 9, 'SHELF|1|EXT-UNMANAGED-1': 3 });
        expect((await mustRead(number)).lines[0]!.picked_quantity).toBe(0);
      });
    });

    // ---- access ------------------------------------------------------------------------

    describe('access', () => {
      it('a store token works in its own stores only (403 elsewhere, nothing written)', async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 2)]);
        await putOk({ order_number: number, lines: [{ line_number: 1, picked_quantity: 1 }] });
        const token = await t.token('store', ['S2']);
        const fresh = nextOrderNumber();

        const expect403 = (r: LightMyRequestResponse, what: string) => {
          expect(r.statusCode, `${what}: ${r.body}`).toBe(403);
          expect(r.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
        };
        expect403(
          await importStore('S1', [{ order_number: fresh, lines: [line(1, p, 1)] }], token),
          'store-path create',
        );
        expect403(
          await importStore('S1', [{ order_number: number, comment: 'hijack', lines: [line(1, p, 2)] }], token),
          'store-path update',
        );
        expect403(
          await importCross(
            [
              { order_number: `${fresh}-own`, store_number: 'S2', lines: [line(1, p, 1)] },
              { order_number: fresh, store_number: 'S1', lines: [line(1, p, 1)] },
            ],
            token,
          ),
          'cross-store create',
        );
        expect403(
          await put({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] }, 'S1', token),
          'PUT',
        );
        expect403(await put({ order_number: number, status_id: 7 }, 'S1', token), 'PUT cancel');
        expect403(await clear(number, 'S1', token), 'clearance');
        expect403(await t.get(ORDERS('S1'), token), 'list');

        expect(await read(fresh)).toBeUndefined();
        expect(await read(`${fresh}-own`, 'S2')).toBeUndefined();
        const untouched = await mustRead(number);
        expect(untouched).toMatchObject({ status_id: 3, total_delivery_quantity: 1 });
        expect(untouched.comment).toBeUndefined();
        expect(await balances(p)).toEqual({ '-|1|-': 4, [`-|1|${number}`]: 1 });

        // In its own store everything works.
        const own = nextOrderNumber();
        expect((await importStore('S2', [{ order_number: own, lines: [line(1, p, 1)] }], token)).statusCode).toBe(200);
        expect(
          (await importCross([{ order_number: `${own}-x`, store_number: 'S2', lines: [line(1, p, 1)] }], token))
            .statusCode,
        ).toBe(200);
        expect((await put({ order_number: own, is_claimed: true }, 'S2', token)).statusCode).toBe(200);
        expect((await clear(own, 'S2', token)).statusCode).toBe(200);
        const listed = await t.get(ORDERS('S2'), token);
        expect(listed.statusCode).toBe(200);
        expect(listed.json().list.map((o: Order) => o.order_number)).toEqual(expect.arrayContaining([own, `${own}-x`]));
      });

      it('a read token cannot write (403 on all four writes) but lists; no credential is a 401', async () => {
        const p = await product();
        await stock(p, 5);
        const number = await newOrder([line(1, p, 2)]);
        const token = await t.token('read');
        const fresh = nextOrderNumber();
        const writes = (credential: string | null) => [
          importStore('S1', [{ order_number: fresh, lines: [line(1, p, 1)] }], credential),
          importCross([{ order_number: fresh, store_number: 'S1', lines: [line(1, p, 1)] }], credential),
          put({ order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] }, 'S1', credential),
          clear(number, 'S1', credential),
        ];
        for (const response of await Promise.all(writes(token))) {
          expect(response.statusCode, response.body).toBe(403);
          expect(response.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
        }
        expect((await t.get(ORDERS('S1'), token)).statusCode).toBe(200);

        for (const response of [...(await Promise.all(writes(null))), await t.get(ORDERS('S1'), null)]) {
          expect(response.statusCode, response.body).toBe(401);
          expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
        }
        expect(await read(fresh)).toBeUndefined();
        expect(await mustRead(number)).toMatchObject({ status_id: 1, total_delivery_quantity: 0 });
        expect(await balances(p)).toEqual({ '-|1|-': 5 });
      });
    });
  });
}
