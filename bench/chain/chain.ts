/**
 * `npm run bench:chain` (issue 28): a chain built through the public API — stores × products,
 * an opening count for every store product, then history deltas spread over a year — and the
 * figures of a day's operations on it: handheld look-ups, the ERP's log pull page by page,
 * a store's stock listing, `store-ops verify`, a restart, and the bytes each ledger entry and
 * store product costs. Defaults are a small chain that builds in minutes; issue 28's chain is
 * `--stores 200 --products 10000 --history 5000000` (about an hour and 6 GB on PostgreSQL).
 *
 * Not part of `npm run bench`: its figures are absolute and its build takes long; it prints
 * them as a table and writes bench/results/chain-<database>.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import pg from 'pg';
import { call } from '../lib/client.js';
import { picker, storeNumberOf } from '../lib/data.js';
import { BENCH_PG_URL } from '../lib/ledger-db.js';
import { fireLoad } from '../lib/load.js';
import { REPO_ROOT, tempDir } from '../lib/processes.js';
import { API, AUTHORIZATION, serviceEnvironment, startServiceAt, type Service } from '../lib/service.js';
import { productNumber, REASON, seedStockMasterData, STOCK_LOCATIONS } from '../lib/stock.js';

const program = new Command()
  .name('bench:chain')
  .option('--stores <n>', 'stores', (v) => Number(v), 10)
  .option('--products <n>', 'products (every store carries all)', (v) => Number(v), 2_000)
  .option('--history <n>', 'history deltas over the year, after the opening counts', (v) => Number(v), 200_000)
  .option('--clients <n>', 'concurrent posting clients while building', (v) => Number(v), 8)
  .option('--database <kind>', 'postgres (BENCH_DATABASE_URL, a fresh schema) or sqlite (a temporary file)', 'postgres')
  .option('--keep', 'keep the database afterwards (prints where)', false)
  .parse();
const options = program.opts<{ stores: number; products: number; history: number; clients: number; database: string; keep: boolean }>();

const ENTRIES_PER_POST = 1_000;
const DAY = 24 * 60 * 60 * 1000;
const YEAR_START = Date.now() - 366 * DAY;
const figures: Array<[string, string]> = [];
const record = (name: string, value: string) => {
  figures.push([name, value]);
  console.log(`  ${name}: ${value}`);
};

/** Posts `count` entries made by `entryOf(i)` in 1,000-entry requests from `clients` concurrent clients; entries/s. */
async function postAll(service: Service, count: number, counted: boolean, entryOf: (i: number) => { store: number; entry: Record<string, unknown> }): Promise<number> {
  const started = Date.now();
  let next = 0;
  const client = async () => {
    for (;;) {
      const from = next;
      if (from >= count) return;
      next = Math.min(count, from + ENTRIES_PER_POST);
      // One request books one store: group this slice by store (the slices are made per store).
      const byStore = new Map<number, Record<string, unknown>[]>();
      for (let i = from; i < next; i++) {
        const { store, entry } = entryOf(i);
        const list = byStore.get(store) ?? [];
        list.push(entry);
        byStore.set(store, list);
      }
      for (const [store, entries] of byStore) {
        const answer = await call(service.baseUrl, 'POST', `${API}/stores/${storeNumberOf(store)}/products/stock/storeproductlogs${counted ? '?is_counted_quantity=true' : ''}`, JSON.stringify({ storeproductlog: entries }));
        if (answer.status !== 200) throw new Error(`posting entries: ${answer.status} ${answer.text().slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return (count * 1000) / (Date.now() - started);
}

async function timedGet(service: Service, url: string): Promise<{ ms: number; json: any }> {
  const started = performance.now();
  const answer = await call(service.baseUrl, 'GET', url);
  if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status} ${answer.text().slice(0, 300)}`);
  return { ms: performance.now() - started, json: answer.json() };
}

async function main(): Promise<void> {
  const { stores, products, history } = options;
  const storeProducts = stores * products;
  let databaseUrl: string;
  let dropSchema: (() => Promise<void>) | undefined;
  const temp = tempDir('chain');
  if (options.database === 'sqlite') {
    databaseUrl = `sqlite:${path.join(temp.dir, 'chain.sqlite')}`;
  } else {
    const schema = `chain_${Date.now().toString(36)}`;
    const url = new URL(BENCH_PG_URL);
    url.searchParams.set('schema', schema);
    databaseUrl = url.toString();
    dropSchema = async () => {
      const client = new pg.Client({ connectionString: BENCH_PG_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    };
  }
  console.log(`chain: ${stores} stores × ${products} products (${storeProducts} store products), ${history} history deltas, on ${options.database}`);
  let service = await startServiceAt(databaseUrl);
  try {
    console.log('building');
    await seedStockMasterData(service.baseUrl, products, stores);
    const p = picker(28);
    // Opening counts: every store product counted once, a year ago, store by store.
    const openingRate = await postAll(service, storeProducts, true, (i) => ({
      store: Math.floor(i / products),
      entry: { product_number: productNumber(i % products), quantity: 10 + (i % 40), customer_order_line_number: 0, modification_datetime: new Date(YEAR_START + (i % 1000)).toISOString() },
    }));
    record('opening counts entries/s', openingRate.toFixed(0));
    // History: deltas in time order over the year; each 1,000-entry slice belongs to one store.
    const span = 365 * DAY;
    const historyRate = await postAll(service, history, false, (i) => {
      const store = Math.floor(i / ENTRIES_PER_POST) % stores;
      const kind = p.int(0, 9);
      return {
        store,
        entry: {
          product_number: productNumber(p.int(0, products - 1)),
          quantity: kind < 6 ? -p.int(1, 3) : p.int(1, 12),
          customer_order_line_number: 0,
          modification_datetime: new Date(YEAR_START + DAY + Math.floor((i / history) * span)).toISOString(),
          ...(kind < 2 ? { reason_code: REASON.loss } : {}),
          ...(kind === 9 ? { location_code: STOCK_LOCATIONS[i % STOCK_LOCATIONS.length]!.location_code } : {}),
        },
      };
    });
    record('history entries/s', historyRate.toFixed(0));

    console.log('the day');
    const paths = Array.from({ length: 2_000 }, () => `${API}/stores/${storeNumberOf(p.int(0, stores - 1))}/products/${productNumber(p.int(0, products - 1))}/stock`);
    const lookups = await fireLoad({ origin: service.baseUrl, paths, headers: { authorization: AUTHORIZATION }, seconds: 10 });
    record('handheld look-ups (8-10 connections)', `${lookups.requestsPerSecond.toFixed(0)}/s, p50 ${lookups.latencyP50Ms} ms, p99 ${lookups.latencyP99Ms} ms`);

    // The ERP's log pull as tap-colleqtive pages it: Page_Start/Page_Size=200 over a window.
    const since = new Date(Date.now() - DAY).toISOString();
    const pull = (start: number, size = 200) => `${API}/products/stock/storeproductlogs?last_modified_date=${encodeURIComponent(since)}&Page_Size=${size}&Page_Start=${start}`;
    const count = await timedGet(service, pull(1, 1));
    const total = Number(count.json.total_count ?? 0);
    record('log pull total_count (page_size=1)', `${count.ms.toFixed(0)} ms for ${total} rows`);
    const pages = Math.max(1, Math.ceil(total / 200));
    // page_start is 1-based (PRODUCT §3.1).
    for (const [label, page] of [['first', 1], ['middle', Math.ceil(pages / 2)], ['last', pages]] as const) {
      const { ms } = await timedGet(service, pull(page));
      record(`log pull page (${label}, page ${page} of ${pages})`, `${ms.toFixed(0)} ms`);
    }
    const listing = [1, Math.ceil(products / 400), Math.ceil(products / 200)].map((page) => `${API}/storeproducts/stock?store_number=${storeNumberOf(0)}&Page_Size=200&Page_Start=${page}`);
    for (const url of listing) record(`stock listing page (${url.slice(url.indexOf('Page_Start'))})`, `${(await timedGet(service, url)).ms.toFixed(0)} ms`);

    const verifyStarted = Date.now();
    execFileSync('npx', ['store-ops', 'verify'], { cwd: REPO_ROOT, env: { ...process.env, ...serviceEnvironment(databaseUrl, 0) }, stdio: 'ignore' });
    record('store-ops verify', `${((Date.now() - verifyStarted) / 1000).toFixed(1)} s`);

    await service.stop();
    const restartAt = Date.now();
    service = await startServiceAt(databaseUrl);
    record('restart to /readyz', `${Date.now() - restartAt} ms`);

    if (options.database === 'postgres') {
      const client = new pg.Client({ connectionString: BENCH_PG_URL });
      await client.connect();
      const schema = new URL(databaseUrl).searchParams.get('schema');
      const sizes = await client.query<{ table: string; total: string; indexes: string }>(
        `select c.relname as table, pg_total_relation_size(c.oid) as total, pg_indexes_size(c.oid) as indexes
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = $1 and c.relkind = 'r' order by pg_total_relation_size(c.oid) desc limit 6`,
        [schema],
      );
      await client.end();
      const entries = storeProducts + history;
      const size = (name: string) => Number(sizes.rows.find((r) => r.table === name)?.total ?? 0);
      for (const row of sizes.rows) record(`size ${row.table}`, `${(Number(row.total) / 2 ** 20).toFixed(0)} MB (indexes ${(Number(row.indexes) / 2 ** 20).toFixed(0)} MB)`);
      record('bytes per ledger entry (stock_logs + stock_ledger, indexes included)', ((size('stock_logs') + size('stock_ledger')) / entries).toFixed(0));
      record('bytes per store product (store_products + stock_balances)', ((size('store_products') + size('stock_balances')) / storeProducts).toFixed(0));
    } else {
      const file = databaseUrl.slice('sqlite:'.length);
      record('database file', `${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MB, ${(fs.statSync(file).size / (storeProducts + history)).toFixed(0)} bytes per entry (all tables)`);
    }
  } finally {
    await service.stop();
    if (options.keep) console.log(`kept: ${databaseUrl}`);
    else {
      await dropSchema?.();
      temp.remove();
    }
  }
  const out = path.join(REPO_ROOT, 'bench', 'results', `chain-${options.database}.json`);
  fs.writeFileSync(out, `${JSON.stringify({ at: new Date().toISOString(), options, figures: Object.fromEntries(figures) }, null, 2)}\n`);
  console.log(`\n| figure | value |\n|---|---|\n${figures.map(([n, v]) => `| ${n} | ${v} |`).join('\n')}\n\nwritten ${path.relative(REPO_ROOT, out)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
