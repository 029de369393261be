import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baselineSlowerProblem } from './sanity.js';
import { betterOf, meetsTarget, type ResultSpec, type Sample, type Target } from './scenario.js';
import { median, significant } from './stats.js';

export interface ScenarioResult {
  name: string;
  description: string;
  unit: string;
  valueLabel: string;
  baselineLabel: string;
  baselineKind: ResultSpec['baselineKind'];
  target: Target;
  /** Medians over the runs. */
  value: number;
  baseline: number;
  /** Median of the per-run ratios value / baseline (each run pairs service and baseline in time), and their range. */
  ratio: number;
  ratioMin: number;
  ratioMax: number;
  met: boolean;
  /** Why the figures cannot be trusted (a sanity rule, lib/sanity.ts); the result is then FAILED. */
  failed?: string;
  /** Medians over the runs of the figures each run reported besides value and baseline. */
  extra?: Record<string, number>;
  samples: Array<{ value: number; baseline: number; ratio: number; extra?: Record<string, number> }>;
}

/** A scenario that cannot run on this machine (e.g. PostgreSQL not reachable): SKIPPED with the reason, neither FAILED nor silent. */
export interface SkippedScenario {
  name: string;
  reason: string;
}

/** A scenario that could not run, or whose run was refused by a sanity rule before it had figures. */
export interface FailedScenario {
  name: string;
  error: string;
}

function roundedExtra(extra: Record<string, number> | undefined): Record<string, number> | undefined {
  return extra === undefined
    ? undefined
    : Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, significant(value)]));
}

/** Medians of the extra figures every sample reported. */
function extraMedians(samples: Sample[]): Record<string, number> | undefined {
  const keys = Object.keys(samples[0]?.extra ?? {});
  if (keys.length === 0) return undefined;
  return Object.fromEntries(
    keys.map((key) => [key, significant(median(samples.map((s) => s.extra?.[key] ?? Number.NaN)))]),
  );
}

/** The result of one spec over its runs, with the median rule of lib/sanity.ts applied to floor baselines. */
export function summarise(spec: ResultSpec, samples: Sample[]): ScenarioResult {
  const ratios = samples.map((s) => s.value / s.baseline);
  const ratio = median(ratios);
  const value = median(samples.map((s) => s.value));
  const baseline = median(samples.map((s) => s.baseline));
  const extra = extraMedians(samples);
  const failed =
    spec.baselineKind === 'service' || spec.baselineKind === 'absolute'
      ? undefined
      : baselineSlowerProblem(spec.baselineLabel, value, baseline, betterOf(spec));
  return {
    name: spec.name,
    description: spec.description,
    unit: spec.unit,
    valueLabel: spec.valueLabel,
    baselineLabel: spec.baselineLabel,
    baselineKind: spec.baselineKind,
    target: spec.target,
    value: significant(value),
    baseline: significant(baseline),
    ratio: significant(ratio, 3),
    ratioMin: significant(Math.min(...ratios), 3),
    ratioMax: significant(Math.max(...ratios), 3),
    met: meetsTarget(ratio, spec.target),
    ...(failed === undefined ? {} : { failed }),
    ...(extra === undefined ? {} : { extra }),
    samples: samples.map((s) => ({
      value: significant(s.value),
      baseline: significant(s.baseline),
      ratio: significant(s.value / s.baseline),
      ...(s.extra === undefined ? {} : { extra: roundedExtra(s.extra) }),
    })),
  };
}

function formatNumber(value: number): string {
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}

function extraNote(extra: Record<string, number> | undefined): string {
  if (extra === undefined) return '';
  return ` (medians: ${Object.entries(extra)
    .map(([key, value]) => `${key} ${formatNumber(value)}`)
    .join(', ')})`;
}

const resultWord = (r: ScenarioResult) => (r.failed !== undefined ? 'FAILED' : r.met ? 'ok' : 'MISSED');

/** The report table: one line per result; MISSED where a target is not met, FAILED where the figures cannot be trusted. */
export function renderTable(
  results: ScenarioResult[],
  failures: FailedScenario[],
  skipped: SkippedScenario[] = [],
): string {
  const header = ['scenario', 'service (median)', 'baseline (median)', 'ratio [range]', 'target', 'result'];
  const rows = results.map((r) => [
    r.name,
    `${formatNumber(r.value)} ${r.unit}`,
    `${formatNumber(r.baseline)} ${r.unit} (${r.baselineLabel})`,
    `${r.ratio.toFixed(3)} [${r.ratioMin.toFixed(3)}–${r.ratioMax.toFixed(3)}]`,
    `${r.target.comparison} ${r.target.ratio}`,
    resultWord(r),
  ]);
  for (const failure of failures) rows.push([failure.name, '-', '-', '-', '-', 'FAILED']);
  for (const skip of skipped) rows.push([skip.name, '-', '-', '-', '-', 'SKIPPED']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const notes = [
    'ratio = median over the runs of (service / baseline), each run measuring both back to back; [range] = lowest–highest run.',
    ...results.map(
      (r) =>
        `${r.name}: ${r.target.description}${extraNote(r.extra)}${r.failed === undefined ? '' : `\n  FAILED: ${r.failed}`}`,
    ),
    ...failures.map((f) => `${f.name}: FAILED ${f.error}`),
    ...skipped.map((s) => `${s.name}: SKIPPED ${s.reason}`),
  ];
  return [line(header), rule, ...rows.map(line), '', ...notes].join('\n');
}

export interface RunContext {
  command: string;
  serviceCommand: string;
  sqliteSynchronous: string;
  runs: number | 'per scenario';
  filters: string[];
  minutes: number;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
  };
}

/** The heading of the report: what ran, on what, how. */
export function renderHeading(context: RunContext): string {
  const m = machine();
  return (
    `Store Operations Service benchmarks — ${m.cores} cores (${m.cpu}), node ${m.node}, ${m.platform}, sqlite synchronous=${context.sqliteSynchronous}\n` +
    `command: ${context.command}; service under test: ${context.serviceCommand}; ${context.minutes.toFixed(1)} min`
  );
}

/** bench/results/latest.json: pretty-printed, stable key order, every run's figures, so a commit diff reads well. */
export function writeResults(
  file: string,
  results: ScenarioResult[],
  failures: FailedScenario[],
  context: RunContext,
  skipped: SkippedScenario[] = [],
): void {
  const document = {
    date: new Date().toISOString(),
    machine: machine(),
    dialect: 'sqlite',
    postgres: 'results named *.pg run on PostgreSQL (BENCH_DATABASE_URL, a fresh schema each)',
    ...context,
    scenarios: results,
    failures,
    skipped,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}
