import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertRouteAccess, type Principal } from '../../src/shared/access.js';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

/** GET /tokens/current (added for the store console, docs/console.md): a token describes itself. */
for (const dialect of DIALECTS) {
  describe(`GET /tokens/current (${dialect.name})`, () => {
    let t: TestApp;
    const url = `${API}/tokens/current`;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('tells every role its name, role, stores and expiry, and never the token itself', async () => {
      const admin = await t.get(url, ADMIN_TOKEN);
      expect(admin.statusCode, admin.body).toBe(200);
      expect(admin.json()).toEqual({ name: 'admin', role: 'admin', stores: null, expires_at: null });

      const expiry = Date.now() + 3_600_000;
      const store = await t.token('store', ['S1', 'S2'], expiry);
      const answer = await t.get(url, store);
      expect(answer.json()).toMatchObject({
        role: 'store',
        stores: ['S1', 'S2'],
        expires_at: new Date(expiry).toISOString(),
      });
      expect(answer.body).not.toContain(store);

      for (const role of ['integration', 'read'] as const) {
        const response = await t.get(url, await t.token(role));
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toMatchObject({ role, stores: null, expires_at: null });
      }
      // A store token with no stores sees none (PRODUCT §4), and is told so.
      expect((await t.get(url, await t.token('store', []))).json()).toMatchObject({ role: 'store', stores: [] });
    });

    it('refuses a missing or unknown credential like every API route', async () => {
      for (const token of [null, 'sot_unknown']) {
        const response = await t.get(url, token);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      }
    });

    it('is in the OpenAPI document', async () => {
      const document = (await t.get(`${API}/openapi.json`, null)).json() as {
        paths: Record<string, { get?: unknown }>;
      };
      expect(document.paths[`${API}/tokens/current`]?.get).toBeDefined();
    });
  });
}

describe('the `any` access rule', () => {
  const reader: Principal = { key: 'token 1', kind: 'token', tokenId: 1, name: 'reader', role: 'read', stores: null };
  it('admits every role to reads only: a write marked so still meets the role checks', () => {
    expect(() => assertRouteAccess(reader, 'any', 'GET')).not.toThrow();
    expect(() => assertRouteAccess(reader, 'any', 'POST')).toThrow(/read role/);
  });
});
