import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

/**
 * Every (method, url) the app has registered, read from Fastify's own route tree, so a
 * route added later is checked against the OpenAPI document without editing this test.
 */
function registeredRoutes(app: FastifyInstance): Array<{ method: string; url: string }> {
  const routes: Array<{ method: string; url: string }> = [];
  const segments: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    segments.length = match[1]!.length / 4;
    segments.push(match[2]!);
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, url: segments.join('') });
  }
  return routes;
}

/** Fastify's `/stores/:store_number` is OpenAPI's `/stores/{store_number}`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

for (const dialect of DIALECTS) {
  describe(`probes, metrics and the contract (PRODUCT §2, ${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('/healthz and /readyz answer 200 without a credential', async () => {
      const health = await t.get('/healthz', null);
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
      const ready = await t.get('/readyz', null);
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready' });
    });

    it('/metrics is Prometheus text with per-route latency and the database pool', async () => {
      expect((await t.get(`${API}/stores`)).statusCode).toBe(200);
      const metrics = await t.get('/metrics', null);
      expect(metrics.statusCode).toBe(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
      const text = metrics.body;
      expect(text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(text).toMatch(
        /^http_request_duration_seconds_count\{[^}]*route="\/api\/v2\/public\/stores"[^}]*\} [1-9]/m,
      );
      expect(text).toMatch(
        /^http_request_duration_seconds_bucket\{[^}]*method="GET"[^}]*route="\/api\/v2\/public\/stores"/m,
      );
      for (const gauge of ['db_pool_connections_total', 'db_pool_connections_idle', 'db_pool_requests_waiting']) {
        expect(text).toMatch(new RegExp(`^# TYPE ${gauge} gauge$`, 'm'));
        expect(text).toMatch(new RegExp(`^${gauge} \\d+$`, 'm'));
      }
      expect(text).toMatch(/^process_cpu_user_seconds_total /m);
      // The database's faults (issue 27): reachable now, no connection lost, nothing refused.
      expect(text).toMatch(/^db_up 1$/m);
      expect(text).toMatch(/^db_connections_lost_total 0$/m);
      for (const fault of ['unavailable', 'busy', 'full'])
        expect(text).toMatch(new RegExp(`^db_fault_answers_total\\{fault="${fault}"\\} 0$`, 'm'));
    });

    it('/api/v2/public/openapi.json is OpenAPI 3.1 and documents every API route with response schemas', async () => {
      const response = await t.get(`${API}/openapi.json`, null);
      expect(response.statusCode).toBe(200);
      const document = response.json();
      expect(document.openapi).toMatch(/^3\.1\./);
      expect(document.info.title).toEqual(expect.any(String));

      const apiRoutes = registeredRoutes(t.app).filter(
        (route) => route.url.startsWith(`${API}/`) && route.method !== 'HEAD' && route.url !== `${API}/openapi.json`,
      );
      expect(apiRoutes).toEqual(
        expect.arrayContaining([
          { method: 'GET', url: `${API}/stores` },
          { method: 'POST', url: `${API}/stores` },
        ]),
      );
      for (const route of apiRoutes) {
        const label = `${route.method} ${route.url}`;
        const operation = document.paths?.[toOpenApiPath(route.url)]?.[route.method.toLowerCase()];
        expect(operation, `${label} is missing from the OpenAPI document`).toBeDefined();
        const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
        expect(success.length, label).toBeGreaterThan(0);
        // A success answer is JSON, or the media types a route serves as they are (a photo's bytes).
        for (const status of success) {
          const content = Object.values(operation.responses[status]?.content ?? {}) as Array<{ schema?: unknown }>;
          expect(content.length, `${label} ${status}`).toBeGreaterThan(0);
          for (const media of content) expect(media.schema, `${label} ${status}`).toBeDefined();
        }
        for (const status of ['4XX', '5XX']) {
          expect(
            operation.responses[status]?.content?.['application/json']?.schema,
            `${label} ${status}`,
          ).toBeDefined();
        }
      }
      const stores = document.paths[`${API}/stores`];
      expect(stores.get.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining([
          'is_warehouse',
          'search_text',
          'secondary_key',
          'page_size',
          'page_start',
          'scroll_id',
        ]),
      );
      expect(stores.post.requestBody.content['application/json'].schema.properties.stores.maxItems).toBe(10_000);
    });

    it('/docs serves the interactive reference for that document, without a credential', async () => {
      const docs = await t.get('/docs', null);
      expect(docs.statusCode).toBe(200);
      expect(docs.headers['content-type']).toMatch(/^text\/html/);
      expect(docs.body).toMatch(/swagger/i);
      const initializer = await t.get('/docs/static/swagger-initializer.js', null);
      expect(initializer.statusCode).toBe(200);
      expect(initializer.body).toContain(`${API}/openapi.json`);
    });
  });

  describe(`readiness without a database (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close().catch(() => undefined);
      await dialect.cleanup();
    });

    it('/readyz is 503 once the database is gone; /healthz stays 200', async () => {
      expect((await t.get('/readyz', null)).statusCode).toBe(200);
      await t.app.ctx.handle.close();
      const ready = await t.get('/readyz', null);
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ success: false, code: 'UNAVAILABLE' });
      expect((await t.get('/healthz', null)).statusCode).toBe(200);
    });
  });
}
