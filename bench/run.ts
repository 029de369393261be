/**
 * `npm run bench [-- <filter>…] [--runs=N] [--list] [--profile]`: runs the scenarios whose
 * name contains any filter (all without one), prints the report table and writes
 * bench/results/latest.json. A missed target is a finding, not a failure: the exit code
 * is 0 when every scenario ran and its baselines were sane, 1 when a scenario could not
 * run or a sanity rule (lib/sanity.ts) refused its figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  renderHeading,
  renderTable,
  summarise,
  writeResults,
  type FailedScenario,
  type SkippedScenario,
  type RunContext,
  type ScenarioResult,
} from './lib/report.js';
import { SanityError } from './lib/sanity.js';
import { resultSpecs, type ResultSpec, type Sample, type Scenario } from './lib/scenario.js';
import { profileServicesInto, SERVICE_COMMAND, serviceSynchronous } from './lib/service.js';
import { significant, withTimeout } from './lib/stats.js';
import { SkipScenario } from './lib/ledger-db.js';
import { authJwtStockRead } from './scenarios/auth-stock-read.js';
import { consoleOfflineReplay } from './scenarios/console-offline-replay.js';
import { feedCostPg, feedCostSqlite } from './scenarios/change-feed.js';
import { feedReadPg, feedReadSqlite } from './scenarios/change-feed-read.js';
import { webhooksDeliveryPg, webhooksDeliverySqlite } from './scenarios/change-feed-webhooks.js';
import { ordersImport, ordersPickPg, ordersPickSqlite } from './scenarios/customer-orders.js';
import { deliveriesImport, deliveriesReceive } from './scenarios/deliveries.js';
import { countingSubmitFullPg, countingSubmitFullSqlite } from './scenarios/counting-assignments.js';
import { externalCounting } from './scenarios/external-counting.js';
import { ledgerHotPg } from './scenarios/ledger-hot.js';
import { ledgerLatePg, ledgerLateSqlite } from './scenarios/ledger-late.js';
import { movementPost } from './scenarios/movements.js';
import { productListsCreate, productListsGetLines } from './scenarios/product-lists.js';
import { productsImport, productsList } from './scenarios/products.js';
import { stockListScroll } from './scenarios/stock-list.js';
import { stockLogsPost, stockLogsPostKeyed } from './scenarios/stock-logs.js';
import { stockSpreadPg } from './scenarios/stock-spread.js';
import { stockVerify } from './scenarios/stock-verify.js';
import { stockSingleGet } from './scenarios/store-stock.js';
import { storesImport } from './scenarios/stores-import.js';
import { storesList } from './scenarios/stores-list.js';

/** Every scenario, in run order (each import also reports its identical re-send). A new scenario module is added here. */
const SCENARIOS: Scenario[] = [
  storesList,
  storesImport,
  productsList,
  productsImport,
  stockLogsPost,
  stockLogsPostKeyed,
  stockSingleGet,
  authJwtStockRead,
  consoleOfflineReplay,
  stockListScroll,
  stockVerify,
  movementPost,
  externalCounting,
  countingSubmitFullSqlite,
  countingSubmitFullPg,
  deliveriesImport,
  deliveriesReceive,
  ordersImport,
  ordersPickSqlite,
  ordersPickPg,
  productListsCreate,
  productListsGetLines,
  ledgerLateSqlite,
  ledgerLatePg,
  ledgerHotPg,
  stockSpreadPg,
  feedCostSqlite,
  feedCostPg,
  feedReadSqlite,
  feedReadPg,
  webhooksDeliverySqlite,
  webhooksDeliveryPg,
];

/** Each figure is a median of at least three runs (rounds, for the throughput pairs). */
const MIN_RUNS = 3;
const PREPARE_TIMEOUT_MS = 240_000;
const RUN_TIMEOUT_MS = 120_000;
const RESULTS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

class UsageError extends Error {}

function parseArgs(argv: string[]): { filters: string[]; runs?: number; list: boolean; profile: boolean } {
  const filters: string[] = [];
  let runs: number | undefined;
  let list = false;
  let profile = false;
  for (const arg of argv) {
    if (arg === '--list') list = true;
    else if (arg === '--profile') profile = true;
    else if (arg.startsWith('--runs=')) runs = Number(arg.slice('--runs='.length));
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (known: --runs=N, --list, --profile)`);
    else filters.push(arg.toLowerCase());
  }
  if (runs !== undefined && (!Number.isInteger(runs) || runs < MIN_RUNS))
    throw new UsageError(`--runs must be an integer ≥ ${MIN_RUNS} (each figure is a median)`);
  return { filters, runs, list, profile };
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

function describeRun(spec: ResultSpec, sample: Sample): string {
  const extra = Object.entries(sample.extra ?? {})
    .map(([key, value]) => `, ${key} ${significant(value)}`)
    .join('');
  return (
    `${spec.valueLabel} ${significant(sample.value)} ${spec.unit}, ${spec.baselineLabel} ${significant(sample.baseline)} ${spec.unit}, ` +
    `ratio ${significant(sample.value / sample.baseline, 3)}${extra}`
  );
}

/** Runs a scenario; returns the samples of its own result and of each companion, by name. */
async function runScenario(scenario: Scenario, runs: number): Promise<Map<string, Sample[]>> {
  const specs = resultSpecs(scenario);
  const samples = new Map<string, Sample[]>(specs.map((spec) => [spec.name, []]));
  const preparing = Date.now();
  const session = await withTimeout(scenario.prepare(), PREPARE_TIMEOUT_MS, `${scenario.name} prepare`);
  console.error(`  prepared in ${seconds(preparing)} s`);
  try {
    for (let run = 0; run < runs; run++) {
      const sample = await withTimeout(session.measure(run), RUN_TIMEOUT_MS, `${scenario.name} run ${run + 1}`);
      for (const spec of specs) {
        const own = spec === scenario ? sample : sample.companions?.[spec.name];
        if (own === undefined) throw new Error(`run ${run + 1} of ${scenario.name} brought no sample for ${spec.name}`);
        samples.get(spec.name)!.push(own);
        const prefix = spec === scenario ? `  run ${run + 1}/${runs}: ` : `           ${spec.name}: `;
        console.error(`${prefix}${describeRun(spec, own)}`);
      }
    }
    return samples;
  } finally {
    await session.close();
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  // `npm run bench -- scale …`: the chain-size run (bench/scale/scale.ts), not a scenario.
  // `npm run bench -- plans --url …`: EXPLAIN (ANALYZE, BUFFERS) of the hot flows on a generated chain (bench/scale/plans.ts).
  if (args[0] === 'plans') {
    await (await import('./scale/plans.js')).runPlans(args.slice(1));
    return 0;
  }
  if (args[0] === 'scale') {
    await (await import('./scale/scale.js')).runScale(args.slice(1));
    return 0;
  }
  const { filters, runs, list, profile } = parseArgs(args);
  // A scenario runs when a filter matches its name or a companion's: they share the runs.
  const matches = (name: string) => filters.length === 0 || filters.some((f) => name.toLowerCase().includes(f));
  const selected = SCENARIOS.filter((s) => resultSpecs(s).some((spec) => matches(spec.name)));
  if (list) {
    for (const spec of SCENARIOS.flatMap(resultSpecs)) {
      console.log(
        `${spec.name}\n  ${spec.description}\n  baseline: ${spec.baselineLabel} (${spec.baselineKind})\n  target: ${spec.target.description}`,
      );
    }
    return 0;
  }
  if (selected.length === 0) {
    console.error(
      `no scenario matches ${filters.join(', ')}; known: ${SCENARIOS.flatMap(resultSpecs)
        .map((s) => s.name)
        .join(', ')}`,
    );
    return 1;
  }

  let profileDir: string | undefined;
  if (profile) {
    // The service is a process of its own: V8 writes its CPU profile when SIGTERM ends it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-bench-profiles-'));
    profileDir = dir;
    profileServicesInto(dir);
    console.error(`--profile: every service process writes a .cpuprofile into ${dir} when it stops`);
  }

  const synchronous = serviceSynchronous();
  console.error(`service: ${SERVICE_COMMAND} (sqlite synchronous=${synchronous}); baselines in processes of their own`);
  const results: ScenarioResult[] = [];
  const failures: FailedScenario[] = [];
  const skipped: SkippedScenario[] = [];
  const suiteStart = Date.now();
  for (const scenario of selected) {
    console.error(`${scenario.name}: ${scenario.description}`);
    const start = Date.now();
    try {
      const samples = await runScenario(scenario, runs ?? scenario.defaultRuns);
      for (const spec of resultSpecs(scenario)) {
        const result = summarise(spec, samples.get(spec.name)!);
        if (result.failed !== undefined) console.error(`  FAILED ${spec.name}: ${result.failed}`);
        results.push(result);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof SkipScenario) {
        // Not a failure and not silent: the table shows SKIPPED and the reason.
        console.error(`  SKIPPED ${message}`);
        for (const spec of resultSpecs(scenario)) skipped.push({ name: spec.name, reason: message });
        console.error(`  ${scenario.name} took ${seconds(start)} s`);
        continue;
      }
      const kind = error instanceof SanityError ? 'sanity' : 'error';
      console.error(`  FAILED (${kind}) ${message}`);
      for (const spec of resultSpecs(scenario)) failures.push({ name: spec.name, error: `${kind}: ${message}` });
    }
    console.error(`  ${scenario.name} took ${seconds(start)} s`);
  }

  const context: RunContext = {
    command: ['npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' '),
    serviceCommand: `${SERVICE_COMMAND} (DATABASE_URL=sqlite:<fresh file>, or postgres://…?schema=<fresh schema> for *.pg, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0, STORE_OPS_ADMIN_TOKEN, PORT)`,
    sqliteSynchronous: synchronous,
    runs: runs ?? 'per scenario',
    filters,
    minutes: (Date.now() - suiteStart) / 60_000,
  };
  console.log(`\n${renderHeading(context)}\n`);
  console.log(renderTable(results, failures, skipped));
  if (profileDir !== undefined) {
    // A profiled run is slowed down by the profiler: its figures are not results.
    console.log(
      `\n--profile: results not written. CPU profiles of the services (summarise with npx tsx bench/tools/cpu-profile-summary.ts <file>):`,
    );
    for (const file of fs.readdirSync(profileDir)) console.log(`  ${path.join(profileDir, file)}`);
  } else {
    writeResults(RESULTS_FILE, results, failures, context, skipped);
    console.log(`\nwritten ${path.relative(process.cwd(), RESULTS_FILE)}`);
  }
  const failed = failures.length > 0 || results.some((r) => r.failed !== undefined);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? error.message : error);
    process.exit(1);
  },
);
