/**
 * `npm run drill`: the failover drill of issue 31 (docs/operations.md "High availability").
 *
 *   npm run drill                                  # synchronous_commit=on
 *   npm run drill -- --synchronous-commit remote_apply
 *   npm run drill -- --bench [--seconds 5] [--rounds 3]   # what synchronous replication costs
 *
 * The drill: a primary and a synchronous streaming standby of its own (initdb, pg_basebackup -R,
 * own ports, a temporary directory, as the postgres user; never the shared cluster), the
 * service started as `npm start` runs it with both hosts in DATABASE_URL, clients posting stock
 * with Idempotency-Keys; the primary is stopped with `pg_ctl stop -m immediate` and the standby
 * promoted. Prints the figures and exits 1 if the service did not write to the new primary
 * within 10 s, lost an acknowledged write, left a retry unresolved, applied anything twice, or
 * `store-ops verify` found a difference. Everything it started is torn down, also on failure
 * and on Ctrl-C. The same drill runs with assertions in test/faults/failover.test.ts.
 *
 * --bench: the same pair, one service process, 8 clients each posting to a store of its own —
 * 100-entry posts (entries/s) and 1-entry posts (commits/s) — and, for the database's side
 * alone, 8 raw pg connections committing one-row inserts, with the primary's synchronous_commit
 * at local, on, remote_apply and off in turn, rotated per round; medians.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { productInput, storeInput } from '../test/helpers/factories.js';
import { sharedDatabaseConfig, startServer, type ServerProcess } from '../test/helpers/server-process.js';
import { describeDrill, runDrill } from '../test/faults/failover-drill.js';
import {
  createReplicatedPair,
  replicatedPairUnavailableReason,
  type ReplicatedPair,
  type SynchronousCommit,
} from '../test/faults/pg-pair.js';
import { median, percentile, runWriteLoad } from './write-load.js';

const FIRST_WRITE_WITHIN_MILLIS = 10_000;
const LEVELS: SynchronousCommit[] = ['on', 'remote_apply', 'remote_write', 'local', 'off'];

const { values } = parseArgs({
  options: {
    'synchronous-commit': { type: 'string', default: 'on' },
    bench: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log('npm run drill [-- --synchronous-commit on|remote_apply] | [-- --bench [--seconds 5] [--rounds 3]]');
  process.exit(0);
}

const log = (line: string) => console.error(`[drill] ${line}`);
const teardowns: Array<() => Promise<void>> = [];
let interrupted = false;
let tearingDown: Promise<unknown> | undefined;
const tearDownAll = () => (tearingDown ??= Promise.all(teardowns.map((teardown) => teardown().catch(() => undefined))));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    log(`${signal}: tearing down`);
    void tearDownAll().finally(() => process.exit(130));
  });
}

function machine(): string {
  let postgres = 'PostgreSQL ?';
  try {
    postgres = execFileSync('pg_config', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // pg_config is in libpq-dev; the server binaries may be there without it
  }
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${postgres}`;
}

async function drill(): Promise<number> {
  const level = values['synchronous-commit'] as SynchronousCommit;
  if (!LEVELS.includes(level)) throw new Error(`--synchronous-commit must be one of ${LEVELS.join(', ')}`);
  const figures = await runDrill({ synchronousCommit: level, log, onTeardown: (teardown) => teardowns.push(teardown) });
  console.log(`machine: ${machine()}\n${describeDrill(figures)}`);
  const failures = [
    figures.firstWriteAfterStopMillis === undefined || figures.firstWriteAfterStopMillis >= FIRST_WRITE_WITHIN_MILLIS
      ? 'no write on the new primary within 10 s'
      : '',
    figures.keyed.lost.length > 0 ? `acknowledged writes lost: ${figures.keyed.lost.join(', ')}` : '',
    figures.keyed.doubled.length > 0 ? `applied twice or torn: ${figures.keyed.doubled.join(', ')}` : '',
    figures.keyed.settled !== figures.keyed.requests || figures.keyed.retriesResolved !== figures.keyed.retried
      ? 'retries left unresolved'
      : '',
    figures.keyed.refusals.length > 0 ? `refusals: ${figures.keyed.refusals.join(' | ')}` : '',
    figures.observer.unexpected.length > 0 ? `unexpected answers: ${JSON.stringify(figures.observer.unexpected)}` : '',
    figures.observer.missing + figures.observer.torn > 0 ? 'observer posts lost or torn' : '',
    figures.verify.exitCode !== 0 ? 'store-ops verify found differences' : '',
    figures.serviceStayedUp ? '' : 'the service process exited',
  ].filter((failure) => failure !== '');
  if (failures.length > 0) {
    console.log(`\nDRILL FAILED:\n  ${failures.join('\n  ')}`);
    return 1;
  }
  console.log('\ndrill passed');
  return 0;
}

const BENCH_TOKEN = 'drill-bench-admin-token';
const BENCH_STORES = Array.from({ length: 8 }, (_, i) => `B${i + 1}`);
const BENCH_PRODUCTS = Array.from({ length: 200 }, (_, i) => `BP-${i + 1}`);

/** 8 clients, client i posting `lines`-entry requests to store i for `seconds`: entries/s and commits/s over the time to the last answer. */
const writeLoop = (baseUrl: string, lines: number, seconds: number, tag: string) =>
  runWriteLoad({
    token: BENCH_TOKEN,
    stores: BENCH_STORES,
    products: BENCH_PRODUCTS,
    baseUrlOf: () => baseUrl,
    lines,
    seconds,
    tag,
  });

/** The database's side alone: 8 pg connections of their own committing one-row inserts for `seconds` (each commit waits as synchronous_commit says). */
async function rawCommitLoop(url: string, seconds: number) {
  const clients = await Promise.all(
    BENCH_STORES.map(async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  try {
    await clients[0]!.query(
      'create table if not exists drill_commits (id bigint generated always as identity primary key, payload text not null)',
    );
    const startedAt = Date.now();
    const until = startedAt + seconds * 1000;
    const latencies: number[] = [];
    await Promise.all(
      clients.map(async (client, i) => {
        while (Date.now() < until) {
          const at = performance.now();
          await client.query('insert into drill_commits (payload) values ($1)', [`client ${i}`]);
          latencies.push(performance.now() - at);
        }
      }),
    );
    const elapsed = (Date.now() - startedAt) / 1000;
    const round = (ms: number) => Math.round(ms * 100) / 100;
    return {
      entriesPerSecond: latencies.length / elapsed,
      commitsPerSecond: latencies.length / elapsed,
      p50: round(percentile(latencies, 0.5)),
      p99: round(percentile(latencies, 0.99)),
      failures: 0,
    };
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

async function bench(): Promise<number> {
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  let pair: ReplicatedPair | undefined;
  let destroyPair: (() => Promise<void>) | undefined;
  let server: ServerProcess | undefined;
  const teardown = async () => {
    await server?.kill().catch(() => undefined);
    await destroyPair?.().catch(() => undefined);
  };
  teardowns.push(teardown);
  try {
    pair = await createReplicatedPair({ log, onTeardown: (destroy) => (destroyPair = destroy) });
    const app = await buildApp(sharedDatabaseConfig(pair.url, BENCH_TOKEN));
    try {
      const post = async (url: string, payload: object) => {
        const response = await app.inject({
          method: 'POST',
          url,
          payload,
          headers: { authorization: `Bearer ${BENCH_TOKEN}` },
        });
        if (response.statusCode !== 200) throw new Error(`${url}: ${response.body}`);
      };
      await post('/api/v2/public/stores', { stores: BENCH_STORES.map((s) => storeInput(s)) });
      await post('/api/v2/public/products', { products: BENCH_PRODUCTS.map((p) => productInput(p)) });
    } finally {
      await app.close();
    }
    server = await startServer({ DATABASE_URL: pair.url, STORE_OPS_ADMIN_TOKEN: BENCH_TOKEN });
    log(`service on ${pair.url}; warming up`);
    await writeLoop(server.baseUrl, 100, 2, 'warm');

    const levels: SynchronousCommit[] = ['local', 'on', 'remote_apply', 'off'];
    const shapes = [
      { name: 'service, 100-entry posts', lines: 100 },
      { name: 'service, 1-entry posts', lines: 1 },
      { name: 'raw pg, one-row commits', lines: 0 },
    ];
    const results = new Map<string, Array<Awaited<ReturnType<typeof writeLoop>>>>();
    for (let round = 0; round < rounds; round++) {
      const order = levels.map((_, i) => levels[(i + round) % levels.length]!);
      for (const level of order) {
        await pair.setSynchronousCommit(level);
        for (const shape of shapes) {
          const result =
            shape.lines === 0
              ? await rawCommitLoop(pair.primary.url, seconds)
              : await writeLoop(server.baseUrl, shape.lines, seconds, `r${round}-${level}-${shape.lines}`);
          const key = `${level}|${shape.name}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          log(
            `round ${round + 1}/${rounds} synchronous_commit=${level} ${shape.name}: ${result.entriesPerSecond.toFixed(0)} entries/s, ${result.commitsPerSecond.toFixed(0)} commits/s, p50 ${result.p50} ms, p99 ${result.p99} ms${result.failures ? `, ${result.failures} FAILED` : ''}`,
          );
        }
      }
    }
    const state = await pair.replicationState();
    console.log(`machine: ${machine()}`);
    console.log(
      `command: npm run drill -- --bench --seconds ${seconds} --rounds ${rounds} (8 clients, one store each, one service process; the primary with a synchronous standby, sync_state ${state?.sync_state ?? '?'})`,
    );
    console.log('| synchronous_commit | load | entries/s (median) | range | commits/s | p50 ms | p99 ms | vs local |');
    console.log('|---|---|---|---|---|---|---|---|');
    let failed = 0;
    for (const shape of shapes) {
      const local = median((results.get(`local|${shape.name}`) ?? []).map((r) => r.entriesPerSecond));
      for (const level of levels) {
        const runs = results.get(`${level}|${shape.name}`) ?? [];
        failed += runs.reduce((sum, r) => sum + r.failures, 0);
        const eps = runs.map((r) => r.entriesPerSecond);
        console.log(
          `| ${level} | ${shape.name} | ${median(eps).toFixed(0)} | ${Math.min(...eps).toFixed(0)}–${Math.max(...eps).toFixed(0)} | ${median(runs.map((r) => r.commitsPerSecond)).toFixed(0)} | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${(median(eps) / local).toFixed(2)} |`,
        );
      }
    }
    if (failed > 0) {
      console.log(`\nBENCH FAILED: ${failed} posts were not answered 200`);
      return 1;
    }
    return 0;
  } finally {
    await teardown();
  }
}

const reason = replicatedPairUnavailableReason();
if (reason !== undefined) {
  console.error(`npm run drill needs PostgreSQL clusters of its own: ${reason}`);
  process.exit(1);
}
try {
  const code = values.bench ? await bench() : await drill();
  process.exit(interrupted ? 130 : code);
} catch (error) {
  if (!interrupted) console.error(error);
  // What the drill started goes whatever happened (on Ctrl-C the signal's handler exits once it is gone).
  await tearDownAll();
  process.exit(interrupted ? 130 : 1);
}
