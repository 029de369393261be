import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

// Receiving both ways (docs/deliveries.md "Receiving, two ways with one effect", "Transfers";
// PRODUCT §7): the receive endpoint by line number and stock log entries with
// is_from_receipt=true whose reference is an order number.

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const RECEIVE = (store: string, order: string) =>
  `${API}/stores/${store}/orders/deliveries/${encodeURIComponent(order)}/receive`;

type Json = Record<string, any>;

const line = (
  line_number: number,
  product_number: string,
  quantity: number,
  target_stock_pool = 1,
  extra: Json = {},
) => ({
  line_number,
  product_number,
  quantity,
  target_stock_pool,
  ...extra,
});

const entry = (product_number: string, quantity: number, extra: Json = {}) => ({
  product_number,
  quantity,
  customer_order_line_number: 0,
  modification_datetime: '2026-02-01T10:00:00Z',
  ...extra,
});

const paths = (response: { json(): any }) => (response.json().errors ?? []).map((e: { path: string }) => e.path);

for (const dialect of DIALECTS) {
  describe(`receiving deliveries (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;
    const unique = (prefix: string) => `${prefix}-${++counter}`;

    async function newProduct(extra: Json = {}): Promise<string> {
      const number = unique('RP');
      const response = await t.post(`${API}/products`, {
        products: [productInput(number, { barcode: `BC-${number}`, price: 4.5, purchase_price: 2.25, ...extra })],
      });
      expect(response.statusCode).toBe(200);
      return number;
    }

    async function announce(store: string, lines: Json[], extra: Json = {}): Promise<string> {
      const order_number = (extra.order_number as string | undefined) ?? unique('DEL');
      const response = await t.post(`${API}/stores/${store}/orders/deliveries`, {
        orders: [
          {
            order_number,
            order_type: 1,
            datetime_expected: '2026-02-01T08:00:00Z',
            no_of_containers: 1,
            supplier_name: 'Acme',
            order_lines: lines,
            ...extra,
          },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
      return order_number;
    }

    const receive = (store: string, order: string, body: Json, query = '', token?: string) =>
      t.post(`${RECEIVE(store, order)}${query}`, body, token);
    const postEntries = (store: string, entries: Json[], query = '?is_from_receipt=true', token?: string) =>
      t.post(`${LOGS(store)}${query}`, { storeproductlog: entries }, token);

    async function deliveryOf(order: string): Promise<Json> {
      const response = await t.get(`${API}/orders/deliveries?order_number=${encodeURIComponent(order)}`);
      expect(response.statusCode).toBe(200);
      expect(response.json().list).toHaveLength(1);
      return response.json().list[0];
    }
    const receivedOf = async (order: string) =>
      Object.fromEntries(
        ((await deliveryOf(order)).order_lines as Json[]).map((l) => [l.line_number, l.received_quantity]),
      );

    async function receiptOf(order: string, type = 1): Promise<Json | undefined> {
      // A listing shows receipts changed before its moment (updated_on < server_time): let the clock pass the last write.
      const at = Date.now();
      while (Date.now() <= at) await new Promise((resolve) => setTimeout(resolve, 1));
      const response = await t.get(
        `${API}/orders/receipts?receipt_type=${type}&order_number=${encodeURIComponent(order)}`,
      );
      expect(response.statusCode).toBe(200);
      return response.json().list[0];
    }

    async function logsOf(query: string): Promise<Json[]> {
      const response = await t.get(`${API}/products/stock/storeproductlogs?${query}&page_size=1000`);
      expect(response.statusCode).toBe(200);
      return response.json().list;
    }

    const logRows = (ids: number[]) =>
      t.app.ctx.db
        .selectFrom('stock_logs')
        .select(['id', 'is_from_receipt', 'reference', 'reference_id', 'source', 'store_number'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();

    const balances = (product: string, store = 'R1') => balancesOf(t.app.ctx.db, product, store);

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect(
        (
          await t.post(`${API}/stores`, {
            stores: [storeInput('R1', { store_gln: '8712345000011' }), storeInput('R2'), storeInput('R3')],
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await t.post(`${API}/reasoncodes`, {
            reason_codes: [
              reasonCodeInput(500, { reason_code_description: 'Receipt' }),
              reasonCodeInput(501, { default_review_status: 1, reason_code_description: 'Needs review' }),
            ],
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await t.post(`${API}/stores/R1/locations`, {
            locations: [
              { location_code: 'SHELF', location_order: 1, default_stock_pool: 1 },
              { location_code: 'BACK', location_order: 2, default_stock_pool: 3 },
            ],
          })
        ).statusCode,
      ).toBe(200);
    });

    // store-ops verify's checks hold after every single test, not only at the end.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('the receive endpoint', () => {
      it("books into the line's target pool (or the body's), unlocated; raises the lines; open → receiving → received on submit", async () => {
        const a = await newProduct();
        const b = await newProduct();
        const order = await announce('R1', [line(1, a, 10, 2), line(2, b, 5, 1)]);
        const before = await deliveryOf(order);
        expect(before).toMatchObject({ status: 'open', is_downloaded: false });
        expect(await receiptOf(order)).toBeUndefined();

        const first = await receive(
          'R1',
          order,
          {
            lines: [
              { line_number: 1, received_quantity: 4 },
              { line_number: 2, received_quantity: 5, target_stock_pool: 3 },
            ],
          },
          '?appUserName=rita',
        );
        expect(first.statusCode, first.body).toBe(200);
        expect(first.json().success).toBe(true);
        expect(await balances(a)).toEqual({ '-|2|-': 4 });
        expect(await balances(b)).toEqual({ '-|3|-': 5 });
        const during = await deliveryOf(order);
        expect(during).toMatchObject({ status: 'receiving', is_downloaded: true });
        expect(await receivedOf(order)).toEqual({ 1: 4, 2: 5 });

        // One ledger entry per received line: is_from_receipt, reference = the order number, the line's product.
        const entries = await logsOf(`reference=${order}`);
        expect(entries).toHaveLength(2);
        expect(entries[0]).toMatchObject({
          product_number: a,
          quantity: 4,
          stock_pool_2: 4,
          reference: order,
          app_user_name: 'rita',
          store_number: 'R1',
          purged_to_most_likely: true,
        });
        expect(entries[0].location_code).toBeUndefined();
        expect(entries[1]).toMatchObject({
          product_number: b,
          quantity: 5,
          stock_pool_3: 5,
          reference: order,
          app_user_name: 'rita',
        });
        expect((await logRows(entries.map((e) => e.id))).map((r) => Number(r.is_from_receipt))).toEqual([1, 1]);
        expect(await receiptOf(order)).toMatchObject({ status: 'receiving', order_number: order });

        const submit = await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 6 }], submit: true });
        expect(submit.statusCode, submit.body).toBe(200);
        expect(await balances(a)).toEqual({ '-|2|-': 10 });
        expect(await deliveryOf(order)).toMatchObject({ status: 'received', is_downloaded: true });
        expect(await receivedOf(order)).toEqual({ 1: 10, 2: 5 });
        expect(await receiptOf(order)).toMatchObject({ status: 'received' });
        expect((await receiptOf(order))!.receipt_lines).toHaveLength(3);

        // Received: nothing more happens, by either way.
        const after = await receive('R1', order, { lines: [{ line_number: 2, received_quantity: 1 }] });
        expect(after.statusCode).toBe(409);
        expect(after.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        const again = await receive('R1', order, { lines: [], submit: true });
        expect(again.statusCode).toBe(409);
        const byEntry = await postEntries('R1', [entry(b, 1, { reference: order })]);
        expect(byEntry.statusCode).toBe(409);
        expect(paths(byEntry)).toEqual(['storeproductlog[0]']);
        expect(await balances(b)).toEqual({ '-|3|-': 5 });
        expect(await receivedOf(order)).toEqual({ 1: 10, 2: 5 });
      });

      it('submit with lines: [] closes an open delivery with an empty receipt', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3)]);
        const response = await receive('R1', order, { lines: [], submit: true });
        expect(response.statusCode, response.body).toBe(200);
        expect(await deliveryOf(order)).toMatchObject({ status: 'received' });
        expect(await receiptOf(order)).toMatchObject({ order_number: order, status: 'received', receipt_lines: [] });
        expect(
          (await t.get(`${API}/orders/receipts?receipt_type=1&is_submitted=true&order_number=${order}`)).json()
            .total_count,
        ).toBe(1);
        expect(await balances(a)).toEqual({});
        const more = await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 3 }] });
        expect(more.statusCode).toBe(409);
        expect(await balances(a)).toEqual({});
      });

      it('submit with lines: [] closes a receiving delivery; what was received stays', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3, 2)]);
        expect((await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 2 }] })).statusCode).toBe(
          200,
        );
        const response = await receive('R1', order, { lines: [], submit: true });
        expect(response.statusCode, response.body).toBe(200);
        expect(await deliveryOf(order)).toMatchObject({ status: 'received', is_downloaded: true });
        expect(await receivedOf(order)).toEqual({ 1: 2 });
        expect(await receiptOf(order)).toMatchObject({
          status: 'received',
          receipt_lines: [expect.objectContaining({ line_number: 1, received_quantity: 2 })],
        });
        expect(await balances(a)).toEqual({ '-|2|-': 2 });
      });

      it('order numbers with URL-special characters are received by their percent-encoded path', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3, 2)], { order_number: `PO 2026/${++counter}#1?x` });
        const response = await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 3 }] });
        expect(response.statusCode, response.body).toBe(200);
        expect(await receivedOf(order)).toEqual({ 1: 3 });
        expect(await balances(a)).toEqual({ '-|2|-': 3 });
      });

      it('a cancelled delivery cannot receive: 409 both ways, nothing booked', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3)], { status: 'cancelled' });
        expect(await deliveryOf(order)).toMatchObject({ status: 'cancelled' });
        const response = await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 1 }] });
        expect(response.statusCode).toBe(409);
        expect(response.json().code).toBe('CONFLICT');
        expect((await receive('R1', order, { lines: [], submit: true })).statusCode).toBe(409);
        const byEntry = await postEntries('R1', [entry(a, 1, { reference: order })]);
        expect(byEntry.statusCode).toBe(409);
        expect(paths(byEntry)).toEqual(['storeproductlog[0]']);
        expect(await balances(a)).toEqual({});
        expect(await deliveryOf(order)).toMatchObject({ status: 'cancelled' });
        expect(await receiptOf(order)).toBeUndefined();
      });

      it('404 for an unknown store, an unknown delivery, and a delivery of another store', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3)]);
        const body = { lines: [{ line_number: 1, received_quantity: 1 }] };
        for (const response of [
          await receive('NOPE', order, body),
          await receive('R1', 'NO-SUCH-ORDER', body),
          await receive('R2', order, body),
        ]) {
          expect(response.statusCode).toBe(404);
          expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        }
        expect(await balances(a, 'R1')).toEqual({});
        expect(await balances(a, 'R2')).toEqual({});
        expect(await deliveryOf(order)).toMatchObject({ status: 'open' });
      });

      it('422 for a line number not on the delivery, naming lines[i].line_number; nothing booked', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3), line(2, a, 3)]);
        const response = await receive('R1', order, {
          lines: [
            { line_number: 1, received_quantity: 1 },
            { line_number: 7, received_quantity: 1 },
            { line_number: 2, received_quantity: 1 },
          ],
          submit: true,
        });
        expect(response.statusCode).toBe(422);
        expect(response.json().code).toBe('UNPROCESSABLE');
        expect(paths(response)).toEqual(['lines[1].line_number']);
        expect(await balances(a)).toEqual({});
        expect(await receivedOf(order)).toEqual({ 1: 0, 2: 0 });
        expect(await deliveryOf(order)).toMatchObject({ status: 'open' });
        expect(await receiptOf(order)).toBeUndefined();
      });

      it('400 for lines: [] without submit: true', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 3)]);
        for (const body of [{ lines: [] }, { lines: [], submit: false }]) {
          const response = await receive('R1', order, body);
          expect(response.statusCode).toBe(400);
          expect(response.json().code).toBe('VALIDATION_FAILED');
        }
        expect(await deliveryOf(order)).toMatchObject({ status: 'open' });
      });

      it('a negative quantity corrects a mis-scan; 409 naming the quantity when the line total would go below 0', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 5, 2)]);
        expect((await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 5 }] })).statusCode).toBe(
          200,
        );
        const correction = await receive('R1', order, { lines: [{ line_number: 1, received_quantity: -2 }] });
        expect(correction.statusCode, correction.body).toBe(200);
        expect(await receivedOf(order)).toEqual({ 1: 3 });
        expect(await balances(a)).toEqual({ '-|2|-': 3 });
        expect((await receiptOf(order))!.receipt_lines.map((r: Json) => r.received_quantity)).toEqual([5, -2]);

        const tooMuch = await receive('R1', order, {
          lines: [
            { line_number: 1, received_quantity: -1 },
            { line_number: 1, received_quantity: -3 },
          ],
        });
        expect(tooMuch.statusCode).toBe(409);
        expect(tooMuch.json().code).toBe('CONFLICT');
        expect(paths(tooMuch)).toEqual(['lines[1].received_quantity']);
        expect(await receivedOf(order)).toEqual({ 1: 3 });
        expect(await balances(a)).toEqual({ '-|2|-': 3 });

        const byEntry = await postEntries('R1', [entry(a, -4, { reference: order })]);
        expect(byEntry.statusCode).toBe(409);
        expect(paths(byEntry)).toEqual(['storeproductlog[0].quantity']);
        expect(await receivedOf(order)).toEqual({ 1: 3 });
        expect(await balances(a)).toEqual({ '-|2|-': 3 });
        // Down to exactly zero is fine.
        expect((await postEntries('R1', [entry(a, -3, { reference: order })])).statusCode).toBe(200);
        expect(await receivedOf(order)).toEqual({ 1: 0 });
        expect(await balances(a)).toEqual({});
      });

      it('over- and under-receipt are allowed and visible side by side on GET /orders/deliveries', async () => {
        const a = await newProduct();
        const b = await newProduct();
        const order = await announce('R1', [line(1, a, 5), line(2, b, 5)]);
        const response = await receive('R1', order, {
          lines: [
            { line_number: 1, received_quantity: 7.5 },
            { line_number: 2, received_quantity: 2 },
          ],
          submit: true,
        });
        expect(response.statusCode, response.body).toBe(200);
        const read = await deliveryOf(order);
        expect(read.status).toBe('received');
        expect(read.order_lines.map((l: Json) => [l.line_number, l.quantity, l.received_quantity])).toEqual([
          [1, 5, 7.5],
          [2, 5, 2],
        ]);
        expect(await balances(a)).toEqual({ '-|1|-': 7.5 });
        expect(await balances(b)).toEqual({ '-|1|-': 2 });
      });
    });

    describe('stock log entries with is_from_receipt=true', () => {
      it('match by product: the first line still short, then the next line of that product; else the first', async () => {
        const a = await newProduct();
        const b = await newProduct();
        const order = await announce('R1', [line(1, a, 3, 2), line(2, b, 1, 1), line(3, a, 4, 4)]);
        const response = await postEntries('R1', [
          entry(a, 2, { reference: order }),
          entry(a, 2, { reference: order }),
          entry(a, 3, { reference: order }),
          entry(b, 1, { reference: order }),
          entry(a, 1, { reference: order }),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().message).toContain('received on deliveries 5');
        // 2 → line 1 (0 < 3), 2 → line 1 (2 < 3), 3 → line 3 (line 1 full, 0 < 4), 1 → line 3 (3 < 4).
        expect(await receivedOf(order)).toEqual({ 1: 4, 2: 1, 3: 4 });
        expect(await balances(a)).toEqual({ '-|2|-': 4, '-|4|-': 4 });
        // Every line full: the first line of the product takes it.
        expect((await postEntries('R1', [entry(a, 1, { reference: order })])).statusCode).toBe(200);
        expect(await receivedOf(order)).toEqual({ 1: 5, 2: 1, 3: 4 });
        expect(await balances(a)).toEqual({ '-|2|-': 5, '-|4|-': 4 });
        expect(await deliveryOf(order)).toMatchObject({ status: 'receiving', is_downloaded: true });
        expect(
          (await receiptOf(order))!.receipt_lines.map((r: Json) => [
            r.line_number,
            r.product_number,
            r.received_quantity,
          ]),
        ).toEqual([
          [1, a, 2],
          [1, a, 2],
          [3, a, 3],
          [2, b, 1],
          [3, a, 1],
          [1, a, 1],
        ]);
        const rows = await logRows(response.json().data);
        expect(rows.map((r) => [Number(r.is_from_receipt), r.reference])).toEqual(
          Array.from({ length: 5 }, () => [1, order]),
        );
      });

      it("pool: the line's target pool unless the entry names pools (pool_location, stock_pool_N); the entry's location is kept", async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 100, 2)]);
        const response = await postEntries('R1', [
          entry(a, 1, { reference: order }),
          entry(a, 2, { reference: order, pool_location: 5 }),
          entry(a, 3, { reference: order, stock_pool_6: 3 }),
          // SHELF's default pool is 1 and BACK's 3: a receipt still goes to the line's pool 2.
          entry(a, 4, { reference: order, location_code: 'SHELF' }),
          entry(a, 5, { reference: order, location_code: 'BACK' }),
          entry(a, 6, { reference: order, location_code: 'BACK', pool_location: 7 }),
          entry(a, 7, { reference: order, stock_pool_8: 3, stock_pool_9: 4 }),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(await balances(a)).toEqual({
          '-|2|-': 1,
          '-|5|-': 2,
          '-|6|-': 3,
          'SHELF|2|-': 4,
          'BACK|2|-': 5,
          'BACK|7|-': 6,
          '-|8|-': 3,
          '-|9|-': 4,
        });
        expect(await receivedOf(order)).toEqual({ 1: 28 });
        expect((await receiptOf(order))!.receipt_lines.map((r: Json) => r.received_quantity)).toEqual([
          1, 2, 3, 4, 5, 6, 7,
        ]);
        const entries = await logsOf(`reference=${order}`);
        expect(entries.map((e) => [e.location_code ?? null, e.stock_pool])).toEqual([
          [null, '2'],
          [null, '5'],
          [null, '6'],
          ['SHELF', '2'],
          ['BACK', '2'],
          ['BACK', '7'],
          [null, undefined],
        ]);
      });

      it('an entry whose reference is no delivery of the store is a plain receipt entry: no delivery changes', async () => {
        const a = await newProduct();
        const mine = await announce('R1', [line(1, a, 5, 2)]);
        const theirs = await announce('R2', [line(1, a, 5, 3)]);
        const response = await postEntries('R1', [
          entry(a, 1, { reference: 'NO-DELIVERY-HERE' }),
          entry(a, 2, { reference: theirs }),
          entry(a, 3),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().message).not.toContain('received on deliveries');
        expect(await balances(a, 'R1')).toEqual({ '-|1|-': 6 });
        expect(await balances(a, 'R2')).toEqual({});
        expect(await receivedOf(mine)).toEqual({ 1: 0 });
        expect(await receivedOf(theirs)).toEqual({ 1: 0 });
        expect(await deliveryOf(mine)).toMatchObject({ status: 'open' });
        expect(await deliveryOf(theirs)).toMatchObject({ status: 'open' });
        expect(await receiptOf(theirs)).toBeUndefined();
        expect((await logRows(response.json().data)).map((r) => Number(r.is_from_receipt))).toEqual([1, 1, 1]);
        // Without is_from_receipt=true an entry naming a delivery is no receipt either.
        const plain = await postEntries('R1', [entry(a, 1, { reference: mine })], '');
        expect(plain.statusCode).toBe(200);
        expect(await receivedOf(mine)).toEqual({ 1: 0 });
        expect(await receiptOf(mine)).toBeUndefined();
      });

      it('422 storeproductlog[i].product_number for a product not on the delivery; the request books nothing', async () => {
        const a = await newProduct();
        const other = await newProduct();
        const order = await announce('R1', [line(1, a, 5)]);
        const response = await postEntries('R1', [
          entry(a, 1, { reference: order }),
          entry(other, 1, { reference: order }),
        ]);
        expect(response.statusCode).toBe(422);
        expect(response.json().code).toBe('UNPROCESSABLE');
        expect(paths(response)).toEqual(['storeproductlog[1].product_number']);
        expect(await balances(a)).toEqual({});
        expect(await balances(other)).toEqual({});
        expect(await receivedOf(order)).toEqual({ 1: 0 });
        expect(await deliveryOf(order)).toMatchObject({ status: 'open' });
      });

      it('a count on a delivery is 422: receipts are deltas', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 5)]);
        const response = await postEntries(
          'R1',
          [entry(a, 4, { reference: order })],
          '?is_from_receipt=true&is_counted_quantity=true',
        );
        expect(response.statusCode).toBe(422);
        expect(response.json().code).toBe('UNPROCESSABLE');
        expect(paths(response)[0]).toMatch(/^storeproductlog\[0\]/);
        expect(await balances(a)).toEqual({});
        expect(await receivedOf(order)).toEqual({ 1: 0 });
      });

      it('a reason code that needs review is 422 storeproductlog[i].reason_code: a receipt is booked at once', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 5)]);
        const response = await postEntries('R1', [
          entry(a, 1, { reference: order, reason_code: 500 }),
          entry(a, 1, { reference: order, reason_code: 501 }),
        ]);
        expect(response.statusCode).toBe(422);
        expect(paths(response)).toEqual(['storeproductlog[1].reason_code']);
        expect(await balances(a)).toEqual({});
        expect(await receivedOf(order)).toEqual({ 1: 0 });
        // A code that needs no review receives.
        const ok = await postEntries('R1', [entry(a, 1, { reference: order, reason_code: 500 })]);
        expect(ok.statusCode, ok.body).toBe(200);
        expect(await receivedOf(order)).toEqual({ 1: 1 });
      });

      it('a closed delivery is 409 naming the entry; other entries of the request book nothing', async () => {
        const a = await newProduct();
        const open = await announce('R1', [line(1, a, 5)]);
        const closed = await announce('R1', [line(1, a, 5)]);
        expect(
          (await receive('R1', closed, { lines: [{ line_number: 1, received_quantity: 5 }], submit: true })).statusCode,
        ).toBe(200);
        const response = await postEntries('R1', [
          entry(a, 1, { reference: open }),
          entry(a, 1, { reference: closed }),
        ]);
        expect(response.statusCode).toBe(409);
        expect(response.json().code).toBe('CONFLICT');
        expect(paths(response)).toEqual(['storeproductlog[1]']);
        expect(await receivedOf(open)).toEqual({ 1: 0 });
        expect(await receivedOf(closed)).toEqual({ 1: 5 });
        expect(await balances(a)).toEqual({ '-|1|-': 5 });
      });
    });

    it('both ways have the same effect: balances, line totals, receipt lines and log entries', async () => {
      const a = await newProduct({ price: 3.1, purchase_price: 1.7 });
      const b = await newProduct({ price: 8, purchase_price: 5.5 });
      const lines = [
        line(1, a, 5, 2, { purchase_price: 1.9 }),
        line(2, b, 3, 1, { barcode: 'LINE-BC' }),
        line(3, a, 2, 4),
      ];
      const viaEndpoint = await announce('R1', lines);
      const viaEntries = await announce('R2', lines);

      const endpoint = await receive(
        'R1',
        viaEndpoint,
        {
          lines: [
            { line_number: 1, received_quantity: 5 },
            { line_number: 2, received_quantity: 2 },
            { line_number: 3, received_quantity: 1 },
          ],
        },
        '?AppUserName=sam',
      );
      expect(endpoint.statusCode, endpoint.body).toBe(200);
      const entries = await postEntries(
        'R2',
        [
          entry(a, 5, { reference: viaEntries }),
          entry(b, 2, { reference: viaEntries }),
          entry(a, 1, { reference: viaEntries }),
        ],
        '?is_from_receipt=true&appUserName=sam',
      );
      expect(entries.statusCode, entries.body).toBe(200);

      for (const product of [a, b]) expect(await balances(product, 'R2')).toEqual(await balances(product, 'R1'));
      expect(await balances(a, 'R1')).toEqual({ '-|2|-': 5, '-|4|-': 1 });
      expect(await receivedOf(viaEntries)).toEqual(await receivedOf(viaEndpoint));
      expect(await receivedOf(viaEndpoint)).toEqual({ 1: 5, 2: 2, 3: 1 });
      const [d1, d2] = [await deliveryOf(viaEndpoint), await deliveryOf(viaEntries)];
      expect([d1.status, d2.status]).toEqual(['receiving', 'receiving']);

      const receiptLines = async (order: string) =>
        ((await receiptOf(order))!.receipt_lines as Json[]).map(({ id, updated_on, ...rest }) => {
          expect(typeof id).toBe('number');
          expect(typeof updated_on).toBe('string');
          return rest;
        });
      const r1 = await receiptLines(viaEndpoint);
      expect(await receiptLines(viaEntries)).toEqual(r1);
      expect(r1.map((r) => [r.line_number, r.received_quantity, r.purchase_price, r.barcode])).toEqual([
        [1, 5, 1.9, `BC-${a}`],
        [2, 2, 5.5, 'LINE-BC'],
        [3, 1, 1.7, `BC-${a}`],
      ]);

      const logView = async (order: string) => {
        const list = await logsOf(`reference=${order}`);
        const rows = new Map((await logRows(list.map((e) => e.id))).map((r) => [r.id, r]));
        return list.map((e) => {
          // customer_order_line_number is what the entries' sender put in (a required field there), not an effect.
          const {
            id,
            created_on,
            updated_on,
            store_number,
            reference,
            moved_on,
            reference_id,
            customer_order_line_number,
            ...rest
          } = e;
          expect(reference).toBe(order);
          return {
            ...rest,
            has_reference_id: reference_id !== undefined,
            is_from_receipt: Number(rows.get(id)!.is_from_receipt),
          };
        });
      };
      const l1 = await logView(viaEndpoint);
      expect(l1).toHaveLength(3);
      expect(l1.every((e) => e.is_from_receipt === 1)).toBe(true);
      expect(await logView(viaEntries)).toEqual(l1);
    });

    it('Idempotency-Key: the same key and body books once and answers the same; another body is 409', async () => {
      const a = await newProduct();
      const order = await announce('R1', [line(1, a, 10, 2)]);
      const key = unique('idem');
      const body = { lines: [{ line_number: 1, received_quantity: 3 }] };
      const send = (payload: Json, k = key) =>
        t.request({ method: 'POST', url: RECEIVE('R1', order), payload, headers: { 'idempotency-key': k } });
      const first = await send(body);
      expect(first.statusCode, first.body).toBe(200);
      const second = await send(body);
      expect(second.statusCode).toBe(200);
      expect(second.body).toBe(first.body);
      expect(await balances(a)).toEqual({ '-|2|-': 3 });
      expect(await receivedOf(order)).toEqual({ 1: 3 });
      expect((await receiptOf(order))!.receipt_lines).toHaveLength(1);
      expect(await logsOf(`reference=${order}`)).toHaveLength(1);

      const other = await send({ lines: [{ line_number: 1, received_quantity: 4 }] });
      expect(other.statusCode).toBe(409);
      expect(other.json().code).toBe('CONFLICT');
      expect(await balances(a)).toEqual({ '-|2|-': 3 });
      expect(await receivedOf(order)).toEqual({ 1: 3 });
      // Another key is another request.
      expect((await send(body, unique('idem'))).statusCode).toBe(200);
      expect(await receivedOf(order)).toEqual({ 1: 6 });
    });

    describe('transfers (store_origin)', () => {
      const total = (b: Record<string, number>) => Object.values(b).reduce((sum, q) => sum + q, 0);

      it("receiving books the opposite out of the origin's unlocated pool 1, both legs linked by the receiving entry's id", async () => {
        const a = await newProduct();
        expect((await postEntries('R3', [entry(a, 10)], '')).statusCode).toBe(200);
        expect(await balances(a, 'R3')).toEqual({ '-|1|-': 10 });
        const order = await announce('R1', [line(1, a, 6, 2)], { order_type: 2, store_origin: 'R3' });
        const chainTotal = async () => total(await balances(a, 'R1')) + total(await balances(a, 'R3'));

        const response = await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 4 }] });
        expect(response.statusCode, response.body).toBe(200);
        expect(await balances(a, 'R1')).toEqual({ '-|2|-': 4 });
        expect(await balances(a, 'R3')).toEqual({ '-|1|-': 6 });
        expect(await chainTotal()).toBe(10);

        const [received] = await logsOf(`reference=${order}&store_number=R1`);
        expect(received).toMatchObject({ product_number: a, quantity: 4, store_number: 'R1' });
        const pair = await logsOf(`reference_id=${received!.id}`);
        expect(pair).toHaveLength(2);
        const leg = pair.find((e) => e.store_number === 'R3')!;
        expect(leg).toMatchObject({
          product_number: a,
          quantity: -4,
          stock_pool_1: -4,
          source: 'transfer',
          reference: order,
          reference_id: received!.id,
        });
        expect(leg.location_code).toBeUndefined();
        expect(pair.find((e) => e.store_number === 'R1')).toMatchObject({
          id: received!.id,
          reference_id: received!.id,
        });

        // By entries, and a correction: the origin follows each.
        // The destination's pool is the entry's choice; the origin's is always its unlocated pool 1.
        expect((await postEntries('R1', [entry(a, 2, { reference: order, pool_location: 5 })])).statusCode).toBe(200);
        expect(await balances(a, 'R1')).toEqual({ '-|2|-': 4, '-|5|-': 2 });
        expect(await balances(a, 'R3')).toEqual({ '-|1|-': 4 });
        expect((await receive('R1', order, { lines: [{ line_number: 1, received_quantity: -1 }] })).statusCode).toBe(
          200,
        );
        expect(await balances(a, 'R1')).toEqual({ '-|2|-': 3, '-|5|-': 2 });
        expect(await balances(a, 'R3')).toEqual({ '-|1|-': 5 });
        expect(await chainTotal()).toBe(10);
        const legs = await logsOf(`reference=${order}&store_number=R3`);
        expect(legs.map((e) => [e.quantity, e.source])).toEqual([
          [-4, 'transfer'],
          [-2, 'transfer'],
          [1, 'transfer'],
        ]);
        const receiving = await logsOf(`reference=${order}&store_number=R1`);
        expect(legs.map((e) => e.reference_id)).toEqual(receiving.map((e) => e.id));
        expect(receiving.map((e) => e.reference_id)).toEqual(receiving.map((e) => e.id));
        expect(await receivedOf(order)).toEqual({ 1: 5 });
      });

      it('an origin that is no store of this service books nothing there', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 6, 1)], { order_type: 2, store_origin: 'OUTSIDE-WAREHOUSE' });
        expect((await receive('R1', order, { lines: [{ line_number: 1, received_quantity: 6 }] })).statusCode).toBe(
          200,
        );
        expect((await postEntries('R1', [entry(a, 1, { reference: order })])).statusCode).toBe(200);
        expect(await balances(a, 'R1')).toEqual({ '-|1|-': 7 });
        expect(await balancesOf(t.app.ctx.db, a)).toEqual({ '-|1|-': 7 });
        const all = await logsOf(`reference=${order}`);
        expect(all.map((e) => e.store_number)).toEqual(['R1', 'R1']);
        expect(all.some((e) => e.source === 'transfer')).toBe(false);
      });
    });

    describe('access', () => {
      it('a store token receives only in its stores (403 elsewhere, nothing booked); a read token is 403', async () => {
        const a = await newProduct();
        const order = await announce('R1', [line(1, a, 6, 1)]);
        const other = await t.token('store', ['R2']);
        const own = await t.token('store', ['R1']);
        const reader = await t.token('read');
        const body = { lines: [{ line_number: 1, received_quantity: 1 }] };
        for (const token of [other, reader]) {
          const response = await receive('R1', order, body, '', token);
          expect(response.statusCode).toBe(403);
          expect(response.json().code).toBe('FORBIDDEN');
          expect(
            (await postEntries('R1', [entry(a, 1, { reference: order })], '?is_from_receipt=true', token)).statusCode,
          ).toBe(403);
        }
        expect(await balances(a)).toEqual({});
        expect(await receivedOf(order)).toEqual({ 1: 0 });
        expect(await deliveryOf(order)).toMatchObject({ status: 'open' });

        const mine = await receive('R1', order, body, '', own);
        expect(mine.statusCode, mine.body).toBe(200);
        expect(
          (await postEntries('R1', [entry(a, 1, { reference: order })], '?is_from_receipt=true', own)).statusCode,
        ).toBe(200);
        expect(await receivedOf(order)).toEqual({ 1: 2 });
        expect(await balances(a)).toEqual({ '-|1|-': 2 });
      });
    });
  });
}
