/**
 * `npm run bench -- scale [options]` (issue 28): the real client's day on a chain-size
 * database. The chain is written by `store-ops generate` (default: 200 stores × 10,000
 * products, an opening count each and 365 days × 22,000 history entries: 10,030,000 ledger
 * entries), then measured through the service started by `npm start`, over HTTP:
 * handheld look-ups alone and under posting load, the ERP's delta pull, the log pull by
 * Page_Start (page 1 to page 1,000), a store's full listing, a late entry on a long balance,
 * `store-ops verify` full and `--since`, a restart, the bytes per entry and per store product,
 * and the write rate on an empty database against the full one.
 *
 * Not part of `npm run bench`'s scenarios and never in CI: its figures are absolute, its chain
 * takes ~15 minutes and ~8 GB to write. `--url` measures an existing generated chain again.
 * Prints a table and writes bench/results/scale-<database>.json.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import pg from 'pg';
import { productNumberOf, storeNumberOf } from '../../src/generate/chain-plan.js';
import { call } from '../lib/client.js';
import { picker } from '../lib/data.js';
import { BENCH_PG_URL } from '../lib/ledger-db.js';
import { fireLoad } from '../lib/load.js';
import { REPO_ROOT, tempDir } from '../lib/processes.js';
import { API, AUTHORIZATION, serviceEnvironment, startServiceAt, type Service } from '../lib/service.js';
import { median } from '../lib/stats.js';

export async function runScale(argv: string[]): Promise<void> {
  const program = new Command()
    .name('bench scale')
    .option('--stores <n>', 'stores', (v) => Number(v), 200)
    .option('--products <n>', 'products (every store carries all)', (v) => Number(v), 10_000)
    .option('--days <n>', 'days of history', (v) => Number(v), 365)
    .option('--entries-per-day <n>', 'history entries per day', (v) => Number(v), 22_000)
    .option(
      '--database <kind>',
      'postgres (BENCH_DATABASE_URL, a fresh schema) or sqlite (a temporary file)',
      'postgres',
    )
    .option('--url <databaseUrl>', 'measure this already generated chain instead of writing one (kept)')
    .option('--keep', 'keep the generated database afterwards (prints where)', false)
    .option('--seconds <n>', 'seconds per load run', (v) => Number(v), 10)
    .option('--only <parts>', `comma-separated parts to measure (${PARTS.join(', ')}); default all`, (v) =>
      v.split(','),
    )
    .exitOverride()
    .parse(argv, { from: 'user' });
  const options = program.opts<Options>();
  const scale = new ScaleRun(options);
  await scale.run();
}

const PARTS = ['write', 'lookups', 'delta', 'logs', 'listing', 'late', 'verify', 'restart', 'sizes'] as const;
type Part = (typeof PARTS)[number];

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

interface Options {
  stores: number;
  products: number;
  days: number;
  entriesPerDay: number;
  database: string;
  url?: string;
  keep: boolean;
  seconds: number;
  only?: string[];
}

/** CPU seconds the PostgreSQL server's processes used so far (all of them: backends, writer, autovacuum). */
function postgresCpuSeconds(): number {
  const pids = spawnSync('pgrep', ['-u', 'postgres']).stdout.toString().trim().split('\n').filter(Boolean);
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks / 100;
}

class ScaleRun {
  private readonly figures: Array<[string, string]> = [];
  private readonly wanted = (part: Part) => this.options.only === undefined || this.options.only.includes(part);
  private readonly p = picker(28);
  private databaseUrl = '';
  private cleanup: Array<() => Promise<void>> = [];

  constructor(private readonly options: Options) {}

  private record(name: string, value: string): void {
    this.figures.push([name, value]);
    console.log(`  ${name}: ${value}`);
  }

  private freshDatabase(label: string): string {
    const temp = tempDir(`scale-${label}`);
    if (this.options.database === 'sqlite') {
      this.cleanup.push(async () => temp.remove());
      return `sqlite:${path.join(temp.dir, `${label}.sqlite`)}`;
    }
    temp.remove();
    const schema = `scale_${label}_${Date.now().toString(36)}`;
    const url = new URL(BENCH_PG_URL);
    url.searchParams.set('schema', schema);
    this.cleanup.push(async () => {
      const client = new pg.Client({ connectionString: BENCH_PG_URL });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    });
    return url.toString();
  }

  private cli(args: string[], databaseUrl = this.databaseUrl): { seconds: number; peakMb: number; output: string } {
    const started = Date.now();
    const result = spawnSync('/usr/bin/time', ['-f', '%M', 'npx', 'store-ops', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...serviceEnvironment(databaseUrl, 0) },
      encoding: 'utf8',
      maxBuffer: 64 * 2 ** 20,
    });
    if (result.status !== 0)
      throw new Error(`store-ops ${args.join(' ')}: exit ${result.status}\n${result.stderr.slice(-2000)}`);
    const peakKb = Number(result.stderr.trim().split('\n').at(-1));
    return { seconds: (Date.now() - started) / 1000, peakMb: peakKb / 1024, output: result.stdout };
  }

  async run(): Promise<void> {
    const { stores, products, days, entriesPerDay } = this.options;
    try {
      if (this.options.url) {
        this.databaseUrl = this.options.url;
      } else {
        this.databaseUrl = this.freshDatabase('chain');
        console.log(
          `generating: ${stores} stores × ${products} products, ${days} days × ${entriesPerDay} entries, on ${this.options.database}`,
        );
        const generated = this.cli([
          'generate',
          '--stores',
          String(stores),
          '--products',
          String(products),
          '--days',
          String(days),
          '--entries-per-day',
          String(entriesPerDay),
        ]);
        this.record(
          'generate',
          `${generated.seconds.toFixed(0)} s (${((stores * products + days * entriesPerDay) / generated.seconds).toFixed(0)} entries/s)`,
        );
        if (this.options.keep) this.cleanup = this.cleanup.filter((_, i) => i !== 0);
      }
      // Before any write of this run: the nightly check over the chain's own last hour.
      if (this.wanted('verify')) await this.verifyLastHourOfHistory();
      let service = await startServiceAt(this.databaseUrl);
      let writeFull = 0;
      try {
        await this.settle();
        if (this.wanted('lookups')) await this.lookups(service);
        if (this.wanted('delta')) await this.deltaPull(service);
        if (this.wanted('logs')) await this.logPull(service);
        if (this.wanted('listing')) await this.listing(service);
        if (this.wanted('late')) await this.lateEntry(service);
        if (this.wanted('write')) {
          await this.settle();
          writeFull = await this.writeRate(service, 'full chain');
        }
      } finally {
        await service.stop();
      }
      if (this.wanted('write'))
        this.record('write rate, full ÷ empty', (writeFull / (await this.writeRateOnEmpty())).toFixed(2));
      if (this.wanted('verify')) this.verify();
      if (this.wanted('restart')) {
        const restartAt = Date.now();
        service = await startServiceAt(this.databaseUrl);
        this.record('restart to /readyz', `${Date.now() - restartAt} ms`);
        await service.stop();
      }
      if (this.wanted('sizes')) await this.sizes();
    } finally {
      for (const step of this.cleanup) await step();
      if (this.options.keep && !this.options.url) console.log(`kept: ${this.databaseUrl}`);
    }
    console.log(`\n| figure | value |\n|---|---|\n${this.figures.map(([n, v]) => `| ${n} | ${v} |`).join('\n')}\n`);
    // A partial run (--only) must not replace the record of a whole one.
    const out = path.join(
      REPO_ROOT,
      'bench',
      'results',
      `scale-${this.options.database}${this.options.only ? '-partial' : ''}.json`,
    );
    fs.writeFileSync(
      out,
      `${JSON.stringify({ at: new Date().toISOString(), options: this.options, figures: Object.fromEntries(this.figures) }, null, 2)}\n`,
    );
    console.log(`written ${path.relative(REPO_ROOT, out)}`);
  }

  /**
   * Waits (up to 3 minutes) until PostgreSQL runs no autovacuum: after a bulk load it vacuums
   * and analyses for minutes, and a figure taken meanwhile measures that too.
   */
  private async settle(): Promise<void> {
    if (this.options.database !== 'postgres') return;
    const client = new pg.Client({ connectionString: BENCH_PG_URL });
    await client.connect();
    try {
      for (let waited = 0; waited < 180; waited += 2) {
        const { rows } = await client.query<{ n: string }>(
          `select count(*) as n from pg_stat_activity where backend_type = 'autovacuum worker'`,
        );
        if (Number(rows[0]!.n) === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    } finally {
      await client.end();
    }
  }

  private lookupPaths(count: number): string[] {
    return Array.from(
      { length: count },
      () =>
        `${API}/stores/${storeNumberOf(this.p.int(0, this.options.stores - 1))}/products/${productNumberOf(this.p.int(0, this.options.products - 1))}/stock`,
    );
  }

  private async lookups(service: Service): Promise<void> {
    const paths = this.lookupPaths(20_000);
    await fireLoad({
      origin: service.baseUrl,
      paths: paths.slice(0, 2_000),
      headers: { authorization: AUTHORIZATION },
      seconds: 3,
    });
    const cpuBefore = postgresCpuSeconds();
    const alone = await fireLoad({
      origin: service.baseUrl,
      paths,
      headers: { authorization: AUTHORIZATION },
      seconds: this.options.seconds,
    });
    const cpu = postgresCpuSeconds() - cpuBefore;
    const served = alone.requestsPerSecond * this.options.seconds;
    this.record(
      'look-ups alone (10 connections)',
      `${alone.requestsPerSecond.toFixed(0)}/s, p50 ${alone.latencyP50Ms} ms, p99 ${alone.latencyP99Ms} ms` +
        (this.options.database === 'postgres' ? `, ${((cpu / served) * 1000).toFixed(2)} ms of database CPU each` : ''),
    );
    const posting = this.postingLoad(service, 4);
    const mixed = await fireLoad({
      origin: service.baseUrl,
      paths: this.lookupPaths(20_000),
      headers: { authorization: AUTHORIZATION },
      seconds: this.options.seconds,
    });
    const posted = await posting.stop();
    this.record(
      'look-ups under 4 posting clients',
      `${mixed.requestsPerSecond.toFixed(0)}/s, p50 ${mixed.latencyP50Ms} ms, p99 ${mixed.latencyP99Ms} ms; posts ${posted.toFixed(0)} entries/s`,
    );
  }

  /** `clients` loops posting 100-entry requests to random stores until stopped; entries/s. */
  private postingLoad(service: Service, clients: number, entriesPerPost = 100): { stop(): Promise<number> } {
    let running = true;
    let entries = 0;
    const started = Date.now();
    const client = async () => {
      while (running) {
        const store = storeNumberOf(this.p.int(0, this.options.stores - 1));
        const body = JSON.stringify({
          storeproductlog: Array.from({ length: entriesPerPost }, () => ({
            product_number: productNumberOf(this.p.int(0, this.options.products - 1)),
            quantity: -1,
            customer_order_line_number: 0,
            modification_datetime: new Date().toISOString(),
          })),
        });
        const answer = await call(
          service.baseUrl,
          'POST',
          `${API}/stores/${store}/products/stock/storeproductlogs`,
          body,
        );
        if (answer.status !== 200) throw new Error(`posting: ${answer.status} ${answer.text().slice(0, 300)}`);
        entries += entriesPerPost;
      }
    };
    const loops = Promise.all(Array.from({ length: clients }, client));
    return {
      async stop() {
        running = false;
        await loops;
        return (entries * 1000) / (Date.now() - started);
      },
    };
  }

  private async writeRate(service: Service, label: string): Promise<number> {
    const load = this.postingLoad(service, 4, 1_000);
    await new Promise((resolve) => setTimeout(resolve, this.options.seconds * 1000));
    const rate = await load.stop();
    this.record(`write rate, ${label} (4 clients × 1,000-entry posts)`, `${rate.toFixed(0)} entries/s`);
    return rate;
  }

  /** The same posting load on a chain of the same master data and no history. */
  private async writeRateOnEmpty(): Promise<number> {
    const url = this.freshDatabase('empty');
    this.cli(
      [
        'generate',
        '--stores',
        String(this.options.stores),
        '--products',
        String(this.options.products),
        '--days',
        '0',
        '--entries-per-day',
        '0',
      ],
      url,
    );
    const service = await startServiceAt(url);
    try {
      await this.settle();
      return await this.writeRate(service, 'opening counts only');
    } finally {
      await service.stop();
    }
  }

  private async timedGet(service: Service, url: string): Promise<{ ms: number; json: any }> {
    const started = performance.now();
    const answer = await call(service.baseUrl, 'GET', url);
    if (answer.status !== 200) throw new Error(`GET ${url}: ${answer.status} ${answer.text().slice(0, 300)}`);
    return { ms: performance.now() - started, json: answer.json() };
  }

  /** 500 store products changed, then the ERP's pull of what changed since (all pages of 200). */
  private async deltaPull(service: Service): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date().toISOString();
    for (let i = 0; i < 5; i++) {
      const store = storeNumberOf(this.p.int(0, this.options.stores - 1));
      const first = this.p.int(0, this.options.products - 100);
      const body = JSON.stringify({
        storeproductlog: Array.from({ length: 100 }, (_, k) => ({
          product_number: productNumberOf(first + k),
          quantity: 2,
          customer_order_line_number: 0,
          modification_datetime: new Date().toISOString(),
        })),
      });
      const answer = await call(
        service.baseUrl,
        'POST',
        `${API}/stores/${store}/products/stock/storeproductlogs`,
        body,
      );
      if (answer.status !== 200) throw new Error(`posting the delta: ${answer.status}`);
    }
    const started = performance.now();
    let rows = 0;
    for (let page = 1; ; page++) {
      const { json } = await this.timedGet(
        service,
        `${API}/storeproducts/stock?last_stock_modified_datetime=${encodeURIComponent(since)}&Page_Size=200&Page_Start=${page}`,
      );
      rows += json.list.length;
      if (json.next_page === null) break;
    }
    this.record(
      'ERP delta pull of 500 changed store products',
      `${(performance.now() - started).toFixed(0)} ms (${rows} rows)`,
    );
  }

  /**
   * The log pull as tap-colleqtive pages it: a window of millions of entries, pages 1 to 1,000 of 200.
   * Page 1 is the first page of a new pull, so it is timed over several fresh windows (each one
   * millisecond apart: another filter, nothing remembered) after the process's very first log request,
   * which also pays for the connection's first plans and is reported apart.
   */
  private async logPull(service: Service): Promise<void> {
    const windowDays = Math.min(this.options.days, 100);
    const since = Date.now() - windowDays * DAY;
    const url = (from: number, page: number) =>
      `${API}/products/stock/storeproductlogs?last_modified_date=${encodeURIComponent(new Date(from).toISOString())}&Page_Size=200&Page_Start=${page}`;
    const first = await this.timedGet(service, url(since - 1_000, 1));
    const firstPages: number[] = [];
    for (let pull = 1; pull <= 9; pull++)
      firstPages.push((await this.timedGet(service, url(since - 1_000 + pull, 1))).ms);
    const times: number[] = [];
    let total = 0;
    const started = performance.now();
    for (let page = 1; page <= 1_000; page++) {
      const { ms, json } = await this.timedGet(service, url(since, page));
      times.push(ms);
      total = json.total_count;
      if (json.next_page === null) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const rows = Math.min(total, times.length * 200);
    const pageOne = median(firstPages);
    const last = times.at(-1)!;
    this.record(
      `log pull by Page_Start (window ${windowDays} days: ${total} entries)`,
      `page 1 ${pageOne.toFixed(1)} ms (median of 9 new pulls), page ${times.length} ${last.toFixed(1)} ms (${(last / pageOne).toFixed(2)}× page 1), median ${median(times).toFixed(1)} ms; ${rows} rows in ${seconds.toFixed(1)} s = ${(rows / seconds).toFixed(0)} rows/s`,
    );
    this.record(
      "log pull, the process's first log request (first plans of its connection)",
      `${first.ms.toFixed(0)} ms`,
    );
    // Another window is another pull: nothing remembered, page 500 read by OFFSET from the window's start.
    const cold = await this.timedGet(service, url(since + 1, 500));
    this.record('log pull, page 500 asked cold (no remembered position)', `${cold.ms.toFixed(0)} ms`);
  }

  private async listing(service: Service): Promise<void> {
    const store = storeNumberOf(this.p.int(0, this.options.stores - 1));
    const started = performance.now();
    const times: number[] = [];
    let rows = 0;
    for (let page = 1; ; page++) {
      const { ms, json } = await this.timedGet(
        service,
        `${API}/storeproducts/stock?store_number=${store}&Page_Size=200&Page_Start=${page}`,
      );
      times.push(ms);
      rows += json.list.length;
      if (json.next_page === null) break;
    }
    this.record(
      `a store's full stock listing (${rows} rows, pages of 200)`,
      `${((performance.now() - started) / 1000).toFixed(2)} s, median page ${median(times).toFixed(1)} ms`,
    );
  }

  /** A balance with a long history (100,000 entries), then entries dated 200 days back. */
  private async lateEntry(service: Service): Promise<void> {
    const store = storeNumberOf(0);
    const product = productNumberOf(0);
    const path = `${API}/stores/${store}/products/stock/storeproductlogs`;
    const base = Date.now() - 300 * DAY;
    for (let post = 0; post < 100; post++) {
      const body = JSON.stringify({
        storeproductlog: Array.from({ length: 1_000 }, (_, i) => ({
          product_number: product,
          quantity: i % 2 === 0 ? 1 : -1,
          customer_order_line_number: 0,
          modification_datetime: new Date(base + (post * 1_000 + i) * 60_000).toISOString(),
        })),
      });
      const answer = await call(service.baseUrl, 'POST', path, body);
      if (answer.status !== 200)
        throw new Error(`building the long balance: ${answer.status} ${answer.text().slice(0, 200)}`);
    }
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const body = JSON.stringify({
        storeproductlog: [
          {
            product_number: product,
            quantity: 1,
            customer_order_line_number: 0,
            modification_datetime: new Date(Date.now() - 200 * DAY + i * HOUR).toISOString(),
          },
        ],
      });
      const started = performance.now();
      const answer = await call(service.baseUrl, 'POST', path, body);
      times.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`late entry: ${answer.status}`);
    }
    this.record('late entry 200 days back on a balance of 100,000 entries', `median ${median(times).toFixed(1)} ms`);
  }

  /**
   * `verify --since` over the last hour of the chain as generated (its latest entries' hour),
   * before this run writes anything: what a nightly run over an hour of a chain's traffic costs.
   */
  private async verifyLastHourOfHistory(): Promise<void> {
    let latest: number;
    if (this.options.database === 'postgres') {
      const client = new pg.Client({ connectionString: this.databaseUrl.replace(/\?.*$/, '') });
      await client.connect();
      const schema = new URL(this.databaseUrl).searchParams.get('schema');
      const { rows } = await client.query<{ latest: string }>(
        `select max(updated_on) as latest from ${schema ? `${schema}.` : ''}stock_logs`,
      );
      await client.end();
      latest = Number(rows[0]!.latest);
    } else {
      const { default: Database } = await import('better-sqlite3');
      const file = new Database(this.databaseUrl.slice('sqlite:'.length), { readonly: true });
      latest = Number(
        (file.prepare('select max(updated_on) as latest from stock_logs').get() as { latest: number }).latest,
      );
      file.close();
    }
    const since = new Date(latest - HOUR).toISOString();
    const hour = this.cli(['verify', '--since', since]);
    const touched = /\((\d+) balances/.exec(hour.output)?.[1] ?? '?';
    this.record(
      "store-ops verify --since (the chain's last hour of history)",
      `${hour.seconds.toFixed(1)} s, peak ${hour.peakMb.toFixed(0)} MB, ${touched} balances touched`,
    );
  }

  private verify(): void {
    const full = this.cli(['verify']);
    this.record('store-ops verify (full)', `${full.seconds.toFixed(1)} s, peak ${full.peakMb.toFixed(0)} MB`);
    const since = new Date(Date.now() - HOUR).toISOString();
    const incremental = this.cli(['verify', '--since', since]);
    const touched = /\((\d+) balances/.exec(incremental.output)?.[1] ?? '?';
    this.record(
      'store-ops verify --since (the last hour)',
      `${incremental.seconds.toFixed(1)} s, peak ${incremental.peakMb.toFixed(0)} MB, ${touched} balances touched (this run's own posts included)`,
    );
  }

  private async sizes(): Promise<void> {
    if (this.options.database !== 'postgres') {
      const file = this.databaseUrl.slice('sqlite:'.length);
      this.record('database file', `${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MB`);
      return;
    }
    const client = new pg.Client({ connectionString: BENCH_PG_URL });
    await client.connect();
    const schema = new URL(this.databaseUrl).searchParams.get('schema');
    const sizes = await client.query<{ table: string; total: string; indexes: string }>(
      // A partitioned table (the ledger by month, migration 0025) has no storage of its own: its size is its partitions'.
      `select c.relname as table,
              pg_total_relation_size(c.oid) + coalesce((select sum(pg_total_relation_size(i.inhrelid)) from pg_inherits i where i.inhparent = c.oid), 0) as total,
              pg_indexes_size(c.oid) + coalesce((select sum(pg_indexes_size(i.inhrelid)) from pg_inherits i where i.inhparent = c.oid), 0) as indexes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and c.relkind in ('r', 'p') and not c.relispartition order by total desc limit 6`,
      [schema],
    );
    // The ledger's two tables (one row per entry, migration 0022: a one-balance entry's posting
    // in its stock_logs row, a split entry's parts in stock_log_parts), over the applied entries.
    const counts = await client.query<{ entries: string; store_products: string; ledger_bytes: string }>(
      `select (select count(*) from ${schema}.stock_logs where is_applied = 1) as entries, (select count(*) from ${schema}.store_products) as store_products,
              (select sum(pg_total_relation_size(i.inhrelid)) from pg_inherits i
                where i.inhparent in ('${schema}.stock_logs'::regclass, '${schema}.stock_log_parts'::regclass)) as ledger_bytes`,
    );
    await client.end();
    const size = (name: string) => Number(sizes.rows.find((r) => r.table === name)?.total ?? 0);
    for (const row of sizes.rows)
      this.record(
        `size ${row.table}`,
        `${(Number(row.total) / 2 ** 20).toFixed(0)} MB (indexes ${(Number(row.indexes) / 2 ** 20).toFixed(0)} MB)`,
      );
    const entries = Number(counts.rows[0]!.entries);
    const storeProducts = Number(counts.rows[0]!.store_products);
    this.record(
      'bytes per ledger entry (stock_logs + stock_log_parts, indexes included)',
      (Number(counts.rows[0]!.ledger_bytes) / entries).toFixed(0),
    );
    this.record(
      'bytes per store product (store_products + stock_balances, indexes included)',
      ((size('store_products') + size('stock_balances')) / storeProducts).toFixed(0),
    );
  }
}

// Run directly too: `tsx bench/scale/scale.ts [options]`.
if (process.argv[1]?.endsWith('scale.ts')) {
  runScale(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
