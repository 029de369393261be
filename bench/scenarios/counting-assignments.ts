/**
 * Issue 44: the submission of a 5,000-line full-store counting assignment, against posting
 * the same 5,000 counts as one stock log request. One service (npm start, its own process)
 * on a fresh SQLite file or PostgreSQL schema holds 5,000 products; each run seeds two fresh
 * stores of the same shape over HTTP (untimed): the stock store's four locations, all 5,000
 * products as store products, each stocked at one location. On one store a full assignment
 * over the whole store is created and started (5,000 lines), its counts posted in five
 * requests of 1,000 as handhelds send them (timed: "counts posting"), then submitted (timed:
 * the figure). On the other the same counts — same products, locations, quantities and
 * moments — go to `POST …/storeproductlogs?is_counted_quantity=true` in one request (the
 * baseline). Who goes first alternates per run; one untimed round of both first.
 *
 * After each run both stores' balances must equal the counts (the service's own
 * `stock_balances`, read by the bench), and `npx store-ops verify` must exit 0.
 */
import { call, expectStatus, postOk, timedPost } from '../lib/client.js';
import { storeInput, storeNumberOf } from '../lib/data.js';
import {
  freshDatabase,
  requirePostgres,
  storeOpsVerify,
  type BenchDatabase,
  type BenchDialect,
} from '../lib/ledger-db.js';
import { Resources } from '../lib/resources.js';
import { SanityError } from '../lib/sanity.js';
import type { Scenario } from '../lib/scenario.js';
import { API, startServiceAt, type Service } from '../lib/service.js';
import {
  productNumber,
  REASON,
  seedAssortment,
  seedStockMasterData,
  STOCK_LOCATIONS,
  stockLogsPath,
} from '../lib/stock.js';
import { timed } from '../lib/stats.js';

export const LINES = 5_000;
/** A handheld's batch: the counts go in requests of this many. */
export const COUNTS_PER_REQUEST = 1_000;
/** Milliseconds between two scans: 5,000 counts span about four minutes. */
const SCAN_GAP_MS = 50;
/**
 * The baseline's entries/s outside this range means it measured something else (existing
 * figures: 9,000–20,000 entries/s for 1,000-entry posts on SQLite, ~30,000 counts/s in the
 * external counting baseline): a failed run, not a ratio.
 */
const PLAUSIBLE_BASELINE_ENTRIES_PER_S = [1_000, 200_000] as const;

/** Product i: stocked at one location (the four in turn), with 1–24 pieces. */
export const locationOf = (i: number) => STOCK_LOCATIONS[i % STOCK_LOCATIONS.length]!.location_code;
export const stockedQuantity = (i: number) => 1 + (i % 24);
/** What the count finds: the stock −3…+3, never below zero. */
export const countedQuantity = (i: number) => Math.max(0, stockedQuantity(i) + (i % 7) - 3);

/** The counts a run scans, in scanning order, at strictly increasing moments from `from`. */
export interface Count {
  product_number: string;
  location_code: string;
  counted_quantity: number;
  counted_at: string;
}

export function runCounts(from: number): Count[] {
  return Array.from({ length: LINES }, (_, i) => ({
    product_number: productNumber(i),
    location_code: locationOf(i),
    counted_quantity: countedQuantity(i),
    counted_at: new Date(from + i * SCAN_GAP_MS).toISOString(),
  }));
}

/** The counts as a handheld posts them to the assignment: requests of ≤ 1,000, in order. */
export function countsBodies(counts: readonly Count[]): string[] {
  const bodies: string[] = [];
  for (let at = 0; at < counts.length; at += COUNTS_PER_REQUEST)
    bodies.push(
      JSON.stringify({
        counts: counts.slice(at, at + COUNTS_PER_REQUEST).map((c) => ({ ...c, app_user_name: 'counter' })),
      }),
    );
  return bodies;
}

/** The same counts as one stock log request of counts (interface §4.8), each at its moment. */
export function countsLogBody(counts: readonly Count[]): string {
  return JSON.stringify({
    storeproductlog: counts.map((c) => ({
      product_number: c.product_number,
      location_code: c.location_code,
      quantity: c.counted_quantity,
      customer_order_line_number: 0,
      modification_datetime: c.counted_at,
      app_user_name: 'counter',
    })),
  });
}

/** The stock a fresh store starts with: every product at its one location, at strictly increasing moments from `from`. */
function stockBodies(from: number): string[] {
  const bodies: string[] = [];
  for (let at = 0; at < LINES; at += 1_000)
    bodies.push(
      JSON.stringify({
        storeproductlog: Array.from({ length: Math.min(1_000, LINES - at) }, (_, k) => {
          const i = at + k;
          return {
            product_number: productNumber(i),
            location_code: locationOf(i),
            quantity: stockedQuantity(i),
            customer_order_line_number: 0,
            modification_datetime: new Date(from + i).toISOString(),
          };
        }),
      }),
    );
  return bodies;
}

/** Two fresh stores (index k and k + 1) of the same shape, over HTTP: locations, assortment, stock. */
async function seedStores(service: Service, first: number, created: boolean): Promise<[string, string]> {
  const numbers = [storeNumberOf(first), storeNumberOf(first + 1)] as [string, string];
  if (!created)
    await postOk(service.baseUrl, `${API}/stores`, { stores: [storeInput(first), storeInput(first + 1)] }, 'stores');
  const stockFrom = Date.now() - 3 * 3_600_000;
  for (const store of numbers) {
    if (!created)
      await postOk(service.baseUrl, `${API}/stores/${store}/locations`, { locations: STOCK_LOCATIONS }, 'locations');
    await seedAssortment(service.baseUrl, store, LINES);
    for (const body of stockBodies(stockFrom)) {
      await timedPost(service.baseUrl, stockLogsPath(store), body, 'created 1000: applied 1000, pending review 0');
    }
  }
  return numbers;
}

/** A full assignment over the whole store, created and started: its id, once it has 5,000 lines. */
async function startedFullAssignment(service: Service, store: string, code: string): Promise<number> {
  const base = `${API}/stores/${store}/countingassignments`;
  const created = expectStatus(
    await call(
      service.baseUrl,
      'POST',
      base,
      JSON.stringify({
        counting_assignment_code: code,
        description: 'Whole store, full',
        scope: { whole_store: true },
        kind: 'full',
        zero_reason_code: REASON.plain,
      }),
    ),
    201,
    'create the assignment',
  ).json<{ counting_assignment_id: number }>();
  const id = created.counting_assignment_id;
  const started = (await postOk(service.baseUrl, `${base}/${id}/start`, '{}', 'start the assignment')).json<{
    progress: { lines_total: number };
  }>();
  if (started.progress.lines_total !== LINES)
    throw new Error(`the whole-store assignment of ${store} has ${started.progress.lines_total} lines, not ${LINES}`);
  return id;
}

/** Throws unless every balance of the store is its product's count (one per product, at its location). */
async function assertCounted(db: BenchDatabase, store: string): Promise<void> {
  const expectedMilli = Array.from({ length: LINES }, (_, i) => countedQuantity(i) * 1000).reduce((a, b) => a + b, 0);
  const expectedRows = Array.from({ length: LINES }, (_, i) => countedQuantity(i)).filter((q) => q !== 0).length;
  const [row] = await db.query<{ n: unknown; total: unknown }>(
    `select count(*) as n, sum(b.quantity) as total from stock_balances b join stores s on s.id = b.store_id
      where s.store_number = '${store}' and b.quantity <> 0`,
  );
  if (Number(row?.n) !== expectedRows || Number(row?.total) !== expectedMilli)
    throw new Error(
      `store ${store}: ${row?.n} non-zero balances summing to ${row?.total} (milli), the counts give ${expectedRows} summing to ${expectedMilli}`,
    );
}

function countingSubmitFull(dialect: BenchDialect): Scenario {
  const db = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return {
    name: `counting.submit.full5000.${dialect === 'sqlite' ? 'sqlite' : 'pg'}`,
    description:
      `${db}: POST /stores/{s}/countingassignments/{id}/submit of a full whole-store assignment of 5,000 lines ` +
      '(5,000 store products, each stocked at one of 4 locations; counts posted in 5 requests of 1,000 beforehand, timed as "counts posting ms"), ' +
      'vs the same 5,000 counts (products, locations, quantities, moments) in ONE POST …/storeproductlogs?is_counted_quantity=true ' +
      'on a fresh store of the same shape, same service process (npm start); fresh stores every run, who goes first alternating; ' +
      'balances checked against the counts and store-ops verify after each run',
    unit: 'ms',
    valueLabel: 'submission',
    baselineLabel: 'one 5,000-count log request',
    baselineKind: 'service',
    defaultRuns: 5,
    target: {
      ratio: 3,
      comparison: '<=',
      description: `submitting a 5,000-line full count ≤ 3 × posting its counts as one log request (${db}, issue 44)`,
    },

    prepare: () =>
      new Resources().preparing(async (resources) => {
        if (dialect === 'postgres') await requirePostgres();
        const database = await freshDatabase(resources, dialect, 'counting_submit');
        const service = resources.add(await startServiceAt(database.url), (s) => s.stop());
        // Stores 0 and 1 with the master data (the untimed round's pair), 5,000 products, the reason codes.
        await seedStockMasterData(service.baseUrl, LINES, 2);

        /** One round on stores 2r and 2r + 1: both sides, the order by `countingFirst`. */
        const round = async (r: number, countingFirst: boolean) => {
          const [countingStore, logStore] = await seedStores(service, 2 * r, r === 0);
          const counts = runCounts(Date.now() - 3_600_000);
          const id = await startedFullAssignment(service, countingStore, `FULL-${r}`);
          const base = `${API}/stores/${countingStore}/countingassignments/${id}`;
          const countsBodyTexts = countsBodies(counts);
          const logBody = countsLogBody(counts);

          const counting = async () => {
            let postingMs = 0;
            for (const body of countsBodyTexts) {
              const n = JSON.parse(body).counts.length as number;
              postingMs += await timedPost(
                service.baseUrl,
                `${base}/counts`,
                body,
                `counted ${n}: lines ${n}, recounted 0, added to 0, extra lines 0`,
              );
            }
            const submitted = await timed(() => call(service.baseUrl, 'POST', `${base}/submit`, '{}'));
            expectStatus(submitted.result, 200, 'POST …/submit');
            const answer = submitted.result.json<{ data: number[]; message: string }>();
            const expected = `booked ${LINES}: counted ${LINES}, zeroed 0, pending review 0`;
            if (answer.message !== expected || answer.data.length !== LINES)
              throw new Error(
                `submit answered "${answer.message}" with ${answer.data.length} ids, expected "${expected}"`,
              );
            return { postingMs, submitMs: submitted.ms };
          };
          const baseline = () =>
            timedPost(
              service.baseUrl,
              `${stockLogsPath(logStore)}?is_counted_quantity=true`,
              logBody,
              `created ${LINES}: applied ${LINES}, pending review 0`,
            );

          const baselineFirst = countingFirst ? undefined : await baseline();
          const assignment = await counting();
          const baselineMs = baselineFirst ?? (await baseline());
          await assertCounted(database, countingStore);
          await assertCounted(database, logStore);
          return { ...assignment, baselineMs };
        };

        await round(0, true); // untimed: the first submission and count request of a fresh process
        return {
          async measure(run) {
            const { postingMs, submitMs, baselineMs } = await round(run + 1, run % 2 === 0);
            const baselineRate = LINES / (baselineMs / 1000);
            const [low, high] = PLAUSIBLE_BASELINE_ENTRIES_PER_S;
            if (baselineRate < low || baselineRate > high)
              throw new SanityError(
                `the baseline booked ${Math.round(baselineRate)} entries/s, outside the plausible ${low}–${high}`,
              );
            const verifyMs = await storeOpsVerify(database.url);
            return {
              value: submitMs,
              baseline: baselineMs,
              extra: {
                'counts posting ms': postingMs,
                'submission lines/s': Math.round(LINES / (submitMs / 1000)),
                'baseline entries/s': Math.round(baselineRate),
                'verify ms': verifyMs,
                'service peak RSS MB': service.peakRssMb(),
              },
            };
          },
          close: () => resources.release(),
        };
      }),
  };
}

/** `counting.submit.full5000.sqlite`: the submission on a fresh SQLite file. */
export const countingSubmitFullSqlite = countingSubmitFull('sqlite');
/** `counting.submit.full5000.pg`: the same on a fresh PostgreSQL schema, skipped when it is not reachable. */
export const countingSubmitFullPg = countingSubmitFull('postgres');
