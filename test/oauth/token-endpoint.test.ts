import { generateKeyPair, SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';
import { rotateSigningKey } from '../../src/modules/oauth/keys.js';

const FORM = 'application/x-www-form-urlencoded';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectOAuthError(response: LightMyRequestResponse, status: number, error: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({ error, error_description: expect.any(String) });
  expect(body.success).toBeUndefined();
  expect(response.headers['cache-control']).toBe('no-store');
}

for (const dialect of DIALECTS) {
  describe(`OAuth2 client credentials (issue 41, PRODUCT §4, ${dialect.name})`, () => {
    let t: TestApp;
    let integration: { client_id: string; client_secret: string };
    let storeClient: { client_id: string; client_secret: string };

    const tokenRequest = (form: Record<string, string> | string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': FORM, ...headers },
        payload: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
      });
    const fetchToken = async (client: { client_id: string; client_secret: string }, scope?: string) => {
      const response = await tokenRequest({ grant_type: 'client_credentials', ...client, ...(scope ? { scope } : {}) });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { access_token: string; token_type: string; expires_in: number; scope: string };
    };
    const createClient = async (body: Record<string, unknown>) => {
      const response = await t.post(`${API}/clients`, body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { client_id: string; client_secret: string };
    };

    beforeAll(async () => {
      // The failure limit has its own test (its own app): here every refusal comes from one address.
      t = await buildTestApp(dialect, { oauthFailedAuthPerMinute: 1000 });
      expect((await t.post(`${API}/stores`, { stores: ['S1', 'S2', 'S3'].map((n) => storeInput(n)) })).statusCode).toBe(
        200,
      );
      integration = await createClient({ name: 'erp', role: 'integration' });
      storeClient = await createClient({ name: 'till-s1', role: 'store', stores: ['S1', 'S2'] });
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('issues an RFC 9068 access token for form credentials, no-store, that the API accepts', async () => {
      const response = await tokenRequest({ grant_type: 'client_credentials', ...integration });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.pragma).toBe('no-cache');
      const body = response.json();
      expect(body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'integration',
      });
      const header = decodeProtectedHeader(body.access_token);
      expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: expect.any(String) });
      const claims = decodeJwt(body.access_token);
      expect(claims).toMatchObject({
        sub: integration.client_id,
        client_id: integration.client_id,
        scope: 'integration',
        iss: t.app.oauth.issuer,
        aud: t.app.oauth.audience,
      });
      expect(claims.exp! - claims.iat!).toBe(3600);
      expect(typeof claims.jti).toBe('string');
      const stores = await t.get(`${API}/stores`, body.access_token);
      expect(stores.statusCode, stores.body).toBe(200);
      expect(stores.json().total_count).toBe(3);
      const current = await t.get(`${API}/tokens/current`, body.access_token);
      expect(current.json()).toMatchObject({
        name: 'erp',
        role: 'integration',
        stores: null,
        kind: 'client',
        client_id: integration.client_id,
        expires_at: expect.any(String),
      });
    });

    it('takes HTTP Basic client authentication (form-urlencoded id and secret, RFC 6749 §2.3.1)', async () => {
      const basic = Buffer.from(
        `${encodeURIComponent(integration.client_id)}:${encodeURIComponent(integration.client_secret)}`,
      ).toString('base64');
      const response = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
      expect(response.statusCode, response.body).toBe(200);
      const wrong = Buffer.from(`${integration.client_id}:nope`).toString('base64');
      const refused = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: `Basic ${wrong}` });
      expectOAuthError(refused, 401, 'invalid_client');
      expect(refused.headers['www-authenticate']).toMatch(/^Basic /);
      // Two methods at once is a malformed request.
      expectOAuthError(
        await tokenRequest(
          { grant_type: 'client_credentials', client_secret: integration.client_secret },
          { authorization: `Basic ${basic}` },
        ),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials' }, { authorization: 'Basic !!!' }),
        401,
        'invalid_client',
      );
      expectOAuthError(
        await tokenRequest(
          { grant_type: 'client_credentials' },
          { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` },
        ),
        401,
        'invalid_client',
      );
    });

    it('refuses bad requests in RFC 6749 §5.2 form, never the API envelope and never a 500', async () => {
      expectOAuthError(
        await tokenRequest({ client_id: integration.client_id, client_secret: integration.client_secret }),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', client_secret: integration.client_secret }),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', client_id: integration.client_id }),
        400,
        'invalid_request',
      );
      expectOAuthError(await tokenRequest({ grant_type: 'password', ...integration }), 400, 'unsupported_grant_type');
      expectOAuthError(
        await tokenRequest({ grant_type: 'authorization_code', ...integration }),
        400,
        'unsupported_grant_type',
      );
      const wrongSecret = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: integration.client_id,
        client_secret: 'socs_wrong',
      });
      expectOAuthError(wrongSecret, 401, 'invalid_client');
      expect(wrongSecret.headers['www-authenticate']).toBeDefined();
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', client_id: 'soc_unknown', client_secret: 'x' }),
        401,
        'invalid_client',
      );
      // Duplicated parameters (RFC 6749 §3.2).
      expectOAuthError(
        await tokenRequest(
          `grant_type=client_credentials&grant_type=client_credentials&client_id=${integration.client_id}&client_secret=${integration.client_secret}`,
        ),
        400,
        'invalid_request',
      );
      // JSON instead of a form.
      const json = await t.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ grant_type: 'client_credentials', ...integration }),
      });
      expectOAuthError(json, 400, 'invalid_request');
      const malformedJson = await t.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'application/json' },
        payload: '{"grant_type":',
      });
      expectOAuthError(malformedJson, 400, 'invalid_request');
      const text = await t.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { 'content-type': 'text/plain' },
        payload: 'grant_type=client_credentials',
      });
      expectOAuthError(text, 400, 'invalid_request');
      expectOAuthError(await t.app.inject({ method: 'POST', url: '/oauth2/token' }), 400, 'invalid_request');
      // A huge body: 413, in OAuth's form.
      expectOAuthError(
        await tokenRequest(`grant_type=client_credentials&scope=${'a'.repeat(200_000)}`),
        413,
        'invalid_request',
      );
      // Bytes that are not UTF-8, a NUL, a huge client_id.
      expectOAuthError(
        await t.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          headers: { 'content-type': FORM },
          payload: Buffer.from([0x67, 0x3d, 0xff, 0xfe]),
        }),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', client_id: `a\u0000b`, client_secret: 'x' }),
        400,
        'invalid_request',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', client_id: 'c'.repeat(10_000), client_secret: 'x' }),
        401,
        'invalid_client',
      );
      expectOAuthError(await tokenRequest('%zz=%ff&grant_type=client_credentials'), 400, 'invalid_request');
    });

    it('narrows by scope, never widens; a bad scope is invalid_scope', async () => {
      expect((await fetchToken(integration, 'read')).scope).toBe('read');
      const read = await fetchToken(integration, 'read');
      expect((await t.post(`${API}/stores`, { stores: [storeInput('S9')] }, read.access_token)).statusCode).toBe(403);
      expect((await fetchToken(integration, 'api://store-ops/.default')).scope).toBe('integration');
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...integration, scope: 'admin' }),
        400,
        'invalid_scope',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...integration, scope: 'stock:everything' }),
        400,
        'invalid_scope',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...integration, scope: 'read integration' }),
        400,
        'invalid_scope',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...integration, scope: 'store:S1' }),
        400,
        'invalid_scope',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...storeClient, scope: 'read' }),
        400,
        'invalid_scope',
      );
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...storeClient, scope: 'store:S3' }),
        400,
        'invalid_scope',
      );
      // A client registered with a narrowing scope gets no more than it.
      const narrowed = await createClient({ name: 'reporting', role: 'integration', scope: 'read' });
      expect((await fetchToken(narrowed)).scope).toBe('read');
      expectOAuthError(
        await tokenRequest({ grant_type: 'client_credentials', ...narrowed, scope: 'integration' }),
        400,
        'invalid_scope',
      );
    });

    it('a store client sees only its stores, narrowed further by store:<n>', async () => {
      const both = await fetchToken(storeClient);
      expect(both.scope).toBe('store store:S1 store:S2');
      const list = (await t.get(`${API}/stores`, both.access_token)).json();
      expect(list.list.map((s: { store_number: string }) => s.store_number).sort()).toEqual(['S1', 'S2']);
      expect((await t.get(`${API}/stores/S3/locations`, both.access_token)).statusCode).toBe(403);
      const one = await fetchToken(storeClient, 'store:S2');
      expect(one.scope).toBe('store store:S2');
      expect((await t.get(`${API}/stores/S1/locations`, one.access_token)).statusCode).toBe(403);
      expect((await t.get(`${API}/stores/S2/locations`, one.access_token)).statusCode).toBe(200);
      expect((await t.get(`${API}/tokens/current`, one.access_token)).json()).toMatchObject({
        role: 'store',
        stores: ['S2'],
        kind: 'client',
      });
    });

    it('refuses expired, tampered, unsigned, foreign and unknown-key JWTs with 401 invalid_token', async () => {
      const good = (await fetchToken(integration)).access_token;
      const [h, p, s] = good.split('.');
      const expectInvalid = async (token: string, what: string) => {
        const response = await t.get(`${API}/stores`, token);
        expect(response.statusCode, `${what}: ${response.body}`).toBe(401);
        expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
        expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
      };
      // Tampered payload (a wider scope), same signature.
      const claims = decodeJwt(good);
      const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'admin' })).toString('base64url');
      await expectInvalid(`${h}.${widened}.${s}`, 'tampered');
      await expectInvalid(`${h}.${p}.${s!.slice(0, -4)}AAAA`, 'bad signature');
      // alg: none.
      const none = new UnsecuredJWT({ ...claims, scope: 'admin' }).encode();
      await expectInvalid(none, 'alg none');
      const noneTyped = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: decodeProtectedHeader(good).kid })).toString('base64url')}.${p}.`;
      await expectInvalid(noneTyped, 'alg none with our kid');
      // Signed by a key of our own making: unknown kid, or our kid with another key.
      const { privateKey } = await generateKeyPair('RS256');
      const forge = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
        new SignJWT(payload)
          .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'not-ours', ...header })
          .sign(privateKey);
      await expectInvalid(await forge(claims), 'unknown kid');
      await expectInvalid(await forge(claims, { kid: decodeProtectedHeader(good).kid }), 'our kid, other key');
      // Another issuer, another audience, expired — signed with our own key.
      const { kid, key } = await t.app.oauth.keys.signingKey();
      const ours = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
        new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid, ...header }).sign(key);
      await expectInvalid(await ours({ ...claims, iss: 'https://evil.example' }), 'other issuer');
      await expectInvalid(await ours({ ...claims, aud: 'https://other.example/api' }), 'other audience');
      const now = Math.floor(Date.now() / 1000);
      await expectInvalid(await ours({ ...claims, iat: now - 7200, exp: now - 3600 }), 'expired');
      await expectInvalid(await ours(claims, { typ: 'JWT' }), 'not at+jwt');
      await expectInvalid(await ours({ ...claims, scope: 'superuser' }), 'a scope we never issue');
      await expectInvalid(await ours({ ...claims, sub: 'someone-else' }), 'sub is not the client');
      await expectInvalid('a.b.c', 'garbage in JWT shape');
      await expectInvalid(`${h}.${p}`, 'two parts');
      // The genuine one still passes.
      expect((await t.get(`${API}/stores`, good)).statusCode).toBe(200);
    });

    it('answers WWW-Authenticate: Bearer without error when no credential came, insufficient_scope on a role 403', async () => {
      const missing = await t.get(`${API}/stores`, null);
      expect(missing.statusCode).toBe(401);
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="store-ops"');
      const unknown = await t.get(`${API}/stores`, 'sot_unknown');
      expect(unknown.headers['www-authenticate']).toMatch(/error="invalid_token"/);
      const read = (await fetchToken(integration, 'read')).access_token;
      const refused = await t.post(`${API}/stores`, { stores: [storeInput('S8')] }, read);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    });

    it('a revoked client gets no token and its tokens are refused within a second', async () => {
      const client = await createClient({ name: 'to-revoke', role: 'read' });
      const token = (await fetchToken(client)).access_token;
      expect((await t.get(`${API}/stores`, token)).statusCode).toBe(200);
      expect((await t.del(`${API}/clients/to-revoke`)).statusCode).toBe(200);
      await sleep(1100);
      const refused = await t.get(`${API}/stores`, token);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toMatch(/revoked/);
      expectOAuthError(await tokenRequest({ grant_type: 'client_credentials', ...client }), 401, 'invalid_client');
      expect((await t.del(`${API}/clients/to-revoke`)).statusCode).toBe(404);
    });

    it('a rotated secret: the new one works at once, the old one through the grace period', async () => {
      const client = await createClient({ name: 'rotating', role: 'read' });
      const rotated = await t.post(`${API}/clients/rotating/rotate-secret`, undefined);
      expect(rotated.statusCode, rotated.body).toBe(200);
      const { client_secret, previous_secret_valid_until } = rotated.json();
      expect(Date.parse(previous_secret_valid_until) - Date.now()).toBeGreaterThan(23 * 3600_000);
      await fetchToken({ client_id: client.client_id, client_secret });
      await fetchToken(client);
      // Past the grace period the old secret is refused.
      await t.app.ctx.db
        .updateTable('api_clients')
        .set({ previous_secret_expires_at: Date.now() - 1 })
        .where('name', '=', 'rotating')
        .execute();
      expectOAuthError(await tokenRequest({ grant_type: 'client_credentials', ...client }), 401, 'invalid_client');
      await fetchToken({ client_id: client.client_id, client_secret });
      expect((await t.post(`${API}/clients/nobody/rotate-secret`, undefined)).statusCode).toBe(404);
    });

    it('key rotation: old tokens still verify, new ones carry the new kid, the JWKS lists both', async () => {
      const before = (await fetchToken(integration)).access_token;
      const oldKid = decodeProtectedHeader(before).kid;
      const rotation = await rotateSigningKey(t.app.ctx.db);
      expect(rotation.ended).toEqual([oldKid]);
      const after = (await fetchToken(integration)).access_token;
      expect(decodeProtectedHeader(after).kid).toBe(rotation.kid);
      expect((await t.get(`${API}/stores`, before)).statusCode).toBe(200);
      expect((await t.get(`${API}/stores`, after)).statusCode).toBe(200);
      const jwks = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.statusCode).toBe(200);
      const kids = jwks.json().keys.map((k: { kid: string }) => k.kid);
      expect(kids).toEqual(expect.arrayContaining([oldKid, rotation.kid]));
      for (const key of jwks.json().keys) {
        expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
        expect(key.d).toBeUndefined();
      }
      // Once its verification time is over, the old key is gone: its tokens fail, the JWKS drops it.
      await t.app.ctx.db
        .updateTable('oauth_signing_keys')
        .set({ verify_until: Date.now() - 1 })
        .where('kid', '=', oldKid!)
        .execute();
      const later = await rotateSigningKey(t.app.ctx.db);
      expect(later.retired).toContain(oldKid);
      const fresh = await t.get(
        `${API}/stores`,
        await new SignJWT(decodeJwt(before))
          .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'x' })
          .sign((await generateKeyPair('RS256')).privateKey),
      );
      expect(fresh.statusCode).toBe(401);
      expect(
        (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' }))
          .json()
          .keys.map((k: { kid: string }) => k.kid),
      ).not.toContain(oldKid);
    });

    it('serves RFC 8414 metadata naming the token endpoint and the JWKS', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
      expect(response.statusCode).toBe(200);
      const issuer = t.app.oauth.issuer;
      expect(response.json()).toMatchObject({
        issuer,
        token_endpoint: `${issuer}/oauth2/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: expect.arrayContaining(['integration', 'read']),
      });
    });

    it('the clients API is admin only, validates its input and never shows a secret', async () => {
      const integrationToken = await t.token('integration');
      expect((await t.get(`${API}/clients`, integrationToken)).statusCode).toBe(403);
      expect((await t.post(`${API}/clients`, { name: 'x', role: 'read' }, integrationToken)).statusCode).toBe(403);
      const list = await t.get(`${API}/clients`);
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toMatch(/socs_|secret_hash/);
      expect(list.json().clients.find((c: { name: string }) => c.name === 'till-s1')).toMatchObject({
        role: 'store',
        stores: ['S1', 'S2'],
        revoked: null,
      });
      expect((await t.post(`${API}/clients`, { name: 'erp', role: 'read' })).statusCode).toBe(409);
      expect((await t.post(`${API}/clients`, { name: 'nostores', role: 'store' })).statusCode).toBe(400);
      expect((await t.post(`${API}/clients`, { name: 'wide', role: 'read', scope: 'admin' })).statusCode).toBe(400);
      expect((await t.post(`${API}/clients`, { name: 'bad', role: 'superuser' })).statusCode).toBe(400);
      expect(
        (await t.post(`${API}/clients`, { name: 'stores-on-read', role: 'read', stores: ['S1'] })).statusCode,
      ).toBe(400);
      // An admin client's JWT manages clients too (admin role), and a sot_ admin token still works.
      const adminClient = await createClient({ name: 'ops', role: 'admin' });
      const adminJwt = (await fetchToken(adminClient)).access_token;
      expect((await t.get(`${API}/clients`, adminJwt)).statusCode).toBe(200);
      expect((await t.get(`${API}/clients`, ADMIN_TOKEN)).statusCode).toBe(200);
    });

    it('rate-limits failed client authentications per client_id and per address: 429 temporarily_unavailable with Retry-After', async () => {
      const limited = await buildTestApp(dialect, { oauthFailedAuthPerMinute: 3 });
      try {
        const victim = (await limited.post(`${API}/clients`, { name: 'limited', role: 'read' })).json();
        const other = (await limited.post(`${API}/clients`, { name: 'other', role: 'read' })).json();
        const request = (form: Record<string, string>, ip: string) =>
          limited.app.inject({
            method: 'POST',
            url: '/oauth2/token',
            remoteAddress: ip,
            headers: { 'content-type': FORM },
            payload: new URLSearchParams({ grant_type: 'client_credentials', ...form }).toString(),
          });
        // Per client_id: three failures from three addresses, then even the right secret waits.
        for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3'])
          expectOAuthError(
            await request({ client_id: victim.client_id, client_secret: 'wrong' }, ip),
            401,
            'invalid_client',
          );
        const blocked = await request(victim, '10.0.0.4');
        expectOAuthError(blocked, 429, 'temporarily_unavailable');
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
        expect((await request(other, '10.0.0.4')).statusCode).toBe(200);
        // Per address: three failures for three unknown ids, then that address waits, others do not.
        for (const id of ['a', 'b', 'c'])
          expectOAuthError(await request({ client_id: id, client_secret: 'x' }, '10.0.0.9'), 401, 'invalid_client');
        expectOAuthError(await request(other, '10.0.0.9'), 429, 'temporarily_unavailable');
        expect((await request(other, '10.0.0.8')).statusCode).toBe(200);
      } finally {
        await limited.close();
      }
    });
  });
}
