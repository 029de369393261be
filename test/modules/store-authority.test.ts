import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { inTransaction } from '../../src/db/transaction.js';
import { bookEntries } from '../../src/ledger/book.js';
import { logRecord } from '../../src/db/log-record.js';
import { findBookingProducts } from '../../src/modules/products/repository.js';
import { findLiveStore } from '../../src/modules/stores/repository.js';
import { AppError } from '../../src/shared/errors.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

// PRODUCT §4 "a store token's authority covers every store a request touches": the stores a
// body names (StoreRef fields, checked before any work by plugins/auth.ts), the stores reached
// through stored data (a transfer's origin, another store's order), and the stock kernel,
// which books only into stores the request's principal holds (stock-logs/book.ts, ledger.ts).

type Json = Record<string, any>;
type FieldError = { path: string; message: string };

const STORE_DELIVERIES = (store: string) => `${API}/stores/${store}/orders/deliveries`;
const DELIVERIES = `${API}/orders/deliveries`;
const RECEIVE = (store: string, order: string) =>
  `${API}/stores/${store}/orders/deliveries/${encodeURIComponent(order)}/receive`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const STORE_ORDERS = (store: string) => `${API}/stores/${store}/orders/customerorders`;
const CROSS_ORDERS = `${API}/orders/customerorders`;
const ORDER = (store: string) => `${API}/stores/${store}/orders/customerorder`;
const CLEARANCE = `${API}/customerorders/clearance`;
const COUNTING = `${API}/externalcountinglines`;

const pathsOf = (response: LightMyRequestResponse): string[] =>
  ((response.json().errors ?? []) as FieldError[]).map((e) => e.path).sort();

function expectForbidden(response: LightMyRequestResponse, paths?: string[]): void {
  expect(response.statusCode, response.body).toBe(403);
  expect(response.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
  if (paths) expect(pathsOf(response)).toEqual(paths);
}

const delivery = (orderNumber: string, productNumber: string, quantity: number, extra: Json = {}) => ({
  order_number: orderNumber,
  order_type: 2,
  datetime_expected: '2026-02-01T08:00:00Z',
  no_of_containers: 1,
  supplier_name: 'Transfer',
  order_lines: [{ line_number: 1, product_number: productNumber, quantity, target_stock_pool: 1 }],
  ...extra,
});

for (const dialect of DIALECTS) {
  describe(`store authority over every store a request touches (${dialect.name})`, () => {
    let t: TestApp;
    let s1: string;
    let s12: string;
    let integration: string;
    let counter = 0;
    const unique = (prefix: string) => `${prefix}-${++counter}`;

    async function product(): Promise<string> {
      const number = unique('AP');
      expect((await t.post(`${API}/products`, { products: [productInput(number)] })).statusCode).toBe(200);
      return number;
    }

    /** `quantity` of the product into the store's unlocated pool 1, by the admin token. */
    async function stock(store: string, productNumber: string, quantity: number): Promise<void> {
      const response = await t.post(LOGS(store), {
        storeproductlog: [
          {
            product_number: productNumber,
            quantity,
            customer_order_line_number: 0,
            modification_datetime: '2026-01-01T10:00:00Z',
          },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
    }

    const balances = (productNumber: string, store: string) => balancesOf(t.app.ctx.db, productNumber, store);

    async function deliveryRow(orderNumber: string) {
      return t.app.ctx.db
        .selectFrom('delivery_orders')
        .selectAll()
        .where('order_number', '=', orderNumber)
        .executeTakeFirst();
    }

    async function logCount(): Promise<number> {
      const row = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    async function receiptCount(): Promise<number> {
      const row = await t.app.ctx.db
        .selectFrom('receipt_lines')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    /** A transfer into S1 from S2, announced by the integration token. */
    async function transferIntoS1(productNumber: string, quantity: number): Promise<string> {
      const number = unique('TR');
      const response = await t.post(
        DELIVERIES,
        { orders: [{ ...delivery(number, productNumber, quantity), store_number: 'S1', store_origin: 'S2' }] },
        integration,
      );
      expect(response.statusCode, response.body).toBe(200);
      return number;
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect(
        (await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2'), storeInput('S3')] })).statusCode,
      ).toBe(200);
      s1 = await t.token('store', ['S1']);
      s12 = await t.token('store', ['S1', 'S2']);
      integration = await t.token('integration');
    });

    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
    });

    describe('transfers', () => {
      it('a transfer into S1 from S2 by an S1-only token: 403 naming store_origin, nothing written, on both paths', async () => {
        const p = await product();
        await stock('S2', p, 10);
        const onPath = unique('TR');
        expectForbidden(
          await t.post(STORE_DELIVERIES('S1'), { orders: [delivery(onPath, p, 4, { store_origin: 'S2' })] }, s1),
          ['orders[0].store_origin'],
        );
        const cross = unique('TR');
        expectForbidden(
          await t.post(
            DELIVERIES,
            { orders: [{ ...delivery(cross, p, 4), store_number: 'S1', store_origin: 'S2' }] },
            s1,
          ),
          ['orders[0].store_origin'],
        );
        expect(await deliveryRow(onPath)).toBeUndefined();
        expect(await deliveryRow(cross)).toBeUndefined();
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 10 });
        expect(await balances(p, 'S1')).toEqual({});
      });

      it('the refusal comes before an Idempotency-Key is reserved: the same key answers 403 again, not "still being processed"', async () => {
        const p = await product();
        const body = { orders: [delivery(unique('TR'), p, 1, { store_origin: 'S2' })] };
        const send = () =>
          t.request({
            method: 'POST',
            url: STORE_DELIVERIES('S1'),
            payload: body,
            token: s1,
            headers: { 'idempotency-key': 'authority-1' },
          });
        expectForbidden(await send());
        expectForbidden(await send());
      });

      it('receiving a transfer from S2 by an S1-only token: 403 both ways, S2 stock unchanged, nothing received', async () => {
        const p = await product();
        await stock('S2', p, 10);
        const number = await transferIntoS1(p, 4);
        const logsBefore = await logCount();
        const receiptsBefore = await receiptCount();

        const byEndpoint = await t.post(
          RECEIVE('S1', number),
          { lines: [{ line_number: 1, received_quantity: 4 }], submit: true },
          s1,
        );
        expectForbidden(byEndpoint);
        expect(byEndpoint.json().message).toContain("'S2'");
        const byEntries = await t.post(
          `${LOGS('S1')}?is_from_receipt=true`,
          {
            storeproductlog: [
              {
                product_number: p,
                quantity: 4,
                reference: number,
                customer_order_line_number: 0,
                modification_datetime: '2026-02-01T10:00:00Z',
              },
            ],
          },
          s1,
        );
        expectForbidden(byEntries);

        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 10 });
        expect(await balances(p, 'S1')).toEqual({});
        expect(await logCount()).toBe(logsBefore);
        expect(await receiptCount()).toBe(receiptsBefore);
        expect(await deliveryRow(number)).toMatchObject({ status: 'open', store_origin: 'S2' });
      });

      it('a token holding S1 and S2 receives the transfer: S1 gains what S2 loses', async () => {
        const p = await product();
        await stock('S2', p, 10);
        const number = await transferIntoS1(p, 4);
        const response = await t.post(
          RECEIVE('S1', number),
          { lines: [{ line_number: 1, received_quantity: 4 }] },
          s12,
        );
        expect(response.statusCode, response.body).toBe(200);
        expect(await balances(p, 'S1')).toEqual({ '-|1|-': 4 });
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 6 });
        // And by stock log entries on the same delivery.
        const more = await t.post(
          `${LOGS('S1')}?is_from_receipt=true`,
          {
            storeproductlog: [
              {
                product_number: p,
                quantity: 1,
                reference: number,
                customer_order_line_number: 0,
                modification_datetime: '2026-02-01T10:00:00Z',
              },
            ],
          },
          s12,
        );
        expect(more.statusCode, more.body).toBe(200);
        expect(await balances(p, 'S1')).toEqual({ '-|1|-': 5 });
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 5 });
      });

      it("a received transfer's origin can no longer change (409 naming store_origin), whoever asks; before any receipt it can", async () => {
        const p = await product();
        await stock('S2', p, 10);
        const number = await transferIntoS1(p, 4);
        const resend = (extra: Json, token = integration) =>
          t.post(DELIVERIES, { orders: [{ ...delivery(number, p, 4), store_number: 'S1', ...extra }] }, token);

        // Open: the ERP may still correct where the goods come from.
        expect((await resend({ store_origin: 'S3' })).statusCode).toBe(200);
        expect((await resend({ store_origin: 'S2' })).statusCode).toBe(200);

        expect(
          (await t.post(RECEIVE('S1', number), { lines: [{ line_number: 1, received_quantity: 3 }] }, s12)).statusCode,
        ).toBe(200);
        for (const extra of [{ store_origin: 'S3' }, {}]) {
          const moved = await resend(extra);
          expect(moved.statusCode, moved.body).toBe(409);
          expect(moved.json()).toMatchObject({ success: false, code: 'CONFLICT' });
          expect(pathsOf(moved)).toEqual(['orders[0].store_origin']);
        }
        const admin = await t.post(STORE_DELIVERIES('S1'), {
          orders: [delivery(number, p, 4, { store_origin: 'S3' })],
        });
        expect(admin.statusCode).toBe(409);
        // The same origin re-sent is no change; other header changes still go through.
        expect((await resend({ store_origin: 'S2' })).json().message).toBe(
          'created 0, updated 0, unchanged 1, deleted 0',
        );
        expect((await resend({ store_origin: 'S2', description: 'late note' })).json().message).toBe(
          'created 0, updated 1, unchanged 0, deleted 0',
        );
        expect(await deliveryRow(number)).toMatchObject({ store_origin: 'S2' });

        // A later correction is booked against the origin that sent the goods.
        expect(
          (await t.post(RECEIVE('S1', number), { lines: [{ line_number: 1, received_quantity: -1 }] }, s12)).statusCode,
        ).toBe(200);
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 8 });
        expect(await balances(p, 'S3')).toEqual({});
      });

      it("another store's delivery named on S1's path: 403 for a token without that store, 409 for one with it", async () => {
        const p = await product();
        const number = unique('D2');
        expect((await t.post(STORE_DELIVERIES('S2'), { orders: [delivery(number, p, 1)] })).statusCode).toBe(200);
        expectForbidden(await t.post(STORE_DELIVERIES('S1'), { orders: [delivery(number, p, 2)] }, s1));
        expect((await t.post(STORE_DELIVERIES('S1'), { orders: [delivery(number, p, 2)] }, s12)).statusCode).toBe(409);
        expectForbidden(await t.post(RECEIVE('S1', number), { lines: [{ line_number: 1, received_quantity: 1 }] }, s1));
        expect(
          (await t.post(RECEIVE('S1', number), { lines: [{ line_number: 1, received_quantity: 1 }] }, s12)).statusCode,
        ).toBe(404);
        expect(await deliveryRow(number)).toMatchObject({ store_number: 'S2', status: 'open' });
      });
    });

    describe('cross-store bulk writes', () => {
      it('a delivery batch with one order of another store: 403 naming it, nothing of the batch written', async () => {
        const p = await product();
        const [mine, theirs] = [unique('DB'), unique('DB')];
        const response = await t.post(
          DELIVERIES,
          {
            orders: [
              { ...delivery(mine, p, 1), store_number: 'S1' },
              { ...delivery(theirs, p, 1), store_number: 'S2' },
            ],
          },
          s1,
        );
        expectForbidden(response, ['orders[1].store_number']);
        expect(await deliveryRow(mine)).toBeUndefined();
        expect(await deliveryRow(theirs)).toBeUndefined();
        // The same batch by a token with both stores is written whole.
        const both = await t.post(
          DELIVERIES,
          {
            orders: [
              { ...delivery(mine, p, 1), store_number: 'S1' },
              { ...delivery(theirs, p, 1), store_number: 'S2' },
            ],
          },
          s12,
        );
        expect(both.json().message).toBe('created 2, updated 0, unchanged 0, deleted 0');
      });

      it('a customer-order batch with one order of another store: 403 naming it, nothing of the batch written', async () => {
        const p = await product();
        const [mine, theirs] = [unique('CO'), unique('CO')];
        const order = (number: string, store: string) => ({
          order_number: number,
          store_number: store,
          lines: [{ line_number: 1, product_number: p, quantity: 1 }],
        });
        expectForbidden(
          await t.post(
            CROSS_ORDERS,
            { orders: [order(mine, 'S1'), order(theirs, 'S2'), order(unique('CO'), 'S3')] },
            s1,
          ),
          ['orders[1].store_number', 'orders[2].store_number'],
        );
        const stored = await t.app.ctx.db
          .selectFrom('customer_orders')
          .select('order_number')
          .where('order_number', 'in', [mine, theirs])
          .execute();
        expect(stored).toEqual([]);
      });

      it('external counting lines naming another store: 403, nothing counted', async () => {
        const logsBefore = await logCount();
        expectForbidden(
          await t.post(
            COUNTING,
            {
              CountingDateTime: '2026-01-02T10:00:00Z',
              StoreNo: 'S2',
              Lines: [{ product_barcode: 'X', counted_quantity: 1 }],
            },
            s1,
          ),
          ['StoreNo'],
        );
        expect(await logCount()).toBe(logsBefore);
      });
    });

    describe('customer orders', () => {
      async function pickedOrderInS2(): Promise<{ p: string; number: string }> {
        const p = await product();
        await stock('S2', p, 5);
        const number = unique('CO');
        expect(
          (
            await t.post(STORE_ORDERS('S2'), {
              orders: [{ order_number: number, lines: [{ line_number: 1, product_number: p, quantity: 2 }] }],
            })
          ).statusCode,
        ).toBe(200);
        const picked = await t.put(ORDER('S2'), {
          order_number: number,
          lines: [{ line_number: 1, picked_quantity: 2 }],
        });
        expect(picked.statusCode, picked.body).toBe(200);
        return { p, number };
      }

      it("clearance of another store's order: 403 whether the body names that store or the token's own; nothing leaves", async () => {
        const { p, number } = await pickedOrderInS2();
        expectForbidden(await t.post(CLEARANCE, { store_number: 'S2', order_number: number }, s1), ['store_number']);
        expectForbidden(await t.post(CLEARANCE, { store_number: 'S1', order_number: number }, s1));
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 3, [`-|1|${number}`]: 2 });
        const order = await t.app.ctx.db
          .selectFrom('customer_orders')
          .select('status_id')
          .where('order_number', '=', number)
          .executeTakeFirstOrThrow();
        expect(order.status_id).toBe(4);
        // With S2 in its list the token clears it.
        expect((await t.post(CLEARANCE, { store_number: 'S2', order_number: number }, s12)).statusCode).toBe(200);
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 3 });
      });

      it("picking or re-importing another store's order through S1's path: 403, nothing bound", async () => {
        const { p, number } = await pickedOrderInS2();
        expectForbidden(
          await t.put(ORDER('S1'), { order_number: number, lines: [{ line_number: 1, picked_quantity: 0 }] }, s1),
        );
        expectForbidden(
          await t.post(
            STORE_ORDERS('S1'),
            { orders: [{ order_number: number, lines: [{ line_number: 1, product_number: p, quantity: 3 }] }] },
            s1,
          ),
        );
        expect(await balances(p, 'S2')).toEqual({ '-|1|-': 3, [`-|1|${number}`]: 2 });
      });
    });

    describe('every body field that names a store is a StoreRef', () => {
      // Fields named like a store that a store token may not use to reach another store:
      // master data is written by admin and integration tokens only (PRODUCT §4), and the
      // store path of customer orders ignores the body's store_number (the path names it).
      const EXCEPTIONS = new Set([
        'POST /stores stores[].store_number',
        'POST /products products[].store_number',
        'POST /products/prices prices[].store_number',
        'POST /stores/{store_number}/orders/customerorders orders[].store_number',
      ]);
      const NAMES_A_STORE = /^(store_?number|store_?no|store_origin)$/i;

      it('in the served OpenAPI document', async () => {
        const doc = (await t.get(`${API}/openapi.json`, null)).json();
        const resolve = (node: Json): Json =>
          node?.$ref ? doc.components.schemas[String(node.$ref).split('/').pop()!] : node;
        const unmarked: string[] = [];
        let marked = 0;
        const walk = (node: Json | undefined, at: string, operation: string): void => {
          const schema = node && resolve(node);
          if (!schema || typeof schema !== 'object') return;
          for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
            const path = at === '' ? name : `${at}.${name}`;
            if (NAMES_A_STORE.test(name)) {
              if (resolve(child)['x-store-ref'] === true) marked++;
              else if (!EXCEPTIONS.has(`${operation} ${path}`)) unmarked.push(`${operation} ${path}`);
            }
            walk(child, path, operation);
          }
          if (schema.items) walk(schema.items, `${at}[]`, operation);
          for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
            walk(branch, at, operation);
        };
        for (const [url, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
          for (const [method, operation] of Object.entries(operations)) {
            walk(
              operation.requestBody?.content?.['application/json']?.schema,
              '',
              `${method.toUpperCase()} ${url.slice(API.length)}`,
            );
          }
        }
        expect(unmarked).toEqual([]);
        expect(marked).toBeGreaterThanOrEqual(6);
      });
    });

    describe('the stock kernel', () => {
      it('refuses to book into a store outside the principal, whatever the caller (403 before anything is written)', async () => {
        const p = await product();
        const logsBefore = await logCount();
        const ctx = t.app.ctx;
        const store = (await findLiveStore(ctx.db, 'S2'))!;
        const principal = {
          key: 'token -1',
          kind: 'token' as const,
          tokenId: -1,
          name: 'kernel-test',
          role: 'store' as const,
          stores: ['S1'],
        };
        const refusal = inTransaction(ctx.handle, async (trx) => {
          const product = (await findBookingProducts(trx, [p])).get(p)!;
          return bookEntries(
            trx,
            ctx.ledger,
            store,
            [
              {
                product,
                at: Date.now(),
                isCount: false,
                poolParts: [{ pool: 1, quantityMilli: 1000 }],
                pending: false,
                record: logRecord({}),
              },
            ],
            principal,
            Date.now(),
          );
        });
        await expect(refusal).rejects.toBeInstanceOf(AppError);
        await expect(refusal).rejects.toMatchObject({ code: 'FORBIDDEN' });
        expect(await logCount()).toBe(logsBefore);
        expect(await balances(p, 'S2')).toEqual({});
      });
    });
  });
}
