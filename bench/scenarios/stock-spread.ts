/**
 * Issue 15, the stock write path on PostgreSQL: 8 concurrent clients, each keeping one
 * 1,000-entry POST …/storeproductlogs in flight, spread over 8 stores — **client i posts to
 * store i**, so each store's entries arrive in timestamp order (a StockClock per client: no
 * entry is late, the late-entry path is the ledger scenarios' business) and no two requests
 * contend for one balance (a hot balance is `ledger.hot.pg`'s); within a store the entries
 * are spread over 5,000 products, 4 locations and unlocated, pools by location default or
 * `pool_location` (lib/stock.ts `stockEntries`). Each store's assortment (its 5,000 store
 * products) is seeded over HTTP first, as a running store has it: creating store products
 * bumps one shared version row, which would serialise the first posts across stores and
 * make the figure climb run by run (bench/README.md, "The PostgreSQL write path").
 *
 * Each run has three sides, each the same number of posts (8 per client):
 * - one service process (`npm start` on a fresh schema), the 8 clients on it;
 * - two service processes (`npm start` twice on that same schema, other ports), 4 clients
 *   on each (clients 0–3 on the first, 4–7 on the second);
 * - the raw `pg` baseline (baselines/raw-pg-writer.ts, a process of its own, a fresh schema
 *   of its own) with 8 connections booking the **same body texts** as the one-process side.
 * The order is one, two, raw on even runs and raw, two, one on odd ones, so both pairs
 * alternate who goes first. The service's clients are async loops of fetch in the bench
 * process (not the service's), each sending its next body when the answer to its last is
 * complete; every answer must read `created 1000: applied 1000, pending review 0`. A side's
 * figure is its entries over the wall time from the first send to the last answer.
 *
 * After each run the service's database holds exactly one stock log row per entry posted,
 * each carrying its posting (one row per entry, migration 0022: the bodies split no entry
 * over pools, so stock_log_parts stays empty), every balance equals the model (everything posted, signed and pooled by
 * bookEntry), and `npx store-ops verify` exits 0 — else the scenario fails.
 */
import { bookEntry, levelKey } from '../baselines/stock-booking.js';
import { picker, storeNumberOf } from '../lib/data.js';
import { freshDatabase, requirePostgres, storeOpsVerify } from '../lib/ledger-db.js';
import { startRawPgWriter } from '../lib/raw-writer-client.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt, type Service } from '../lib/service.js';
import { median, percentile } from '../lib/stats.js';
import {
  StockClock,
  readServiceBalances,
  seedAssortment,
  seedStockMasterData,
  stockBody,
  stockEntries,
  stockMasterForRawWriter,
  timedStockPost,
} from '../lib/stock.js';

const CLIENTS = 8;
const ENTRIES = 1_000;
const PRODUCTS = 5_000;
/** Posts per client per side in a run: 64,000 entries a side. */
const POSTS_PER_CLIENT = 8;
const WARMUP_POSTS_PER_CLIENT = 2;
const TWO_PROCESSES = 'stock.spread.pg.two-processes';

/** One client's requests: its store and the bodies it posts, one after the other. */
interface Stream {
  storeNumber: string;
  bodies: string[];
}

export const stockSpreadPg: Scenario = {
  name: 'stock.spread.pg',
  description:
    `PostgreSQL: ${CLIENTS} concurrent clients (async fetch loops in the bench process), client i posting ${ENTRIES.toLocaleString('en-US')}-entry ` +
    `requests to POST ${API}/stores/{s}/products/stock/storeproductlogs of store i (${CLIENTS} stores, ${PRODUCTS.toLocaleString('en-US')} products, ` +
    `each store's assortment seeded, 4 locations, timestamps in order per store), one request in flight each, ${POSTS_PER_CLIENT} per client per run, to one service process ` +
    '(npm start on a fresh schema): entries/s, against the raw pg baseline (own process, fresh schema of its own) booking the same body texts on ' +
    `${CLIENTS} connections — JSON.parse, one multi-row INSERT of the entries into a plain stock_entries table and one multi-row upsert ` +
    '(quantity = quantity + excluded.quantity, one row per key, keys sorted) into a plain stock_levels table, one transaction per request ' +
    '(target ≥ 0.3; ≥ 0.5 is the aim)',
  unit: 'entries/s',
  valueLabel: 'service',
  baselineLabel: 'raw pg, plain tables',
  baselineKind: 'raw-driver',
  target: {
    ratio: 0.3,
    comparison: '>=',
    description: `service entries/s ≥ 0.3 × raw pg with ${CLIENTS} clients × ${ENTRIES}-entry posts over ${CLIENTS} stores (issue 15; ≥ 0.5 is the aim)`,
  },
  companions: [
    {
      name: TWO_PROCESSES,
      description:
        `The same load (fresh bodies of the same kind, ${CLIENTS} clients, ${POSTS_PER_CLIENT} posts each) against two service processes (npm start twice ` +
        'on the same schema, other ports; clients 0–3 on the first, 4–7 on the second), against the one service process of the same run (the service itself)',
      unit: 'entries/s',
      valueLabel: 'two processes',
      baselineLabel: 'one process',
      baselineKind: 'service',
      target: {
        ratio: 1.3,
        comparison: '>=',
        description: `two service processes ≥ 1.3 × one on the same load and database (issue 15)`,
      },
    },
  ],
  defaultRuns: 3,

  prepare: () =>
    new Resources().preparing(async (resources) => {
      await requirePostgres();
      const db = await freshDatabase(resources, 'postgres', 'stock_spread');
      const rawDb = await freshDatabase(resources, 'postgres', 'stock_spread_raw');
      const first = resources.add(await startServiceAt(db.url), (s) => s.stop());
      await seedStockMasterData(first.baseUrl, PRODUCTS, CLIENTS);
      for (let i = 0; i < CLIENTS; i++) await seedAssortment(first.baseUrl, storeNumberOf(i), PRODUCTS);
      // The second process on the same schema: it finds it migrated and seeded.
      const second = resources.add(await startServiceAt(db.url), (s) => s.stop());
      const master = stockMasterForRawWriter();
      const raw = resources.add(startRawPgWriter(), (r) => r.stop());
      await raw.send({ op: 'open', databaseUrl: rawDb.url, connections: CLIENTS, master });

      const pickers = Array.from({ length: CLIENTS }, (_, i) => picker(1500 + i));
      const clocks = Array.from({ length: CLIENTS }, () => new StockClock());
      /** What the service's balances must hold (thousandths by levelKey), and how many entries it was sent. */
      const model = new Map<string, number>();
      let posted = 0;
      /** The next `posts` bodies of every client, booked into the model (they all go to the service). */
      const nextStreams = (posts: number): Stream[] =>
        Array.from({ length: CLIENTS }, (_, i) => {
          const storeNumber = storeNumberOf(i);
          const bodies = Array.from({ length: posts }, () => {
            const entries = stockEntries(pickers[i]!, clocks[i]!, ENTRIES, PRODUCTS);
            for (const entry of entries) {
              const { locationCode, pool, delta } = bookEntry(master, entry);
              const key = levelKey(storeNumber, entry.product_number, locationCode, pool);
              model.set(key, (model.get(key) ?? 0) + delta);
            }
            posted += entries.length;
            return stockBody(entries);
          });
          return { storeNumber, bodies };
        });

      /** The clients' loops, client i on `serviceOf(i)`: entries/s from the first send to the last answer, and each request's latency. */
      const postStreams = async (streams: Stream[], serviceOf: (client: number) => Service) => {
        const latencies: number[] = [];
        const start = performance.now();
        await Promise.all(
          streams.map(async (stream, i) => {
            for (const body of stream.bodies)
              latencies.push(await timedStockPost(serviceOf(i).baseUrl, body, ENTRIES, stream.storeNumber));
          }),
        );
        return { rate: (latencies.length * ENTRIES * 1000) / (performance.now() - start), latencies };
      };
      const rawBatch = async (streams: Stream[]) => {
        const answer = await raw.send({ op: 'stock-batch', streams });
        const entries = streams.length * streams[0]!.bodies.length * ENTRIES;
        if (answer.rows !== entries)
          throw new Error(`the raw pg baseline booked ${answer.rows} entries, ${entries} were sent`);
        return { rate: (entries * 1000) / answer.ms!, latencies: answer.latencies! };
      };

      let bytesPerEntry = Number.NaN;
      /** One log row per entry posted, each with its posting, every balance as the model says, verify clean: nothing lost. */
      const check = async () => {
        const [counts] = await db.query<{ logs: string; posted: string; parts: string }>(
          'select (select count(*) from stock_logs) as logs, (select count(*) from stock_logs where balance_id is not null) as posted, (select count(*) from stock_log_parts) as parts',
        );
        if (Number(counts?.logs) !== posted || Number(counts?.posted) !== posted || Number(counts?.parts) !== 0) {
          throw new Error(
            `the service holds ${counts?.logs} stock log rows, ${counts?.posted} with their posting, and ${counts?.parts} parts; ${posted} one-pool entries were posted`,
          );
        }
        // What an entry costs on disk, all indexes included (issue 29: ≤ 300 bytes): both tables of the ledger (stock_logs with
        // the postings, stock_log_parts) over the entries they hold.
        // On PostgreSQL both are partitioned by month (migration 0025): their bytes are their partitions'.
        const [size] = await db.query<{ bytes: string }>(
          `select sum(pg_total_relation_size(i.inhrelid)) as bytes from pg_inherits i where i.inhparent in ('stock_logs'::regclass, 'stock_log_parts'::regclass)`,
        );
        bytesPerEntry = Number(size?.bytes) / posted;
        const rows = await readServiceBalances(db);
        // No bench connection stays open on the service's database while the next run posts.
        await db.disconnect();
        const read = new Map(
          rows.map((r) => [
            levelKey(r.store_number, r.product_number, r.location_code ?? '', Number(r.pool)) +
              (r.order_key ? `|${r.order_key}` : ''),
            Number(r.quantity),
          ]),
        );
        const problems: string[] = [];
        for (const [key, quantity] of model)
          if (quantity !== 0 && read.get(key) !== quantity)
            problems.push(`${key}: model ${quantity}, balance ${read.get(key) ?? 0}`);
        for (const [key, quantity] of read) if (!model.get(key)) problems.push(`${key}: balance ${quantity}, model 0`);
        if (problems.length > 0)
          throw new Error(
            `${problems.length} balances differ from everything posted: ${problems.slice(0, 5).join('; ')}`,
          );
        return storeOpsVerify(db.url);
      };

      /** The three sides in the order given: one process, two processes, raw (the raw side on the one-process side's bodies). */
      const round = async (posts: number, order: ReadonlyArray<'one' | 'two' | 'raw'>) => {
        const oneStreams = nextStreams(posts);
        const twoStreams = nextStreams(posts);
        const figures = {} as Record<'one' | 'two' | 'raw', { rate: number; latencies: number[] }>;
        for (const side of order) {
          if (side === 'one') figures.one = await postStreams(oneStreams, () => first);
          else if (side === 'two')
            figures.two = await postStreams(twoStreams, (client) => (client < CLIENTS / 2 ? first : second));
          else figures.raw = await rawBatch(oneStreams);
        }
        return { ...figures, verifyMs: await check() };
      };

      await round(WARMUP_POSTS_PER_CLIENT, ['one', 'two', 'raw']); // untimed warm-up of every side

      return {
        async measure(run): Promise<Sample> {
          // Alternate who goes first, so a drift in machine speed favours neither side of either pair.
          const {
            one,
            two,
            raw: rawSide,
            verifyMs,
          } = await round(POSTS_PER_CLIENT, run % 2 === 0 ? ['one', 'two', 'raw'] : ['raw', 'two', 'one']);
          return {
            value: one.rate,
            baseline: rawSide.rate,
            extra: {
              'service p50 ms': median(one.latencies),
              'service p99 ms': percentile(one.latencies, 99),
              'raw p50 ms': median(rawSide.latencies),
              'service peak RSS MB': first.peakRssMb(),
              'verify ms': verifyMs,
              'database bytes per entry': Math.round(bytesPerEntry),
            },
            companions: {
              [TWO_PROCESSES]: {
                value: two.rate,
                baseline: one.rate,
                extra: {
                  'two processes p50 ms': median(two.latencies),
                  'two processes p99 ms': percentile(two.latencies, 99),
                  'second process peak RSS MB': second.peakRssMb(),
                },
              },
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
