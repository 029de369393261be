import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { sharedDatabaseConfig } from '../helpers/server-process.js';
import { createReplicatedPair, replicatedPairUnavailableReason, type ReplicatedPair } from './pg-pair.js';
import { stockLogBody } from './stock-posts.js';

// Issue 31 "Reads scale out, and a client still reads its own writes", on a real streaming
// standby of the test's own (pg-pair.ts): the service with DATABASE_URL on the primary and
// DATABASE_READ_URL on the standby. A write answers `x-read-after`; a GET sending it back is
// served by the standby once it has replayed it (`x-served-by: standby`), by the primary
// within ~1 s when the standby's replay is paused; tokenless reads leave a standby past
// DATABASE_READ_MAX_LAG_SECONDS; a stopped standby sends every read to the primary, none fails.

const TOKEN = 'faults-read-scaling-admin-token';
const API = '/api/v2/public';
const MAX_LAG_SECONDS = 1;
const reason = replicatedPairUnavailableReason();
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

describe.skipIf(reason !== undefined)('reads on a streaming standby with read-your-writes (issue 31)', () => {
  let pair: ReplicatedPair;
  let app: FastifyInstance;
  let stored = 0;

  const standbySql = async (text: string) => {
    const client = new pg.Client({ connectionString: pair.standby.url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  const headers = { authorization: `Bearer ${TOKEN}` };
  const post = async (lines: number) => {
    const answer = await app.inject({
      method: 'POST',
      url: `${API}/stores/R1/products/stock/storeproductlogs`,
      headers,
      payload: stockLogBody(`r-${stored}`, ['R-1'], lines),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    stored += lines * 1; // quantity 1 + (i % 3): one line of quantity 1
    return answer;
  };
  const stockOf = async (token?: string) => {
    const started = Date.now();
    const answer = await app.inject({
      method: 'GET',
      url: `${API}/stores/R1/products/R-1/stock`,
      headers: token === undefined ? headers : { ...headers, 'x-read-after': token },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json() as { products: Array<{ most_likely_stock: number }> };
    return {
      servedBy: answer.headers['x-served-by'],
      stock: body.products[0]!.most_likely_stock,
      millis: Date.now() - started,
    };
  };
  const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const metricValue = (text: string, name: string) =>
    Number(new RegExp(`^${name}\\{standby="[^"]+"\\} (\\S+)$`, 'm').exec(text)?.[1]);
  const until = async (what: () => Promise<boolean>, millis: number) => {
    const deadline = Date.now() + millis;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await sleep(50);
    }
  };

  beforeAll(async () => {
    pair = await createReplicatedPair();
    app = await buildApp({
      ...sharedDatabaseConfig(pair.primary.url, TOKEN),
      databaseReadUrl: pair.standby.url,
      databaseReadMaxLagSeconds: MAX_LAG_SECONDS,
    });
    expect(
      (await app.inject({ method: 'POST', url: `${API}/stores`, headers, payload: { stores: [storeInput('R1')] } }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await app.inject({
          method: 'POST',
          url: `${API}/products`,
          headers,
          payload: { products: [productInput('R-1')] },
        })
      ).statusCode,
    ).toBe(200);
    await app.ctx.handle.reads!.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await pair?.destroy();
  });

  it('a write answers x-read-after; a read sending it back is served by the standby and sees the write', async () => {
    for (let i = 0; i < 10; i++) {
      const write = await post(1);
      const token = write.headers['x-read-after'];
      expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      const read = await stockOf(String(token));
      expect(read).toMatchObject({ servedBy: 'standby', stock: stored });
    }
    // Every route marked for standbys answers there (none writes or locks).
    for (const url of [
      '/stores/R1/orders/customerorders',
      '/orders/deliveries',
      '/stores/R1/externalcountinglines/unresolved',
      '/stores/R1/locations',
      '/stores/R1/locations/products?location_code=A',
      '/stores/R1/locations/A/products',
      '/stores/R1/productlists',
      '/stores/R1/products/R-1/stock',
      '/stores/R1/storeproducts/R-1/surrounding',
    ]) {
      const answer = await app.inject({ method: 'GET', url: `${API}${url}`, headers });
      expect({ url, status: answer.statusCode < 500, servedBy: answer.headers['x-served-by'] }).toEqual({
        url,
        status: true,
        servedBy: 'standby',
      });
    }
    // The ERP pulls and the feed stay on the primary.
    for (const url of [
      '/products/stock/storeproductlogs',
      '/storeproducts/stock',
      '/orders/receipts?receipt_type=1&last_modified_date=2020-01-01T00:00:00Z',
      '/events',
    ]) {
      const answer = await app.inject({ method: 'GET', url: `${API}${url}`, headers });
      expect({
        url,
        body: answer.statusCode === 200 ? '' : answer.body,
        status: answer.statusCode,
        servedBy: answer.headers['x-served-by'],
      }).toEqual({ url, body: '', status: 200, servedBy: 'primary' });
    }
    const text = await metrics();
    expect(metricValue(text, 'db_standby_up')).toBe(1);
    expect(metricValue(text, 'db_standby_serving')).toBe(1);
    expect(text).toMatch(/^db_standby_replay_lag_seconds\{standby="127\.0\.0\.1:\d+"\} /m);
    expect(text).toMatch(/^db_standby_replay_lag_bytes\{standby="127\.0\.0\.1:\d+"\} /m);
  });

  it('a malformed token is a 400 naming the header', async () => {
    for (const bad of ['nope', '1/2/3', '123456789/0', '']) {
      const answer = await app.inject({
        method: 'GET',
        url: `${API}/stores/R1/products/R-1/stock`,
        headers: { ...headers, 'x-read-after': bad },
      });
      expect(answer.statusCode, bad).toBe(400);
      expect(answer.body).toContain('x-read-after');
    }
  });

  it('replay paused: a token read falls back to the primary within ~1 s; tokenless reads leave the standby once past the max lag', async () => {
    await standbySql('select pg_wal_replay_pause()');
    try {
      const write = await post(1);
      const read = await stockOf(String(write.headers['x-read-after']));
      expect(read.servedBy).toBe('primary');
      expect(read.stock).toBe(stored);
      expect(read.millis).toBeGreaterThanOrEqual(900);
      expect(read.millis).toBeLessThan(2000);
      // Past the max lag, the standby is left out of tokenless reads too, and /metrics says so.
      await until(async () => metricValue(await metrics(), 'db_standby_serving') === 0, 5000);
      expect(metricValue(await metrics(), 'db_standby_replay_lag_seconds')).toBeGreaterThan(MAX_LAG_SECONDS);
      expect(metricValue(await metrics(), 'db_standby_replay_lag_bytes')).toBeGreaterThan(0);
      const tokenless = await stockOf();
      expect(tokenless).toMatchObject({ servedBy: 'primary', stock: stored });
    } finally {
      await standbySql('select pg_wal_replay_resume()');
    }
    await until(async () => metricValue(await metrics(), 'db_standby_serving') === 1, 5000);
    expect(await stockOf()).toMatchObject({ servedBy: 'standby', stock: stored });
  });

  it('a standby that is down is left out: every read is answered, by the primary', async () => {
    await pair.standby.stopImmediate();
    // At once (before the next poll): the read connects to the primary instead.
    for (let i = 0; i < 3; i++) expect((await stockOf()).stock).toBe(stored);
    await until(async () => metricValue(await metrics(), 'db_standby_up') === 0, 3000);
    expect(await stockOf()).toMatchObject({ servedBy: 'primary', stock: stored });
    // A token read too (the token of the last write; nothing is written now: the primary's
    // synchronous standby is gone, so a commit would wait for it).
    expect(await stockOf('0/1')).toMatchObject({ servedBy: 'primary', stock: stored });
  });
});

describe.skipIf(reason === undefined)('reads on a streaming standby with read-your-writes (issue 31)', () => {
  it.skip(`needs PostgreSQL clusters of its own: ${reason}`, () => undefined);
});
