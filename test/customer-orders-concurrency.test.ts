import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { verifyAll } from '../src/verify.js';
import { DIALECTS } from './helpers/dialects.js';
import { locationInput, productInput, reasonCodeInput, storeInput } from './helpers/factories.js';
import {
  callJson,
  type Json,
  type ServerProcess,
  sharedDatabaseConfig,
  startTwoServers,
} from './helpers/server-process.js';
import { balancesOf } from './helpers/stock.js';

// Customer orders under concurrency (docs/customer-orders.md: "No sequence or interleaving of
// requests may bind a unit twice or lose one"), with two real server processes on one
// PostgreSQL schema:
// (a) pickers on both processes pick different orders of one product from one location at
//     once, again and again, with less free stock than the orders want: what is bound never
//     exceeds what was there (watched all along), every 409 binds nothing, and the end state
//     is exactly what the successful requests did;
// (b) a clearance races a rejection (and on some orders a second clearance, or a pick) of the
//     same order, on many orders at once: exactly one of the closers wins per order, and the
//     stock follows the winner (handed over, or released back to where it was picked).
// `store-ops verify` is clean after each.

const TOKEN = 'customer-orders-concurrency-admin-token';
const API = '/api/v2/public';
const STORE = 'K1';
const REJECT_CODE = 21;

/** (a): one product at one location, less of it than the orders want. */
const PICK_PRODUCT = 'COC-A';
const PICK_LOCATION = 'A';
const FREE_AT_START = 40;
const PICKERS = 8;
const ORDERS_PER_PICKER = 2;
const LINE_QUANTITY = 4;
const ROUNDS = 30;
const pickOrder = (picker: number, k: number) => `COC-PA-${picker}-${k}`;

/** (b): orders picked from location B, then cleared or rejected. */
const RACE_PRODUCTS = ['COC-B1', 'COC-B2'];
const RACE_LOCATION = 'B';
const RACE_STOCK = 500;
const RACE_ORDERS = 48;
const raceOrder = (i: number) => `COC-PB-${String(i).padStart(2, '0')}`;
/** What order i picks of each product: a deterministic spread over 0..3, some orders nothing at all. */
const racePicks = (i: number) => [(i * 7) % 4, (i * 5 + 1) % 3];

const call = (server: ServerProcess, method: string, url: string, body?: unknown) =>
  callJson(server, TOKEN, method, url, body);

const configFor = (databaseUrl: string) => sharedDatabaseConfig(databaseUrl, TOKEN);

const milli = (quantity: number) => Math.round(quantity * 1000);
const now = () => new Date().toISOString();

for (const dialect of DIALECTS.filter((d) => d.name === 'postgres')) {
  describe('customer orders under concurrency, two processes (postgres)', () => {
    let databaseUrl: string;
    let servers: ServerProcess[] = [];
    /** An app of its own on the same database: direct reads of the balances, and verify. */
    let observer: Awaited<ReturnType<typeof buildApp>>;

    beforeAll(async () => {
      databaseUrl = await dialect.freshDatabaseUrl();
      const app = await buildApp(configFor(databaseUrl));
      try {
        const inject = async (url: string, payload: unknown) => {
          const response = await app.inject({
            method: 'POST',
            url,
            payload: payload as object,
            headers: { authorization: `Bearer ${TOKEN}` },
          });
          expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
        };
        await inject(`${API}/stores`, { stores: [storeInput(STORE)] });
        await inject(`${API}/stores/${STORE}/locations`, {
          locations: [
            locationInput(PICK_LOCATION, { location_order: 1 }),
            locationInput(RACE_LOCATION, { location_order: 2 }),
          ],
        });
        await inject(`${API}/products`, { products: [PICK_PRODUCT, ...RACE_PRODUCTS].map((p) => productInput(p)) });
        await inject(`${API}/reasoncodes`, { reason_codes: [reasonCodeInput(REJECT_CODE, { reason_code_type: 2 })] });
        await inject(`${API}/stores/${STORE}/products/stock/storeproductlogs`, {
          storeproductlog: [
            {
              product_number: PICK_PRODUCT,
              quantity: FREE_AT_START,
              location_code: PICK_LOCATION,
              customer_order_line_number: 0,
              modification_datetime: now(),
            },
            ...RACE_PRODUCTS.map((p) => ({
              product_number: p,
              quantity: RACE_STOCK,
              location_code: RACE_LOCATION,
              customer_order_line_number: 0,
              modification_datetime: now(),
            })),
          ],
        });
        const pickOrders = Array.from({ length: PICKERS }, (_, picker) =>
          Array.from({ length: ORDERS_PER_PICKER }, (_, k) => ({
            order_number: pickOrder(picker, k),
            customer_name: `Picker ${picker}`,
            // Line 1 names the location as its preferred one (picks may leave it out), line 2 does not.
            lines: [
              {
                line_number: 1,
                product_number: PICK_PRODUCT,
                quantity: LINE_QUANTITY,
                preferred_location_code: PICK_LOCATION,
              },
              { line_number: 2, product_number: PICK_PRODUCT, quantity: LINE_QUANTITY },
            ],
          })),
        ).flat();
        const raceOrders = Array.from({ length: RACE_ORDERS }, (_, i) => ({
          order_number: raceOrder(i),
          customer_name: `Racer ${i}`,
          lines: RACE_PRODUCTS.map((product_number, j) => ({
            line_number: j + 1,
            product_number,
            quantity: 3,
            preferred_location_code: RACE_LOCATION,
          })),
        }));
        await inject(`${API}/stores/${STORE}/orders/customerorders`, { orders: [...pickOrders, ...raceOrders] });
      } finally {
        await app.close();
      }
      servers = await startTwoServers(databaseUrl);
      observer = await buildApp(configFor(databaseUrl));
    }, 120_000);

    afterAll(async () => {
      await observer?.close();
      await Promise.all(servers.map((s) => s.stop()));
      await dialect.cleanup();
    });

    /** The orders as the service lists them, by number. */
    async function listed(server: ServerProcess): Promise<Map<string, Json>> {
      const page = await call(server, 'GET', `${API}/stores/${STORE}/orders/customerorders?page_size=1000`);
      expect(page.status).toBe(200);
      return new Map((page.json.list as Json[]).map((o) => [o.order_number as string, o]));
    }

    it('pickers on both processes pick one source at once: never more bound than was there, every 409 binds nothing, the end state is what the 200s did', async () => {
      const failures: string[] = [];
      /** Thousandths picked per order and line, as the successful requests left them (each order has one picker). */
      const picked = new Map<string, [number, number]>();
      const statuses = new Map<string, number>();
      for (let picker = 0; picker < PICKERS; picker++) {
        for (let k = 0; k < ORDERS_PER_PICKER; k++) {
          picked.set(pickOrder(picker, k), [0, 0]);
          statuses.set(pickOrder(picker, k), 1);
        }
      }
      const counts = { ok: 0, conflict: 0, firstRoundOk: 0, samples: 0 };
      let picking = true;

      // Watching all along, one statement at a time (one snapshot each): the free stock at the
      // source never goes below zero, nothing is bound below zero, and free + bound is what was there.
      const watcher = (async () => {
        while (picking) {
          const balances = await balancesOf(observer.ctx.db, PICK_PRODUCT, STORE);
          counts.samples++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          const free = balances[`${PICK_LOCATION}|1|-`] ?? 0;
          const bound = Object.entries(balances).filter(([key]) => !key.endsWith('|-'));
          const boundTotal = bound.reduce((sum, [, q]) => sum + milli(q), 0);
          if (free < 0) failures.push(`free stock at ${PICK_LOCATION} went to ${free}: ${JSON.stringify(balances)}`);
          for (const [key, q] of bound) if (q < 0) failures.push(`negative bound stock ${key} = ${q}`);
          if (
            milli(free) + boundTotal !== milli(FREE_AT_START) ||
            Object.keys(balances).length !== bound.length + (free === 0 ? 0 : 1)
          ) {
            failures.push(
              `the stock of ${PICK_PRODUCT} is no longer what was there (${FREE_AT_START}): ${JSON.stringify(balances)}`,
            );
          }
        }
      })();

      /** One pick request of a picker on its order; on a 409, checks that nothing of it was bound. */
      const pick = async (
        server: ServerProcess,
        order: string,
        targets: Array<[line: number, quantity: number]>,
        named: boolean,
      ): Promise<number> => {
        const body = {
          order_number: order,
          picked_username: order,
          lines: targets.map(([line, quantity]) => ({
            line_number: line,
            picked_quantity: quantity,
            ...(named || line === 2 ? { stock_location: PICK_LOCATION } : {}),
          })),
        };
        const response = await call(server, 'PUT', `${API}/stores/${STORE}/orders/customerorder`, body);
        const before = picked.get(order)!;
        if (response.status === 200) {
          counts.ok++;
          const after: [number, number] = [...before];
          for (const [line, quantity] of targets) after[line - 1] = milli(quantity);
          picked.set(order, after);
          const derived = after.every((q) => q >= milli(LINE_QUANTITY)) ? 4 : after.some((q) => q > 0) ? 3 : 1;
          statuses.set(order, Math.max(statuses.get(order)!, derived));
        } else if (response.status === 409) {
          counts.conflict++;
          const paths = ((response.json.errors ?? []) as Json[]).map((e) => e.path);
          if (!paths.some((p) => /^lines\[\d\]\.picked_quantity$/.test(p)))
            failures.push(`409 naming ${JSON.stringify(paths)}: ${JSON.stringify(response.json)}`);
          // Nothing of a refused request is bound: the order's lines and its bound stock are as before.
          const order_ = (
            await call(server, 'GET', `${API}/stores/${STORE}/orders/customerorders?order_number=${order}`)
          ).json.list?.[0] as Json | undefined;
          const lines = ((order_?.lines ?? []) as Json[]).map((l) => milli(l.picked_quantity));
          if (JSON.stringify(lines) !== JSON.stringify(before))
            failures.push(`${order}: a 409 changed the picks from ${before} to ${lines}`);
          const bound = (await balancesOf(observer.ctx.db, PICK_PRODUCT, STORE))[`-|1|${order}`] ?? 0;
          if (milli(bound) !== before[0] + before[1])
            failures.push(`${order}: after a 409, ${bound} bound, its lines picked ${(before[0] + before[1]) / 1000}`);
        } else {
          failures.push(`${order} ${JSON.stringify(body)}: ${response.status} ${JSON.stringify(response.json)}`);
        }
        return response.status;
      };

      // First every order wants both lines in full, all at once (8 each, 16 orders, 40 there):
      // each request binds all or nothing, so exactly 5 have them.
      await Promise.all(
        Array.from({ length: PICKERS * ORDERS_PER_PICKER }, async (_, n) => {
          const [p, k] = [n % PICKERS, Math.floor(n / PICKERS)];
          if (
            (await pick(
              servers[p % servers.length]!,
              pickOrder(p, k),
              [
                [1, LINE_QUANTITY],
                [2, LINE_QUANTITY],
              ],
              k === 0,
            )) === 200
          )
            counts.firstRoundOk++;
        }),
      );
      const picker = async (p: number) => {
        const server = servers[p % servers.length]!;
        // Then new totals up and down, one line or both, named or from the line's last / preferred location.
        for (let round = 0; round < ROUNDS; round++) {
          const order = pickOrder(p, round % ORDERS_PER_PICKER);
          const seed = p * 131 + round * 17;
          const targets: Array<[number, number]> =
            seed % 3 === 0
              ? [
                  [1, seed % 5],
                  [2, (seed >> 2) % 5],
                ]
              : [[1 + (seed % 2), (seed >> 1) % 5]];
          await pick(server, order, targets, seed % 4 !== 1);
        }
      };
      await Promise.all(Array.from({ length: PICKERS }, (_, p) => picker(p)));
      picking = false;
      await watcher;

      expect(failures).toEqual([]);
      expect(counts.firstRoundOk).toBe(FREE_AT_START / (2 * LINE_QUANTITY));
      expect(counts.conflict).toBeGreaterThan(0);
      expect(counts.samples).toBeGreaterThan(0);

      // The end: picks and statuses as the 200s left them, bound = picked per order, the rest free at the source.
      const orders = await listed(servers[1]!);
      let totalPicked = 0;
      const expectedBalances: Record<string, number> = {};
      for (const [order, lines] of picked) {
        const got = orders.get(order)!;
        expect({
          order,
          status_id: got.status_id,
          picks: (got.lines as Json[]).map((l) => milli(l.picked_quantity)),
        }).toEqual({ order, status_id: statuses.get(order), picks: lines });
        const sum = lines[0] + lines[1];
        totalPicked += sum;
        if (sum !== 0) expectedBalances[`-|1|${order}`] = sum / 1000;
      }
      if (milli(FREE_AT_START) - totalPicked !== 0)
        expectedBalances[`${PICK_LOCATION}|1|-`] = (milli(FREE_AT_START) - totalPicked) / 1000;
      expect(await balancesOf(observer.ctx.db, PICK_PRODUCT, STORE)).toEqual(expectedBalances);
      expect(await verifyAll(observer.ctx.handle)).toEqual([]);
    }, 180_000);

    it('a clearance races a rejection (and sometimes a second clearance or a pick) of the same order, many orders on both processes: one wins each, the stock follows it', async () => {
      // Picking first, on both processes at once (plenty of stock): line j of order i picks racePicks(i)[j].
      const picks = await Promise.all(
        Array.from({ length: RACE_ORDERS }, (_, i) =>
          call(servers[i % 2]!, 'PUT', `${API}/stores/${STORE}/orders/customerorder`, {
            order_number: raceOrder(i),
            is_claimed: true,
            lines: racePicks(i).map((q, j) => ({ line_number: j + 1, picked_quantity: q })),
          }),
        ),
      );
      expect(picks.filter((r) => r.status !== 200).map((r) => r.json)).toEqual([]);
      const before = await balancesOf(observer.ctx.db, RACE_PRODUCTS[0]!, STORE);
      expect(before[`${RACE_LOCATION}|1|-`]).toBe(
        RACE_STOCK - Array.from({ length: RACE_ORDERS }, (_, i) => racePicks(i)[0]!).reduce((a, b) => a + b, 0),
      );

      // The race: per order a clearance on one process and a rejection on the other, all orders
      // at once, in an order that varies per order; every third order also a second clearance,
      // every fourth (from 2) also a pick changing line 1 (it may land before the close or be a 409).
      type Contender = 'clearance' | 'rejection' | 'pick';
      const pickTarget = (i: number) => (racePicks(i)[0] === 3 ? 1 : 3);
      const results = await Promise.all(
        Array.from({ length: RACE_ORDERS }, async (_, i) => {
          const order = raceOrder(i);
          const contenders: Contender[] = ['clearance', 'rejection'];
          if (i % 3 === 0) contenders.push('clearance');
          if (i % 4 === 2) contenders.splice(i % 3, 0, 'pick');
          if (i % 2 === 1) contenders.reverse();
          const answers = await Promise.all(
            contenders.map((kind, k) => {
              const server = servers[(i + k) % 2]!;
              if (kind === 'clearance')
                return call(server, 'POST', `${API}/customerorders/clearance`, {
                  store_number: STORE,
                  order_number: order,
                });
              if (kind === 'rejection')
                return call(server, 'PUT', `${API}/stores/${STORE}/orders/customerorder`, {
                  order_number: order,
                  is_rejected: true,
                  rejection_reason_code: REJECT_CODE,
                });
              return call(server, 'PUT', `${API}/stores/${STORE}/orders/customerorder`, {
                order_number: order,
                lines: [{ line_number: 1, picked_quantity: pickTarget(i) }],
              });
            }),
          );
          return {
            i,
            order,
            answers: contenders.map((kind, k) => ({ kind, status: answers[k]!.status, json: answers[k]!.json })),
          };
        }),
      );

      // Of the clearances and the rejection exactly one 200 per order, the others 409; a racing
      // pick is a 200 (before the close) or a 409 (after it).
      const closers = (r: (typeof results)[number]) => r.answers.filter((a) => a.kind !== 'pick');
      const unexpected = results.filter(
        (r) =>
          closers(r).filter((a) => a.status === 200).length !== 1 ||
          r.answers.some((a) => a.status !== 200 && a.status !== 409),
      );
      expect(
        unexpected.map((r) => ({
          order: r.order,
          answers: r.answers.map((a) => `${a.kind} ${a.status} ${a.status === 200 ? '' : JSON.stringify(a.json)}`),
        })),
      ).toEqual([]);
      const winner = new Map(results.map((r) => [r.order, closers(r).find((a) => a.status === 200)!.kind]));
      const cleared = results.filter((r) => winner.get(r.order) === 'clearance').map((r) => r.i);
      const rejected = results.filter((r) => winner.get(r.order) === 'rejection').map((r) => r.i);
      /** What order i had picked when it closed: its racing pick counts if it was answered 200 (it came first). */
      const pickedAtClose = (i: number) => {
        const pick = results[i]!.answers.find((a) => a.kind === 'pick');
        return pick?.status === 200 ? [pickTarget(i), racePicks(i)[1]!] : racePicks(i);
      };

      // Each order as its winner left it: collected with its picks kept as handed over, or
      // rejected with its reason and nothing picked.
      const orders = await listed(servers[0]!);
      for (const r of results) {
        const got = orders.get(r.order)!;
        const want =
          winner.get(r.order) === 'clearance'
            ? { order: r.order, status_id: 5, picks: pickedAtClose(r.i), rejection_reason_code: undefined }
            : { order: r.order, status_id: 6, picks: [0, 0], rejection_reason_code: String(REJECT_CODE) };
        expect({
          order: r.order,
          status_id: got.status_id,
          picks: (got.lines as Json[]).map((l) => l.picked_quantity),
          rejection_reason_code: got.rejection_reason_code,
        }).toEqual(want);
      }

      // The stock: what the rejected orders had picked is back at B, what the collected ones had
      // left the store, nothing stays bound; the ledger shows a clearance only for the collected.
      for (const [j, product] of RACE_PRODUCTS.entries()) {
        const handedOver = cleared.reduce((sum, i) => sum + pickedAtClose(i)[j]!, 0);
        expect(await balancesOf(observer.ctx.db, product, STORE), product).toEqual({
          [`${RACE_LOCATION}|1|-`]: RACE_STOCK - handedOver,
        });
      }
      const clearances = await observer.ctx.db
        .selectFrom('stock_logs')
        .select(['reference', 'product_number', 'quantity', 'customer_order_number'])
        .where('source', '=', 'customer_order_clearance')
        .where('reference', 'like', 'COC-PB-%')
        .execute();
      const expectedClearances = cleared.flatMap((i) =>
        pickedAtClose(i).flatMap((q, j) =>
          q === 0
            ? []
            : [
                {
                  reference: raceOrder(i),
                  product_number: RACE_PRODUCTS[j]!,
                  quantity: -milli(q),
                  customer_order_number: raceOrder(i),
                },
              ],
        ),
      );
      const byKey = (
        a: { reference: string | null; product_number: string },
        b: { reference: string | null; product_number: string },
      ) => `${a.reference}|${a.product_number}`.localeCompare(`${b.reference}|${b.product_number}`);
      expect(clearances.map((c) => ({ ...c, quantity: Number(c.quantity) })).sort(byKey)).toEqual(
        expectedClearances.sort(byKey),
      );
      expect(cleared.length + rejected.length).toBe(RACE_ORDERS);
      expect(await verifyAll(observer.ctx.handle)).toEqual([]);
    }, 180_000);
  });
}

// Without TEST_DATABASE_URL the file has no PostgreSQL to test; say so rather than fail as empty.
describe.skipIf(DIALECTS.some((d) => d.name === 'postgres'))('customer orders under concurrency, two processes', () => {
  it.skip('needs TEST_DATABASE_URL (PostgreSQL)', () => undefined);
});
