/**
 * A throughput pair: the service and its baseline, each in its own process, loaded in
 * turn by autocannon from a third process (10 connections, pipelining 1, 5 s per side per
 * round), the order alternating from round to round so a drifting machine favours
 * neither. Every load is checked (errors, timeouts, non-2xx) and a canned-bytes baseline
 * must be plausibly fast, else the round fails (lib/sanity.ts).
 */
import { startBareJsonServer } from './baseline-servers.js';
import { getOk, type Answer } from './client.js';
import { LOAD_SECONDS, LOAD_WARMUP_SECONDS, fireLoad, type LoadResult } from './load.js';
import { assertSane, bareThroughputProblem, loadProblem } from './sanity.js';
import type { Resources } from './resources.js';
import type { Sample, Session } from './scenario.js';
import { AUTHORIZATION, type Service } from './service.js';

export interface ThroughputSide {
  origin: string;
  /** Paths with queries, asked in turn on every connection (one path: the same URL throughout). */
  paths: readonly string[];
}

export interface ThroughputPair {
  service: ThroughputSide & { rssMb: () => number; peakRssMb: () => number };
  baseline: ThroughputSide;
  /** For canned bytes: their size, to apply the bare-route rule; undefined for a SQL floor. */
  cannedBodyBytes?: number;
}

const load = (side: ThroughputSide, seconds: number) =>
  fireLoad({ origin: side.origin, paths: side.paths, headers: { authorization: AUTHORIZATION }, seconds });

function checked(name: string, result: LoadResult): LoadResult {
  assertSane(loadProblem(name, result));
  return result;
}

/** Untimed: one short load of each side (JIT, connections, SQLite page cache). */
export async function warmUp(pair: ThroughputPair): Promise<void> {
  checked('service warm-up', await load(pair.service, LOAD_WARMUP_SECONDS));
  checked('baseline warm-up', await load(pair.baseline, LOAD_WARMUP_SECONDS));
}

/** One round: both sides back to back, the first alternating with `round`. */
export async function measureRound(pair: ThroughputPair, round: number): Promise<Sample> {
  const results: { service?: LoadResult; baseline?: LoadResult } = {};
  const order: Array<'service' | 'baseline'> = round % 2 === 0 ? ['service', 'baseline'] : ['baseline', 'service'];
  for (const side of order) results[side] = checked(side, await load(pair[side], LOAD_SECONDS));
  const service = results.service!;
  const baseline = results.baseline!;
  if (pair.cannedBodyBytes !== undefined)
    assertSane(bareThroughputProblem(baseline.requestsPerSecond, pair.cannedBodyBytes));
  return {
    value: service.requestsPerSecond,
    baseline: baseline.requestsPerSecond,
    extra: {
      'service p99 ms': service.latencyP99Ms,
      'baseline p99 ms': baseline.latencyP99Ms,
      'service RSS MB': pair.service.rssMb(),
    },
  };
}

/**
 * The session of a read served as it is: `routePath + query` of the seeded service against
 * a bare Fastify route (its own process) serving the bytes of the service's real answer to
 * that same request, captured once here.
 */
export async function cannedBytesSession(
  resources: Resources,
  options: { dir: string; service: Service; routePath: string; query: string; check?: (answer: Answer) => void },
): Promise<Session> {
  const url = `${options.routePath}${options.query}`;
  const answer = await getOk(options.service.baseUrl, url, `reading ${url} once`);
  options.check?.(answer);
  const bare = resources.add(await startBareJsonServer(options.dir, options.routePath, answer.bytes), (b) => b.stop());
  const pair: ThroughputPair = {
    service: {
      origin: options.service.baseUrl,
      paths: [url],
      rssMb: options.service.rssMb,
      peakRssMb: options.service.peakRssMb,
    },
    baseline: { origin: bare.origin, paths: [url] },
    cannedBodyBytes: answer.bytes.length,
  };
  await warmUp(pair);
  return {
    async measure(round) {
      const sample = await measureRound(pair, round);
      return {
        ...sample,
        extra: {
          ...sample.extra,
          'body KiB': answer.bytes.length / 1024,
          'service peak RSS MB': options.service.peakRssMb(),
        },
      };
    },
    close: () => resources.release(),
  };
}
