import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_HOOKS } from '../../src/plugins/hook-order.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';

const LIMIT = 3;

/**
 * The per-route hooks run in the order plugins/hook-order.ts lists them. Shown on one write
 * route, POST /stores: swapping two entries of that list (or registering one elsewhere)
 * changes an answer here.
 */
for (const dialect of DIALECTS) {
  describe(`per-route hook order on POST /stores (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;
    const post = (token: string | null, key?: string) =>
      t.request({
        method: 'POST',
        url: `${API}/stores`,
        payload: { stores: [storeInput(`H${++counter}`)] },
        headers: key === undefined ? {} : { 'idempotency-key': key },
        token,
      });
    const reservedKeys = async () =>
      (await t.app.ctx.db.selectFrom('idempotency_keys').select('idempotency_key').execute()).map(
        (r) => r.idempotency_key,
      );

    beforeAll(async () => {
      t = await buildTestApp(dialect, { rateLimitPerMinute: LIMIT });
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('is the documented list', () => {
      expect(ROUTE_HOOKS.map((step) => step.name)).toEqual([
        'query names',
        'NUL guard',
        'read-after token',
        'metrics',
        'auth',
        'rate limit',
        'idempotency',
        'list cache',
      ]);
    });

    it('auth before the rate limit: refused credentials count nowhere, each token has its own budget', async () => {
      // More than the limit without a credential, or with a wrong one: all 401, never 429.
      for (let i = 0; i < LIMIT + 2; i++) expect((await post(null)).statusCode).toBe(401);
      for (let i = 0; i < LIMIT + 2; i++) expect((await post('not-a-token')).statusCode).toBe(401);
      const first = await t.token('integration');
      const second = await t.token('integration');
      for (let i = 0; i < LIMIT; i++) expect((await post(first)).statusCode).toBe(200);
      expect((await post(first)).statusCode).toBe(429);
      // Counted per token, not per address: the same client's other token still has its budget.
      expect((await post(second)).statusCode).toBe(200);
    });

    it('auth and rate limit before idempotency: a refused or limited request reserves no key', async () => {
      expect((await post(null, 'key-unauthenticated')).statusCode).toBe(401);
      expect(await reservedKeys()).not.toContain('key-unauthenticated');

      const token = await t.token('integration');
      const applied = await post(token, 'key-unauthenticated');
      expect(applied.statusCode).toBe(200);
      expect(applied.headers['idempotent-replayed']).toBeUndefined();
      expect(await reservedKeys()).toContain('key-unauthenticated');

      for (let i = 1; i < LIMIT; i++) expect((await post(token)).statusCode).toBe(200);
      expect((await post(token, 'key-limited')).statusCode).toBe(429);
      expect(await reservedKeys()).not.toContain('key-limited');
    });

    it('metrics last: refusals are observed too', async () => {
      const metrics = (await t.get('/metrics', null)).body;
      const count = (status: number) => {
        const line = metrics
          .split('\n')
          .find(
            (l) =>
              l.startsWith('http_request_duration_seconds_count{') &&
              l.includes(`route="${API}/stores"`) &&
              l.includes('method="POST"') &&
              l.includes(`status_code="${status}"`),
          );
        return line === undefined ? 0 : Number(line.split(' ').at(-1));
      };
      expect(count(401)).toBeGreaterThanOrEqual(2 * (LIMIT + 2) + 1);
      expect(count(429)).toBeGreaterThanOrEqual(2);
      expect(count(200)).toBeGreaterThanOrEqual(2 * LIMIT + 1);
    });
  });
}
