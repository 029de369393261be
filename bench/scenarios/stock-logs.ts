import path from 'node:path';
import { stockEntriesTable, stockLevelsTable } from '../baselines/plain-tables.js';
import { picker } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { startRawWriter } from '../lib/raw-writer-client.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { serviceSynchronous } from '../lib/service.js';
import {
  STOCK_LOGS_PATH,
  STOCK_STORE,
  StockClock,
  startStockService,
  stockBody,
  stockEntries,
  stockMasterForRawWriter,
  timedStockPost,
} from '../lib/stock.js';

const NAME = 'stock.logs.post1000';
const ENTRIES = 1_000;
const PRODUCTS = 2_000;
/**
 * Requests per side in one run (their mean is the run's figure): one 1,000-entry post is
 * short, and this machine's speed drifts within a second, so each run takes several of
 * each side in turn.
 */
const POSTS_PER_RUN = 8;
const WARMUP_POSTS = 3;

/** Issue 5: booking a 1,000-entry request should cost at most 2.5 × raw inserts of its rows. */
export const stockLogsPost: Scenario = {
  name: NAME,
  description:
    `POST ${STOCK_LOGS_PATH.replace(STOCK_STORE, '{s}')} with ${ENTRIES} entries per request over HTTP (${PRODUCTS} products, 4 locations, ` +
    'pools by location default or pool_location, loss/gain/plain reason codes, timestamps in order, none late; the database grows run by run), ' +
    `against the raw writer process booking the same body text (JSON.parse, then per entry one row in a plain stock_entries table and an upsert ` +
    `quantity = quantity + delta of its row in a plain stock_levels table keyed by store, product, location, pool; one transaction per request; ` +
    `same synchronous mode); ${POSTS_PER_RUN} requests per side per run, in turn`,
  unit: 'ms',
  valueLabel: 'service',
  baselineLabel: 'raw better-sqlite3, plain tables',
  baselineKind: 'raw-driver',
  defaultRuns: 5,
  target: {
    ratio: 2.5,
    comparison: '<=',
    description: `service time per ${ENTRIES}-entry request ≤ 2.5 × raw inserts of the same entries plus level upserts`,
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-logs'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, PRODUCTS);
      const raw = resources.add(startRawWriter(), (r) => r.stop());
      await raw.open({
        op: 'open',
        file: path.join(temp.dir, 'raw.sqlite'),
        synchronous: serviceSynchronous(),
        tables: [stockEntriesTable, stockLevelsTable],
      });
      await raw.send({ op: 'stock-master', ...stockMasterForRawWriter() });
      const p = picker(5);
      const clock = new StockClock();
      // Both sides get the same bodies in the same order, so their databases grow alike.
      const nextBody = () => stockBody(stockEntries(p, clock, ENTRIES, PRODUCTS));
      for (let i = 0; i < WARMUP_POSTS; i++) {
        const body = nextBody();
        await timedStockPost(service.baseUrl, body, ENTRIES);
        await raw.timed({ op: 'stock-post', body });
      }
      return {
        async measure(run) {
          let serviceMs = 0;
          let rawMs = 0;
          for (let i = 0; i < POSTS_PER_RUN; i++) {
            const body = nextBody();
            // Alternate who goes first, so a drift in machine speed favours neither side.
            if ((run + i) % 2 === 1) rawMs += await raw.timed({ op: 'stock-post', body });
            serviceMs += await timedStockPost(service.baseUrl, body, ENTRIES);
            if ((run + i) % 2 === 0) rawMs += await raw.timed({ op: 'stock-post', body });
          }
          const value = serviceMs / POSTS_PER_RUN;
          const baseline = rawMs / POSTS_PER_RUN;
          return {
            value,
            baseline,
            extra: {
              'service entries/s': (ENTRIES * 1000) / value,
              'raw entries/s': (ENTRIES * 1000) / baseline,
              'service peak RSS MB': service.peakRssMb(),
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};

const KEYED_NAME = 'stock.logs.post1000.keyed';

/**
 * Issue 27: a write with an Idempotency-Key runs in a request transaction that also reserves
 * the key and stores the answer (plugins/idempotency.ts). What that costs: 1,000-entry posts
 * with a fresh key each, against the same posts without a key on the same service, in turn.
 */
export const stockLogsPostKeyed: Scenario = {
  name: KEYED_NAME,
  description:
    `POST ${STOCK_LOGS_PATH.replace(STOCK_STORE, '{s}')} with ${ENTRIES} entries and a fresh Idempotency-Key per request, against the same kind of ` +
    `request without a key on the same service process (bodies as in ${NAME}); ${POSTS_PER_RUN} requests per side per run, in turn`,
  unit: 'ms',
  valueLabel: 'service, keyed',
  baselineLabel: 'service, no key',
  baselineKind: 'service',
  defaultRuns: 5,
  target: {
    ratio: 1.15,
    comparison: '<=',
    description: 'a keyed 1,000-entry post costs at most 1.15 × the same post without a key',
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-logs-keyed'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, PRODUCTS);
      const p = picker(7);
      const clock = new StockClock();
      const nextBody = () => stockBody(stockEntries(p, clock, ENTRIES, PRODUCTS));
      let keys = 0;
      const keyed = (body: string) =>
        timedStockPost(service.baseUrl, body, ENTRIES, STOCK_STORE, {
          'idempotency-key': `bench-${process.pid}-${++keys}`,
        });
      for (let i = 0; i < WARMUP_POSTS; i++) {
        await keyed(nextBody());
        await timedStockPost(service.baseUrl, nextBody(), ENTRIES);
      }
      return {
        async measure(run) {
          let keyedMs = 0;
          let plainMs = 0;
          for (let i = 0; i < POSTS_PER_RUN; i++) {
            if ((run + i) % 2 === 1) plainMs += await timedStockPost(service.baseUrl, nextBody(), ENTRIES);
            keyedMs += await keyed(nextBody());
            if ((run + i) % 2 === 0) plainMs += await timedStockPost(service.baseUrl, nextBody(), ENTRIES);
          }
          return { value: keyedMs / POSTS_PER_RUN, baseline: plainMs / POSTS_PER_RUN };
        },
        close: () => resources.release(),
      };
    }),
};
