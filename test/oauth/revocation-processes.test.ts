import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { restartableDatabaseUrl } from '../helpers/factories.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const ADMIN = 'sot_revocation-test-admin';
const API = '/api/v2/public';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(server: ServerProcess, token: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any>, headers: response.headers };
}

async function tokenFrom(server: ServerProcess, credentials: { client_id: string; client_secret: string }) {
  const response = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...credentials }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * PRODUCT §4: revoking a client ends its tokens on every process within a second. Two real
 * server processes (`npm start`'s entry) on one database: a token issued by one is accepted
 * by the other (one issuer and one key set through the database), and after a revocation
 * through one, both refuse it a second later.
 */
describe('revocation across server processes (issue 41)', { timeout: 120_000 }, () => {
  afterAll(async () => {
    for (const dialect of DIALECTS) await dialect.cleanup();
  });

  for (const dialect of DIALECTS) {
    it(`a revoked client's tokens are refused by every process within a second (${dialect.name})`, async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      const env = { DATABASE_URL: databaseUrl, STORE_OPS_ADMIN_TOKEN: ADMIN };
      const first = await startServer(env);
      const servers = [first, await startServer(env)];
      try {
        const [a, b] = servers as [ServerProcess, ServerProcess];
        const created = await call(a, ADMIN, 'POST', `${API}/clients`, { name: 'erp', role: 'read' });
        expect(created.status).toBe(201);
        const kept = await call(a, ADMIN, 'POST', `${API}/clients`, { name: 'kept', role: 'read' });
        const fromA = await tokenFrom(a, created.json as never);
        const fromB = await tokenFrom(b, created.json as never);
        const keptToken = await tokenFrom(b, kept.json as never);
        for (const server of servers) {
          for (const token of [fromA, fromB, keptToken])
            expect((await call(server, token, 'GET', `${API}/stores`)).status).toBe(200);
        }
        // Both processes have read the revoked clients just now: the revocation must still show within a second.
        expect((await call(b, ADMIN, 'DELETE', `${API}/clients/erp`)).status).toBe(200);
        await sleep(1100);
        for (const server of servers) {
          for (const token of [fromA, fromB]) {
            const refused = await call(server, token, 'GET', `${API}/stores`);
            expect(refused.status).toBe(401);
            expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
          }
          expect((await call(server, keptToken, 'GET', `${API}/stores`)).status).toBe(200);
        }
        // The metadata of both name the one issuer.
        const issuers = await Promise.all(
          servers.map(
            async (s) =>
              (
                (await (await fetch(`${s.baseUrl}/.well-known/oauth-authorization-server`)).json()) as {
                  issuer: string;
                }
              ).issuer,
          ),
        );
        expect(issuers[0]).toBe(issuers[1]);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    });
  }
});
