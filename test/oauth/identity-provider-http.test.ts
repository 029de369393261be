import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRoleMap } from '../../src/modules/identity-provider/claims.js';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, stockLogInput, storeInput } from '../helpers/factories.js';
import { startTestProvider, type TestProvider } from '../helpers/identity-provider.js';

// Issue 41: with AUTH_ISSUER, the chain provider's access tokens reach the API like our own
// credentials: role and stores from the claims, 403 for claims that map to nothing, 401 with
// WWW-Authenticate for bad tokens, 503 with Retry-After while the provider cannot be asked.
// An operator's admin token shaped like a JWT still works (it is looked up as a token).

for (const dialect of DIALECTS) {
  describe(`the chain's identity provider through the API (${dialect.name})`, () => {
    let t: TestApp;
    let provider: TestProvider;
    const asBearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const stockOf = (store: string, token: string) =>
      t.app.inject({ method: 'GET', url: `${API}/stores/${store}/products/IP1/stock`, headers: asBearer(token) });

    beforeAll(async () => {
      provider = await startTestProvider({ path: '/realms/chain' });
      t = await buildTestApp(dialect, {
        externalIssuer: {
          issuer: provider.issuer,
          audience: provider.audience,
          mapping: { roleClaims: ['roles', 'scp'], roleMap: defaultRoleMap(), storesClaim: 'stores' },
          clockSkewSeconds: 60,
        },
      });
      expect((await t.post(`${API}/stores`, { stores: [storeInput('IS1'), storeInput('IS2')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: [productInput('IP1')] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await provider.close();
      await dialect.cleanup();
    });

    it('reads and writes stock with an integration token of the provider, as one stable caller', async () => {
      const token = await provider.sign({ sub: 'erp-app', roles: ['StoreOps.Integration'], azp: 'erp' });
      const post = await t.app.inject({
        method: 'POST',
        url: `${API}/stores/IS1/products/stock/storeproductlogs`,
        headers: asBearer(token),
        payload: { storeproductlog: [stockLogInput('IP1', 5, new Date(Date.now() - 60_000).toISOString())] },
      });
      expect(post.statusCode, post.body).toBe(200);
      const read = await stockOf('IS1', token);
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().products[0].most_likely_stock).toBe(5);
      const current = await t.app.inject({ method: 'GET', url: `${API}/tokens/current`, headers: asBearer(token) });
      expect(current.json()).toMatchObject({ name: 'erp', role: 'integration', stores: null, kind: 'external' });
      // The entry names the provider's caller as its author.
      const row = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select('created_by')
        .where('id', '=', post.json().data[0])
        .executeTakeFirstOrThrow();
      expect(row.created_by).toBe('erp');
    });

    it('a store-role token of the provider sees only the stores of its claim', async () => {
      const token = await provider.sign({ sub: 'clerk-7', roles: ['StoreOps.Store'], stores: 'IS1' });
      expect((await stockOf('IS1', token)).statusCode).toBe(200);
      const other = await stockOf('IS2', token);
      expect(other.statusCode).toBe(403);
      const stores = await t.app.inject({ method: 'GET', url: `${API}/stores`, headers: asBearer(token) });
      expect(stores.statusCode).toBe(200);
      const write = await t.app.inject({
        method: 'POST',
        url: `${API}/products`,
        headers: asBearer(token),
        payload: { products: [productInput('IP2')] },
      });
      expect(write.statusCode).toBe(403);
    });

    it('refuses claims that map to no role with 403 and insufficient_scope, never a default role', async () => {
      for (const claims of [{ roles: ['Reader'] }, { scp: 'User.Read' }, { roles: ['StoreOps.Store'] }]) {
        const response = await stockOf('IS1', await provider.sign(claims));
        expect(response.statusCode, JSON.stringify(claims)).toBe(403);
        expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="insufficient_scope"/);
      }
    });

    it('refuses bad tokens with 401 and WWW-Authenticate invalid_token', async () => {
      const good = await provider.sign({ roles: ['admin'] });
      const tampered = `${good.slice(0, -6)}AAAAAA`;
      for (const token of [
        tampered,
        await provider.sign({ roles: ['admin'] }, { expiresIn: -600 }),
        await provider.sign({ roles: ['admin'] }, { audience: 'api://someone-else' }),
        await provider.sign({ roles: ['admin'] }, { issuer: 'https://idp.example/realms/other' }),
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: provider.issuer, roles: ['admin'] })).toString('base64url')}.`,
      ]) {
        const response = await stockOf('IS1', token);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
      }
    });

    it('answers 503 with Retry-After while the provider cannot be asked about a key it has not seen', async () => {
      provider.setDown(true);
      try {
        // A known key still verifies.
        expect((await stockOf('IS1', await provider.sign({ roles: ['read'] }))).statusCode).toBe(200);
      } finally {
        provider.setDown(false);
      }
      // A process that never had the keys, while the provider is down: the token may be good.
      const down = await startTestProvider();
      down.setDown(true);
      const fresh = await buildTestApp(dialect, {
        externalIssuer: {
          issuer: down.issuer,
          audience: down.audience,
          mapping: { roleClaims: ['roles'], roleMap: defaultRoleMap(), storesClaim: 'stores' },
          clockSkewSeconds: 60,
        },
      });
      try {
        const response = await fresh.app.inject({
          method: 'GET',
          url: `${API}/stores`,
          headers: asBearer(await down.sign({ roles: ['read'] })),
        });
        expect(response.statusCode, response.body).toBe(503);
        expect(response.json()).toMatchObject({ code: 'UNAVAILABLE' });
        expect(response.headers['retry-after']).toBe('5');
      } finally {
        await fresh.close();
        await down.close();
      }
    });

    it('still admits the admin token and sot_ tokens; a JWT-shaped admin token is looked up as a token', async () => {
      expect((await stockOf('IS1', ADMIN_TOKEN)).statusCode).toBe(200);
      const dotted = await buildTestApp(dialect, { adminToken: 'ops.bootstrap.secret-2026' });
      try {
        const response = await dotted.app.inject({
          method: 'GET',
          url: `${API}/stores`,
          headers: asBearer('ops.bootstrap.secret-2026'),
        });
        expect(response.statusCode, response.body).toBe(200);
        const unknown = await dotted.app.inject({
          method: 'GET',
          url: `${API}/stores`,
          headers: asBearer('ops.bootstrap.wrong'),
        });
        expect(unknown.statusCode).toBe(401);
        expect(unknown.headers['www-authenticate']).toMatch(/error="invalid_token"/);
      } finally {
        await dotted.close();
      }
    });
  });
}
