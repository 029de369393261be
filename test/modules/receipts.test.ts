import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

// Receipts (docs/deliveries.md "Receipts", interface §2.4 and §4.6, PRODUCT §7): the read side
// of receiving, and the ERP's incremental pull that sees every receipt change exactly once.

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

const entry = (product_number: string, quantity: number, reference: string) => ({
  product_number,
  quantity,
  reference,
  customer_order_line_number: 0,
  modification_datetime: '2026-05-01T09:00:00Z',
});

/** One version of a receipt as an ERP sees it. */
const versionOf = (receipt: Json) => `${receipt.import_id}@${receipt.updated_on}`;

for (const dialect of DIALECTS) {
  describe(`receipts (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;
    const unique = (prefix: string) => `${prefix}-${++counter}`;

    async function announce(store: string, lines: Json[], extra: Json = {}): Promise<string> {
      const order_number = (extra.order_number as string | undefined) ?? unique('RC');
      const response = await t.post(`${API}/stores/${store}/orders/deliveries`, {
        orders: [
          {
            order_number,
            order_type: 1,
            datetime_expected: '2026-05-01T08:00:00Z',
            no_of_containers: 1,
            supplier_code: 'SUP-1',
            supplier_name: 'Acme Foods',
            order_lines: lines,
            ...extra,
          },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
      return order_number;
    }

    async function receive(store: string, order: string, body: Json): Promise<void> {
      const response = await t.post(RECEIVE(store, order), body);
      expect(response.statusCode, response.body).toBe(200);
    }

    async function receiveByEntries(store: string, entries: Json[]): Promise<void> {
      const response = await t.post(`${LOGS(store)}?is_from_receipt=true`, { storeproductlog: entries });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().message).toContain('received on deliveries');
    }

    /**
     * Waits for the next millisecond. A listing shows receipts changed before its moment
     * (updated_on < server_time); one written in the very millisecond the listing takes as
     * its moment comes in the next pull. Reads that expect the writes just made wait one tick.
     */
    async function settle(): Promise<void> {
      const at = Date.now();
      while (Date.now() <= at) await new Promise((resolve) => setTimeout(resolve, 1));
    }

    async function get(url: string, token?: string): Promise<Json> {
      const response = await t.get(url, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    }
    async function list(url: string, token?: string): Promise<Json> {
      await settle();
      return get(url, token);
    }
    const orderNumbers = (page: Json) => (page.list as Json[]).map((r) => r.order_number);

    async function receiptOf(order: string, type = 1): Promise<Json> {
      const page = await list(`${API}/orders/receipts?receipt_type=${type}&order_number=${encodeURIComponent(order)}`);
      expect(page.list).toHaveLength(1);
      return page.list[0];
    }

    /** A later millisecond than `iso`: so that a change after it gets a later stamp (not a timing assertion). */
    async function tickPast(iso: string): Promise<void> {
      const at = Date.parse(iso);
      while (Date.now() <= at) await new Promise((resolve) => setTimeout(resolve, 1));
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect(
        (
          await t.post(`${API}/stores`, {
            stores: [
              storeInput('S1', { store_gln: '8710000000017' }),
              storeInput('S2', { store_gln: '8710000000024' }),
              storeInput('S3'),
            ],
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await t.post(`${API}/products`, {
            products: [
              productInput('P-A', { barcode: '8700000000011', price: 4.99, purchase_price: 2.1 }),
              productInput('P-B', { barcode: '8700000000028', price: 10, purchase_price: 6.5 }),
              productInput('P-C', { barcode: '8700000000035', price: 1 }),
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

    it('receipt_type is required on both paths (400); an unknown store is 404', async () => {
      for (const url of [
        `${API}/orders/receipts`,
        `${API}/stores/S1/orders/receipts`,
        `${API}/orders/receipts?store_number=S1`,
      ]) {
        const response = await t.get(url);
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
        expect(response.json().errors.map((e: Json) => e.path)).toEqual(['query.receipt_type']);
      }
      expect((await t.get(`${API}/stores/NOPE/orders/receipts?receipt_type=1`)).statusCode).toBe(404);
      const badDate = await t.get(`${API}/orders/receipts?receipt_type=1&last_modified_date=yesterday`);
      expect(badDate.statusCode).toBe(400);
      expect(badDate.json().errors.map((e: Json) => e.path)).toEqual(['query.last_modified_date']);
    });

    it('a receipt shows §2.4: the delivery type, status, its first moment, the delivery header; one line per receiving entry', async () => {
      const order = await announce(
        'S1',
        [line(1, 'P-A', 10, 1, { purchase_price: 2.5, barcode: 'LINE-A' }), line(2, 'P-B', 4, 2)],
        {
          datetime_expected: '2026-05-02T07:30:00Z',
        },
      );
      expect((await list(`${API}/orders/receipts?receipt_type=1&order_number=${order}`)).list).toEqual([]);

      const before = Date.now();
      await receive('S1', order, { lines: [{ line_number: 1, received_quantity: 4 }] });
      const after = Date.now();
      await receiveByEntries('S1', [entry('P-A', 3, order), entry('P-B', 4, order)]);

      const receipt = await receiptOf(order);
      expect(receipt).toMatchObject({
        order_number: order,
        order_type_id: 1,
        status: 'receiving',
        datetime_expected: '2026-05-02T07:30:00.000Z',
        supplier_code: 'SUP-1',
        supplier_name: 'Acme Foods',
        store_gln: '8710000000017',
        store_number: 'S1',
      });
      expect(typeof receipt.import_id).toBe('number');
      expect(receipt.updated_on).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // datetime_created is the first receipt's moment.
      expect(receipt.datetime_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(receipt.datetime_created)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(receipt.datetime_created)).toBeLessThanOrEqual(after);

      expect(receipt.receipt_lines).toHaveLength(3);
      expect(new Set(receipt.receipt_lines.map((r: Json) => r.id)).size).toBe(3);
      expect(receipt.receipt_lines.map(({ id, updated_on, ...rest }: Json) => rest)).toEqual([
        expect.objectContaining({
          line_number: 1,
          product_number: 'P-A',
          barcode: 'LINE-A',
          received_quantity: 4,
          shipped_quantity: 10,
          purchase_price: 2.5,
          store_products_price: 4.99,
        }),
        expect.objectContaining({
          line_number: 1,
          product_number: 'P-A',
          barcode: 'LINE-A',
          received_quantity: 3,
          shipped_quantity: 10,
          purchase_price: 2.5,
          store_products_price: 4.99,
        }),
        expect.objectContaining({
          line_number: 2,
          product_number: 'P-B',
          barcode: '8700000000028',
          received_quantity: 4,
          shipped_quantity: 4,
          purchase_price: 6.5,
          store_products_price: 10,
        }),
      ]);

      // shipped_quantity is the line's announced quantity at the moment of each receipt.
      const reannounced = await t.post(`${API}/stores/S1/orders/deliveries`, {
        orders: [
          {
            order_number: order,
            order_type: 1,
            datetime_expected: '2026-05-02T07:30:00Z',
            no_of_containers: 1,
            supplier_code: 'SUP-1',
            supplier_name: 'Acme Foods',
            order_lines: [line(1, 'P-A', 12, 1, { purchase_price: 2.5, barcode: 'LINE-A' }), line(2, 'P-B', 4, 2)],
          },
        ],
      });
      expect(reannounced.statusCode, reannounced.body).toBe(200);
      await receive('S1', order, { lines: [{ line_number: 1, received_quantity: 5 }], submit: true });
      const submitted = await receiptOf(order);
      expect(submitted.status).toBe('received');
      expect(submitted.datetime_created).toBe(receipt.datetime_created);
      expect(submitted.import_id).toBe(receipt.import_id);
      expect(
        submitted.receipt_lines.map((r: Json) => [r.line_number, r.received_quantity, r.shipped_quantity]),
      ).toEqual([
        [1, 4, 10],
        [1, 3, 10],
        [2, 4, 4],
        [1, 5, 12],
      ]);

      // receipt_type matches the delivery's order_type.
      expect((await list(`${API}/orders/receipts?receipt_type=2&order_number=${order}`)).list).toEqual([]);
      const transfer = await announce('S1', [line(1, 'P-C', 1)], { order_type: 2, store_origin: 'OUTSIDE' });
      await receive('S1', transfer, { lines: [{ line_number: 1, received_quantity: 1 }] });
      expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=2&order_number=${transfer}`))).toEqual([
        transfer,
      ]);
      expect((await receiptOf(transfer, 2)).order_type_id).toBe(2);
      expect((await list(`${API}/orders/receipts?receipt_type=1&order_number=${transfer}`)).list).toEqual([]);
      // A line without a purchase price and a product without one: 0.
      expect((await receiptOf(transfer, 2)).receipt_lines[0]).toMatchObject({
        purchase_price: 0,
        store_products_price: 1,
        barcode: '8700000000035',
      });
    });

    describe('filters and access', () => {
      const TYPE = 31;
      let a: string;
      let b: string;
      let c: string;
      let ids: Record<string, number>;

      beforeAll(async () => {
        a = await announce('S1', [line(1, 'P-A', 5)], { order_type: TYPE });
        b = await announce('S1', [line(1, 'P-B', 5)], { order_type: TYPE });
        c = await announce('S2', [line(1, 'P-A', 5)], { order_type: TYPE });
        await announce('S1', [line(1, 'P-A', 5)], { order_type: TYPE }); // open: no receipt
        await receive('S1', a, { lines: [{ line_number: 1, received_quantity: 5 }], submit: true });
        await receive('S1', b, { lines: [{ line_number: 1, received_quantity: 2 }] });
        await receiveByEntries('S2', [entry('P-A', 1, c)]);
        const all = await list(`${API}/orders/receipts?receipt_type=${TYPE}`);
        expect(orderNumbers(all)).toEqual([a, b, c]);
        expect(all.total_count).toBe(3);
        ids = Object.fromEntries((all.list as Json[]).map((r) => [r.order_number, r.import_id]));
      });

      it('is_submitted, from_id/to_id (inclusive), order_number, store_number; the store path', async () => {
        const base = `${API}/orders/receipts?receipt_type=${TYPE}`;
        expect(orderNumbers(await list(`${base}&is_submitted=true`))).toEqual([a]);
        expect(orderNumbers(await list(`${base}&is_submitted=false`))).toEqual([b, c]);
        expect((await list(`${base}&is_submitted=true`)).list[0].status).toBe('received');
        expect(orderNumbers(await list(`${base}&from_id=${ids[b]}&to_id=${ids[c]}`))).toEqual([b, c]);
        expect(orderNumbers(await list(`${base}&from_id=${ids[b]}&to_id=${ids[b]}`))).toEqual([b]);
        expect(orderNumbers(await list(`${base}&from_id=${ids[b]}`))).toEqual([b, c]);
        expect(orderNumbers(await list(`${base}&to_id=${ids[a]}`))).toEqual([a]);
        expect(orderNumbers(await list(`${base}&order_number=${b}`))).toEqual([b]);
        expect(orderNumbers(await list(`${base}&store_number=S2`))).toEqual([c]);
        expect(orderNumbers(await list(`${base}&store_number=S3`))).toEqual([]);
        const storePath = await list(`${API}/stores/S1/orders/receipts?receipt_type=${TYPE}`);
        expect(orderNumbers(storePath)).toEqual([a, b]);
        expect(storePath.total_count).toBe(2);
        expect(
          orderNumbers(await list(`${API}/stores/S1/orders/receipts?receipt_type=${TYPE}&is_submitted=false`)),
        ).toEqual([b]);
        expect(
          orderNumbers(await list(`${API}/stores/S2/orders/receipts?receipt_type=${TYPE}&order_number=${c}`)),
        ).toEqual([c]);
        expect(orderNumbers(await list(`${API}/stores/S3/orders/receipts?receipt_type=${TYPE}`))).toEqual([]);
      });

      it('last_modified_date: receipts changed at or after it', async () => {
        const base = `${API}/orders/receipts?receipt_type=${TYPE}`;
        const first = await list(base);
        const since = first.server_time as string;
        expect(orderNumbers(await list(`${base}&last_modified_date=${encodeURIComponent(since)}`))).toEqual([]);
        await receive('S1', b, { lines: [{ line_number: 1, received_quantity: 1 }] });
        const changed = await list(`${base}&last_modified_date=${encodeURIComponent(since)}`);
        expect(orderNumbers(changed)).toEqual([b]);
        expect(Date.parse(changed.list[0].updated_on)).toBeGreaterThanOrEqual(Date.parse(since));
        expect(changed.list[0].receipt_lines.map((r: Json) => r.received_quantity)).toEqual([2, 1]);
        // Inclusive: the receipt's own updated_on still lists it.
        expect(
          orderNumbers(await list(`${base}&last_modified_date=${encodeURIComponent(changed.list[0].updated_on)}`)),
        ).toContain(b);
        expect(orderNumbers(await list(`${base}&last_modified_date=2099-01-01T00:00:00Z`))).toEqual([]);
      });

      it('store tokens see only their stores: the cross-store list is filtered, another store path is 403', async () => {
        const s1 = await t.token('store', ['S1']);
        expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=${TYPE}`, s1))).toEqual([a, b]);
        expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=${TYPE}&store_number=S2`, s1))).toEqual([]);
        expect(orderNumbers(await list(`${API}/stores/S1/orders/receipts?receipt_type=${TYPE}`, s1))).toEqual([a, b]);
        const other = await t.get(`${API}/stores/S2/orders/receipts?receipt_type=${TYPE}`, s1);
        expect(other.statusCode).toBe(403);
        expect(other.json().code).toBe('FORBIDDEN');
        const both = await t.token('store', ['S1', 'S2']);
        expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=${TYPE}`, both))).toEqual([a, b, c]);
        // A read token reads.
        expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=${TYPE}`, await t.token('read')))).toEqual([
          a,
          b,
          c,
        ]);
      });
    });

    describe('incremental pulls: every receipt change exactly once', () => {
      interface Pull {
        serverTimes: string[];
        items: Json[];
      }

      /**
       * One ERP pull: last_modified_date = `since` (none on the first), pages of 2 by scroll_id,
       * `between(pageIndex)` run after each page before the next is asked.
       */
      async function pull(
        type: number,
        since: string | undefined,
        between: (pageIndex: number) => Promise<void> = async () => undefined,
      ): Promise<Pull> {
        const base = `${API}/orders/receipts?receipt_type=${type}&page_size=2${since === undefined ? '' : `&last_modified_date=${encodeURIComponent(since)}`}`;
        const result: Pull = { serverTimes: [], items: [] };
        let scroll: string | null = null;
        for (let pageIndex = 0; ; pageIndex++) {
          expect(pageIndex).toBeLessThan(200);
          // No waiting here: a pull may start in the millisecond of a change.
          const page = await get(scroll === null ? base : `${base}&scroll_id=${encodeURIComponent(scroll)}`);
          result.serverTimes.push(page.server_time);
          result.items.push(...page.list);
          scroll = page.scroll_id;
          if (scroll === null) break;
          await between(pageIndex);
        }
        return result;
      }

      /** What every pull must hold on its own: one moment for all pages, each receipt at most once, all changed in [since, moment). */
      function checkPull(p: Pull, since: string | undefined): string {
        const moment = p.serverTimes[0]!;
        expect(new Set(p.serverTimes)).toEqual(new Set([moment]));
        const ids = p.items.map((r) => r.import_id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const receipt of p.items) {
          expect(Date.parse(receipt.updated_on)).toBeLessThan(Date.parse(moment));
          if (since !== undefined) expect(Date.parse(receipt.updated_on)).toBeGreaterThanOrEqual(Date.parse(since));
          // A receipt as listed is one consistent version: none of its lines is newer than it.
          for (const receiptLine of receipt.receipt_lines as Json[])
            expect(Date.parse(receiptLine.updated_on)).toBeLessThanOrEqual(Date.parse(receipt.updated_on));
        }
        return moment;
      }

      it('a receipt changed during a scroll pull comes in the next pull, once; a new one too; nothing comes twice', async () => {
        const TYPE = 41;
        const orders: string[] = [];
        for (let i = 0; i < 5; i++) {
          const order = await announce('S1', [line(1, 'P-A', 10)], { order_type: TYPE });
          await receive('S1', order, { lines: [{ line_number: 1, received_quantity: 1 }] });
          orders.push(order);
        }
        const [first, , , , last] = orders as [string, string, string, string, string];
        let created = '';
        const pull1 = await pull(TYPE, undefined, async (pageIndex) => {
          if (pageIndex !== 0) return;
          // After page 1 (first and second): one receipt already seen, one not yet seen, and a new one change.
          await receive('S1', first, { lines: [{ line_number: 1, received_quantity: 2 }] });
          await receiveByEntries('S1', [entry('P-A', 3, last)]);
          created = await announce('S1', [line(1, 'P-B', 10)], { order_type: TYPE });
          await receive('S1', created, { lines: [{ line_number: 1, received_quantity: 4 }] });
        });
        const t1 = checkPull(pull1, undefined);
        expect(pull1.serverTimes.length).toBeGreaterThan(1);
        const seen1 = pull1.items.map((r) => r.order_number);
        expect(seen1.slice(0, 2)).toEqual([first, orders[1]]);
        expect(seen1).not.toContain(created);
        expect(seen1.filter((o) => o === first)).toHaveLength(1);
        // The first version of `first` is what the pull saw.
        expect(
          pull1.items.find((r) => r.order_number === first)!.receipt_lines.map((r: Json) => r.received_quantity),
        ).toEqual([1]);

        await settle(); // the changes above are before pull 2's moment
        const pull2 = await pull(TYPE, t1);
        const t2 = checkPull(pull2, t1);
        const seen2 = pull2.items.map((r) => r.order_number);
        expect(new Set(seen2)).toEqual(new Set([first, last, created]));
        expect(
          pull2.items.find((r) => r.order_number === first)!.receipt_lines.map((r: Json) => r.received_quantity),
        ).toEqual([1, 2]);
        expect(
          pull2.items.find((r) => r.order_number === last)!.receipt_lines.map((r: Json) => r.received_quantity),
        ).toEqual([1, 3]);
        expect(
          pull2.items.find((r) => r.order_number === created)!.receipt_lines.map((r: Json) => r.received_quantity),
        ).toEqual([4]);

        // No (receipt, version) pair twice across the pulls; every receipt's latest version seen.
        const versions = [...pull1.items, ...pull2.items].map(versionOf);
        expect(new Set(versions).size).toBe(versions.length);
        const pull3 = await pull(TYPE, t2);
        checkPull(pull3, t2);
        expect(pull3.items).toEqual([]);
        const current = (await list(`${API}/orders/receipts?receipt_type=${TYPE}`)).list as Json[];
        const lastSeen = new Map([...pull1.items, ...pull2.items].map((r) => [r.import_id, r]));
        expect(current.map((r) => versionOf(lastSeen.get(r.import_id) ?? {}))).toEqual(current.map(versionOf));
        expect(current.map((r) => lastSeen.get(r.import_id)?.receipt_lines.length)).toEqual(
          current.map((r) => r.receipt_lines.length),
        );
      });

      it('an ERP polling while receipts keep changing between its page requests sees each change exactly once', async () => {
        const TYPE = 42;
        const orders: string[] = [];
        let step = 0;
        // Deterministic mix of changes: receiving both ways, new receipts, header updates, submits.
        async function change(): Promise<void> {
          step++;
          const open = orders.filter((o) => !submitted.has(o));
          if (open.length === 0 || step % 5 === 0) {
            const order = await announce(step % 2 === 0 ? 'S1' : 'S2', [line(1, 'P-A', 10), line(2, 'P-B', 10)], {
              order_type: TYPE,
            });
            await receive(step % 2 === 0 ? 'S1' : 'S2', order, { lines: [{ line_number: 1, received_quantity: 1 }] });
            orders.push(order);
            storeOf.set(order, step % 2 === 0 ? 'S1' : 'S2');
            return;
          }
          const order = open[(step * 7) % open.length]!;
          const store = storeOf.get(order)!;
          if (step % 7 === 0) {
            await receive(store, order, { lines: [{ line_number: 2, received_quantity: 1 }], submit: true });
            submitted.add(order);
          } else if (step % 3 === 0) {
            const response = await t.post(`${API}/stores/${store}/orders/deliveries`, {
              orders: [
                {
                  order_number: order,
                  order_type: TYPE,
                  datetime_expected: '2026-05-01T08:00:00Z',
                  no_of_containers: 1,
                  supplier_name: `Supplier ${step}`,
                },
              ],
            });
            expect(response.statusCode, response.body).toBe(200);
            expect(response.json().message).toContain('updated 1');
          } else if (step % 2 === 0) {
            await receiveByEntries(store, [entry('P-B', 1, order)]);
          } else {
            await receive(store, order, { lines: [{ line_number: 1, received_quantity: 1 }] });
          }
        }
        const submitted = new Set<string>();
        const storeOf = new Map<string, string>();
        for (let i = 0; i < 6; i++) await change();

        const pulls: Pull[] = [];
        let since: string | undefined;
        for (let round = 0; round < 6; round++) {
          const p = await pull(TYPE, since, async (pageIndex) => {
            for (let k = 0; k <= pageIndex % 3; k++) await change();
          });
          since = checkPull(p, since);
          pulls.push(p);
          await change();
        }
        // Quiet now: the final pull brings what changed since, then nothing.
        await settle();
        const final = await pull(TYPE, since);
        since = checkPull(final, since);
        pulls.push(final);
        const quiet = await pull(TYPE, since);
        checkPull(quiet, since);
        expect(quiet.items).toEqual([]);

        const seen = pulls.flatMap((p) => p.items);
        const versions = seen.map(versionOf);
        expect(new Set(versions).size).toBe(versions.length);
        // A receipt's versions come in order, each newer than the last seen.
        const lastSeen = new Map<number, Json>();
        for (const receipt of seen) {
          const previous = lastSeen.get(receipt.import_id);
          if (previous) expect(Date.parse(receipt.updated_on)).toBeGreaterThan(Date.parse(previous.updated_on));
          lastSeen.set(receipt.import_id, receipt);
        }
        // Nothing missed: every receipt's current state is the last one the ERP saw.
        const current = (await list(`${API}/orders/receipts?receipt_type=${TYPE}&page_size=1000`)).list as Json[];
        expect(current.length).toBe(orders.length);
        for (const receipt of current) {
          const last = lastSeen.get(receipt.import_id);
          expect(last, receipt.order_number).toBeDefined();
          expect(last).toEqual(receipt);
        }
      });
    });

    it("a header update of a delivery with a receipt moves the receipt's updated_on; an identical re-send does not", async () => {
      const TYPE = 51;
      const header = {
        order_type: TYPE,
        datetime_expected: '2026-05-01T08:00:00Z',
        no_of_containers: 1,
        supplier_code: 'SUP-1',
        supplier_name: 'Acme Foods',
      };
      const order = await announce('S1', [line(1, 'P-A', 10)], header);
      const untouched = await announce('S1', [line(1, 'P-A', 10)], header);
      await receive('S1', order, { lines: [{ line_number: 1, received_quantity: 1 }] });
      const before = await receiptOf(order, TYPE);
      const pulled = await list(`${API}/orders/receipts?receipt_type=${TYPE}`);
      const since = pulled.server_time as string;
      await tickPast(before.updated_on);
      await tickPast(since);

      const send = (order_number: string, extra: Json) =>
        t.post(`${API}/stores/S1/orders/deliveries`, { orders: [{ order_number, ...header, ...extra }] });
      const same = await send(order, {});
      expect(same.statusCode).toBe(200);
      expect(same.json().message).toContain('unchanged 1');
      expect((await receiptOf(order, TYPE)).updated_on).toBe(before.updated_on);
      expect(
        orderNumbers(
          await list(`${API}/orders/receipts?receipt_type=${TYPE}&last_modified_date=${encodeURIComponent(since)}`),
        ),
      ).toEqual([]);

      const renamed = await send(order, {
        supplier_name: 'Acme Foods Europe',
        datetime_expected: '2026-05-03T08:00:00Z',
      });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json().message).toContain('updated 1');
      const after = await receiptOf(order, TYPE);
      expect(Date.parse(after.updated_on)).toBeGreaterThan(Date.parse(before.updated_on));
      expect(after).toMatchObject({
        supplier_name: 'Acme Foods Europe',
        datetime_expected: '2026-05-03T08:00:00.000Z',
        import_id: before.import_id,
      });
      expect(after.receipt_lines).toEqual(before.receipt_lines);
      const next = await list(
        `${API}/orders/receipts?receipt_type=${TYPE}&last_modified_date=${encodeURIComponent(since)}`,
      );
      expect(orderNumbers(next)).toEqual([order]);

      // An open delivery's header update makes no receipt.
      expect((await send(untouched, { supplier_name: 'Someone else' })).statusCode).toBe(200);
      expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=${TYPE}`))).toEqual([order]);

      // The receipt's type is the delivery's: a type change moves it to the other receipt_type.
      await tickPast(after.updated_on);
      const retyped = await send(order, {
        order_type: TYPE + 1,
        supplier_name: 'Acme Foods Europe',
        datetime_expected: '2026-05-03T08:00:00Z',
      });
      expect(retyped.statusCode, retyped.body).toBe(200);
      expect(orderNumbers(await list(`${API}/orders/receipts?receipt_type=${TYPE}`))).toEqual([]);
      const moved = await receiptOf(order, TYPE + 1);
      expect(moved.order_type_id).toBe(TYPE + 1);
      expect(Date.parse(moved.updated_on)).toBeGreaterThan(Date.parse(after.updated_on));
    });
  });
}
