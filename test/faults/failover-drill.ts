import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../bench/lib/processes.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import {
  audit,
  ENTRIES_PER_POST,
  keyedClients,
  pause,
  seedFaultDatabase,
  STORE,
  PRODUCTS,
  TOKEN,
  type KeyedOutcome,
} from './keyed-load.js';
import { createReplicatedPair, type ReplicatedPair, type SynchronousCommit } from './pg-pair.js';
import { postStock, storedPosts, type PostOutcome } from './stock-posts.js';

const run = promisify(execFile);

/**
 * The failover drill of issue 31, shared by `npm run drill` (scripts/ha-drill.ts) and
 * test/faults/failover.test.ts: a primary with a synchronous standby (pg-pair.ts), the service
 * started as `npm start` runs it with both hosts in DATABASE_URL, clients posting stock with
 * Idempotency-Keys (keyed-load.ts) and retrying each request with its key until it is settled,
 * and an observer posting without keys that records every answer (stock-posts.ts). Under that
 * load the primary is stopped with `pg_ctl stop -m immediate` and the standby promoted; the
 * service is never restarted.
 */
export interface DrillOptions {
  synchronousCommit?: SynchronousCommit;
  /** Keyed clients (default 8). */
  clients?: number;
  /** Load before the primary is stopped, and after the first write on the new primary (default 2 s each). */
  loadMillis?: number;
  log?: (line: string) => void;
  /** Called with the drill's teardown as soon as there is something to tear down (Ctrl-C in the script). */
  onTeardown?: (teardown: () => Promise<void>) => void;
}

export interface DrillFigures {
  synchronousCommit: SynchronousCommit;
  /** Setting up the pair, seeding and starting the service. */
  setupMillis: number;
  /** `pg_ctl stop -m immediate` issued → returned (the primary is gone). */
  stopMillis: number;
  /** The primary gone → `pg_ctl promote -w` returned. */
  promoteMillis: number;
  /** `pg_ctl stop` issued → the first 2xx write whose try began after the primary was gone (so served by the new primary). */
  firstWriteAfterStopMillis: number | undefined;
  /** The standby promoted → that first write. */
  firstWriteAfterPromoteMillis: number | undefined;
  keyed: {
    requests: number;
    settled: number;
    /** Settled keys whose entries are not on the new primary (acknowledged writes lost). */
    lost: string[];
    /** Keys with more than one request's entries (applied twice). */
    doubled: string[];
    /** Requests that had a try go unanswered (503, no answer) and were retried with their key. */
    retried: number;
    /** …of which ended in a 2xx. */
    retriesResolved: number;
    /** …of which the 2xx replayed a try that had committed (its answer lost with the connection). */
    retriesReplayed: number;
    unansweredTries: number;
    /** Answers other than 2xx, 503 or no answer (409 "still being processed", 500…): must be none. */
    refusals: string[];
  };
  observer: {
    posts: number;
    acknowledged: number;
    /** Every answer that was neither 200 nor a 503 UNAVAILABLE with Retry-After. */
    unexpected: Array<Pick<PostOutcome, 'reference' | 'status' | 'code' | 'retryAfter'>>;
    /** 503 UNAVAILABLE answers, with Retry-After. */
    unavailable: number;
    missing: number;
    torn: number;
  };
  readiness: { notReady: number; firstReadyAfterStopMillis: number | undefined };
  /** `store-ops verify` (the CLI, as an operator runs it) with both hosts in DATABASE_URL, after the failover. */
  verify: { exitCode: number; output: string };
  /** The service process never exited. */
  serviceStayedUp: boolean;
  /** `"msg":"database unavailable"` lines the service logged. */
  unavailableLogLines: number;
  /** The service's /metrics lines about the database, after the drill. */
  metrics: string[];
  sample: string;
}

export async function runDrill(options: DrillOptions = {}): Promise<DrillFigures> {
  const log = options.log ?? (() => undefined);
  const synchronousCommit = options.synchronousCommit ?? 'on';
  const loadMillis = options.loadMillis ?? 2000;
  let pair: ReplicatedPair | undefined;
  let destroyPair: (() => Promise<void>) | undefined;
  let server: ServerProcess | undefined;
  let tornDown = false;
  const teardown = async () => {
    if (tornDown) return;
    tornDown = true;
    await server?.kill().catch(() => undefined);
    await destroyPair?.().catch(() => undefined);
  };
  options.onTeardown?.(teardown);
  try {
    const setupAt = Date.now();
    pair = await createReplicatedPair({ synchronousCommit, log, onTeardown: (destroy) => (destroyPair = destroy) });
    await seedFaultDatabase(pair.url);
    server = await startServer({ DATABASE_URL: pair.url, STORE_OPS_ADMIN_TOKEN: TOKEN });
    let serverLog = '';
    server.child.stdout?.on('data', (chunk) => (serverLog += chunk));
    const setupMillis = Date.now() - setupAt;
    log(
      `service: started with DATABASE_URL=${pair.url} (setup ${setupMillis} ms in all, synchronous_commit=${synchronousCommit})`,
    );
    const baseUrl = server.baseUrl;

    // Keyed clients: each try's start, so that a 2xx can be placed before or after the stop.
    const lastTryAt = new Map<string, number>();
    const clients = keyedClients(
      options.clients ?? 8,
      'drill',
      (client, n) => (attempt) => {
        lastTryAt.set(`drill-${client}-${n}`, Date.now());
        void attempt;
        return baseUrl;
      },
      Date.now() + 120_000,
    );
    // The observer: small posts without a key, every answer kept (status, code, Retry-After).
    const observed: PostOutcome[] = [];
    const readiness: Array<{ at: number; status: number | 'no answer' }> = [];
    let observing = true;
    const observer = (async () => {
      for (let n = 0; observing; n++) {
        const outcome = await postStock(baseUrl, {
          token: TOKEN,
          store: STORE,
          reference: `observer-${n}`,
          products: PRODUCTS,
          lines: 3,
          timeoutMillis: 15_000,
        });
        observed.push(outcome);
        if (outcome.status !== 200) await pause(50);
      }
    })();
    const prober = (async () => {
      while (observing) {
        const status = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
          (response) => response.status,
          () => 'no answer' as const,
        );
        readiness.push({ at: Date.now(), status });
        await pause(50);
      }
    })();

    await pause(loadMillis);
    const stopAt = Date.now();
    await pair.primary.stopImmediate();
    const stoppedAt = Date.now();
    log(`primary: pg_ctl stop -m immediate (${stoppedAt - stopAt} ms)`);
    await pair.promote();
    const promotedAt = Date.now();
    log(`standby: pg_ctl promote (${promotedAt - stoppedAt} ms after the primary was gone)`);

    // A write served by the new primary: a 2xx whose try began once the old primary was gone.
    const firstWrite = (outcomes: readonly KeyedOutcome[]) => {
      const after = [
        ...outcomes
          .filter((o) => o.status >= 200 && o.status < 300 && (lastTryAt.get(o.key) ?? 0) >= stoppedAt)
          .map((o) => o.settledAt),
        ...observed.filter((o) => o.status === 200 && o.startedAt >= stoppedAt).map((o) => o.endedAt),
      ];
      return after.length === 0 ? undefined : Math.min(...after);
    };
    const waitUntil = Date.now() + 20_000;
    while (!observed.some((o) => o.status === 200 && o.startedAt >= stoppedAt) && Date.now() < waitUntil)
      await pause(20);
    await pause(loadMillis);
    clients.stop();
    observing = false;
    const [outcomes] = await Promise.all([clients.outcomes, observer, prober]);
    const firstWriteAt = firstWrite(outcomes);

    const newPrimary = pair.standby.url;
    const { entriesByKey, problems } = await audit(newPrimary);
    const stored = await storedPosts(newPrimary, TOKEN, 'observer-', observed);
    const verify = await run(process.execPath, ['bin/store-ops.js', 'verify'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: pair.url, LOG_LEVEL: 'warn' },
    }).then(
      ({ stdout, stderr }) => ({ exitCode: 0, output: `${stdout}${stderr}`.trim() }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        exitCode: typeof error.code === 'number' ? error.code : 1,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`.trim(),
      }),
    );
    if (problems.length > 0) verify.output += `\nverifyAll: ${JSON.stringify(problems).slice(0, 2000)}`;
    const metricsText = await fetch(`${baseUrl}/metrics`).then(
      (response) => response.text(),
      () => '',
    );
    const serviceStayedUp = server.child.exitCode === null && server.child.signalCode === null;

    const settled = outcomes.filter((o) => o.status >= 200 && o.status < 300);
    const retried = outcomes.filter((o) => o.unanswered > 0);
    const refused = observed.filter((o) => o.status !== 200);
    const firstReady = readiness.find(
      (r) =>
        r.at > stoppedAt &&
        r.status === 200 &&
        readiness.some((s) => s.at > stoppedAt && s.at < r.at && s.status !== 200),
    );
    const figures: DrillFigures = {
      synchronousCommit,
      setupMillis,
      stopMillis: stoppedAt - stopAt,
      promoteMillis: promotedAt - stoppedAt,
      firstWriteAfterStopMillis: firstWriteAt === undefined ? undefined : firstWriteAt - stopAt,
      firstWriteAfterPromoteMillis: firstWriteAt === undefined ? undefined : firstWriteAt - promotedAt,
      keyed: {
        requests: outcomes.length,
        settled: settled.length,
        lost: settled.filter((o) => (entriesByKey.get(o.key) ?? 0) === 0).map((o) => o.key),
        doubled: outcomes
          .filter((o) => (entriesByKey.get(o.key) ?? 0) > ENTRIES_PER_POST)
          .map((o) => `${o.key}: ${entriesByKey.get(o.key)}`),
        retried: retried.length,
        retriesResolved: retried.filter((o) => o.status >= 200 && o.status < 300).length,
        retriesReplayed: retried.filter((o) => o.replayed).length,
        unansweredTries: outcomes.reduce((sum, o) => sum + o.unanswered, 0),
        refusals: outcomes.flatMap((o) => o.refusals.map((r) => `${o.key}: ${r}`)),
      },
      observer: {
        posts: observed.length,
        acknowledged: observed.length - refused.length,
        unexpected: refused
          .filter((o) => !(o.status === 503 && o.code === 'UNAVAILABLE' && /^[1-9]\d*$/.test(o.retryAfter ?? '')))
          .map(({ reference, status, code, retryAfter }) => ({ reference, status, code, retryAfter })),
        unavailable: refused.filter((o) => o.status === 503).length,
        missing: stored.missing.length,
        torn: stored.torn.length,
      },
      readiness: {
        notReady: readiness.filter((r) => r.status !== 200).length,
        firstReadyAfterStopMillis: firstReady === undefined ? undefined : firstReady.at - stopAt,
      },
      verify,
      serviceStayedUp,
      unavailableLogLines: serverLog.split('\n').filter((line) => line.includes('"msg":"database unavailable"')).length,
      metrics: metricsText
        .split('\n')
        .filter((line) => /^db_(up|connections_lost_total|fault_answers_total|pool_connections_total)/.test(line)),
      sample:
        serverLog
          .split('\n')
          .find((line) => line.includes('"msg":"database unavailable"'))
          ?.slice(0, 600) ?? '',
    };
    // Entries of a key applied partly (neither 0 nor ENTRIES_PER_POST) would be a torn request.
    const torn = outcomes.filter((o) => {
      const n = entriesByKey.get(o.key) ?? 0;
      return n !== 0 && n !== ENTRIES_PER_POST;
    });
    if (torn.length > 0) figures.keyed.doubled.push(...torn.map((o) => `${o.key}: ${entriesByKey.get(o.key)} (torn)`));
    return figures;
  } finally {
    await teardown();
  }
}

/** The figures as the closing lines of a drill. */
export function describeDrill(f: DrillFigures): string {
  const ms = (value: number | undefined) => (value === undefined ? 'none' : `${(value / 1000).toFixed(2)} s`);
  return [
    `failover drill (synchronous_commit=${f.synchronousCommit}, primary + 1 synchronous standby, service never restarted)`,
    `  primary stopped (pg_ctl stop -m immediate) in ${f.stopMillis} ms; standby promoted ${f.promoteMillis} ms later`,
    `  first successful write on the new primary: ${ms(f.firstWriteAfterStopMillis)} after the stop (${ms(f.firstWriteAfterPromoteMillis)} after the promotion)`,
    `  keyed requests: ${f.keyed.requests}, settled ${f.keyed.settled}; acknowledged writes lost: ${f.keyed.lost.length}; applied twice or torn: ${f.keyed.doubled.length}`,
    `  retries: ${f.keyed.retried} requests retried with their Idempotency-Key (${f.keyed.unansweredTries} unanswered tries), resolved ${f.keyed.retriesResolved}/${f.keyed.retried} (${f.keyed.retriesReplayed} replayed a committed try); other refusals: ${f.keyed.refusals.length}`,
    `  observer: ${f.observer.posts} posts, ${f.observer.acknowledged} 200, ${f.observer.unavailable} 503 UNAVAILABLE with Retry-After, unexpected answers ${f.observer.unexpected.length}, lost ${f.observer.missing}, torn ${f.observer.torn}`,
    `  /readyz: ${f.readiness.notReady} answers not 200 during the failover; 200 again ${ms(f.readiness.firstReadyAfterStopMillis)} after the stop`,
    `  store-ops verify on the new primary: exit ${f.verify.exitCode}${f.verify.exitCode === 0 ? ' (clean)' : `\n${f.verify.output}`}`,
    `  service stayed up: ${f.serviceStayedUp ? 'yes' : 'NO'}; "database unavailable" log lines: ${f.unavailableLogLines}`,
    ...f.metrics.map((line) => `  ${line}`),
  ].join('\n');
}
