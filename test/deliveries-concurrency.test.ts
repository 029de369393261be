import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { verifyAll } from '../src/verify.js';
import { DIALECTS } from './helpers/dialects.js';
import { productInput, storeInput } from './helpers/factories.js';
import {
  callJson,
  type Json,
  type ServerProcess,
  sharedDatabaseConfig,
  startTwoServers,
} from './helpers/server-process.js';
import { balancesOf } from './helpers/stock.js';

// Receiving under concurrency (docs/deliveries.md "Receiving", "Transfers", "Receipts"), with
// two real server processes on one PostgreSQL schema: clients on both receive the same
// delivery line at once, both ways, while two ERPs pull the receipts. Nothing may be lost or
// booked twice: line totals, stock, receipt lines and ledger entries agree with what each
// successful request booked, and `store-ops verify` is clean.

const TOKEN = 'deliveries-concurrency-admin-token';
const API = '/api/v2/public';
const PRODUCT = 'DC-P';
/** Line 1 of every delivery announces this many; line 2 of the same product takes what comes after. */
const LINE_1_QUANTITY = 50;
const DELIVERIES = ['DC-1', 'DC-2', 'DC-3', 'DC-4'];
/** DC-1 is a transfer from K2: every receipt on it also books out of K2. */
const HOT = 'DC-1';

const call = (server: ServerProcess, method: string, url: string, body?: unknown) =>
  callJson(server, TOKEN, method, url, body);

const configFor = (databaseUrl: string) => sharedDatabaseConfig(databaseUrl, TOKEN);

const milli = (quantity: number) => Math.round(quantity * 1000);

for (const dialect of DIALECTS.filter((d) => d.name === 'postgres')) {
  describe('receiving under concurrency, two processes (postgres)', () => {
    let databaseUrl: string;
    let servers: ServerProcess[] = [];

    beforeAll(async () => {
      databaseUrl = await dialect.freshDatabaseUrl();
      const app = await buildApp(configFor(databaseUrl));
      try {
        const inject = (url: string, payload: unknown) =>
          app.inject({
            method: 'POST',
            url,
            payload: payload as object,
            headers: { authorization: `Bearer ${TOKEN}` },
          });
        expect((await inject(`${API}/stores`, { stores: [storeInput('K1'), storeInput('K2')] })).statusCode).toBe(200);
        expect(
          (await inject(`${API}/products`, { products: [productInput(PRODUCT, { price: 2, purchase_price: 1 })] }))
            .statusCode,
        ).toBe(200);
        const orders = DELIVERIES.map((order_number) => ({
          order_number,
          order_type: 1,
          datetime_expected: '2026-06-01T08:00:00Z',
          no_of_containers: 1,
          supplier_name: 'Acme',
          ...(order_number === HOT ? { store_origin: 'K2' } : {}),
          order_lines: [
            { line_number: 1, product_number: PRODUCT, quantity: LINE_1_QUANTITY, target_stock_pool: 2 },
            { line_number: 2, product_number: PRODUCT, quantity: 1_000_000, target_stock_pool: 3 },
          ],
        }));
        const announced = await inject(`${API}/stores/K1/orders/deliveries`, { orders });
        expect(announced.statusCode, announced.body).toBe(200);
      } finally {
        await app.close();
      }
      servers = await startTwoServers(databaseUrl);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dialect.cleanup();
    });

    it('two clients per process receive the same line both ways: totals, stock, receipt lines and ledger agree; the ERP pull sees each change once', async () => {
      const failures: string[] = [];
      /** Thousandths each successful request booked, per delivery. */
      const booked = new Map<string, number>(DELIVERIES.map((d) => [d, 0]));
      /** Deliveries some request received on: they have a receipt. */
      const touched = new Set<string>();
      /** Entries ids the entries way answered with (data), all receiving on DELIVERIES. */
      const entryIds: number[] = [];
      let endpointCalls = 0;
      let writersDone = false;

      const REQUESTS_PER_CLIENT = 60;
      const writer = async (client: number) => {
        const server = servers[client % servers.length]!;
        for (let i = 0; i < REQUESTS_PER_CLIENT; i++) {
          // Mostly the hot delivery's line 1; now and then another delivery, so receipts page.
          const order = i % 5 === 4 ? DELIVERIES[1 + ((client + i) % 3)]! : HOT;
          const quantity = 1 + ((client * 7 + i * 3) % 5);
          if ((client + i) % 2 === 0) {
            // The receive endpoint, by line number; now and then a correction of a mis-scan.
            const correction = i % 9 === 8;
            const received = correction ? -1 : quantity;
            const response = await call(
              server,
              'POST',
              `${API}/stores/K1/orders/deliveries/${order}/receive?appUserName=endpoint-${client}`,
              {
                lines: [{ line_number: 1, received_quantity: received }],
              },
            );
            if (response.status === 200) {
              booked.set(order, booked.get(order)! + milli(received));
              touched.add(order);
              endpointCalls++;
            } else if (
              !(
                correction &&
                response.status === 409 &&
                response.json.errors?.[0]?.path === 'lines[0].received_quantity'
              )
            ) {
              failures.push(`receive ${order} ${received}: ${response.status} ${JSON.stringify(response.json)}`);
            }
          } else {
            // Stock log entries with is_from_receipt=true: matched by product to the first short line.
            const entries = [quantity, 1].map((q) => ({
              product_number: PRODUCT,
              quantity: q,
              reference: order,
              app_user_name: `entries-${client}`,
              customer_order_line_number: 0,
              modification_datetime: new Date().toISOString(),
            }));
            const response = await call(
              server,
              'POST',
              `${API}/stores/K1/products/stock/storeproductlogs?is_from_receipt=true`,
              { storeproductlog: entries },
            );
            if (response.status === 200) {
              booked.set(order, booked.get(order)! + milli(quantity + 1));
              touched.add(order);
              entryIds.push(...(response.json.data as number[]));
              if (!String(response.json.message).includes('received on deliveries 2'))
                failures.push(`entries message: ${response.json.message}`);
            } else {
              failures.push(`entries ${order} ${quantity}: ${response.status} ${JSON.stringify(response.json)}`);
            }
          }
        }
      };

      // Two ERPs, each pulling receipts (last_modified_date = its previous server_time, pages
      // of 2 by scroll_id, pages from either process) all along, then once more when all is quiet.
      interface Pull {
        serverTimes: string[];
        items: Json[];
      }
      interface Erp {
        name: string;
        pulls: Pull[];
        since?: string;
        pageCounter: number;
      }
      const erps: Erp[] = [0, 1].map((n) => ({ name: `erp-${n}`, pulls: [], pageCounter: n }));
      const pullOnce = async (erp: Erp) => {
        const base = `${API}/orders/receipts?receipt_type=1&page_size=2${erp.since === undefined ? '' : `&last_modified_date=${encodeURIComponent(erp.since)}`}`;
        const result: Pull = { serverTimes: [], items: [] };
        let scroll: string | null = null;
        for (;;) {
          const server = servers[erp.pageCounter++ % servers.length]!;
          const page = await call(
            server,
            'GET',
            scroll === null ? base : `${base}&scroll_id=${encodeURIComponent(scroll)}`,
          );
          if (page.status !== 200) {
            failures.push(`${erp.name} pull: ${page.status} ${JSON.stringify(page.json)}`);
            return;
          }
          result.serverTimes.push(page.json.server_time);
          result.items.push(...page.json.list);
          scroll = page.json.scroll_id;
          if (scroll === null) break;
        }
        erp.pulls.push(result);
        erp.since = result.serverTimes[0];
      };
      const polling = erps.map(async (erp) => {
        while (!writersDone) await pullOnce(erp);
      });

      await Promise.all([0, 1, 2, 3].map(writer));
      writersDone = true;
      await Promise.all(polling);
      // Quiet: the clock past the last write, a final pull brings the rest, and the next one nothing.
      const quietFrom = Date.now();
      while (Date.now() <= quietFrom) await new Promise((resolve) => setTimeout(resolve, 1));
      for (const erp of erps) {
        await pullOnce(erp);
        const beforeQuiet = erp.pulls.length;
        await pullOnce(erp);
        expect(erp.pulls.length).toBe(beforeQuiet + 1);
        expect(erp.pulls[erp.pulls.length - 1]!.items, erp.name).toEqual([]);
      }
      expect(failures).toEqual([]);
      expect(endpointCalls).toBeGreaterThan(0);
      expect(entryIds.length).toBeGreaterThan(0);

      const current = await call(servers[0]!, 'GET', `${API}/orders/receipts?receipt_type=1&page_size=1000`);
      expect(current.status).toBe(200);
      expect((current.json.list as Json[]).map((r) => r.order_number).sort()).toEqual([...touched].sort());
      const inconsistent: string[] = [];
      for (const erp of erps) {
        // Every pull: one moment on all its pages, a receipt at most once, each a consistent version.
        let previous: string | undefined;
        for (const [index, p] of erp.pulls.entries()) {
          expect(new Set(p.serverTimes).size).toBe(1);
          const moment = p.serverTimes[0]!;
          const ids = p.items.map((r) => r.import_id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const receipt of p.items) {
            expect(Date.parse(receipt.updated_on)).toBeLessThan(Date.parse(moment));
            if (previous !== undefined)
              expect(Date.parse(receipt.updated_on)).toBeGreaterThanOrEqual(Date.parse(previous));
            // A receipt as listed is one version as of the pull's moment: no line of it newer than it, nor written at or after the moment.
            for (const receiptLine of receipt.receipt_lines as Json[]) {
              if (
                Date.parse(receiptLine.updated_on) > Date.parse(receipt.updated_on) ||
                Date.parse(receiptLine.updated_on) >= Date.parse(moment)
              ) {
                inconsistent.push(
                  `${erp.name} pull ${index} (server_time ${moment}): receipt ${receipt.order_number} updated_on ${receipt.updated_on} lists receipt line ${receiptLine.id} updated_on ${receiptLine.updated_on}`,
                );
              }
            }
          }
          previous = moment;
        }
        // Across pulls: no version twice, versions of a receipt in order, the last one seen = the current one.
        const seen = erp.pulls.flatMap((p) => p.items);
        const versions = seen.map((r) => `${r.import_id}@${r.updated_on}`);
        expect(new Set(versions).size).toBe(versions.length);
        const lastSeen = new Map<number, Json>();
        for (const receipt of seen) {
          const before = lastSeen.get(receipt.import_id);
          if (before) expect(Date.parse(receipt.updated_on)).toBeGreaterThan(Date.parse(before.updated_on));
          lastSeen.set(receipt.import_id, receipt);
        }
        for (const receipt of current.json.list as Json[])
          expect(lastSeen.get(receipt.import_id), `${erp.name} ${receipt.order_number}`).toEqual(receipt);
      }
      // Every receipt line listed was written before the pull's moment (a pull is read as of it).
      expect(inconsistent).toEqual([]);

      const app = await buildApp(configFor(databaseUrl));
      try {
        const db = app.ctx.db;
        expect(await verifyAll(app.ctx.handle)).toEqual([]);

        const lines = await db
          .selectFrom('delivery_order_lines as l')
          .innerJoin('delivery_orders as d', 'd.id', 'l.delivery_id')
          .select(['d.order_number', 'd.status', 'l.id', 'l.line_number', 'l.received_quantity'])
          .orderBy('d.order_number')
          .orderBy('l.line_number')
          .execute();
        for (const order of DELIVERIES) {
          const ofOrder = lines.filter((l) => l.order_number === order);
          expect(
            ofOrder.reduce((sum, l) => sum + Number(l.received_quantity), 0),
            order,
          ).toBe(booked.get(order));
        }

        // Receipt lines = receiving entries, one to one, each with its entry's quantity.
        const receiptLines = await db
          .selectFrom('receipt_lines as r')
          .innerJoin('receipt_orders as o', 'o.id', 'r.receipt_id')
          .innerJoin('stock_logs as s', 's.id', 'r.log_id')
          .select([
            'r.id',
            'r.log_id',
            'r.line_number',
            'r.received_quantity',
            'o.order_number',
            's.app_user_name',
            's.quantity',
            's.is_from_receipt',
            's.reference',
            's.store_number',
          ])
          .orderBy('r.id')
          .execute();
        const receivingEntries = await db
          .selectFrom('stock_logs')
          .select(['id', 'quantity', 'reference'])
          .where('store_number', '=', 'K1')
          .where('is_from_receipt', '=', 1)
          .orderBy('id')
          .execute();
        expect(receiptLines.map((r) => Number(r.log_id)).sort((a, b) => a - b)).toEqual(
          receivingEntries.map((e) => Number(e.id)),
        );
        for (const r of receiptLines) {
          expect(Number(r.received_quantity)).toBe(Number(r.quantity));
          expect(r.reference).toBe(r.order_number);
          expect(r.store_number).toBe('K1');
          expect(Number(r.is_from_receipt)).toBe(1);
        }
        const logIds = new Set(receiptLines.map((r) => Number(r.log_id)));
        expect(entryIds.filter((id) => !logIds.has(id))).toEqual([]);
        expect(receiptLines.filter((r) => String(r.app_user_name).startsWith('endpoint-')).length).toBe(endpointCalls);

        // The serial order of receipts on a delivery (receipt line ids, taken under its lock):
        // the endpoint names line 1; an entry goes to line 1 while it is short, else to line 2.
        for (const order of DELIVERIES) {
          let lineOne = 0;
          for (const r of receiptLines.filter((x) => x.order_number === order)) {
            const expectedLine =
              String(r.app_user_name).startsWith('endpoint-') || lineOne < milli(LINE_1_QUANTITY) ? 1 : 2;
            expect(Number(r.line_number), `${order} receipt line ${r.id}`).toBe(expectedLine);
            if (expectedLine === 1) lineOne += Number(r.received_quantity);
          }
          const lineOneRow = lines.find((l) => l.order_number === order && Number(l.line_number) === 1)!;
          expect(Number(lineOneRow.received_quantity), order).toBe(lineOne);
        }

        // Stock: line 1 into pool 2, line 2 into pool 3, unlocated; the transfer's origin gave what the hot delivery received.
        const perPool = (pool: number) =>
          receiptLines
            .filter((r) => Number(r.line_number) === (pool === 2 ? 1 : 2))
            .reduce((sum, r) => sum + Number(r.received_quantity), 0) / 1000;
        // The hot delivery's line 1 filled up: entries went on to line 2, so the first-short rule ran under contention.
        expect(perPool(3)).toBeGreaterThan(0);
        const totalBooked = [...booked.values()].reduce((sum, q) => sum + q, 0) / 1000;
        const k1 = await balancesOf(db, PRODUCT, 'K1');
        expect(k1).toEqual(
          Object.fromEntries(
            [
              ['-|2|-', perPool(2)],
              ['-|3|-', perPool(3)],
            ].filter(([, q]) => q !== 0),
          ),
        );
        expect(Object.values(k1).reduce((sum, q) => sum + q, 0)).toBeCloseTo(totalBooked, 3);
        expect(await balancesOf(db, PRODUCT, 'K2')).toEqual(
          booked.get(HOT) === 0 ? {} : { '-|1|-': -booked.get(HOT)! / 1000 },
        );

        const legs = await db
          .selectFrom('stock_logs')
          .select(['id', 'quantity', 'reference_id', 'source', 'reference'])
          .where('store_number', '=', 'K2')
          .orderBy('id')
          .execute();
        const hotEntries = receivingEntries.filter((e) => e.reference === HOT && Number(e.quantity) !== 0);
        expect(legs.map((l) => Number(l.reference_id)).sort((a, b) => a - b)).toEqual(
          hotEntries.map((e) => Number(e.id)),
        );
        const hotById = new Map(hotEntries.map((e) => [Number(e.id), Number(e.quantity)]));
        for (const leg of legs) {
          expect(leg).toMatchObject({ source: 'transfer', reference: HOT });
          expect(Number(leg.quantity)).toBe(-hotById.get(Number(leg.reference_id))!);
        }
      } finally {
        await app.close();
      }
    }, 180_000);
  });
}

// Without TEST_DATABASE_URL the file has no PostgreSQL to test; say so rather than fail as empty.
describe.skipIf(DIALECTS.some((d) => d.name === 'postgres'))('receiving under concurrency, two processes', () => {
  it.skip('needs TEST_DATABASE_URL (PostgreSQL)', () => undefined);
});
