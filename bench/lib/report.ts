import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { meetsTarget, type ResultSpec, type Sample, type Target } from './scenario.js';
import { median, significant } from './stats.js';

export interface ScenarioResult {
  name: string;
  description: string;
  unit: string;
  valueLabel: string;
  baselineLabel: string;
  target: Target;
  /** Medians over the runs. */
  value: number;
  baseline: number;
  /** Median of the per-run ratios value / baseline (each run pairs app and baseline in time). */
  ratio: number;
  met: boolean;
  /** Medians over the runs of the figures each run reported besides value and baseline. */
  extra?: Record<string, number>;
  samples: Array<{ value: number; baseline: number; ratio: number; extra?: Record<string, number> }>;
}

export interface FailedScenario {
  name: string;
  error: string;
}

function roundedExtra(extra: Record<string, number> | undefined): Record<string, number> | undefined {
  return extra === undefined ? undefined : Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, significant(value)]));
}

/** Medians of the extra figures every sample reported. */
function extraMedians(samples: Sample[]): Record<string, number> | undefined {
  const keys = Object.keys(samples[0]?.extra ?? {});
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((key) => [key, significant(median(samples.map((s) => s.extra?.[key] ?? Number.NaN)))]));
}

export function summarise(scenario: ResultSpec, samples: Sample[]): ScenarioResult {
  const paired = samples.map((s) => ({
    value: significant(s.value),
    baseline: significant(s.baseline),
    ratio: significant(s.value / s.baseline),
    ...(s.extra === undefined ? {} : { extra: roundedExtra(s.extra) }),
  }));
  const ratio = median(samples.map((s) => s.value / s.baseline));
  const extra = extraMedians(samples);
  return {
    name: scenario.name,
    description: scenario.description,
    unit: scenario.unit,
    valueLabel: scenario.valueLabel,
    baselineLabel: scenario.baselineLabel,
    target: scenario.target,
    value: significant(median(samples.map((s) => s.value))),
    baseline: significant(median(samples.map((s) => s.baseline))),
    ratio: significant(ratio, 3),
    met: meetsTarget(ratio, scenario.target),
    ...(extra === undefined ? {} : { extra }),
    samples: paired,
  };
}

function formatNumber(value: number): string {
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}

function extraNote(extra: Record<string, number> | undefined): string {
  if (extra === undefined) return '';
  return ` (medians: ${Object.entries(extra).map(([key, value]) => `${key} ${formatNumber(value)}`).join(', ')})`;
}

/** The report table: one line per scenario, MISSED in capitals where a target is not met. */
export function renderTable(results: ScenarioResult[], failures: FailedScenario[], runs: number): string {
  const header = ['scenario', 'app (median)', 'baseline (median)', 'ratio', 'target', 'result'];
  const rows = results.map((r) => [
    r.name,
    `${formatNumber(r.value)} ${r.unit}`,
    `${formatNumber(r.baseline)} ${r.unit} (${r.baselineLabel})`,
    r.ratio.toFixed(3),
    `${r.target.comparison} ${r.target.ratio}`,
    r.met ? 'ok' : 'MISSED',
  ]);
  for (const failure of failures) rows.push([failure.name, '-', '-', '-', '-', 'ERROR']);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const notes = [
    `ratio = median over ${runs} runs of (app / baseline), each run measuring both back to back.`,
    ...results.map((r) => `${r.name}: ${r.target.description}${extraNote(r.extra)}`),
    ...failures.map((f) => `${f.name}: ERROR ${f.error}`),
  ];
  return [line(header), rule, ...rows.map(line), '', ...notes].join('\n');
}

/** bench/results/latest.json: pretty-printed, stable key order, so a commit diff reads well. */
export function writeResults(file: string, results: ScenarioResult[], failures: FailedScenario[], meta: { runs: number; filters: string[] }): void {
  const cpu = os.cpus()[0];
  const document = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: `${os.cpus().length} × ${cpu?.model.trim() ?? 'unknown'}`,
    dialect: 'sqlite',
    runs: meta.runs,
    filters: meta.filters,
    scenarios: results,
    failures,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}
