import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { sharedDatabaseConfig, startServer, type ServerProcess } from '../helpers/server-process.js';
import { createOwnCluster, ownClusterUnavailableReason, type OwnCluster } from './pg-cluster.js';
import { postStock as postStockTo, storedPosts, type PostOutcome } from './stock-posts.js';

// "Database gone, service stays" (PRODUCT §2, issue 27), as an operator's bad day goes: clients
// post stock to a real server process (`src/server.ts`, as `npm start` runs it) while its
// PostgreSQL is restarted with `-m immediate` (every backend killed mid-statement, as in a crash
// or failover) and then stopped for a few seconds. The cluster is this test's own, on its own
// port, so no other test file sees it go. What must hold: the process keeps running; /readyz is
// 503 while the database is down and 200 after; every answer during the outage is 503
// UNAVAILABLE with Retry-After (never a 500, never a hang); writes succeed within 5 s of the
// database answering again; every 2xx write is stored exactly once, every other write whole or
// not at all; `verify` is clean.

const TOKEN = 'faults-postgres-admin-token';
const API = '/api/v2/public';
const PRODUCTS = ['F-1', 'F-2', 'F-3', 'F-4'];
/** A client gives up on an answer after this long: anything slower counts as a hang. */
const ANSWER_TIMEOUT_MILLIS = 15_000;
const RECONNECT_LIMIT_MILLIS = 5000;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

const postStock = (server: ServerProcess, reference: string, lines: number) =>
  postStockTo(server.baseUrl, {
    token: TOKEN,
    store: 'F1',
    reference,
    products: PRODUCTS,
    lines,
    timeoutMillis: ANSWER_TIMEOUT_MILLIS,
  });

const reason = ownClusterUnavailableReason();

describe.skipIf(reason !== undefined)('PostgreSQL restarts under load: the service stays (issue 27)', () => {
  let cluster: OwnCluster;
  let server: ServerProcess;
  let serverLog = '';

  beforeAll(async () => {
    cluster = await createOwnCluster();
    const app = await buildApp(sharedDatabaseConfig(cluster.url, TOKEN));
    try {
      const inject = (url: string, payload: unknown) =>
        app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: `Bearer ${TOKEN}` } });
      expect((await inject(`${API}/stores`, { stores: [storeInput('F1')] })).statusCode).toBe(200);
      expect((await inject(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) })).statusCode).toBe(
        200,
      );
    } finally {
      await app.close();
    }
    server = await startServer({ DATABASE_URL: cluster.url });
    server.child.stdout?.on('data', (chunk) => (serverLog += chunk));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  it('keeps running, answers 503 with Retry-After while the database is gone, and writes again within 5 s', async () => {
    const outcomes: PostOutcome[] = [];
    const readiness: Array<{ at: number; status: number | 'no answer' }> = [];
    let running = true;
    let sequence = 0;

    // Four clients of small posts and one of 500-line posts, whose transactions are long
    // enough to be cut in the middle. After a refusal a client tries again 100 ms later
    // (a real one would honour Retry-After; here the reconnect is what is measured).
    const client = (lines: number) => async () => {
      while (running) {
        const outcome = await postStock(server, `fault-${lines}-${++sequence}`, lines);
        outcomes.push(outcome);
        if (outcome.status !== 200) await sleep(100);
      }
    };
    const probe = async () => {
      while (running) {
        const status = await fetch(`${server.baseUrl}/readyz`, {
          signal: AbortSignal.timeout(ANSWER_TIMEOUT_MILLIS),
        }).then(
          (response) => response.status,
          () => 'no answer' as const,
        );
        readiness.push({ at: Date.now(), status });
        await sleep(100);
      }
    };
    const load = Promise.all([client(3)(), client(3)(), client(3)(), client(3)(), client(500)(), probe()]);

    await sleep(1000);
    // 1. Every backend killed at once; pg_ctl returns when the server accepts connections again.
    const restartAt = Date.now();
    await cluster.restartImmediate();
    const restartedAt = Date.now();
    await sleep(2000);

    // 2. Gone for a few seconds.
    await cluster.stopImmediate();
    const downAt = Date.now();
    // The moment the database answers again, seen by a client of its own (pg_ctl's wait for
    // the server may return a little after it).
    const answering = (async () => {
      for (;;) {
        const client = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 1000 });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('select 1');
          return Date.now();
        } catch {
          await sleep(20);
        } finally {
          await client.end().catch(() => undefined);
        }
      }
    })();
    await sleep(1500);
    const metricsWhileDown = await fetch(`${server.baseUrl}/metrics`).then((response) => response.text(), String);
    const healthWhileDown = await fetch(`${server.baseUrl}/healthz`).then((response) => response.status, String);
    await sleep(1000);
    await cluster.start();
    const upAt = Math.min(Date.now(), await answering);
    await sleep(3000);
    running = false;
    await load;

    // The process is alive and its probes say so.
    expect(server.child.exitCode).toBeNull();
    expect(server.child.signalCode).toBeNull();
    expect(healthWhileDown).toBe(200);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    expect(readiness.filter((r) => r.at > downAt + 500 && r.at < upAt).map((r) => r.status)).toContain(503);
    expect(readiness.every((r) => r.status === 200 || r.status === 503)).toBe(true);
    expect(metricsWhileDown).toMatch(/^db_up 0$/m);

    // Every answer is a 200 or a 503 UNAVAILABLE with Retry-After: no 500, no hang.
    const refused = outcomes.filter((o) => o.status !== 200);
    const unexpected = outcomes.filter(
      (o) =>
        o.status !== 200 && !(o.status === 503 && o.code === 'UNAVAILABLE' && /^[1-9]\d*$/.test(o.retryAfter ?? '')),
    );
    expect(unexpected).toEqual([]);
    expect(refused.filter((o) => o.startedAt > downAt && o.endedAt < upAt).length).toBeGreaterThan(0);

    // Writes succeed again within 5 s of the database answering.
    const firstWriteAfter = (moment: number) =>
      Math.min(...outcomes.filter((o) => o.status === 200 && o.startedAt >= moment).map((o) => o.endedAt));
    const afterRestart = firstWriteAfter(restartAt) - restartedAt;
    const afterStart = firstWriteAfter(downAt) - upAt;
    expect(afterRestart).toBeLessThan(RECONNECT_LIMIT_MILLIS);
    expect(afterStart).toBeLessThan(RECONNECT_LIMIT_MILLIS);
    expect(outcomes.filter((o) => o.status === 200 && o.startedAt > upAt).length).toBeGreaterThan(0);

    // What an operator sees: the loss is logged, counted and the refusals counted by cause.
    expect(serverLog).toContain('"msg":"database unavailable"');
    const metrics = await fetch(`${server.baseUrl}/metrics`).then((response) => response.text());
    expect(metrics).toMatch(/^db_up 1$/m);
    expect(metrics).toMatch(/^db_connections_lost_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^db_fault_answers_total\{fault="unavailable"\} [1-9]\d*$/m);

    // Stored: every 2xx exactly once, every other write whole or not at all; verify clean.
    // (A refused post stored whole committed before its answer was lost with the connection:
    // the client's retry with the same Idempotency-Key resolves it, PRODUCT §3.)
    const { missing, torn, unknown, appliedButRefused, violations } = await storedPosts(
      cluster.url,
      TOKEN,
      'fault-',
      outcomes,
    );
    expect({ missing, torn, unknown, violations }).toEqual({ missing: [], torn: [], unknown: [], violations: [] });
    const acknowledged = outcomes.filter((o) => o.status === 200);
    const cut = refused.filter((o) => o.lines === 500).length;
    console.log(
      `[faults] PostgreSQL restart: ${outcomes.length} posts (${acknowledged.length} 200, ${refused.length} 503 UNAVAILABLE with Retry-After, ` +
        `${cut} of them 500-line posts, ${appliedButRefused} committed before the answer was lost); ` +
        `first write after "restart -m immediate" returned: ${afterRestart} ms; after a ${upAt - downAt} ms stop, first write after start returned: ${afterStart} ms; ` +
        `/readyz 503 ${readiness.filter((r) => r.status === 503).length} times`,
    );
  }, 120_000);

  it('a server that turned read-only (a standby after a failover) is a 503 for writes; writes resume when it is a primary again', async () => {
    // default_transaction_read_only stands in for a demoted primary: every write is refused
    // with 25006, on the pool's existing connections too (they re-read the configuration).
    // (A plain client: the app writes as it starts, so it cannot be built on a read-only server.)
    const setReadOnly = async (on: boolean) => {
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      try {
        await client.query(`alter system set default_transaction_read_only = ${on ? 'on' : 'off'}`);
        await client.query('select pg_reload_conf()');
      } finally {
        await client.end();
      }
      await sleep(200);
    };
    await setReadOnly(true);
    try {
      const refused = await postStock(server, 'standby-refused', 3);
      expect(refused).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
      expect(refused.retryAfter).toMatch(/^[1-9]\d*$/);
      const read = await fetch(`${server.baseUrl}${API}/stores/F1/products/F-1/stock`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(read.status).toBe(200);
    } finally {
      await setReadOnly(false);
    }
    expect(await postStock(server, 'standby-after', 3)).toMatchObject({ status: 200 });
  }, 60_000);
});

describe.skipIf(reason === undefined)('PostgreSQL restarts under load: the service stays (issue 27)', () => {
  it.skip(`needs a PostgreSQL cluster of its own: ${reason}`, () => undefined);
});
