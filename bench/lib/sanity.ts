/**
 * When a figure cannot be trusted (ENGINEERING.md "Measuring"): a run whose baseline is
 * implausible is a failed run, not a good ratio. Pure functions, so the rules are tested
 * (test/bench/sanity.test.ts) without timing anything; each returns the reason, or
 * undefined when the figure is sane.
 */

/** A bare Fastify route serving canned bytes below this size must answer at least this fast on this machine. */
export const BARE_MIN_REQUESTS_PER_SECOND = 5_000;
export const BARE_RULE_MAX_BODY_BYTES = 64 * 1024;

/** What the load generator reported of one load. */
export interface LoadCounts {
  requests: number;
  ok2xx: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** Any error, timeout or answer other than 2xx makes the load's figure meaningless (either side). */
export function loadProblem(side: string, counts: LoadCounts): string | undefined {
  const problems: string[] = [];
  if (counts.errors > 0) problems.push(`${counts.errors} errors`);
  if (counts.timeouts > 0) problems.push(`${counts.timeouts} timeouts`);
  if (counts.non2xx > 0) problems.push(`${counts.non2xx} non-2xx answers`);
  if (counts.requests === 0) problems.push('no request completed');
  else if (counts.ok2xx < counts.requests)
    problems.push(`${counts.requests - counts.ok2xx} of ${counts.requests} answers not 2xx`);
  return problems.length === 0 ? undefined : `${side}: autocannon reported ${problems.join(', ')}`;
}

/**
 * A bare route under 5,000 req/s for a page under 64 KiB means the load generator or the
 * machine was the limit, not the route: the ratio against it would flatter the service.
 */
export function bareThroughputProblem(requestsPerSecond: number, bodyBytes: number): string | undefined {
  if (bodyBytes >= BARE_RULE_MAX_BODY_BYTES || requestsPerSecond >= BARE_MIN_REQUESTS_PER_SECOND) return undefined;
  return (
    `bare Fastify baseline answered ${Math.round(requestsPerSecond)} req/s for a ${(bodyBytes / 1024).toFixed(1)} KiB body ` +
    `(< ${BARE_MIN_REQUESTS_PER_SECOND} req/s for a body under 64 KiB): a saturated load generator or machine, not a bare server`
  );
}

/** Which way a unit is better: durations are lower-better, throughputs higher-better. */
export type Better = 'lower' | 'higher';

/**
 * A baseline meant as the floor of the work (bare route, hand-written SQL, raw driver)
 * that comes out slower than the service measures something else than intended — or a
 * machine too busy to measure on. Judged on the medians of the runs.
 */
export function baselineSlowerProblem(
  baselineLabel: string,
  serviceMedian: number,
  baselineMedian: number,
  better: Better,
): string | undefined {
  const slower = better === 'lower' ? baselineMedian > serviceMedian : baselineMedian < serviceMedian;
  if (!slower) return undefined;
  return `the ${baselineLabel} baseline (median ${significantText(baselineMedian)}) is slower than the service (median ${significantText(serviceMedian)}): it cannot be the floor of the same work`;
}

const significantText = (value: number) => String(Number(value.toPrecision(4)));

/** A run that must not be reported: carries the reason to the table (FAILED) and the exit code. */
export class SanityError extends Error {
  override name = 'SanityError';
}

/** Throws a SanityError with every reason given, if any. */
export function assertSane(...problems: Array<string | undefined>): void {
  const found = problems.filter((problem): problem is string => problem !== undefined);
  if (found.length > 0) throw new SanityError(found.join('; '));
}
