/**
 * Issue 30, the change feed's cost on the write path: "writing events may not cost the write
 * path more than 15 %". Each scenario runs the same stock load against two service processes
 * (`npm start` each, each on a fresh database of its own): one as a user runs it (feed on:
 * every booking writes one `stock.changed` per balance it moves, in its transaction, and on
 * PostgreSQL the sequencer numbers them every 100 ms), one started with
 * `BENCH_WITHOUT_STOCK_EVENTS=true` (feed off: no stock.changed; the master-data triggers
 * stay, but the load books stock only, so that side writes no event at all). Both sides get
 * the **same body texts in the same order**, so their databases grow alike; which side goes
 * first alternates run by run (and post by post on SQLite).
 *
 * After each run, on each side's own database (cheap SQL, untimed; lib/feed.ts): one stock
 * log row per entry posted; feed on: exactly one stock.changed per balance per request (the
 * bench counts the distinct balances of each body), every entry id named by exactly one
 * event, every event numbered (PostgreSQL); feed off: not one stock.changed. Any difference
 * fails the scenario.
 *
 * - `feed.cost.pg`: the stock.spread.pg load — 8 clients (async fetch loops in the bench
 *   process), client i posting 1,000-entry requests to store i, one in flight each, 8 posts
 *   per client per side per run (64,000 entries): entries/s from the first send to the last
 *   answer, on ÷ off ≥ 0.85.
 * - `feed.cost.sqlite`: the stock.logs.post1000 load — one client, 1,000-entry requests to
 *   one store: ms per request (mean of the run's posts), on ÷ off ≤ 1.15.
 */
import { picker, storeNumberOf } from '../lib/data.js';
import { balancesMoved, checkFeedOff, checkFeedOn, FEED_OFF_ENV } from '../lib/feed.js';
import { freshDatabase, requirePostgres, type BenchDatabase } from '../lib/ledger-db.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt, type Service } from '../lib/service.js';
import { median, percentile } from '../lib/stats.js';
import {
  STOCK_STORE,
  StockClock,
  seedAssortment,
  seedStockMasterData,
  stockBody,
  stockEntries,
  stockMasterForRawWriter,
  timedStockPost,
} from '../lib/stock.js';

const ENTRIES = 1_000;
const MASTER = stockMasterForRawWriter();

/** One side of a cost scenario: its database, its service process, and what was posted to it. */
interface Side {
  db: BenchDatabase;
  service: Service;
}

async function startSides(
  resources: Resources,
  dialect: 'sqlite' | 'postgres',
  tag: string,
): Promise<{ on: Side; off: Side }> {
  const onDb = await freshDatabase(resources, dialect, `${tag}_on`);
  const offDb = await freshDatabase(resources, dialect, `${tag}_off`);
  const fileOf = (db: BenchDatabase) => (dialect === 'sqlite' ? db.url.slice('sqlite:'.length) : db.url);
  const on = resources.add(await startServiceAt(onDb.url, fileOf(onDb)), (s) => s.stop());
  const off = resources.add(await startServiceAt(offDb.url, fileOf(offDb), FEED_OFF_ENV), (s) => s.stop());
  return { on: { db: onDb, service: on }, off: { db: offDb, service: off } };
}

/** What both sides were sent so far: entries, and the stock.changed events the feed-on side owes for them. */
class Posted {
  entries = 0;
  events = 0;
  add(storeNumber: string, entries: ReturnType<typeof stockEntries>): string {
    this.entries += entries.length;
    this.events += balancesMoved(MASTER, storeNumber, entries);
    return stockBody(entries);
  }
}

/** Checks both sides after a run; drops the bench's connections so none stays open while the next run posts. */
async function checkSides(on: Side, off: Side, posted: Posted): Promise<number> {
  try {
    const counts = await checkFeedOn(on.db, { logs: posted.entries, events: posted.events });
    await checkFeedOff(off.db, posted.entries);
    return counts.events;
  } finally {
    await on.db.disconnect();
    await off.db.disconnect();
  }
}

// ---------------------------------------------------------------------------------------
// feed.cost.pg

const PG_CLIENTS = 8;
const PG_PRODUCTS = 5_000;
const PG_POSTS_PER_CLIENT = 8;
const PG_WARMUP_POSTS_PER_CLIENT = 2;

interface Stream {
  storeNumber: string;
  bodies: string[];
}

export const feedCostPg: Scenario = {
  name: 'feed.cost.pg',
  description:
    `PostgreSQL, the stock.spread.pg load: ${PG_CLIENTS} concurrent clients (async fetch loops in the bench process), client i posting ` +
    `${ENTRIES.toLocaleString('en-US')}-entry requests to POST ${API}/stores/{s}/products/stock/storeproductlogs of store i (${PG_PRODUCTS.toLocaleString('en-US')} products, ` +
    `each store's assortment seeded, 4 locations, timestamps in order per store), one request in flight each, ${PG_POSTS_PER_CLIENT} per client per side per run, ` +
    'to a service process with the change feed on (npm start on a fresh schema: one stock.changed per balance per request, numbered by the sequencer): entries/s, ' +
    'against the same body texts posted the same way to a service process with the feed off (npm start with BENCH_WITHOUT_STOCK_EVENTS=true on a fresh schema of its own); ' +
    'sides alternate who goes first',
  unit: 'entries/s',
  valueLabel: 'feed on',
  baselineLabel: 'feed off (BENCH_WITHOUT_STOCK_EVENTS)',
  baselineKind: 'service',
  target: {
    ratio: 0.85,
    comparison: '>=',
    description:
      'feed-on entries/s ≥ 0.85 × feed-off on the stock.spread.pg load (issue 30: events cost the write path at most 15 %)',
  },
  defaultRuns: 3,

  prepare: () =>
    new Resources().preparing(async (resources) => {
      await requirePostgres();
      const { on, off } = await startSides(resources, 'postgres', 'feed_cost');
      for (const side of [on, off]) {
        await seedStockMasterData(side.service.baseUrl, PG_PRODUCTS, PG_CLIENTS);
        for (let i = 0; i < PG_CLIENTS; i++) await seedAssortment(side.service.baseUrl, storeNumberOf(i), PG_PRODUCTS);
      }
      const pickers = Array.from({ length: PG_CLIENTS }, (_, i) => picker(3000 + i));
      const clocks = Array.from({ length: PG_CLIENTS }, () => new StockClock());
      const posted = new Posted();
      const nextStreams = (posts: number): Stream[] =>
        Array.from({ length: PG_CLIENTS }, (_, i) => {
          const storeNumber = storeNumberOf(i);
          return {
            storeNumber,
            bodies: Array.from({ length: posts }, () =>
              posted.add(storeNumber, stockEntries(pickers[i]!, clocks[i]!, ENTRIES, PG_PRODUCTS)),
            ),
          };
        });
      /** The clients' loops on one service: entries/s from the first send to the last answer, and each request's latency. */
      const postStreams = async (streams: Stream[], service: Service) => {
        const latencies: number[] = [];
        const start = performance.now();
        await Promise.all(
          streams.map(async (stream) => {
            for (const body of stream.bodies)
              latencies.push(await timedStockPost(service.baseUrl, body, ENTRIES, stream.storeNumber));
          }),
        );
        return { rate: (latencies.length * ENTRIES * 1000) / (performance.now() - start), latencies };
      };
      const round = async (posts: number, onFirst: boolean) => {
        const streams = nextStreams(posts);
        let onSide: Awaited<ReturnType<typeof postStreams>>;
        let offSide: Awaited<ReturnType<typeof postStreams>>;
        if (onFirst) {
          onSide = await postStreams(streams, on.service);
          offSide = await postStreams(streams, off.service);
        } else {
          offSide = await postStreams(streams, off.service);
          onSide = await postStreams(streams, on.service);
        }
        const events = await checkSides(on, off, posted);
        return { onSide, offSide, events };
      };

      await round(PG_WARMUP_POSTS_PER_CLIENT, true); // untimed warm-up of both sides, checked like a run

      return {
        async measure(run): Promise<Sample> {
          const before = posted.events;
          const { onSide, offSide, events } = await round(PG_POSTS_PER_CLIENT, run % 2 === 0);
          const entries = PG_CLIENTS * PG_POSTS_PER_CLIENT * ENTRIES;
          return {
            value: onSide.rate,
            baseline: offSide.rate,
            extra: {
              'feed on p50 ms': median(onSide.latencies),
              'feed on p99 ms': percentile(onSide.latencies, 99),
              'feed off p50 ms': median(offSide.latencies),
              'feed off p99 ms': percentile(offSide.latencies, 99),
              'stock.changed events per entry': (events - before) / entries,
              'feed on peak RSS MB': on.service.peakRssMb(),
              'feed off peak RSS MB': off.service.peakRssMb(),
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};

// ---------------------------------------------------------------------------------------
// feed.cost.sqlite

const SQLITE_PRODUCTS = 2_000;
/** Posts per side per run, in turn (the run's figure is each side's mean). */
const SQLITE_POSTS_PER_RUN = 12;
const SQLITE_WARMUP_POSTS = 3;

export const feedCostSqlite: Scenario = {
  name: 'feed.cost.sqlite',
  description:
    `SQLite, the stock.logs.post1000 load: POST ${API}/stores/{s}/products/stock/storeproductlogs with ${ENTRIES.toLocaleString('en-US')} entries per request ` +
    `(${SQLITE_PRODUCTS.toLocaleString('en-US')} products, 4 locations, pools by location default or pool_location, loss/gain/plain codes, timestamps in order; ` +
    'the databases grow run by run) to a service process with the change feed on (npm start on a fresh file: one stock.changed per balance per request): ms per request, ' +
    'against the same body texts posted to a service process with the feed off (npm start with BENCH_WITHOUT_STOCK_EVENTS=true on a fresh file of its own); ' +
    `${SQLITE_POSTS_PER_RUN} requests per side per run, in turn, who goes first alternating`,
  unit: 'ms',
  valueLabel: 'feed on',
  baselineLabel: 'feed off (BENCH_WITHOUT_STOCK_EVENTS)',
  baselineKind: 'service',
  target: {
    ratio: 1.15,
    comparison: '<=',
    description:
      'feed-on ms per 1,000-entry post ≤ 1.15 × feed-off (issue 30: events cost the write path at most 15 %)',
  },
  defaultRuns: 5,

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const { on, off } = await startSides(resources, 'sqlite', 'feed-cost');
      for (const side of [on, off]) await seedStockMasterData(side.service.baseUrl, SQLITE_PRODUCTS);
      const p = picker(11);
      const clock = new StockClock();
      const posted = new Posted();
      const nextBody = () => posted.add(STOCK_STORE, stockEntries(p, clock, ENTRIES, SQLITE_PRODUCTS));
      const post = (side: Side, body: string) => timedStockPost(side.service.baseUrl, body, ENTRIES);
      for (let i = 0; i < SQLITE_WARMUP_POSTS; i++) {
        const body = nextBody();
        await post(on, body);
        await post(off, body);
      }
      await checkSides(on, off, posted);
      return {
        async measure(run): Promise<Sample> {
          const before = posted.events;
          const onMs: number[] = [];
          const offMs: number[] = [];
          for (let i = 0; i < SQLITE_POSTS_PER_RUN; i++) {
            const body = nextBody();
            // Alternate who goes first, so a drift in machine speed favours neither side.
            if ((run + i) % 2 === 1) offMs.push(await post(off, body));
            onMs.push(await post(on, body));
            if ((run + i) % 2 === 0) offMs.push(await post(off, body));
          }
          const events = await checkSides(on, off, posted);
          const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
          const value = mean(onMs);
          const baseline = mean(offMs);
          return {
            value,
            baseline,
            extra: {
              'feed on median ms': median(onMs),
              'feed off median ms': median(offMs),
              'feed on entries/s': (ENTRIES * 1000) / value,
              'feed off entries/s': (ENTRIES * 1000) / baseline,
              'stock.changed events per post': (events - before) / SQLITE_POSTS_PER_RUN,
              'feed on peak RSS MB': on.service.peakRssMb(),
              'feed off peak RSS MB': off.service.peakRssMb(),
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
