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
  /**
   * Further figures of this run worth reading but not judged (e.g. `{ 'app entries/s': 2100 }`);
   * the report gives the median of each over the runs.
   */
  extra?: Record<string, number>;
  /** Samples of the scenario's companion results taken in this same run, by companion name. */
  companions?: Record<string, Sample>;
}

/** A prepared scenario: data seeded, servers listening; `measure` is called once per run. */
export interface Session {
  measure(run: number): Promise<Sample>;
  close(): Promise<void>;
}

/** What one line of the report judges. */
export interface ResultSpec {
  /** Dotted, filterable name: `npm run bench -- stores` runs every name containing "stores". */
  name: string;
  /** What is measured, in a sentence (README and results file). */
  description: string;
  /** Unit of value and baseline, e.g. "req/s" or "ms". */
  unit: string;
  /** What `value` is (e.g. "app") and what `baseline` is (e.g. "bare fastify"). */
  valueLabel: string;
  baselineLabel: string;
  /**
   * What the baseline is, for the sanity rules (lib/sanity.ts): a floor of the same work
   * (`canned-bytes` bare route, `sql-floor` hand-written query route, `raw-driver` writes,
   * `plain-query` reads) must come out faster than the service; `service` compares the
   * service with itself (a re-send with the first import, movements with plain entries)
   * and has no such rule; `absolute` is no measurement but the absolute target
   * itself (e.g. 10,000 entries/s), so the ratio judges the figure against it — no rule either.
   */
  baselineKind: 'canned-bytes' | 'sql-floor' | 'raw-driver' | 'plain-query' | 'service' | 'absolute';
  target: Target;
}

export interface Scenario extends ResultSpec {
  /**
   * Further results measured in the same runs, each judged on its own line — e.g. an
   * import's identical re-send, which needs the first import of the same run anyway.
   * Every sample must then carry `companions[name]` for each of them.
   */
  companions?: ResultSpec[];
  /** Runs when --runs is not given: 3 rounds for throughput pairs (10 s each), 5 for the rest. */
  defaultRuns: number;
  /** Seeds data, starts servers. Not timed. */
  prepare(): Promise<Session>;
}

export function meetsTarget(ratio: number, target: Target): boolean {
  return target.comparison === '<=' ? ratio <= target.ratio : ratio >= target.ratio;
}

/** Whether higher or lower figures are better, from the direction of the target. */
export function betterOf(spec: ResultSpec): 'higher' | 'lower' {
  return spec.target.comparison === '>=' ? 'higher' : 'lower';
}

/** The scenario's own result and its companions, in report order. */
export function resultSpecs(scenario: Scenario): ResultSpec[] {
  return [scenario, ...(scenario.companions ?? [])];
}
