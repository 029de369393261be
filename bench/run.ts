/**
 * `npm run bench [-- <filter>…] [--runs=N] [--list] [--profile]`: runs the scenarios whose
 * name contains any filter (all without one), prints the report table and writes
 * bench/results/latest.json. A missed target is a finding, not a failure: the exit code
 * is 0 unless a scenario could not run at all.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable, summarise, writeResults, type FailedScenario, type ScenarioResult } from './lib/report.js';
import { enableProfiling, isProfiling, writtenProfiles } from './lib/profile.js';
import type { Sample, Scenario } from './lib/scenario.js';
import { significant, withTimeout } from './lib/stats.js';
import { storesImport } from './scenarios/stores-import.js';
import { storesList } from './scenarios/stores-list.js';
import { storesResend } from './scenarios/stores-resend.js';
import { productsImport, productsList, productsResend } from './scenarios/products.js';

/** Every scenario, in run order. A new scenario module is added here. */
const SCENARIOS: Scenario[] = [storesList, storesImport, storesResend, productsList, productsImport, productsResend];

const MIN_RUNS = 5;
const PREPARE_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 90_000;
const RESULTS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

class UsageError extends Error {}

function parseArgs(argv: string[]): { filters: string[]; runs: number; list: boolean; profile: boolean } {
  const filters: string[] = [];
  let runs = MIN_RUNS;
  let list = false;
  let profile = false;
  for (const arg of argv) {
    if (arg === '--list') list = true;
    else if (arg === '--profile') profile = true;
    else if (arg.startsWith('--runs=')) runs = Number(arg.slice('--runs='.length));
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} (known: --runs=N, --list, --profile)`);
    else filters.push(arg.toLowerCase());
  }
  if (!Number.isInteger(runs) || runs < MIN_RUNS) throw new UsageError(`--runs must be an integer ≥ ${MIN_RUNS} (each figure is a median)`);
  return { filters, runs, list, profile };
}

async function runScenario(scenario: Scenario, runs: number): Promise<Sample[]> {
  const session = await withTimeout(scenario.prepare(), PREPARE_TIMEOUT_MS, `${scenario.name} prepare`);
  try {
    const samples: Sample[] = [];
    for (let run = 0; run < runs; run++) {
      const sample = await withTimeout(session.measure(run), RUN_TIMEOUT_MS, `${scenario.name} run ${run + 1}`);
      samples.push(sample);
      console.error(
        `  run ${run + 1}/${runs}: ${scenario.valueLabel} ${significant(sample.value)} ${scenario.unit}, ` +
          `${scenario.baselineLabel} ${significant(sample.baseline)} ${scenario.unit}, ratio ${significant(sample.value / sample.baseline, 3)}`,
      );
    }
    return samples;
  } finally {
    await session.close();
  }
}

async function main(): Promise<number> {
  const { filters, runs, list, profile } = parseArgs(process.argv.slice(2));
  const selected = SCENARIOS.filter((s) => filters.length === 0 || filters.some((f) => s.name.toLowerCase().includes(f)));
  if (list) {
    for (const s of SCENARIOS) console.log(`${s.name}\n  ${s.description}\n  target: ${s.target.description}`);
    return 0;
  }
  if (selected.length === 0) {
    console.error(`no scenario matches ${filters.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
    return 1;
  }

  if (profile) console.error(`profiling the app side of each scenario's first run into ${enableProfiling()}`);

  const results: ScenarioResult[] = [];
  const failures: FailedScenario[] = [];
  for (const scenario of selected) {
    console.error(`${scenario.name}: ${scenario.description}`);
    try {
      results.push(summarise(scenario, await runScenario(scenario, runs)));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.error(`  ERROR ${message}`);
      failures.push({ name: scenario.name, error: message });
    }
  }

  console.log(`\nStore Operations Service benchmarks — node ${process.version}, sqlite, ${runs} runs each\n`);
  console.log(renderTable(results, failures, runs));
  if (isProfiling()) {
    // A profiled run is slowed down by the profiler: its figures are not results.
    console.log('\n--profile: results not written. CPU profiles (summarise with npx tsx bench/tools/cpu-profile-summary.ts <file>):');
    for (const file of writtenProfiles()) console.log(`  ${file}`);
  } else {
    writeResults(RESULTS_FILE, results, failures, { runs, filters });
    console.log(`\nwritten ${path.relative(process.cwd(), RESULTS_FILE)}`);
  }
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? error.message : error);
    process.exit(1);
  },
);
