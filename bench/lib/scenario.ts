/**
 * What a benchmark scenario is. A scenario measures the application against a baseline
 * measured in the same run (these machines are noisy), so only the ratio is judged.
 */

export interface Target {
  /** Pass when `ratio <comparison> target.ratio`, ratio being value / baseline. */
  ratio: number;
  comparison: '<=' | '>=';
  /** One line for the table and the results file, e.g. "app ≥ 0.5 × bare Fastify". */
  description: string;
}

/** One paired measurement: the application and its baseline, taken back to back. */
export interface Sample {
  value: number;
  baseline: number;
}

/** A prepared scenario: data seeded, servers listening; `measure` is called once per run. */
export interface Session {
  measure(run: number): Promise<Sample>;
  close(): Promise<void>;
}

export interface Scenario {
  /** Dotted, filterable name: `npm run bench -- stores` runs every name containing "stores". */
  name: string;
  /** What is measured, in a sentence (README and results file). */
  description: string;
  /** Unit of value and baseline, e.g. "req/s" or "ms". */
  unit: string;
  /** What `value` is (e.g. "app") and what `baseline` is (e.g. "bare fastify"). */
  valueLabel: string;
  baselineLabel: string;
  target: Target;
  /** Seeds data, starts servers. Not timed. */
  prepare(): Promise<Session>;
}

export function meetsTarget(ratio: number, target: Target): boolean {
  return target.comparison === '<=' ? ratio <= target.ratio : ratio >= target.ratio;
}
