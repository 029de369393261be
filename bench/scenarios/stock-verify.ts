import SqliteDatabase from 'better-sqlite3';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit, REPO_ROOT, servingDescendant, statusMb, tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { startService } from '../lib/service.js';
import { STOCK_LOCATIONS, STOCK_STORE, seedStockMasterData } from '../lib/stock.js';

const NAME = 'stock.verify.1m';
const ENTRIES = 1_000_000;
const PRODUCTS = 2_000;
/** Balances per product: unlocated, and each location in its default pool (else 1). */
const SLOTS_PER_PRODUCT = 1 + STOCK_LOCATIONS.length;
const BALANCES = PRODUCTS * SLOTS_PER_PRODUCT;

const GROUPED_SUM_SCRIPT = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'baselines',
  'grouped-sum.mjs',
);
/**
 * `store-ops verify` as an installed CLI runs it: node on the package's bin. `npx store-ops`
 * runs the same file after npm itself starts (~0.4 s here, the same for any package); that
 * figure is reported beside, not hidden.
 */
const CLI = ['bin/store-ops.js'];

/**
 * 1,000,000 applied entries written with raw SQL (building them through the API would take
 * many minutes; this scenario measures the check, not the writes): one stock_logs row each,
 * carrying its posting (balance_id, delta: one row per entry, migration 0022; no entry is
 * split over pools, so no stock_log_parts row), 100 per balance over 10,000 balances (2,000
 * products × unlocated + 4 locations), in time order, and every balance set to the sum of
 * its ledger rows — consistent, so verify must find nothing. The balances are written first
 * (balance `slot + 1` for each slot), so each entry names its balance as it is inserted.
 */
function generateLedger(file: string): void {
  const database = new SqliteDatabase(file);
  try {
    // Throw-away test data: no journal or fsync while generating; the app reopens it in WAL mode.
    database.pragma('journal_mode = MEMORY');
    database.pragma('synchronous = OFF');
    database.pragma('cache_size = -262144');
    database.pragma('foreign_keys = ON');
    const store = database.prepare('select id, store_number from stores where store_number = ?').get(STOCK_STORE) as {
      id: number;
      store_number: string;
    };
    const base = Date.now() - 60 * 86_400_000;
    database.transaction(() => {
      database.exec(`
        create temp table slots (slot integer primary key, product_id, product_number, barcode, price, purchase_price, purchase_unit_quantity,
          location_id, location_code, pool);
        insert into temp.slots
        select (p.rn - 1) * ${SLOTS_PER_PRODUCT} + l.n, p.id, p.product_number, p.barcode, p.price, p.purchase_price, p.purchase_unit_quantity,
          l.location_id, l.location_code, l.pool
        from (select row_number() over (order by id) as rn, * from products) p
        cross join (
          select 0 as n, 0 as location_id, null as location_code, 1 as pool
          union all
          select row_number() over (order by id), id, location_code, coalesce(default_stock_pool, 1) from locations where store_id = ${store.id}
        ) l;`);
      const slots = (database.prepare('select count(*) as n from temp.slots').get() as { n: number }).n;
      if (slots !== BALANCES) throw new Error(`expected ${BALANCES} balance slots, made ${slots}`);
      database.exec(`
        insert into stock_balances (id, store_id, store_number, product_id, location_id, pool, order_key, quantity, last_at, last_count_at, updated_on)
        select s.slot + 1, ${store.id}, '${store.store_number}', s.product_id, s.location_id, s.pool, '', 0, null, null, ${base}
        from temp.slots s order by s.slot;

        insert into stock_logs (id, store_id, store_number, product_id, product_number, location_id, location_code, modification_at,
          is_count, is_from_receipt, quantity, pool_quantities, review_status, is_applied, app_user_name, barcode, price, purchase_price,
          purchase_unit_quantity, created_on, updated_on, created_by, modified_by, balance_id, delta, expected)
        with recursive n(k) as (select 0 union all select k + 1 from n where k < ${ENTRIES - 1}),
          e as (select k, case when (k * 7919) % 4001 - 1500 = 0 then 1 else (k * 7919) % 4001 - 1500 end as q from n)
        select e.k + 1, ${store.id}, '${store.store_number}', s.product_id, s.product_number, nullif(s.location_id, 0), s.location_code,
          ${base} + e.k * 50, 0, 0, e.q,
          case s.pool when 1 then json_array(e.q, null, null, null, null, null, null, null, null, null)
                      else json_array(null, e.q, null, null, null, null, null, null, null, null) end,
          0, 1, 'bench', s.barcode, s.price, s.purchase_price, s.purchase_unit_quantity, ${base} + e.k * 50, ${base} + e.k * 50, 'bench', 'bench',
          s.slot + 1, e.q, null
        from e join temp.slots s on s.slot = e.k % ${BALANCES};

        update stock_balances set quantity = g.total, last_at = g.last_at, updated_on = g.last_at
        from (select balance_id, sum(delta) as total, max(modification_at) as last_at from stock_logs group by balance_id) g
        where g.balance_id = stock_balances.id;`);
    })();
    const ledger = (database.prepare('select count(*) as n from stock_ledger').get() as { n: number }).n;
    if (ledger !== ENTRIES) throw new Error(`generated ${ledger} ledger entries, expected ${ENTRIES}`);
    const parts = (database.prepare('select count(*) as n from stock_log_parts').get() as { n: number }).n;
    if (parts !== 0) throw new Error(`generated ${parts} stock_log_parts rows, expected none`);
    database.pragma('journal_mode = WAL');
  } finally {
    database.close();
  }
}

/**
 * Wall time of a command run to its end from the repository root, and the peak resident set
 * of its largest process (for npx: the node process running the CLI), sampled every 20 ms;
 * throws unless it exits 0.
 */
async function timedCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; stdout: string; peakRssMb: number }> {
  const start = process.hrtime.bigint();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  killOnExit(child);
  let peakRssMb = 0;
  const sampler = setInterval(() => {
    const pid = servingDescendant(child.pid!);
    peakRssMb = Math.max(peakRssMb, statusMb(pid, 'VmHWM') ?? 0);
  }, 20);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}: ${(stdout + stderr).slice(-1000)}`);
  return { ms, stdout, peakRssMb };
}

/** Issue 5: `store-ops verify` over 1,000,000 ledger entries ≤ 2 × a plain grouped sum of them. */
export const stockVerify: Scenario = {
  name: NAME,
  description:
    `\`store-ops verify\` (node bin/store-ops.js, as an installed CLI runs it: its own process, DATABASE_URL on the file) over ${ENTRIES.toLocaleString('en-US')} ` +
    `ledger entries on ${BALANCES.toLocaleString('en-US')} balances (${PRODUCTS} products), wall time to exit, against a process of its own (node ` +
    'baselines/grouped-sum.mjs) opening the same file with better-sqlite3 and running one plain select balance_id, sum(delta) … group by balance_id ' +
    'over stock_ledger (a view since migration 0022: the postings in stock_logs and stock_log_parts), wall time to exit; `npx store-ops verify` (npm starting first) is reported beside. Master data seeded over HTTP into the ' +
    'service; the entries are then generated with raw SQL inserts into stock_balances and stock_logs, each log row with its posting (consistent: balances = sums), with ' +
    'the service stopped, because posting a million entries would take many minutes and this measures the check, not the writes',
  unit: 'ms',
  valueLabel: 'store-ops verify',
  baselineLabel: 'group-by process',
  baselineKind: 'plain-query',
  defaultRuns: 5,
  target: {
    ratio: 2,
    comparison: '<=',
    description: `verify over ${ENTRIES.toLocaleString('en-US')} ledger entries ≤ 2 × a plain SUM … GROUP BY over the same table`,
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-verify'), (t) => t.remove());
      const service = await startService(temp.dir, 'service');
      try {
        await seedStockMasterData(service.baseUrl, PRODUCTS);
      } finally {
        await service.stop();
      }
      generateLedger(service.file);
      const env = { DATABASE_URL: `sqlite:${service.file}`, LOG_LEVEL: 'warn' };

      const verify = async (launcher: 'node' | 'npx' = 'node') => {
        const [command, args] =
          launcher === 'node' ? [process.execPath, [...CLI, 'verify']] : ['npx', ['store-ops', 'verify']];
        const { ms, stdout, peakRssMb } = await timedCommand(command, args, env);
        if (!stdout.includes('ok: every invariant holds'))
          throw new Error(`store-ops verify answered: ${stdout.slice(0, 500)}`);
        return { ms, peakRssMb };
      };
      const groupBy = async () => {
        const { ms, stdout } = await timedCommand(process.execPath, [GROUPED_SUM_SCRIPT, service.file], {});
        const { groups, queryMs } = JSON.parse(stdout) as { groups: number; queryMs: number };
        if (groups !== BALANCES) throw new Error(`the grouped sum gave ${groups} balances, expected ${BALANCES}`);
        return { ms, queryMs };
      };
      /** What the CLI costs before it does anything: its start and exit alone. */
      const cliStart = async () => (await timedCommand(process.execPath, [...CLI, '--help'], env)).ms;
      // Untimed: one of each, so the first run pays neither for reading the file into the page
      // cache nor for building the CLI's bundle (once per source change, bin/cli-bundle.js).
      await groupBy();
      await verify();

      return {
        async measure(run) {
          // Alternate who goes first, so a drift in machine speed favours neither side.
          let baseline = run % 2 === 1 ? await groupBy() : undefined;
          const verified = await verify();
          baseline ??= await groupBy();
          return {
            value: verified.ms,
            baseline: baseline.ms,
            extra: {
              'group-by query ms': baseline.queryMs,
              'CLI start ms (store-ops --help)': await cliStart(),
              'npx store-ops verify ms': (await verify('npx')).ms,
              'CLI peak RSS MB': verified.peakRssMb,
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
