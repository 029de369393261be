import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { LivenessWatch } from '../../src/db/dialect/postgres-liveness.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startSilentProxy, type SilentProxy } from '../faults/silent-proxy.js';

// The pool's liveness watch (issue 27): a statement waiting on a server that went silent is
// cut once a fresh connection gets no answer either; a statement that is merely slow, on a
// server that answers, is left alone. Short timings (the service's are 10 s and 5 s); the
// real path, through a server process, is test/faults/postgres-silence.test.ts.

const TIMINGS = { stuckAfterMillis: 300, checkEveryMillis: 50, probeTimeoutMillis: 500 };

const url = DIALECTS.find((d) => d.name === 'postgres') ? process.env.TEST_DATABASE_URL : undefined;

describe.skipIf(url === undefined)('PostgreSQL liveness watch', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A pool as openPostgres builds it, watched, to `target` (host and port). */
  const watchedPool = (connectionString: string) => {
    const pool = new pg.Pool({ connectionString, max: 2, connectionTimeoutMillis: 2000 });
    pool.on('error', () => undefined);
    const watch = new LivenessWatch(pool, { connectionString }, TIMINGS);
    pool.on('connect', (client) => {
      watch.track(client);
      client.on('error', () => undefined);
    });
    cleanups.push(async () => {
      watch.stop();
      await pool.end();
    });
    return pool;
  };

  it('leaves a slow statement alone while the server answers', async () => {
    const pool = watchedPool(url!);
    const { rows } = await pool.query('select pg_sleep(1.2), 1 as done');
    expect(rows[0].done).toBe(1);
  });

  it('cuts a statement whose server went silent, and the pool connects afresh when it is back', async () => {
    const target = new URL(url!);
    const proxy: SilentProxy = await startSilentProxy(target.hostname, Number(target.port || 5432));
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(url!);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const pool = watchedPool(viaProxy.toString());
    expect((await pool.query('select 1 as one')).rows[0].one).toBe(1);

    const client = await pool.connect();
    const started = Date.now();
    const waiting = client.query('select pg_sleep(0.2)').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    proxy.silence();
    expect(await waiting).toMatch(/Connection terminated/);
    // Cut after the stuck time and one unanswered question, not after TCP's minutes.
    expect(Date.now() - started).toBeLessThan(5000);
    client.release();

    proxy.restore();
    expect((await pool.query('select 2 as two')).rows[0].two).toBe(2);
  });
});

describe.skipIf(url !== undefined)('PostgreSQL liveness watch', () => {
  it.skip('needs TEST_DATABASE_URL (PostgreSQL)', () => undefined);
});
