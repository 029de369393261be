/**
 * `npm run pgbouncer-bench [-- --seconds 5 --rounds 3]` (issue 31): one service process vs two,
 * directly on PostgreSQL and through an own pgbouncer 1.18 in transaction mode
 * (`?pooler=transaction`), in front of the database at BENCH_DATABASE_URL (default the shared
 * cluster, postgres://postgres:postgres@127.0.0.1:5432/postgres) — a fresh schema of its own,
 * dropped at the end; never the server's configuration.
 *
 * 8 clients, client i posting to store i (with two processes, clients alternate between them),
 * 100-entry and 1-entry posts, for `seconds` per figure; the four setups in a rotated order per
 * round; medians over the rounds, and each setup's ratio to "direct, 1 process".
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { productInput, storeInput } from '../test/helpers/factories.js';
import { sharedDatabaseConfig, startServer, type ServerProcess } from '../test/helpers/server-process.js';
import { pgbouncerUnavailableReason, startPgbouncer, type OwnPgbouncer } from '../test/faults/pgbouncer.js';
import { median, runWriteLoad } from './write-load.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const TOKEN = 'pgbouncer-bench-admin-token';
const STORES = Array.from({ length: 8 }, (_, i) => `PB${i + 1}`);
const PRODUCTS = Array.from({ length: 200 }, (_, i) => `PBP-${i + 1}`);
const log = (line: string) => console.error(`[pgbouncer-bench] ${line}`);

/** 8 clients, client i posting `lines`-entry requests to store i on `servers[i % servers.length]` for `seconds`. */
const writeLoop = (servers: readonly ServerProcess[], lines: number, tag: string) =>
  runWriteLoad({
    token: TOKEN,
    stores: STORES,
    products: PRODUCTS,
    baseUrlOf: (i) => servers[i % servers.length]!.baseUrl,
    lines,
    seconds,
    tag,
  });

const reason = pgbouncerUnavailableReason();
if (reason !== undefined) {
  console.error(`npm run pgbouncer-bench needs pgbouncer: ${reason}`);
  process.exit(1);
}

const schema = `pgb_bench_${randomBytes(4).toString('hex')}`;
let bouncer: OwnPgbouncer | undefined;
const servers: ServerProcess[] = [];
let code = 0;
try {
  bouncer = await startPgbouncer(serverUrl);
  const direct = `${serverUrl}${serverUrl.includes('?') ? '&' : '?'}schema=${schema}`;
  const pooled = `${bouncer.url}?schema=${schema}&pooler=transaction`;
  const app = await buildApp(sharedDatabaseConfig(direct, TOKEN));
  try {
    const post = async (url: string, payload: object) => {
      const response = await app.inject({
        method: 'POST',
        url,
        payload,
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.body}`);
    };
    await post('/api/v2/public/stores', { stores: STORES.map((s) => storeInput(s)) });
    await post('/api/v2/public/products', { products: PRODUCTS.map((p) => productInput(p)) });
  } finally {
    await app.close();
  }
  const env = (url: string) => ({ DATABASE_URL: url, STORE_OPS_ADMIN_TOKEN: TOKEN });
  servers.push(...(await Promise.all([direct, direct, pooled, pooled].map((url) => startServer(env(url))))));
  const setups = [
    { name: 'direct, 1 process', servers: servers.slice(0, 1) },
    { name: 'direct, 2 processes', servers: servers.slice(0, 2) },
    { name: 'pgbouncer, 1 process', servers: servers.slice(2, 3) },
    { name: 'pgbouncer, 2 processes', servers: servers.slice(2, 4) },
  ];
  const shapes = [
    { name: '100-entry posts', lines: 100 },
    { name: '1-entry posts', lines: 1 },
  ];
  log(`warming up ${servers.length} processes`);
  for (const setup of setups) await writeLoop(setup.servers, 100, `warm-${setup.name}`);
  const results = new Map<string, Array<Awaited<ReturnType<typeof writeLoop>>>>();
  for (let round = 0; round < rounds; round++) {
    for (const shape of shapes) {
      for (const setup of setups.map((_, i) => setups[(i + round) % setups.length]!)) {
        const result = await writeLoop(setup.servers, shape.lines, `r${round}-${setup.name}-${shape.lines}`);
        const key = `${setup.name}|${shape.name}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        log(
          `round ${round + 1}/${rounds} ${setup.name}, ${shape.name}: ${result.entriesPerSecond.toFixed(0)} entries/s, p50 ${result.p50} ms, p99 ${result.p99} ms${result.failures ? `, ${result.failures} FAILED` : ''}`,
        );
      }
    }
  }
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${(await serverVersion()) ?? 'PostgreSQL ?'}, pgbouncer 1.18 (transaction mode, default_pool_size 20)`,
  );
  console.log(
    `command: npm run pgbouncer-bench -- --seconds ${seconds} --rounds ${rounds} (8 clients, one store each; with 2 processes, clients alternate)`,
  );
  console.log('| setup | load | entries/s (median) | range | p50 ms | p99 ms | vs direct, 1 process |');
  console.log('|---|---|---|---|---|---|---|');
  for (const shape of shapes) {
    const base = median((results.get(`direct, 1 process|${shape.name}`) ?? []).map((r) => r.entriesPerSecond));
    for (const setup of setups) {
      const runs = results.get(`${setup.name}|${shape.name}`) ?? [];
      if (runs.some((r) => r.failures > 0)) code = 1;
      const eps = runs.map((r) => r.entriesPerSecond);
      console.log(
        `| ${setup.name} | ${shape.name} | ${median(eps).toFixed(0)} | ${Math.min(...eps).toFixed(0)}–${Math.max(...eps).toFixed(0)} | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${(median(eps) / base).toFixed(2)} |`,
      );
    }
  }
  if (code !== 0) console.log('\nBENCH FAILED: some posts were not answered 200');
} catch (error) {
  console.error(error);
  code = 1;
} finally {
  await Promise.all(servers.map((server) => server.kill().catch(() => undefined)));
  await bouncer?.stop().catch(() => undefined);
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}
process.exit(code);

async function serverVersion(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
    const { rows } = await client.query<{ v: string }>("select split_part(version(), ' on ', 1) as v");
    return rows[0]?.v;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}
