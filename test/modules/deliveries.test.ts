import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StoreDeliveryInput } from '../../src/modules/deliveries/schema.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput, unchecked } from '../helpers/factories.js';

// Delivery import (POST /stores/{s}/orders/deliveries, POST /orders/deliveries) and read
// (GET /orders/deliveries), docs/deliveries.md "Import" and "Read". Receiving and receipts
// have their own tests; the receive endpoint is used here only to put a delivery into
// `receiving` or `received`.

const STORE_DELIVERIES = (store: string) => `${API}/stores/${store}/orders/deliveries`;
const DELIVERIES = `${API}/orders/deliveries`;
const RECEIVE = (store: string, order: string) =>
  `${API}/stores/${store}/orders/deliveries/${encodeURIComponent(order)}/receive`;

type StoreOrder = StoreDeliveryInput;
type StoreLine = NonNullable<StoreOrder['order_lines']>[number];
// The cross-store body as its schema (CrossStoreDeliveryInput) validates it: store_number and
// supplier_name required, a line's product_number optional. Written out because the schema's
// static type does not carry these differences.
type CrossLine = Omit<StoreLine, 'product_number'> & { product_number?: string };
type CrossOrder = Omit<StoreOrder, 'order_lines' | 'supplier_name'> & {
  store_number: string;
  supplier_name: string;
  order_lines?: CrossLine[];
};
type FieldError = { path: string; message: string };
type Delivery = Record<string, unknown> & {
  order_number: string;
  updated_on: string;
  order_lines: Array<Record<string, unknown>>;
};

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Barcodes of the product master (product DP1 has a second one in barcodes_array). */
const BC_DP1 = '8711111111110';
const BC_DP1_ALT = '8711111111127';
const BC_DP2 = '8712222222229';
const S1_GLN = '8712345000001';

function line(
  lineNumber: number,
  productNumber: string,
  quantity: number,
  overrides: Partial<StoreLine> = {},
): StoreLine {
  return { line_number: lineNumber, product_number: productNumber, quantity, target_stock_pool: 1, ...overrides };
}

function order(orderNumber: string, overrides: Partial<StoreOrder> = {}): StoreOrder {
  return {
    order_number: orderNumber,
    order_type: 1,
    datetime_expected: '2026-04-01T10:00:00Z',
    no_of_containers: 1,
    order_lines: [line(1, 'DP1', 5)],
    ...overrides,
  };
}

function crossOrder(orderNumber: string, storeNumber: string, overrides: Partial<CrossOrder> = {}): CrossOrder {
  return {
    order_number: orderNumber,
    order_type: 1,
    datetime_expected: '2026-04-01T10:00:00Z',
    no_of_containers: 1,
    store_number: storeNumber,
    supplier_name: 'Cross Supplier',
    order_lines: [{ line_number: 1, product_number: 'DP1', quantity: 5, target_stock_pool: 1 }],
    ...overrides,
  };
}

const errorsOf = (response: LightMyRequestResponse): FieldError[] => response.json().errors;
const pathsOf = (response: LightMyRequestResponse): string[] =>
  errorsOf(response)
    .map((e) => e.path)
    .sort();
const ack = (created: number, updated: number, unchanged: number) => ({
  success: true,
  message: `created ${created}, updated ${updated}, unchanged ${unchanged}, deleted 0`,
});

/** Waits until the clock is past `isoMoment`, so a write after it gets a later updated_on. */
async function pastMoment(isoMoment: string): Promise<void> {
  const at = Date.parse(isoMoment);
  while (Date.now() <= at + 1) await new Promise((resolve) => setTimeout(resolve, 2));
}

for (const dialect of DIALECTS) {
  describe(`delivery import and read (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;
    const next = (prefix: string) => `${prefix}-${++counter}`;

    const importStore = (
      store: string,
      orders: unknown[],
      options: { token?: string | null; override?: boolean } = {},
    ) =>
      t.request({
        method: 'POST',
        url: STORE_DELIVERIES(store),
        payload: { orders } as never,
        token: options.token,
        headers: options.override === undefined ? {} : { container_override: String(options.override) },
      });

    const importCross = (orders: unknown[], options: { token?: string | null; override?: boolean } = {}) =>
      t.request({
        method: 'POST',
        url: DELIVERIES,
        payload: { orders } as never,
        token: options.token,
        headers: options.override === undefined ? {} : { container_override: String(options.override) },
      });

    /** The delivery of that order number as GET /orders/deliveries shows it (admin), or undefined. */
    async function read(orderNumber: string): Promise<Delivery | undefined> {
      const response = await t.get(`${DELIVERIES}?order_number=${encodeURIComponent(orderNumber)}`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.total_count).toBeLessThanOrEqual(1);
      return body.list[0];
    }

    async function mustRead(orderNumber: string): Promise<Delivery> {
      const delivery = await read(orderNumber);
      expect(delivery, `delivery ${orderNumber}`).toBeDefined();
      return delivery!;
    }

    /** Order numbers a listing returns, in its order. */
    async function listed(query: string, token?: string): Promise<string[]> {
      const response = await t.get(`${DELIVERIES}?${query}`, token);
      expect(response.statusCode, `${query}: ${response.body}`).toBe(200);
      const body = response.json();
      expect(body.total_count).toBe(body.list.length);
      return body.list.map((d: Delivery) => d.order_number);
    }

    async function receive(
      store: string,
      orderNumber: string,
      lines: Array<{ line_number: number; received_quantity: number }>,
      submit = false,
    ) {
      const response = await t.post(RECEIVE(store, orderNumber), submit ? { lines, submit } : { lines });
      expect(response.statusCode, response.body).toBe(200);
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const stores = await t.post(`${API}/stores`, {
        stores: [
          storeInput('S1', { store_gln: S1_GLN }),
          storeInput('S2'),
          storeInput('S3'),
          storeInput('F1'),
          storeInput('F2'),
        ],
      });
      expect(stores.statusCode, stores.body).toBe(200);
      const products = await t.post(`${API}/products`, {
        products: [
          productInput('DP1', {
            barcode: BC_DP1,
            barcodes_array: [{ barcode: BC_DP1_ALT }],
            category_code: 'FRUIT',
            base_unit_name: 'kg',
            purchase_unit_quantity: 6,
          }),
          productInput('DP2', { barcode: BC_DP2, category_code: 'VEG' }),
          productInput('DP3'),
        ],
      });
      expect(products.statusCode, products.body).toBe(200);
      // group_code is a PUT-only store product field (store-products.test.ts).
      for (const [store, group] of [
        ['S1', 'GRP-1'],
        ['F1', 'GRP-F'],
      ] as const) {
        const storeProduct = await t.put(`${API}/stores/${store}/storeproducts`, {
          products: [{ product_number: 'DP1', group_code: group }],
        });
        expect(storeProduct.statusCode, storeProduct.body).toBe(200);
      }
    });

    // store-ops verify's checks hold after every single test, not only at the end.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('create and read back', () => {
      it('store path: every field of §2.3 and its lines, with the fallbacks from the product master and store product', async () => {
        const number = next('RD');
        const response = await importStore('S1', [
          order(number, {
            order_type: 1,
            datetime_created: '2026-03-01T08:00:00+01:00',
            datetime_expected: '2026-03-02T06:30:00Z',
            no_of_containers: 3,
            description: 'weekly order',
            reference: 'ERP-REF-77',
            store_origin: 'WH-9',
            supplier_code: 'SUP-1',
            supplier_name: 'Fresh Farms',
            tracing_url: 'https://track.example/1',
            reason_code: 5,
            order_lines: [
              line(1, 'DP1', 2.5, {
                target_stock_pool: 2,
                product_description: 'Apples (product description)',
                customer_order_number: 'CO-1',
                customer_order_line_number: 2,
                customer_order_shipment_number: 'SH-1',
                customer_order_shipment_number_line_number: 4,
                secondary_order_number: 'SEC-1',
                secondary_order_line_number: 1,
                ordered_quantity: 3,
                purchase_price: 1.2345,
                reference: 'line-ref',
              }),
              line(2, 'DP2', 4, {
                barcode: '9999000000001',
                description: 'Line text',
                product_description: 'not shown: description wins',
              }),
              line(3, 'DP3', 1.125),
            ],
          }),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(ack(1, 0, 0));

        const stored = await t.app.ctx.db
          .selectFrom('delivery_orders')
          .select('id')
          .where('order_number', '=', number)
          .executeTakeFirstOrThrow();
        const delivery = await mustRead(number);
        expect(delivery).toEqual({
          datetime_created: '2026-03-01T07:00:00.000Z',
          datetime_expected: '2026-03-02T06:30:00.000Z',
          import_id: Number(stored.id),
          is_downloaded: false,
          updated_on: expect.stringMatching(ISO_MS),
          external_reference_number: 'ERP-REF-77',
          no_of_containers: 3,
          order_number: number,
          order_type: '1',
          status: 'open',
          store_gln: S1_GLN,
          store_number: 'S1',
          store_origin: 'WH-9',
          supplier_code: 'SUP-1',
          supplier_name: 'Fresh Farms',
          tracing_url: 'https://track.example/1',
          order_lines: [
            {
              line_number: 1,
              quantity: 2.5,
              received_quantity: 0,
              target_stock_pool: 2,
              barcode: BC_DP1, // the product's: the line has none
              base_unit: 'kg',
              category_code: 'FRUIT',
              customer_order_number: 'CO-1',
              customer_order_shipment_number: 'SH-1',
              customer_order_shipment_number_line_number: 4,
              description: 'Apples (product description)', // no line description: its product_description
              group_code: 'GRP-1', // the S1 store product's
              product_number: 'DP1',
              purchase_unit_quantity: 6,
              rounded_quantity: 2.5,
              secondary_order_number: 'SEC-1',
            },
            {
              line_number: 2,
              quantity: 4,
              received_quantity: 0,
              target_stock_pool: 1,
              barcode: '9999000000001', // the line's own
              category_code: 'VEG',
              description: 'Line text',
              product_number: 'DP2',
              rounded_quantity: 4,
            },
            {
              line_number: 3,
              quantity: 1.125,
              received_quantity: 0,
              target_stock_pool: 1,
              product_number: 'DP3',
              rounded_quantity: 1.125,
            },
          ],
        });
      });

      it('store path fills store_number from the path; supplier_name is optional there; datetime_created defaults to the first store', async () => {
        const number = next('SP');
        const before = Date.now();
        // A store_number in the body is no field of the store path: ignored, the path wins.
        const response = await importStore('S1', [{ ...order(number), store_number: 'S2' }]);
        const after = Date.now();
        expect(response.statusCode, response.body).toBe(200);
        const delivery = await mustRead(number);
        expect(delivery.store_number).toBe('S1');
        expect(delivery.supplier_name).toBeUndefined();
        const created = Date.parse(delivery.datetime_created as string);
        expect(created).toBeGreaterThanOrEqual(before);
        expect(created).toBeLessThanOrEqual(after);

        // A later update without datetime_created keeps the first moment.
        await pastMoment(delivery.updated_on);
        expect((await importStore('S1', [order(number, { supplier_name: 'Later' })])).json()).toEqual(ack(0, 1, 0));
        expect((await mustRead(number)).datetime_created).toBe(delivery.datetime_created);
      });

      it('cross-store path: store_number and supplier_name per order; a line may name its product by any barcode', async () => {
        const number = next('CS');
        const response = await importCross([
          crossOrder(number, 'S2', {
            order_type: 2,
            supplier_name: 'Store S3',
            store_origin: 'S3',
            no_of_containers: 0,
            order_lines: [
              { line_number: 1, barcode: BC_DP1_ALT, quantity: 1, target_stock_pool: 1 },
              { line_number: 2, barcode: BC_DP2, quantity: 2, target_stock_pool: 3 },
              { line_number: 3, product_number: 'DP3', quantity: 0.5, target_stock_pool: 1 },
            ],
          }),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(ack(1, 0, 0));
        const delivery = await mustRead(number);
        expect(delivery).toMatchObject({
          store_number: 'S2',
          order_type: '2',
          supplier_name: 'Store S3',
          store_origin: 'S3',
          status: 'open',
          is_downloaded: false,
          no_of_containers: 0,
        });
        expect(delivery.store_gln).toBeUndefined(); // S2 has no GLN
        expect(delivery.order_lines).toEqual([
          // the line's barcode, the product it resolves to; no group: DP1 has no store product in S2
          {
            line_number: 1,
            quantity: 1,
            received_quantity: 0,
            target_stock_pool: 1,
            barcode: BC_DP1_ALT,
            base_unit: 'kg',
            category_code: 'FRUIT',
            product_number: 'DP1',
            purchase_unit_quantity: 6,
            rounded_quantity: 1,
          },
          {
            line_number: 2,
            quantity: 2,
            received_quantity: 0,
            target_stock_pool: 3,
            barcode: BC_DP2,
            category_code: 'VEG',
            product_number: 'DP2',
            rounded_quantity: 2,
          },
          {
            line_number: 3,
            quantity: 0.5,
            received_quantity: 0,
            target_stock_pool: 1,
            product_number: 'DP3',
            rounded_quantity: 0.5,
          },
        ]);
      });

      it('cross-store path: store_number and supplier_name are required per order (400 naming them)', async () => {
        const number = next('CSR');
        const { store_number: _s, supplier_name: _n, ...bare } = crossOrder(number, 'S1');
        const response = await importCross([crossOrder(next('CSR'), 'S1'), bare]);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(response)).toEqual(['orders[1].store_number', 'orders[1].supplier_name']);
        expect(await read(number)).toBeUndefined();
      });
    });

    describe('updates', () => {
      it('an identical re-send is "unchanged" and keeps updated_on; a header change is an update that moves it', async () => {
        const number = next('UP');
        const sent = order(number, {
          supplier_name: 'Acme',
          reference: 'R1',
          datetime_expected: '2026-04-02T10:00:00+02:00',
          order_lines: [line(1, 'DP1', 5, { container_barcode: 'C-1' }), line(2, 'DP2', 1.5, { description: 'x' })],
        });
        expect((await importStore('S1', [sent])).json()).toEqual(ack(1, 0, 0));
        const first = await mustRead(number);

        await pastMoment(first.updated_on);
        const again = await importStore('S1', [sent]);
        expect(again.statusCode).toBe(200);
        expect(again.json()).toEqual(ack(0, 0, 1));
        expect(await mustRead(number)).toEqual(first);

        // The same moment written in another offset is the same value (stored in UTC).
        const sameMoment = await importStore('S1', [{ ...sent, datetime_expected: '2026-04-02T08:00:00Z' }]);
        expect(sameMoment.json()).toEqual(ack(0, 0, 1));
        expect((await mustRead(number)).updated_on).toBe(first.updated_on);

        // The same over the cross-store path is the same delivery, still unchanged.
        const cross = await importCross([{ ...sent, store_number: 'S1', supplier_name: 'Acme' }]);
        expect(cross.json()).toEqual(ack(0, 0, 1));
        expect((await mustRead(number)).updated_on).toBe(first.updated_on);

        const changed = await importStore('S1', [{ ...sent, supplier_name: 'Acme Two' }]);
        expect(changed.statusCode).toBe(200);
        expect(changed.json()).toEqual(ack(0, 1, 0));
        const second = await mustRead(number);
        expect(second.supplier_name).toBe('Acme Two');
        expect(Date.parse(second.updated_on)).toBeGreaterThan(Date.parse(first.updated_on));
        expect(second.import_id).toBe(first.import_id);
        expect(second.order_lines).toEqual(first.order_lines);
      });

      it('order_lines present is the whole line set: absent lines removed, new ones added, changed ones updated', async () => {
        const number = next('WS');
        await importStore('S1', [
          order(number, { order_lines: [line(1, 'DP1', 5), line(2, 'DP2', 3), line(3, 'DP3', 1)] }),
        ]);
        const first = await mustRead(number);

        await pastMoment(first.updated_on);
        const response = await importStore('S1', [
          order(number, {
            order_lines: [
              line(1, 'DP1', 6, { description: 'changed' }),
              line(3, 'DP3', 1),
              line(4, 'DP2', 2, { target_stock_pool: 4 }),
            ],
          }),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(ack(0, 1, 0));
        const second = await mustRead(number);
        expect(Date.parse(second.updated_on)).toBeGreaterThan(Date.parse(first.updated_on));
        expect(
          second.order_lines.map((l) => [
            l.line_number,
            l.product_number,
            l.quantity,
            l.target_stock_pool,
            l.description ?? null,
          ]),
        ).toEqual([
          [1, 'DP1', 6, 1, 'changed'],
          [3, 'DP3', 1, 1, null],
          [4, 'DP2', 2, 4, null],
        ]);

        // A line's product may change while nothing was received on it.
        expect(
          (
            await importStore('S1', [
              order(number, {
                order_lines: [line(1, 'DP2', 6), line(3, 'DP3', 1), line(4, 'DP2', 2, { target_stock_pool: 4 })],
              }),
            ])
          ).json(),
        ).toEqual(ack(0, 1, 0));
        expect((await mustRead(number)).order_lines.map((l) => l.product_number)).toEqual(['DP2', 'DP3', 'DP2']);

        // An empty set removes every line.
        expect((await importStore('S1', [order(number, { order_lines: [] })])).json()).toEqual(ack(0, 1, 0));
        expect((await mustRead(number)).order_lines).toEqual([]);
      });

      it('order_lines absent leaves the lines as they are (a header-only update)', async () => {
        const number = next('HO');
        await importStore('S1', [order(number, { order_lines: [line(1, 'DP1', 5), line(2, 'DP2', 3)] })]);
        const first = await mustRead(number);
        const { order_lines: _lines, ...header } = order(number, { supplier_code: 'NEW' });
        const response = await importStore('S1', [header]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual(ack(0, 1, 0));
        const second = await mustRead(number);
        expect(second.supplier_code).toBe('NEW');
        expect(second.order_lines).toEqual(first.order_lines);

        // The same header again, still without lines: unchanged.
        expect((await importStore('S1', [header])).json()).toEqual(ack(0, 0, 1));
      });

      it('one request creates, updates and leaves unchanged, and the Ack counts each', async () => {
        const [a, b, c] = [next('MX'), next('MX'), next('MX')];
        await importStore('S1', [order(a), order(b)]);
        const response = await importStore('S1', [order(a), order(b, { supplier_name: 'changed' }), order(c)]);
        expect(response.json()).toEqual(ack(1, 1, 1));
      });
    });

    describe('received lines', () => {
      it('a line that received something cannot be removed nor change product, keeps its received quantity, may change quantity', async () => {
        const number = next('RL');
        await importStore('S1', [order(number, { order_lines: [line(1, 'DP1', 5), line(2, 'DP2', 3)] })]);
        await receive('S1', number, [{ line_number: 1, received_quantity: 2 }]);
        const receiving = await mustRead(number);
        expect(receiving).toMatchObject({ status: 'receiving', is_downloaded: true });
        expect(receiving.order_lines.map((l) => [l.line_number, l.received_quantity])).toEqual([
          [1, 2],
          [2, 0],
        ]);

        const removed = await importStore('S1', [order(number, { order_lines: [line(2, 'DP2', 3)] })]);
        expect(removed.statusCode).toBe(409);
        expect(removed.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(errorsOf(removed)).toEqual([
          { path: 'orders[0].order_lines', message: expect.stringMatching(/\bline(_number)? '?1\b/) },
        ]);

        const productChanged = await importStore('S1', [
          order(number, { order_lines: [line(1, 'DP2', 5), line(2, 'DP2', 3)] }),
        ]);
        expect(productChanged.statusCode).toBe(409);
        expect(productChanged.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(pathsOf(productChanged)).toEqual(['orders[0].order_lines[0].product_number']);
        expect(await mustRead(number)).toEqual(receiving);

        // Quantity may change; the line not received may go; received_quantity sent by an
        // import is no field of it and changes nothing.
        const requantified = await importStore('S1', [
          order(number, {
            order_lines: [unchecked({ ...line(1, 'DP1', 7), received_quantity: 99 }), line(3, 'DP3', 1)],
          }),
        ]);
        expect(requantified.statusCode, requantified.body).toBe(200);
        expect(requantified.json()).toEqual(ack(0, 1, 0));
        const after = await mustRead(number);
        expect(after.status).toBe('receiving');
        expect(
          after.order_lines.map((l) => [
            l.line_number,
            l.product_number,
            l.quantity,
            l.rounded_quantity,
            l.received_quantity,
          ]),
        ).toEqual([
          [1, 'DP1', 7, 7, 2],
          [3, 'DP3', 1, 1, 0],
        ]);

        // A header-only update keeps the received quantity too.
        const { order_lines: _l, ...header } = order(number, { supplier_name: 'header only' });
        expect((await importStore('S1', [header])).json()).toEqual(ack(0, 1, 0));
        expect((await mustRead(number)).order_lines.map((l) => l.received_quantity)).toEqual([2, 0]);
      });

      it('"status": "cancelled" after something was received is 409 naming orders[i].status', async () => {
        const number = next('RC');
        await importStore('S1', [order(number)]);
        await receive('S1', number, [{ line_number: 1, received_quantity: 2 }]);
        const before = await mustRead(number);
        const response = await importStore('S1', [order(number, { status: 'cancelled' })]);
        expect(response.statusCode).toBe(409);
        expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(pathsOf(response)).toEqual(['orders[0].status']);
        expect(await mustRead(number)).toEqual(before);
      });
    });

    describe('closed deliveries', () => {
      it('a received delivery refuses every change (409 orders[i].order_number) but takes an identical re-send', async () => {
        const number = next('RX');
        const sent = order(number, { order_lines: [line(1, 'DP1', 5), line(2, 'DP2', 3)] });
        await importStore('S1', [sent]);
        await receive('S1', number, [{ line_number: 1, received_quantity: 2 }], true);
        const received = await mustRead(number);
        expect(received).toMatchObject({ status: 'received', is_downloaded: true });

        await pastMoment(received.updated_on);
        const same = await importStore('S1', [sent]);
        expect(same.statusCode).toBe(200);
        expect(same.json()).toEqual(ack(0, 0, 1));
        expect(await mustRead(number)).toEqual(received);

        for (const changed of [
          { ...sent, supplier_name: 'changed' },
          { ...sent, order_lines: [line(1, 'DP1', 6), line(2, 'DP2', 3)] },
          { ...sent, order_lines: [line(1, 'DP1', 5)] },
          { ...sent, order_lines: [line(1, 'DP1', 5), line(2, 'DP2', 3), line(3, 'DP3', 1)] },
        ]) {
          const response = await importStore('S1', [changed]);
          expect(response.statusCode, JSON.stringify(changed)).toBe(409);
          expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT' });
          expect(pathsOf(response)).toEqual(['orders[0].order_number']);
        }
        const cancel = await importStore('S1', [{ ...sent, status: 'cancelled' }]);
        expect(cancel.statusCode).toBe(409);
        expect(await mustRead(number)).toEqual(received);
      });

      it('cancel with "status": "cancelled" while nothing was received; then 409 for changes and for "open", an identical re-send is unchanged', async () => {
        const number = next('CX');
        const sent = order(number, { order_lines: [line(1, 'DP1', 5)] });
        await importStore('S1', [sent]);
        const open = await mustRead(number);

        await pastMoment(open.updated_on);
        const cancel = await importStore('S1', [{ ...sent, status: 'cancelled' }]);
        expect(cancel.statusCode, cancel.body).toBe(200);
        expect(cancel.json()).toEqual(ack(0, 1, 0));
        const cancelled = await mustRead(number);
        expect(cancelled).toMatchObject({ status: 'cancelled', is_downloaded: false });
        expect(Date.parse(cancelled.updated_on)).toBeGreaterThan(Date.parse(open.updated_on));

        const same = await importStore('S1', [{ ...sent, status: 'cancelled' }]);
        expect(same.statusCode).toBe(200);
        expect(same.json()).toEqual(ack(0, 0, 1));

        for (const changed of [
          { ...sent, status: 'cancelled' as const, supplier_name: 'changed' },
          { ...sent, status: 'cancelled' as const, order_lines: [line(1, 'DP1', 6)] },
          { ...sent, status: 'open' as const },
        ]) {
          const response = await importStore('S1', [changed]);
          expect(response.statusCode, JSON.stringify(changed)).toBe(409);
          expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT' });
          expect(pathsOf(response)).toEqual(['orders[0].order_number']);
        }
        expect(await mustRead(number)).toEqual(cancelled);
      });
    });

    describe('no_of_containers', () => {
      it('is the number of distinct container barcodes; as sent with no container barcodes or container_override: true', async () => {
        const [counted, none, overridden] = [next('NC'), next('NC'), next('NC')];
        const withContainers = (number: string) =>
          order(number, {
            no_of_containers: 9,
            order_lines: [
              line(1, 'DP1', 1, { container_barcode: 'CAGE-1' }),
              line(2, 'DP2', 1, { container_barcode: 'CAGE-1' }),
              line(3, 'DP3', 1, { container_barcode: 'CAGE-2' }),
              line(4, 'DP1', 1),
            ],
          });
        const response = await importStore('S1', [
          withContainers(counted),
          order(none, { no_of_containers: 4, order_lines: [line(1, 'DP1', 1), line(2, 'DP2', 1)] }),
        ]);
        expect(response.statusCode, response.body).toBe(200);
        expect((await mustRead(counted)).no_of_containers).toBe(2);
        expect((await mustRead(none)).no_of_containers).toBe(4);
        expect((await mustRead(counted)).order_lines.map((l) => l.container_barcode ?? null)).toEqual([
          'CAGE-1',
          'CAGE-1',
          'CAGE-2',
          null,
        ]);

        const override = await importStore('S1', [withContainers(overridden)], { override: true });
        expect(override.statusCode, override.body).toBe(200);
        expect((await mustRead(overridden)).no_of_containers).toBe(9);
        const crossOverride = await importCross(
          [{ ...withContainers(next('NC')), store_number: 'S1', supplier_name: 'x' }],
          { override: true },
        );
        expect(crossOverride.statusCode, crossOverride.body).toBe(200);
        const crossCounted = next('NC');
        expect(
          (
            await importCross([{ ...withContainers(crossCounted), store_number: 'S1', supplier_name: 'x' }], {
              override: false,
            })
          ).statusCode,
        ).toBe(200);
        expect((await mustRead(crossCounted)).no_of_containers).toBe(2);

        // A header-only update counts the stored lines' containers: the same header is unchanged.
        const { order_lines: _lines, ...header } = withContainers(counted);
        expect((await importStore('S1', [header])).json()).toEqual(ack(0, 0, 1));
        expect((await mustRead(counted)).no_of_containers).toBe(2);

        // An update recounts from the new line set.
        const recount = await importStore('S1', [
          { ...withContainers(counted), order_lines: [line(1, 'DP1', 1, { container_barcode: 'CAGE-7' })] },
        ]);
        expect(recount.json()).toEqual(ack(0, 1, 0));
        expect((await mustRead(counted)).no_of_containers).toBe(1);
      });
    });

    describe('errors', () => {
      it('order_number twice in a request and line_number twice in an order: 400 naming the repeats, nothing stored', async () => {
        const number = next('DU');
        const other = next('DU');
        const response = await importStore('S1', [
          order(number),
          order(other, { order_lines: [line(1, 'DP1', 1), line(2, 'DP2', 1), line(1, 'DP3', 1)] }),
          order(number, { supplier_name: 'again' }),
        ]);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({
          success: false,
          code: 'VALIDATION_FAILED',
          message: expect.any(String),
        });
        expect(pathsOf(response)).toEqual(['orders[1].order_lines[2].line_number', 'orders[2].order_number']);
        expect(await read(number)).toBeUndefined();
        expect(await read(other)).toBeUndefined();
      });

      it('a line naming no product: 400 orders[i].order_lines[j].product_number on both paths', async () => {
        const number = next('NP');
        const cross = await importCross([
          crossOrder(number, 'S1', {
            order_lines: [
              { line_number: 1, barcode: BC_DP1, quantity: 1, target_stock_pool: 1 },
              { line_number: 2, quantity: 1, target_stock_pool: 1 } as CrossLine,
            ],
          }),
        ]);
        expect(cross.statusCode).toBe(400);
        expect(cross.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(cross)).toEqual(['orders[0].order_lines[1].product_number']);

        // The store path requires product_number: a barcode alone does not do.
        const store = await importStore('S1', [
          order(number, {
            order_lines: [unchecked({ line_number: 1, barcode: BC_DP1, quantity: 1, target_stock_pool: 1 })],
          }),
        ]);
        expect(store.statusCode).toBe(400);
        expect(store.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(store)).toEqual(['orders[0].order_lines[0].product_number']);
        expect(await read(number)).toBeUndefined();
      });

      it('store_origin equal to the receiving store: 400 orders[i].store_origin', async () => {
        const number = next('SO');
        const store = await importStore('S1', [order(number, { store_origin: 'S1' })]);
        expect(store.statusCode).toBe(400);
        expect(store.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(store)).toEqual(['orders[0].store_origin']);

        const cross = await importCross([
          crossOrder(next('SO'), 'S1', { store_origin: 'S2' }),
          crossOrder(number, 'S2', { store_origin: 'S2' }),
        ]);
        expect(cross.statusCode).toBe(400);
        expect(pathsOf(cross)).toEqual(['orders[1].store_origin']);
        expect(await read(number)).toBeUndefined();
      });

      it('unknown product or barcode on a line: 422 naming .product_number / .barcode, nothing stored', async () => {
        const number = next('UK');
        const store = await importStore('S1', [
          order(number, { order_lines: [line(1, 'DP1', 1), line(2, 'NO-SUCH', 1)] }),
        ]);
        expect(store.statusCode).toBe(422);
        expect(store.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
        expect(errorsOf(store)).toEqual([
          { path: 'orders[0].order_lines[1].product_number', message: expect.stringContaining('NO-SUCH') },
        ]);

        const cross = await importCross([
          crossOrder(number, 'S1', {
            order_lines: [
              { line_number: 1, barcode: BC_DP2, quantity: 1, target_stock_pool: 1 },
              { line_number: 2, barcode: '0000000000000', quantity: 1, target_stock_pool: 1 },
              { line_number: 3, product_number: 'NO-SUCH-2', quantity: 1, target_stock_pool: 1 },
            ],
          }),
        ]);
        expect(cross.statusCode).toBe(422);
        expect(cross.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
        expect(errorsOf(cross)).toEqual([
          { path: 'orders[0].order_lines[1].barcode', message: expect.stringContaining('0000000000000') },
          { path: 'orders[0].order_lines[2].product_number', message: expect.stringContaining('NO-SUCH-2') },
        ]);
        expect(await read(number)).toBeUndefined();
      });

      it('unknown store: 404 on the store path; on the cross-store path the envelope names orders[i].store_number', async () => {
        const number = next('US');
        const store = await importStore('NOPE', [order(number)]);
        expect(store.statusCode).toBe(404);
        expect(store.json()).toMatchObject({ success: false, code: 'NOT_FOUND', message: expect.any(String) });

        const cross = await importCross([crossOrder(next('US'), 'S1'), crossOrder(number, 'NOPE')]);
        expect(cross.statusCode).toBe(404);
        expect(cross.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
        expect(pathsOf(cross)).toEqual(['orders[1].store_number']);
        expect(await read(number)).toBeUndefined();
        expect(await listed(`store_number=NOPE`)).toEqual([]);
      });

      it("order_number of another store's delivery: 409 orders[i].order_number, the delivery stays as it was", async () => {
        const number = next('OS');
        await importStore('S1', [order(number)]);
        const before = await mustRead(number);
        const store = await importStore('S2', [order(next('OS')), order(number)]);
        expect(store.statusCode).toBe(409);
        expect(store.json()).toMatchObject({ success: false, code: 'CONFLICT' });
        expect(errorsOf(store)).toEqual([{ path: 'orders[1].order_number', message: expect.any(String) }]);

        const cross = await importCross([crossOrder(number, 'S2')]);
        expect(cross.statusCode).toBe(409);
        expect(pathsOf(cross)).toEqual(['orders[0].order_number']);
        expect(await mustRead(number)).toEqual(before);
        expect(await listed(`store_number=S2&order_number=${number}`)).toEqual([]);
      });

      it('bad types, negative quantities, pool 11, bad dates, too many decimals: 400 listing every field path', async () => {
        const number = next('BT');
        const response = await importStore('S1', [
          order(number, {
            order_type: 'one' as never,
            datetime_expected: 'tomorrow',
            datetime_created: '2026-02-30T10:00:00Z',
            no_of_containers: -1,
            order_lines: [
              line(1, 'DP1', -1, { target_stock_pool: 11 }),
              line('x' as never, 'DP2', 1.0001),
              line(3, 'DP3', 1, { target_stock_pool: 0, purchase_price: 1.23456 }),
              unchecked({ line_number: 4, product_number: 'DP1', quantity: '2', target_stock_pool: 1 }),
            ],
          }),
        ]);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({
          success: false,
          code: 'VALIDATION_FAILED',
          message: expect.any(String),
        });
        expect([...new Set(pathsOf(response))]).toEqual([
          'orders[0].datetime_created',
          'orders[0].datetime_expected',
          'orders[0].no_of_containers',
          'orders[0].order_lines[0].quantity',
          'orders[0].order_lines[0].target_stock_pool',
          'orders[0].order_lines[1].line_number',
          'orders[0].order_lines[1].quantity',
          'orders[0].order_lines[2].purchase_price',
          'orders[0].order_lines[2].target_stock_pool',
          'orders[0].order_lines[3].quantity',
          'orders[0].order_type',
        ]);
        expect(await read(number)).toBeUndefined();

        // Missing required fields are named too.
        const missing = await importStore('S1', [
          unchecked({ order_number: number, order_lines: [{ line_number: 1, product_number: 'DP1' }] }),
        ]);
        expect(missing.statusCode).toBe(400);
        expect(pathsOf(missing)).toEqual([
          'orders[0].datetime_expected',
          'orders[0].no_of_containers',
          'orders[0].order_lines[0].quantity',
          'orders[0].order_lines[0].target_stock_pool',
          'orders[0].order_type',
        ]);
        expect(await read(number)).toBeUndefined();
      });

      it('at most 10,000 orders per request and 10,000 lines per order: 400 naming the array', async () => {
        const number = next('LM');
        const tooManyOrders = await importStore(
          'S1',
          Array.from({ length: 10_001 }, (_, i) => order(`${number}-${i}`, { order_lines: [] })),
        );
        expect(tooManyOrders.statusCode).toBe(400);
        expect(tooManyOrders.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(pathsOf(tooManyOrders)).toEqual(['orders']);
        expect(await read(`${number}-0`)).toBeUndefined();

        const tooManyLines = await importStore('S1', [
          order(number, { order_lines: Array.from({ length: 10_001 }, (_, i) => line(i + 1, 'DP1', 1)) }),
        ]);
        expect(tooManyLines.statusCode).toBe(400);
        expect(pathsOf(tooManyLines)).toEqual(['orders[0].order_lines']);
        expect(await read(number)).toBeUndefined();
      });

      it('atomic: a request with one bad order stores nothing of the others (422 and 409 cases)', async () => {
        const [good, bad] = [next('AT'), next('AT')];
        const unknownProduct = await importStore('S1', [
          order(good),
          order(bad, { order_lines: [line(1, 'NO-SUCH', 1)] }),
        ]);
        expect(unknownProduct.statusCode).toBe(422);
        expect(await read(good)).toBeUndefined();
        expect(await read(bad)).toBeUndefined();

        // An update, a new delivery and one that conflicts (another store's number): nothing happens.
        const [existing, fresh, foreign] = [next('AT'), next('AT'), next('AT')];
        await importStore('S1', [order(existing)]);
        await importStore('S2', [order(foreign)]);
        const before = await mustRead(existing);
        const conflicting = await importCross([
          crossOrder(existing, 'S1', { supplier_name: 'changed' }),
          crossOrder(fresh, 'S1'),
          crossOrder(foreign, 'S1'),
        ]);
        expect(conflicting.statusCode).toBe(409);
        expect(pathsOf(conflicting)).toEqual(['orders[2].order_number']);
        expect(await mustRead(existing)).toEqual(before);
        expect(await read(fresh)).toBeUndefined();

        // A change on a received delivery in the same request as a new one: the new one is not stored.
        const [done, another] = [next('AT'), next('AT')];
        await importStore('S1', [order(done)]);
        await receive('S1', done, [{ line_number: 1, received_quantity: 1 }], true);
        const closed = await importStore('S1', [order(another), order(done, { supplier_name: 'changed' })]);
        expect(closed.statusCode).toBe(409);
        expect(pathsOf(closed)).toEqual(['orders[1].order_number']);
        expect(await read(another)).toBeUndefined();
      });
    });

    describe('GET /orders/deliveries', () => {
      // Stores F1 and F2 hold only this block's deliveries.
      const n = { a: '', b: '', c: '', d: '', e: '' };
      let fA: Delivery;

      beforeAll(async () => {
        n.a = `FA-${dialect.name}`;
        n.b = `FB-${dialect.name}`;
        n.c = `FC-${dialect.name}`;
        n.d = `FD-${dialect.name}`;
        n.e = `FE-${dialect.name}`;
        const f1 = await importStore('F1', [
          order(n.a, {
            supplier_name: 'Acme Foods BV',
            supplier_code: 'AC',
            datetime_expected: '2026-05-10T08:00:00Z',
            order_lines: [line(1, 'DP1', 2, { secondary_order_number: 'SO-77' })],
          }),
          order(n.b, {
            supplier_name: 'Bakery Bros',
            supplier_code: 'BB',
            datetime_expected: '2026-05-10T23:59:59Z',
            order_lines: [line(1, 'DP2', 2)],
          }),
          order(n.c, {
            supplier_name: 'acme-ish Supplies',
            supplier_code: 'AC',
            datetime_expected: '2026-05-11T00:00:00Z',
            order_lines: [line(1, 'DP2', 2)],
          }),
          order(n.d, {
            supplier_name: 'Other',
            supplier_code: 'OT',
            datetime_expected: '2026-05-09T12:00:00Z',
            order_lines: [line(1, 'DP3', 2)],
          }),
        ]);
        expect(f1.statusCode, f1.body).toBe(200);
        const f2 = await importCross([
          crossOrder(n.e, 'F2', {
            supplier_name: 'Acme Foods BV',
            supplier_code: 'AC',
            datetime_expected: '2026-05-10T10:00:00Z',
            order_lines: [
              {
                line_number: 1,
                product_number: 'DP1',
                quantity: 1,
                target_stock_pool: 1,
                secondary_order_number: 'SO-77',
              },
            ],
          }),
        ]);
        expect(f2.statusCode, f2.body).toBe(200);
        await receive('F1', n.b, [{ line_number: 1, received_quantity: 1 }]);
        await receive('F1', n.c, [{ line_number: 1, received_quantity: 2 }], true);
        const cancel = await importStore('F1', [
          order(n.d, {
            supplier_name: 'Other',
            supplier_code: 'OT',
            datetime_expected: '2026-05-09T12:00:00Z',
            order_lines: [line(1, 'DP3', 2)],
            status: 'cancelled',
          }),
        ]);
        expect(cancel.statusCode, cancel.body).toBe(200);
        fA = await mustRead(n.a);
      });

      it('store_number, status and is_submitted', async () => {
        expect(await listed('store_number=F1')).toEqual([n.a, n.b, n.c, n.d]);
        expect(await listed('store_number=F2')).toEqual([n.e]);
        expect(await listed('store_number=F1&status=open')).toEqual([n.a]);
        expect(await listed('store_number=F1&status=receiving')).toEqual([n.b]);
        expect(await listed('store_number=F1&status=received')).toEqual([n.c]);
        expect(await listed('store_number=F1&status=cancelled')).toEqual([n.d]);
        expect(await listed('store_number=F1&is_submitted=true')).toEqual([n.c]);
        expect(await listed('store_number=F1&is_submitted=false')).toEqual([n.a, n.b, n.d]);
        const badStatus = await t.get(`${DELIVERIES}?status=shipped`);
        expect(badStatus.statusCode).toBe(400);
        expect(pathsOf(badStatus)).toContain('query.status');
      });

      it('order_number, supplier_code, supplier_name (case-insensitive literal substring), secondary_order_number, group_code', async () => {
        expect(await listed(`order_number=${n.b}`)).toEqual([n.b]);
        expect(await listed('store_number=F1&supplier_code=AC')).toEqual([n.a, n.c]);
        expect(await listed('store_number=F1&supplier_name=ACME')).toEqual([n.a, n.c]);
        expect(await listed('store_number=F1&supplier_name=foods%20b')).toEqual([n.a]);
        expect(await listed('store_number=F1&supplier_name=bros')).toEqual([n.b]);
        expect(await listed('store_number=F1&supplier_name=_')).toEqual([]);
        expect(await listed('store_number=F1&supplier_name=%25')).toEqual([]);
        expect(await listed('supplier_code=AC&supplier_name=acme%20foods')).toEqual([n.a, n.e]);
        expect(await listed('secondary_order_number=SO-77')).toEqual([n.a, n.e]);
        // DP1 is in group GRP-F only as a store product of F1: the F2 delivery of DP1 is not.
        expect(await listed('group_code=GRP-F')).toEqual([n.a]);
        expect(fA.order_lines[0]!.group_code).toBe('GRP-F');
        expect(await listed('store_number=F1&supplier_code=AC&status=open')).toEqual([n.a]);
      });

      it('delivery_date: a day or a date-time meaning its UTC day; anything else is 400', async () => {
        expect(await listed('store_number=F1&delivery_date=2026-05-10')).toEqual([n.a, n.b]);
        expect(await listed('delivery_date=2026-05-10')).toEqual([n.a, n.b, n.e]);
        expect(await listed('store_number=F1&delivery_date=2026-05-11')).toEqual([n.c]);
        // 01:30 at +02:00 is 23:30 UTC of the 10th.
        expect(
          await listed(`store_number=F1&delivery_date=${encodeURIComponent('2026-05-11T01:30:00+02:00')}`),
        ).toEqual([n.a, n.b]);
        expect(await listed(`store_number=F1&delivery_date=${encodeURIComponent('2026-05-09T23:00:00Z')}`)).toEqual([
          n.d,
        ]);
        for (const garbage of ['next-tuesday', '2026-13-45', '2026-02-30', '10-05-2026', '2026-05-10T08:00:00-05']) {
          const response = await t.get(`${DELIVERIES}?delivery_date=${garbage}`);
          expect(response.statusCode, garbage).toBe(400);
          expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
          expect(pathsOf(response), garbage).toEqual(['query.delivery_date']);
        }
      });

      it('last_modified_date: deliveries with updated_on at or after it', async () => {
        const latest = (await Promise.all([n.a, n.b, n.c, n.d].map(mustRead))).map((d) => Date.parse(d.updated_on));
        await pastMoment(new Date(Math.max(...latest)).toISOString());
        const change = await importStore('F1', [
          order(n.a, {
            supplier_name: 'Acme Foods BV',
            supplier_code: 'AC',
            datetime_expected: '2026-05-10T08:00:00Z',
            order_lines: [line(1, 'DP1', 2, { secondary_order_number: 'SO-77' })],
            tracing_url: 'https://t/1',
          }),
        ]);
        expect(change.json()).toEqual(ack(0, 1, 0));
        const changed = await mustRead(n.a);
        expect(await listed(`store_number=F1&last_modified_date=${encodeURIComponent(changed.updated_on)}`)).toEqual([
          n.a,
        ]);
        expect(
          await listed(
            `store_number=F1&last_modified_date=${encodeURIComponent(new Date(Date.parse(changed.updated_on) + 1).toISOString())}`,
          ),
        ).toEqual([]);
        expect(await listed('store_number=F1&last_modified_date=2020-01-01T00:00:00Z')).toEqual([n.a, n.b, n.c, n.d]);
        const bad = await t.get(`${DELIVERIES}?last_modified_date=yesterday`);
        expect(bad.statusCode).toBe(400);
        expect(pathsOf(bad)).toEqual(['query.last_modified_date']);
      });

      it('pages with page_size and page_start, and follows scroll_id to the end; every item carries its lines', async () => {
        const first = await t.get(`${DELIVERIES}?store_number=F1&page_size=3`);
        expect(first.statusCode).toBe(200);
        const page1 = first.json();
        expect(page1).toMatchObject({ page_size: 3, page_start: 1, total_count: 4, next_page: 2, previous_page: null });
        expect(page1.list.map((d: Delivery) => d.order_number)).toEqual([n.a, n.b, n.c]);
        for (const d of page1.list as Delivery[]) expect(d.order_lines).toHaveLength(1);
        expect(typeof page1.scroll_id).toBe('string');

        const second = await t.get(
          `${DELIVERIES}?store_number=F1&page_size=3&scroll_id=${encodeURIComponent(page1.scroll_id)}`,
        );
        expect(second.statusCode).toBe(200);
        const page2 = second.json();
        expect(page2.list.map((d: Delivery) => d.order_number)).toEqual([n.d]);
        expect(page2.list[0].order_lines).toHaveLength(1);
        expect(page2.scroll_id).toBeNull();

        const byPage = (await t.get(`${DELIVERIES}?store_number=F1&page_size=2&page_start=2`)).json();
        expect(byPage).toMatchObject({ page_start: 2, total_count: 4, previous_page: 1, next_page: null });
        expect(byPage.list.map((d: Delivery) => d.order_number)).toEqual([n.c, n.d]);
        const past = (await t.get(`${DELIVERIES}?store_number=F1&page_size=2&page_start=3`)).json();
        expect(past.list).toEqual([]);
      });
    });

    describe('access', () => {
      it('a store token imports and reads its own store; another store is 403 with nothing written', async () => {
        const token = await t.token('store', ['S1']);
        const own = next('AC');
        const ownResponse = await importStore('S1', [order(own)], { token });
        expect(ownResponse.statusCode, ownResponse.body).toBe(200);
        const ownCross = next('AC');
        const ownCrossResponse = await importCross([crossOrder(ownCross, 'S1')], { token });
        expect(ownCrossResponse.statusCode, ownCrossResponse.body).toBe(200);

        const other = next('AC');
        const otherResponse = await importStore('S2', [order(other)], { token });
        expect(otherResponse.statusCode).toBe(403);
        expect(otherResponse.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
        expect(await read(other)).toBeUndefined();

        const [mixedOwn, mixedOther] = [next('AC'), next('AC')];
        const mixed = await importCross([crossOrder(mixedOwn, 'S1'), crossOrder(mixedOther, 'S2')], { token });
        expect(mixed.statusCode).toBe(403);
        expect(mixed.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
        expect(await read(mixedOwn)).toBeUndefined();
        expect(await read(mixedOther)).toBeUndefined();

        // An S2 delivery exists; the store token changes nothing of it.
        const s2 = next('AC');
        await importStore('S2', [order(s2)]);
        const s2Before = await mustRead(s2);
        expect((await importCross([crossOrder(s2, 'S2', { supplier_name: 'hijack' })], { token })).statusCode).toBe(
          403,
        );
        expect(await mustRead(s2)).toEqual(s2Before);

        // It lists only its stores' deliveries.
        const all = await t.get(`${DELIVERIES}?page_size=1000`, token);
        expect(all.statusCode).toBe(200);
        const stores = new Set((all.json().list as Delivery[]).map((d) => d.store_number));
        expect([...stores]).toEqual(['S1']);
        expect((all.json().list as Delivery[]).map((d) => d.order_number)).toEqual(
          expect.arrayContaining([own, ownCross]),
        );
        expect(await listed(`order_number=${s2}`, token)).toEqual([]);
        expect(await listed('store_number=S2', token)).toEqual([]);
        expect(await listed(`order_number=${own}`, token)).toEqual([own]);
      });

      it('a read token reads but gets 403 on both POSTs; no credential is 401', async () => {
        const token = await t.token('read');
        const number = next('RO');
        const store = await importStore('S1', [order(number)], { token });
        expect(store.statusCode).toBe(403);
        expect(store.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
        const cross = await importCross([crossOrder(number, 'S1')], { token });
        expect(cross.statusCode).toBe(403);
        expect(await read(number)).toBeUndefined();
        expect((await t.get(`${DELIVERIES}?store_number=S1`, token)).statusCode).toBe(200);

        for (const response of [
          await importStore('S1', [order(number)], { token: null }),
          await importCross([crossOrder(number, 'S1')], { token: null }),
          await t.get(DELIVERIES, null),
        ]) {
          expect(response.statusCode).toBe(401);
          expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
        }
        expect(await read(number)).toBeUndefined();
      });
    });
  });
}
