import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { balancesOf } from '../helpers/stock.js';

/**
 * PRODUCT §3 "Date-times" (issue 26): every date-time lies within 0001-01-01 … 9999-12-31 once
 * in UTC, and the moment an event happened — a stock entry's modification_datetime and
 * scanned_datetime, a count's CountingDateTime — lies at most 5 minutes after the server's
 * clock; else 400 naming the field and nothing written. Movements and the receive endpoint
 * carry no time: they happen at the server's now. (docs/decisions.md "date-times".)
 */

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const LOG_LIST = `${API}/products/stock/storeproductlogs`;
const COUNT = `${API}/externalcountinglines`;
const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const ORDERS = (store: string) => `${API}/stores/${store}/orders/customerorders`;
const ORDER = (store: string) => `${API}/stores/${store}/orders/customerorder`;
const DELIVERIES = (store: string) => `${API}/stores/${store}/orders/deliveries`;
const RECEIVE = (store: string, order: string) => `${API}/stores/${store}/orders/deliveries/${order}/receive`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MINUTE = 60_000;

type Json = Record<string, any>;

const errorsOf = (response: LightMyRequestResponse): Array<{ path: string; message: string }> =>
  response.json().errors ?? [];
const pathsOf = (response: LightMyRequestResponse) => errorsOf(response).map((e) => e.path);
const inMinutes = (minutes: number) => new Date(Date.now() + minutes * MINUTE).toISOString();

function expect400(response: LightMyRequestResponse, paths: string[]): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json().code).toBe('VALIDATION_FAILED');
  expect(pathsOf(response)).toEqual(paths);
}

for (const dialect of DIALECTS) {
  describe(`time rule: date-time bounds and no future events (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    async function product(extra: Json = {}): Promise<string> {
      const number = `TR-${++counter}`;
      const response = await t.post(`${API}/products`, {
        products: [productInput(number, { barcode: `77${counter}`, ...extra })],
      });
      expect(response.statusCode, response.body).toBe(200);
      return number;
    }

    const entry = (product_number: string, quantity: number, extra: Json = {}) => ({
      product_number,
      quantity,
      customer_order_line_number: 0,
      modification_datetime: '2026-01-01T10:00:00Z',
      ...extra,
    });
    const post = (entries: Json[], query = '') => t.post(`${LOGS('T1')}${query}`, { storeproductlog: entries });
    const logCount = async () =>
      Number(
        (
          await t.app.ctx.db
            .selectFrom('stock_logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('T1')] })).statusCode).toBe(200);
      const locations = await t.post(`${API}/stores/T1/locations`, {
        locations: [{ location_code: 'A' }, { location_code: 'B' }],
      });
      expect(locations.statusCode, locations.body).toBe(200);
    });
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('years 0001–9999 in UTC, for every date-time field', () => {
      const outside = [
        ['year 0000', '0000-06-01T00:00:00Z'],
        ['year 10000', '10000-01-01T00:00:00Z'],
        ['an expanded year', '-000001-12-31T23:59:00.000Z'],
        ['an expanded year 10000', '+010000-01-01T00:00:00.000Z'],
        ['an offset pushing 9999-12-31 into year 10000', '9999-12-31T23:30:00-01:00'],
        ['an offset pulling 0001-01-01 into year 0', '0001-01-01T00:30:00+01:00'],
      ] as const;

      it.each(outside)('%s: 400 naming the field, nothing written', async (_, value) => {
        const p = await product();
        const before = await logCount();
        expect400(await post([entry(p, 1), entry(p, 1, { modification_datetime: value })]), [
          'storeproductlog[1].modification_datetime',
        ]);
        expect400(await post([entry(p, 1, { order_after_date: value })]), ['storeproductlog[0].order_after_date']);
        expect400(await t.post(COUNT, { CountingDateTime: value, StoreNo: 'T1', Lines: [] }), ['CountingDateTime']);
        expect400(
          await t.post(`${API}/stores`, { stores: [storeInput('T9', { store_next_delivery_datetime: value })] }),
          ['stores[0].store_next_delivery_datetime'],
        );
        expect(await logCount()).toBe(before);
        expect(await balancesOf(t.app.ctx.db, p)).toEqual({});
      });

      it('the very ends are accepted and read back in the one shape', async () => {
        const at = await t.post(`${API}/stores`, {
          stores: [
            storeInput('T8', {
              store_next_delivery_datetime: '0001-01-01T00:00:00Z',
              store_next_ordering_datetime: '9999-12-31T23:59:59.999Z',
            }),
          ],
        });
        expect(at.statusCode, at.body).toBe(200);
        const offset = await t.post(`${API}/stores`, {
          stores: [storeInput('T7', { store_next_ordering_datetime: '9999-12-31T23:30:00+01:00' })],
        });
        expect(offset.statusCode, offset.body).toBe(200);
        const stores = (await t.get(`${API}/stores?search_text=T`)).json().list as Json[];
        const t8 = stores.find((s) => s.store_number === 'T8')!;
        expect(t8.store_next_delivery_datetime).toBe('0001-01-01T00:00:00.000Z');
        expect(t8.store_next_ordering_datetime).toBe('9999-12-31T23:59:59.999Z');
        expect(stores.find((s) => s.store_number === 'T7')!.store_next_ordering_datetime).toBe(
          '9999-12-31T22:30:00.000Z',
        );
      });

      it('list filters with a date outside the years: 400 naming the query field', async () => {
        expect400(await t.get(`${LOG_LIST}?last_modified_date=0000-01-01T00:00:00Z`), ['query.last_modified_date']);
        expect400(await t.get(`${LOG_LIST}?to_modified_date=${encodeURIComponent('9999-12-31T23:59:00-01:00')}`), [
          'query.to_modified_date',
        ]);
        expect400(await t.get(`${API}/storeproducts/stock?last_stock_modified_datetime=10000-01-01T00:00:00Z`), [
          'query.last_stock_modified_datetime',
        ]);
        expect400(await t.get(`${API}/orders/deliveries?delivery_date=0000-12-31`), ['query.delivery_date']);
        expect400(await t.get(`${ORDERS('T1')}?pickup_date=0000-01-01`), ['query.pickup_date']);
        // The last day is a day like any other.
        expect((await t.get(`${API}/orders/deliveries?delivery_date=9999-12-31`)).statusCode).toBe(200);
      });

      it('a stored moment outside the years (written before this rule) still reads in the one shape', async () => {
        const p = await product();
        expect((await post([entry(p, 2)])).statusCode).toBe(200);
        const { updated_on: posted } = await t.app.ctx.db
          .selectFrom('stock_logs')
          .select('updated_on')
          .where('product_number', '=', p)
          .executeTakeFirstOrThrow();
        await t.app.ctx.db
          .updateTable('stock_logs')
          .set({ updated_on: 253_402_300_800_000 + 86_400_000 })
          .where('product_number', '=', p)
          .execute();
        const list = await t.get(`${LOG_LIST}?article_number=${p}`);
        expect(list.statusCode, list.body).toBe(200);
        expect(list.json().list[0].updated_on).toBe('9999-12-31T23:59:59.999Z');
        expect(list.json().project_last_modified_date).toMatch(ISO);
        // Back to the moment it was posted at, which its store product's stock stamp names (verify runs after each test).
        await t.app.ctx.db
          .updateTable('stock_logs')
          .set({ updated_on: posted })
          .where('product_number', '=', p)
          .execute();
      });
    });

    describe('no event more than 5 minutes after the server clock', () => {
      it('the review finding: a count in 2099 is refused, so it cannot absorb later entries or switch off the free-stock guard', async () => {
        const p = await product();
        expect((await post([entry(p, 5, { location_code: 'A' }), entry(p, 1)])).statusCode).toBe(200);
        const before = await logCount();
        const count = await post(
          [entry(p, 200, { location_code: 'A', modification_datetime: '2099-01-01T00:00:00Z' })],
          '?is_counted_quantity=true',
        );
        expect400(count, ['storeproductlog[0].modification_datetime']);
        expect(errorsOf(count)[0]!.message).toMatch(/future.*5 minutes/);
        expect(await logCount()).toBe(before);

        // The guards still see 5 at A: a move of 50 and a pick of 50 are refused, the store still holds 6.
        const move = await t.post(MOVE('T1'), {
          body: [
            {
              product_number: p,
              quantity: 50,
              from_location: { location_code: 'A' },
              to_location: { location_code: 'B' },
            },
          ],
        });
        expect(move.statusCode, move.body).toBe(409);
        const order = `TO-${++counter}`;
        expect(
          (
            await t.post(ORDERS('T1'), {
              orders: [{ order_number: order, lines: [{ line_number: 1, product_number: p, quantity: 50 }] }],
            })
          ).statusCode,
        ).toBe(200);
        const pick = await t.put(ORDER('T1'), {
          order_number: order,
          lines: [{ line_number: 1, picked_quantity: 50, stock_location: 'A' }],
        });
        expect(pick.statusCode, pick.body).toBe(409);
        expect(await balancesOf(t.app.ctx.db, p)).toEqual({ 'A|1|-': 5, '-|1|-': 1 });
      });

      it('modification_datetime: 4 minutes ahead is taken, 6 minutes ahead is refused — deltas, counts and receipt entries alike', async () => {
        const p = await product();
        expect((await post([entry(p, 1, { modification_datetime: inMinutes(4) })])).statusCode).toBe(200);
        expect400(await post([entry(p, 1), entry(p, 1, { modification_datetime: inMinutes(6) })]), [
          'storeproductlog[1].modification_datetime',
        ]);
        expect400(await post([entry(p, 3, { modification_datetime: inMinutes(6) })], '?is_counted_quantity=true'), [
          'storeproductlog[0].modification_datetime',
        ]);
        const ahead = await post([entry(p, 3, { modification_datetime: inMinutes(4) })], '?is_counted_quantity=true');
        expect(ahead.statusCode, ahead.body).toBe(200);

        const order = `TD-${++counter}`;
        const delivery = await t.post(DELIVERIES('T1'), {
          orders: [
            {
              order_number: order,
              order_type: 1,
              datetime_expected: '2026-01-01T08:00:00Z',
              no_of_containers: 1,
              order_lines: [{ line_number: 1, product_number: p, quantity: 4, target_stock_pool: 1 }],
            },
          ],
        });
        expect(delivery.statusCode, delivery.body).toBe(200);
        expect400(
          await post([entry(p, 4, { reference: order, modification_datetime: inMinutes(6) })], '?is_from_receipt=true'),
          ['storeproductlog[0].modification_datetime'],
        );
        expect(
          (
            await post(
              [entry(p, 4, { reference: order, modification_datetime: inMinutes(4) })],
              '?is_from_receipt=true',
            )
          ).statusCode,
        ).toBe(200);
        expect(await balancesOf(t.app.ctx.db, p)).toEqual({ '-|1|-': 7 });
      });

      it('scanned_datetime is an event time too; order_after_date is a plan and may lie ahead', async () => {
        const p = await product();
        expect400(await post([entry(p, 1, { scanned_datetime: inMinutes(6) })]), [
          'storeproductlog[0].scanned_datetime',
        ]);
        const ok = await post([
          entry(p, 1, { scanned_datetime: inMinutes(4), order_after_date: '2099-01-01T00:00:00Z' }),
        ]);
        expect(ok.statusCode, ok.body).toBe(200);
      });

      it('every failing field is named, each with the rule', async () => {
        const p = await product();
        const response = await post([
          entry(p, 1, { modification_datetime: inMinutes(6) }),
          entry(p, 1),
          entry(p, 1, { modification_datetime: '2099-01-01T00:00:00Z', scanned_datetime: inMinutes(10) }),
        ]);
        expect400(response, [
          'storeproductlog[0].modification_datetime',
          'storeproductlog[2].modification_datetime',
          'storeproductlog[2].scanned_datetime',
        ]);
        expect(await balancesOf(t.app.ctx.db, p)).toEqual({});
      });

      it('CountingDateTime: 4 minutes ahead is taken, 6 minutes ahead is refused and nothing is counted or kept', async () => {
        const p = await product();
        const barcode = `77${counter}`;
        const unresolvedBefore = await t.app.ctx.db
          .selectFrom('unresolved_counting_lines')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        const late = await t.post(COUNT, {
          CountingDateTime: inMinutes(6),
          StoreNo: 'T1',
          Lines: [
            { product_barcode: barcode, counted_quantity: 9 },
            { product_barcode: 'NOPE', counted_quantity: 1 },
          ],
        });
        expect400(late, ['CountingDateTime']);
        expect(await balancesOf(t.app.ctx.db, p)).toEqual({});
        const unresolvedAfter = await t.app.ctx.db
          .selectFrom('unresolved_counting_lines')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        expect(Number(unresolvedAfter.n)).toBe(Number(unresolvedBefore.n));
        const ok = await t.post(COUNT, {
          CountingDateTime: inMinutes(4),
          StoreNo: 'T1',
          Lines: [{ product_barcode: barcode, counted_quantity: 9 }],
        });
        expect(ok.statusCode, ok.body).toBe(200);
        expect(await balancesOf(t.app.ctx.db, p)).toEqual({ '-|1|-': 9 });
      });

      it('movements and the receive endpoint carry no time: they happen at the server clock', async () => {
        const p = await product();
        expect((await post([entry(p, 5, { location_code: 'A' })])).statusCode).toBe(200);
        const before = Date.now();
        expect(
          (
            await t.post(MOVE('T1'), {
              body: [
                {
                  product_number: p,
                  quantity: 2,
                  from_location: { location_code: 'A' },
                  to_location: { location_code: 'B' },
                },
              ],
            })
          ).statusCode,
        ).toBe(200);
        const order = `TR-D-${++counter}`;
        await t.post(DELIVERIES('T1'), {
          orders: [
            {
              order_number: order,
              order_type: 1,
              datetime_expected: '2026-01-01T08:00:00Z',
              no_of_containers: 1,
              order_lines: [{ line_number: 1, product_number: p, quantity: 4, target_stock_pool: 1 }],
            },
          ],
        });
        expect(
          (await t.post(RECEIVE('T1', order), { lines: [{ line_number: 1, received_quantity: 4 }] })).statusCode,
        ).toBe(200);
        const after = Date.now();
        const rows = await t.app.ctx.db
          .selectFrom('stock_logs')
          .select(['modification_at', 'source'])
          .where('product_number', '=', p)
          .where('id', '>', 0)
          .execute();
        const booked = rows
          .filter((row) => Number(row.modification_at) >= Date.parse('2026-06-01T00:00:00Z'))
          .map((row) => Number(row.modification_at));
        expect(booked).toHaveLength(3);
        for (const at of booked) {
          expect(at).toBeGreaterThanOrEqual(before);
          expect(at).toBeLessThanOrEqual(after);
        }
      });

      describe('what the service stamps itself is booked in arrival order: a count stamped ahead never absorbs it', () => {
        // A count may be stamped up to 5 minutes ahead. Picks, movements, receipts through the
        // receive endpoint, releases and resets are stamped by the server: booked at its clock
        // they would sit before that count and be absorbed by it — the guard would pass a pick
        // of units the location no longer holds, and what moved would vanish or appear. They
        // are booked no earlier than the latest entry on their balances (stock-logs/book.ts).
        const countAhead = (p: string, quantity: number, extra: Json = {}) =>
          post([entry(p, quantity, { modification_datetime: inMinutes(4), ...extra })], '?is_counted_quantity=true');
        const stampsOf = async (p: string, source: string) =>
          (
            await t.app.ctx.db
              .selectFrom('stock_logs')
              .select('modification_at')
              .where('product_number', '=', p)
              .where('source', '=', source)
              .execute()
          ).map((row) => Number(row.modification_at));

        /** A product with `held` at A and an order for `ordered` of it. */
        async function heldAndOrdered(held: number, ordered: number): Promise<{ p: string; order: string }> {
          const p = await product();
          expect((await post([entry(p, held, { location_code: 'A' })])).statusCode).toBe(200);
          const order = `TA-${++counter}`;
          expect(
            (
              await t.post(ORDERS('T1'), {
                orders: [{ order_number: order, lines: [{ line_number: 1, product_number: p, quantity: ordered }] }],
              })
            ).statusCode,
          ).toBe(200);
          return { p, order };
        }

        it('the search finding: a pick from a location counted empty ahead of the clock is refused (409), nothing is booked', async () => {
          const { p, order } = await heldAndOrdered(1, 1);
          expect((await countAhead(p, 0, { location_code: 'A' })).statusCode).toBe(200);
          const pick = await t.put(ORDER('T1'), {
            order_number: order,
            lines: [{ line_number: 1, picked_quantity: 1, stock_location: 'A' }],
          });
          expect(pick.statusCode, pick.body).toBe(409);
          expect(await balancesOf(t.app.ctx.db, p)).toEqual({});
        });

        it("a pick after a count ahead is booked at the count's moment and moves the counted stock", async () => {
          const { p, order } = await heldAndOrdered(5, 3);
          expect((await countAhead(p, 4, { location_code: 'A' })).statusCode).toBe(200);
          const [countAt] = (
            await t.app.ctx.db
              .selectFrom('stock_logs')
              .select('modification_at')
              .where('product_number', '=', p)
              .where('is_count', '=', 1)
              .execute()
          ).map((row) => Number(row.modification_at));
          const pick = await t.put(ORDER('T1'), {
            order_number: order,
            lines: [{ line_number: 1, picked_quantity: 3, stock_location: 'A' }],
          });
          expect(pick.statusCode, pick.body).toBe(200);
          expect(await balancesOf(t.app.ctx.db, p)).toEqual({ 'A|1|-': 1, [`-|1|${order}`]: 3 });
          expect(await stampsOf(p, 'customer_order_picking')).toEqual([countAt, countAt]);
          // The rejection releases the pick back to A, also after the count: A holds 4 again.
          expect((await t.put(ORDER('T1'), { order_number: order, status_id: 7 })).statusCode).toBe(200);
          expect(await balancesOf(t.app.ctx.db, p)).toEqual({ 'A|1|-': 4 });
        });

        it('a movement: the guard sees the counted level, and both legs land after the count', async () => {
          const p = await product();
          expect((await post([entry(p, 5, { location_code: 'A' })])).statusCode).toBe(200);
          expect((await countAhead(p, 2, { location_code: 'A' })).statusCode).toBe(200);
          const move = (quantity: number) =>
            t.post(MOVE('T1'), {
              body: [
                {
                  product_number: p,
                  quantity,
                  from_location: { location_code: 'A' },
                  to_location: { location_code: 'B' },
                },
              ],
            });
          expect((await move(3)).statusCode).toBe(409);
          expect((await move(2)).statusCode).toBe(200);
          expect(await balancesOf(t.app.ctx.db, p)).toEqual({ 'B|1|-': 2 });
        });

        it('a receipt through the receive endpoint adds to a count ahead instead of vanishing into it', async () => {
          const p = await product();
          expect((await countAhead(p, 10)).statusCode).toBe(200);
          const order = `TA-D-${++counter}`;
          const delivery = await t.post(DELIVERIES('T1'), {
            orders: [
              {
                order_number: order,
                order_type: 1,
                datetime_expected: '2026-01-01T08:00:00Z',
                no_of_containers: 1,
                order_lines: [{ line_number: 1, product_number: p, quantity: 4, target_stock_pool: 1 }],
              },
            ],
          });
          expect(delivery.statusCode, delivery.body).toBe(200);
          expect(
            (await t.post(RECEIVE('T1', order), { lines: [{ line_number: 1, received_quantity: 4 }] })).statusCode,
          ).toBe(200);
          expect(await balancesOf(t.app.ctx.db, p)).toEqual({ '-|1|-': 14 });
        });

        it('a stock reset by product import zeroes a balance counted ahead', async () => {
          const p = await product();
          expect((await countAhead(p, 6, { location_code: 'A' })).statusCode).toBe(200);
          const reset = await t.post(`${API}/products`, {
            products: [productInput(p, { barcode: `77${counter}`, is_reset_store_stock: true })],
          });
          expect(reset.statusCode, reset.body).toBe(200);
          expect(await balancesOf(t.app.ctx.db, p)).toEqual({});
        });

        it("without a count ahead nothing changes: the service's own entries carry its clock", async () => {
          const p = await product();
          expect((await post([entry(p, 5, { location_code: 'A' })])).statusCode).toBe(200);
          const before = Date.now();
          expect(
            (
              await t.post(MOVE('T1'), {
                body: [
                  {
                    product_number: p,
                    quantity: 1,
                    from_location: { location_code: 'A' },
                    to_location: { location_code: 'B' },
                  },
                ],
              })
            ).statusCode,
          ).toBe(200);
          const after = Date.now();
          const legs = (
            await t.app.ctx.db
              .selectFrom('stock_logs')
              .select('modification_at')
              .where('product_number', '=', p)
              .where('reference_id', 'is not', null)
              .execute()
          ).map((row) => Number(row.modification_at));
          expect(legs).toHaveLength(2);
          for (const at of legs) expect(at >= before && at <= after, String(at)).toBe(true);
        });
      });

      it('the rule is in the published contract: the event-time fields say so', async () => {
        const doc = (await t.get(`${API}/openapi.json`)).json();
        const text = JSON.stringify(doc);
        expect(text).toContain('"eventTime":true');
        expect(text).toMatch(/An event time: at most 5 minutes after the server's clock/);
      });
    });
  });
}
