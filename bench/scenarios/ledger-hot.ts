/**
 * Issue 11, "Bench and proof": a hot balance on PostgreSQL. The service (npm start, its own
 * process, a fresh schema) takes 8 concurrent writers each posting 1,000-entry requests
 * stamped "now" (the entries of a request at the 1,000 ms up to the moment it is built),
 * all on ONE balance (one product, no location, pool 1), for 30 s per run. Concurrent
 * requests overlap in time, so most entries arrive a few milliseconds late — the traffic
 * the issue describes.
 *
 * The load comes from the bench process itself (8 async loops of fetch, one keep-alive
 * connection each): it is not the service's process, and one 1,000-entry body costs it
 * about a millisecond to build.
 *
 * Results: `ledger.hot.pg` judges the second half of each run against its first half
 * (entries/s of the requests answered in each half, ≥ 0.9); `ledger.hot.pg.entries` and
 * `ledger.hot.pg.p99` judge the absolute targets (≥ 10,000 entries/s, p99 < 1 s)
 * with the target as the baseline (kind `absolute`). After each run the level (HTTP read
 * and balance row) equals the model (the sum of everything posted: deltas only, so the
 * timestamp-order replay is the sum) and `npx store-ops verify` exits 0.
 */
import { getOk, timedPost } from '../lib/client.js';
import { freshDatabase, requirePostgres, storeOpsVerify } from '../lib/ledger-db.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt } from '../lib/service.js';
import { productNumber, seedStockMasterData, STOCK_LOGS_PATH, STOCK_STORE } from '../lib/stock.js';
import { median, percentile } from '../lib/stats.js';

const WRITERS = 8;
const ENTRIES = 1_000;
const RUN_MS = 30_000;
const PRODUCT = productNumber(0);

/** Quantity of entry i of every request (−2…+2, never 0): sum per request known. */
const quantity = (i: number) => ((i * 7) % 5) - 2 || 1;
const SUM_PER_REQUEST_MILLI = Array.from({ length: ENTRIES }, (_, i) => quantity(i) * 1000).reduce((a, b) => a + b, 0);

function body(now: number): string {
  return JSON.stringify({
    storeproductlog: Array.from({ length: ENTRIES }, (_, i) => ({
      product_number: PRODUCT,
      quantity: quantity(i),
      customer_order_line_number: 0,
      modification_datetime: new Date(now - (ENTRIES - 1 - i)).toISOString(),
    })),
  });
}

interface Answered {
  /** ms since the run started, when the answer was complete. */
  end: number;
  ms: number;
}

export const ledgerHotPg: Scenario = {
  name: 'ledger.hot.pg',
  description:
    `PostgreSQL: ${WRITERS} concurrent writers (async loops in the bench process, not the service's) each posting ${ENTRIES.toLocaleString('en-US')}-entry ` +
    `requests stamped "now" to one balance for ${RUN_MS / 1000} s, service started with npm start on a fresh schema: entries/s of the requests ` +
    'answered in the second half of the run against those answered in the first half (the service against itself)',
  unit: 'entries/s',
  valueLabel: 'second half',
  baselineLabel: 'first half',
  baselineKind: 'service',
  target: {
    ratio: 0.9,
    comparison: '>=',
    description: 'second half of a 30 s run ≥ 0.9 × its first half (issue 11: a hot balance must not degrade)',
  },
  companions: [
    {
      name: 'ledger.hot.pg.entries',
      description: `The same runs: entries/s over the whole run (every answered request's entries / time to the last answer), against the issue's target of 10,000 entries/s`,
      unit: 'entries/s',
      valueLabel: 'service',
      baselineLabel: 'issue target',
      baselineKind: 'absolute',
      target: {
        ratio: 1,
        comparison: '>=',
        description:
          '≥ 10,000 entries/s with 8 writers on one balance (issue 11; the baseline column is the target, not a measurement)',
      },
    },
    {
      name: 'ledger.hot.pg.p99',
      description:
        "The same runs: 99th percentile of request latency (send to full answer), against the issue's target of 1 s",
      unit: 'ms',
      valueLabel: 'service p99',
      baselineLabel: 'issue target',
      baselineKind: 'absolute',
      target: {
        ratio: 1,
        comparison: '<=',
        description: 'p99 request latency < 1 s (issue 11; the baseline column is the target, not a measurement)',
      },
    },
  ],
  defaultRuns: 3,

  prepare: () =>
    new Resources().preparing(async (resources) => {
      await requirePostgres();
      const db = await freshDatabase(resources, 'postgres', 'ledger_hot');
      const service = resources.add(await startServiceAt(db.url), (s) => s.stop());
      await seedStockMasterData(service.baseUrl, 1);
      let postedMilli = 0;
      let lastLedgerId = 0;

      /** The writers for `durationMs`; every answer must be `created 1000: applied 1000, pending review 0`. */
      const load = async (durationMs: number): Promise<{ answered: Answered[]; endMs: number }> => {
        const start = performance.now();
        const answered: Answered[] = [];
        const writer = async () => {
          while (performance.now() - start < durationMs) {
            const text = body(Date.now());
            const ms = await timedPost(
              service.baseUrl,
              STOCK_LOGS_PATH,
              text,
              `created ${ENTRIES}: applied ${ENTRIES}, pending review 0`,
            );
            postedMilli += SUM_PER_REQUEST_MILLI;
            answered.push({ end: performance.now() - start, ms });
          }
        };
        await Promise.all(Array.from({ length: WRITERS }, writer));
        return { answered, endMs: performance.now() - start };
      };

      /** The level equals the model (the sum of everything posted), verify is clean; how many of the run's ledger rows were late on arrival. */
      const check = async () => {
        const answer = (
          await getOk(service.baseUrl, `${API}/stores/${STOCK_STORE}/products/${PRODUCT}/stock`, 'stock read')
        ).json<{
          products: Array<{ most_likely_stock: number; stock_pool_1?: number }>;
        }>();
        const read = answer.products[0]?.stock_pool_1 ?? answer.products[0]?.most_likely_stock;
        if (read === undefined || Math.round(read * 1000) !== postedMilli)
          throw new Error(`the service reads ${read}, the model (sum of all posted) gives ${postedMilli / 1000}`);
        const [row] = await db.query<{ quantity: string }>(`select sum(quantity) as quantity from stock_balances`);
        if (Number(row?.quantity) !== postedMilli)
          throw new Error(`balances hold ${row?.quantity}, the model ${postedMilli}`);
        const verifyMs = await storeOpsVerify(db.url);
        // The ledger view's id (migration 0022) is the entry's log id: unique on this one
        // balance, in the order the entries were written, so "late" is "before the latest
        // moment among the entries written before it".
        const [late] = await db.query<{ late: string; total: string; max_id: string }>(
          `select count(*) filter (where late) as late, count(*) as total, max(id) as max_id from (
             select id, at < max(at) over (order by id rows between unbounded preceding and 1 preceding) as late from stock_ledger
           ) x where id > ${lastLedgerId}`,
        );
        lastLedgerId = Number(late?.max_id ?? lastLedgerId);
        return { verifyMs, lateShare: Number(late?.late ?? 0) / Math.max(1, Number(late?.total ?? 0)) };
      };

      await load(3_000); // untimed warm-up
      await check();

      return {
        async measure(): Promise<Sample> {
          const { answered, endMs } = await load(RUN_MS);
          const half = RUN_MS / 2;
          const first = answered.filter((a) => a.end < half).length * ENTRIES;
          const second = answered.filter((a) => a.end >= half).length * ENTRIES;
          const firstRate = first / (half / 1000);
          const secondRate = second / ((endMs - half) / 1000);
          const rate = (answered.length * ENTRIES) / (endMs / 1000);
          const latencies = answered.map((a) => a.ms);
          const { verifyMs, lateShare } = await check();
          const extra = {
            'entries/s': rate,
            'p50 ms': median(latencies),
            'p95 ms': percentile(latencies, 95),
            'p99 ms': percentile(latencies, 99),
            requests: answered.length,
            'late share of entries': lateShare,
            'verify ms': verifyMs,
          };
          return {
            value: secondRate,
            baseline: firstRate,
            extra,
            companions: {
              'ledger.hot.pg.entries': {
                value: rate,
                baseline: 10_000,
                extra: { 'first half entries/s': firstRate, 'second half entries/s': secondRate },
              },
              'ledger.hot.pg.p99': {
                value: percentile(latencies, 99),
                baseline: 1_000,
                extra: { 'p50 ms': median(latencies), 'p95 ms': percentile(latencies, 95) },
              },
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
