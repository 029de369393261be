import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { discountInput, priceInput, productInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

// PRODUCT §3 upserts: "Re-sending an identical payload changes nothing", and a deleted
// record only hides from reads — history, and the records naming it, keep it. Only new or
// changed records and lines must name live master data (issue 26, defect class 7;
// shared/held-references.ts).

const DELIVERIES = (store: string) => `${API}/stores/${store}/orders/deliveries`;
const CROSS_DELIVERIES = `${API}/orders/deliveries`;
const RECEIVE = (store: string, order: string) =>
  `${API}/stores/${store}/orders/deliveries/${encodeURIComponent(order)}/receive`;
const ORDERS = (store: string) => `${API}/stores/${store}/orders/customerorders`;
const ORDER = (store: string) => `${API}/stores/${store}/orders/customerorder`;
const CLEARANCE = `${API}/customerorders/clearance`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const STORE_PRODUCTS = (store: string) => `${API}/stores/${store}/storeproducts`;
const PRICES = `${API}/products/prices`;
const DISCOUNTS = `${API}/products/discountprices`;
const LISTS = (store: string) => `${API}/stores/${store}/productlists`;
const LIST_LINES = (store: string, id: number) => `${API}/stores/${store}/productlists/${id}`;

const counts = (created: number, updated: number, unchanged: number) =>
  `created ${created}, updated ${updated}, unchanged ${unchanged}, deleted 0`;

for (const dialect of DIALECTS) {
  describe(`identical re-sends after a referenced record was deleted (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    const ok = (response: LightMyRequestResponse) => {
      expect(response.statusCode, response.body).toBe(200);
      return response;
    };

    const paths = (response: LightMyRequestResponse): string[] =>
      response.json().errors.map((e: { path: string }) => e.path);

    /** Expects a 422 naming exactly these fields, and says nothing was written. */
    function refused(response: LightMyRequestResponse, expected: string[]): void {
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
      expect(paths(response)).toEqual(expected);
    }

    async function products(n: number): Promise<string[]> {
      const numbers = Array.from({ length: n }, () => `RD-${++counter}`);
      ok(
        await t.post(`${API}/products`, {
          products: numbers.map((number, i) => productInput(number, { barcode: `99${counter}${i}0001` })),
        }),
      );
      return numbers;
    }

    const deleteProducts = async (numbers: string[]) => ok(await t.del(`${API}/products`, { product_number: numbers }));

    const updatedOnOf = async (table: 'delivery_orders' | 'customer_orders', orderNumber: string) =>
      (
        await t.app.ctx.db
          .selectFrom(table)
          .select('updated_on')
          .where('order_number', '=', orderNumber)
          .executeTakeFirstOrThrow()
      ).updated_on;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      ok(await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2')] }));
    });

    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('deliveries', () => {
      const delivery = (orderNumber: string, lines: unknown[]) => ({
        orders: [
          {
            order_number: orderNumber,
            order_type: 1,
            datetime_expected: '2026-04-01T10:00:00Z',
            no_of_containers: 1,
            order_lines: lines,
          },
        ],
      });
      const deliveryLine = (
        lineNumber: number,
        product: string,
        quantity: number,
        extra: Record<string, unknown> = {},
      ) => ({
        line_number: lineNumber,
        product_number: product,
        quantity,
        target_stock_pool: 1,
        ...extra,
      });

      it('an identical re-send after one of its products was deleted is "unchanged 1"; receiving on it still works', async () => {
        const [a, b] = await products(2);
        const number = `RD-DEL-${++counter}`;
        const body = delivery(number, [deliveryLine(1, a!, 5), deliveryLine(2, b!, 3)]);
        ok(await t.post(DELIVERIES('S1'), body));
        const stamped = await updatedOnOf('delivery_orders', number);
        await deleteProducts([a!]);

        const again = ok(await t.post(DELIVERIES('S1'), body));
        expect(again.json().message).toBe(counts(0, 0, 1));
        expect(await updatedOnOf('delivery_orders', number)).toBe(stamped);

        // A header change with the lines as they were: the lines keep their product.
        const header = ok(await t.post(DELIVERIES('S1'), { orders: [{ ...body.orders[0], no_of_containers: 2 }] }));
        expect(header.json().message).toBe(counts(0, 1, 0));

        ok(await t.post(RECEIVE('S1', number), { lines: [{ line_number: 1, received_quantity: 5 }] }));
        expect(await balancesOf(t.app.ctx.db, a!, 'S1')).toEqual({ '-|1|-': 5 });
      });

      it('a line naming the deleted product that is new or changed is a 422 naming it; unknown products stay a 422', async () => {
        const [a, b] = await products(2);
        const number = `RD-DEL-${++counter}`;
        ok(await t.post(DELIVERIES('S1'), delivery(number, [deliveryLine(1, a!, 5), deliveryLine(2, b!, 3)])));
        await deleteProducts([a!]);

        refused(await t.post(DELIVERIES('S1'), delivery(number, [deliveryLine(1, a!, 6), deliveryLine(2, b!, 3)])), [
          'orders[0].order_lines[0].product_number',
        ]);
        refused(
          await t.post(
            DELIVERIES('S1'),
            delivery(number, [deliveryLine(1, a!, 5), deliveryLine(2, b!, 3), deliveryLine(3, a!, 1)]),
          ),
          ['orders[0].order_lines[2].product_number'],
        );
        refused(await t.post(DELIVERIES('S1'), delivery(`RD-NEW-${++counter}`, [deliveryLine(1, a!, 1)])), [
          'orders[0].order_lines[0].product_number',
        ]);
        refused(
          await t.post(
            DELIVERIES('S1'),
            delivery(number, [deliveryLine(1, a!, 5), deliveryLine(2, 'NO-SUCH-PRODUCT', 3)]),
          ),
          ['orders[0].order_lines[1].product_number'],
        );
        // Changing another line of the same delivery is fine: the deleted product's line is unchanged.
        expect(
          ok(await t.post(DELIVERIES('S1'), delivery(number, [deliveryLine(1, a!, 5), deliveryLine(2, b!, 4)]))).json()
            .message,
        ).toBe(counts(0, 1, 0));
      });

      it('a line naming its product by barcode keeps it too', async () => {
        const [a] = await products(1);
        const barcode = (
          await t.app.ctx.db
            .selectFrom('products')
            .select('barcode')
            .where('product_number', '=', a!)
            .executeTakeFirstOrThrow()
        ).barcode!;
        const number = `RD-BC-${++counter}`;
        // The cross-store path names a line's product by barcode.
        const cross = (quantity: number) => {
          const body = delivery(number, [{ line_number: 1, barcode, quantity, target_stock_pool: 1 }]);
          return { orders: body.orders.map((o) => ({ ...o, store_number: 'S1', supplier_name: 'Supplier' })) };
        };
        ok(await t.post(CROSS_DELIVERIES, cross(2)));
        await deleteProducts([a!]);
        expect(ok(await t.post(CROSS_DELIVERIES, cross(2))).json().message).toBe(counts(0, 0, 1));
        refused(await t.post(CROSS_DELIVERIES, cross(3)), ['orders[0].order_lines[0].barcode']);
      });
    });

    describe('customer orders', () => {
      const orderBody = (orderNumber: string, lines: unknown[]) => ({ orders: [{ order_number: orderNumber, lines }] });

      it('an identical re-send after a product was deleted is "unchanged 1"; a new or changed line naming it is a 422; picking and clearance still work', async () => {
        const [a, b] = await products(2);
        ok(
          await t.post(LOGS('S1'), {
            storeproductlog: [
              {
                product_number: a,
                quantity: 4,
                customer_order_line_number: 0,
                modification_datetime: '2026-01-01T00:00:00Z',
              },
            ],
          }),
        );
        const number = `RD-CO-${++counter}`;
        const body = orderBody(number, [
          { line_number: 1, product_number: a, quantity: 2 },
          { line_number: 2, product_number: b, quantity: 1 },
        ]);
        ok(await t.post(ORDERS('S1'), body));
        const stamped = await updatedOnOf('customer_orders', number);
        await deleteProducts([a!]);

        expect(ok(await t.post(ORDERS('S1'), body)).json().message).toBe(counts(0, 0, 1));
        expect(await updatedOnOf('customer_orders', number)).toBe(stamped);
        refused(
          await t.post(
            ORDERS('S1'),
            orderBody(number, [
              { line_number: 1, product_number: a, quantity: 3 },
              { line_number: 2, product_number: b, quantity: 1 },
            ]),
          ),
          ['orders[0].lines[0].product_number'],
        );
        refused(
          await t.post(
            ORDERS('S1'),
            orderBody(`RD-CO-${++counter}`, [{ line_number: 1, product_number: a, quantity: 1 }]),
          ),
          ['orders[0].lines[0].product_number'],
        );
        // Another line changes: fine.
        const changed = await t.post(
          ORDERS('S1'),
          orderBody(number, [
            { line_number: 1, product_number: a, quantity: 2 },
            { line_number: 2, product_number: b, quantity: 5 },
          ]),
        );
        expect(ok(changed).json().message).toBe(counts(0, 1, 0));

        ok(await t.put(ORDER('S1'), { order_number: number, lines: [{ line_number: 1, picked_quantity: 2 }] }));
        ok(await t.post(CLEARANCE, { store_number: 'S1', order_number: number }));
        expect(await balancesOf(t.app.ctx.db, a!, 'S1')).toEqual({ '-|1|-': 2 });
      });
    });

    describe('store products, prices, discounts, product lists', () => {
      it('store products: an identical re-send is "unchanged"; a changed one naming the deleted product is a 422', async () => {
        const [a, b] = await products(2);
        const body = {
          products: [
            { product_number: a, min: 1, max: 5 },
            { product_number: b, min: 2 },
          ],
        };
        ok(await t.post(STORE_PRODUCTS('S1'), body));
        await deleteProducts([a!]);
        expect(ok(await t.post(STORE_PRODUCTS('S1'), body)).json().message).toBe(counts(0, 0, 2));
        expect(ok(await t.put(STORE_PRODUCTS('S1'), body)).json().message).toBe(counts(0, 0, 2));
        refused(
          await t.post(STORE_PRODUCTS('S1'), {
            products: [
              { product_number: a, min: 2, max: 5 },
              { product_number: b, min: 3 },
            ],
          }),
          ['products[0].product_number'],
        );
        refused(await t.post(STORE_PRODUCTS('S2'), { products: [{ product_number: a, min: 1 }] }), [
          'products[0].product_number',
        ]);
        refused(await t.post(STORE_PRODUCTS('S1'), { products: [{ product_number: 'NO-SUCH-PRODUCT' }] }), [
          'products[0].product_number',
        ]);
      });

      it('prices: an identical re-send is "unchanged" after its product or store was deleted; a changed or new price naming them is a 422', async () => {
        const [a, b] = await products(2);
        const store = `RDS-${++counter}`;
        ok(await t.post(`${API}/stores`, { stores: [storeInput(store)] }));
        const prices = [
          priceInput(`RDP-${counter}-1`, a!, 2.5),
          priceInput(`RDP-${counter}-2`, b!, 1.5, { store_number: store }),
        ];
        ok(await t.post(PRICES, { prices }));
        await deleteProducts([a!]);
        ok(await t.post(`${API}/stores?flush=true`, { stores: [storeInput('S1'), storeInput('S2')] }));
        expect(ok(await t.post(PRICES, { prices })).json().message).toBe(counts(0, 0, 2));
        refused(await t.post(PRICES, { prices: [{ ...prices[0]!, price: 3 }, prices[1]] }), [
          'prices[0].product_number',
        ]);
        refused(await t.post(PRICES, { prices: [prices[0], { ...prices[1]!, price: 3 }] }), ['prices[1].store_number']);
        refused(await t.post(PRICES, { prices: [priceInput(`RDP-${counter}-3`, a!, 1)] }), [
          'prices[0].product_number',
        ]);
      });

      it('discounts: an identical re-send is "unchanged" after its product was deleted; a changed one is a 422', async () => {
        const [a] = await products(1);
        const discounts = [discountInput(a!, 1.25, { discount_id: `RDD-${++counter}`, line_number: 1 })];
        ok(await t.post(DISCOUNTS, { discounts }));
        await deleteProducts([a!]);
        expect(ok(await t.post(DISCOUNTS, { discounts })).json().message).toBe(counts(0, 0, 1));
        refused(await t.post(DISCOUNTS, { discounts: [{ ...discounts[0]!, price: 1 }] }), [
          'discounts[0].product_number',
        ]);
      });

      it('product lists: a line update re-sent as it was stays "unchanged"; a new or changed line of the deleted product is skipped as unknown', async () => {
        const [a, b] = await products(2);
        const created = ok(
          await t.post(LISTS('S1'), {
            product_list_name: `RD list ${++counter}`,
            product_list_type: 1,
            lines: [
              { product_number: a, quantity: 2 },
              { product_number: b, quantity: 1 },
            ],
          }),
        );
        const id = created.json().product_list_id as number;
        await deleteProducts([a!]);
        const same = ok(
          await t.post(LIST_LINES('S1', id), {
            lines: [
              { product_number: a, quantity: 2 },
              { product_number: b, quantity: 1 },
            ],
          }),
        );
        expect(same.json().message).toBe('added 0, updated 0, unchanged 2');
        const changed = ok(await t.post(LIST_LINES('S1', id), { lines: [{ product_number: a, quantity: 3 }] }));
        expect(changed.json().message).toContain('skipped 1');
        expect(changed.json().message).toContain('updated 0');
      });
    });
  });
}
