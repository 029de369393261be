import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteOptions } from 'fastify';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

/** Every route the app registers, as its options (config included), recorded before any other onRoute hook. */
const registered = vi.hoisted(() => [] as RouteOptions[]);
vi.mock('fastify', async (importOriginal) => {
  const original = (await importOriginal()) as {
    default: (...args: unknown[]) => { addHook: (name: string, hook: (route: RouteOptions) => void) => void };
  };
  const wrapped = Object.assign((...args: unknown[]) => {
    const app = original.default(...args);
    app.addHook('onRoute', (route) => void registered.push(route));
    return app;
  }, original.default);
  return { ...original, default: wrapped };
});

interface QueryProperty {
  type?: string;
  format?: string;
  enum?: unknown[];
  anyOf?: QueryProperty[];
  const?: unknown;
  items?: QueryProperty;
}

/** A value the property's schema refuses, or undefined when no simple one is known (free text). */
function invalidValue(property: QueryProperty): string | undefined {
  if (property.enum !== undefined || property.const !== undefined) return 'no-such-value';
  if (property.anyOf?.every((branch) => branch.const !== undefined || branch.enum !== undefined))
    return 'no-such-value';
  if (property.type === 'integer' || property.type === 'number') return 'seven';
  if (property.type === 'boolean') return 'perhaps';
  if (property.format === 'date-time') return 'not-a-date';
  if (property.type === 'array' && property.items) return invalidValue(property.items);
  return undefined;
}

/**
 * Issue 40 item 3: every request is validated (query, params, headers, body) before any cache
 * answers it (plugins/hook-order.ts). Walks every GET route with a `listCache` flag — a new one
 * is covered without touching this file — warms its cache, then sends each invalid variant:
 * a 400 naming the field, as without a cached answer.
 */
for (const dialect of DIALECTS) {
  describe(`validation before any cache (${dialect.name})`, () => {
    let t: TestApp;
    const cachedRoutes = () =>
      registered.filter(
        (route) =>
          route.config?.listCache !== undefined && [route.method].flat().includes('GET') && route.url.startsWith(API),
      );
    const urlOf = (route: RouteOptions) => route.url.replace(':store_number', 'V1');

    beforeAll(async () => {
      registered.length = 0;
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('V1'), storeInput('V2')] });
      await t.post(`${API}/categories`, { categories: [categoryInput('CAT1')] });
      await t.post(`${API}/reasoncodes`, { reason_codes: [reasonCodeInput(1)] });
      await t.post(`${API}/products`, { products: [productInput('P1')] });
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('finds the cached routes (stores, products, categories, reason codes at least)', () => {
      const urls = cachedRoutes().map((route) => route.url);
      expect(urls).toEqual(
        expect.arrayContaining([`${API}/stores`, `${API}/products`, `${API}/categories`, `${API}/reasoncodes`]),
      );
      for (const url of urls)
        expect(url.replace(':store_number', ''), `${url}: give the walk a value for its path parameter`).not.toContain(
          ':',
        );
    });

    it('a warmed cache never answers an invalid query value: 400 naming the parameter', async () => {
      let tried = 0;
      for (const route of cachedRoutes()) {
        const url = urlOf(route);
        const properties = ((route.schema?.querystring as { properties?: Record<string, QueryProperty> } | undefined)
          ?.properties ?? {}) as Record<string, QueryProperty>;
        for (const [name, property] of Object.entries(properties)) {
          const bad = invalidValue(property);
          if (bad === undefined) continue;
          // The same query with a valid page_size, twice: the second is a cache hit.
          expect((await t.get(`${url}?page_size=7`)).statusCode, url).toBe(200);
          expect((await t.get(`${url}?page_size=7`)).statusCode, url).toBe(200);
          const answer = await t.get(`${url}?page_size=7&${name}=${bad}`);
          expect(answer.statusCode, `${url} ${name}=${bad}`).toBe(400);
          expect(answer.json(), `${url} ${name}=${bad}`).toMatchObject({
            code: 'VALIDATION_FAILED',
            errors: expect.arrayContaining([
              expect.objectContaining({ path: expect.stringMatching(new RegExp(`^query\\.${name}`)) }),
            ]),
          });
          tried++;
        }
      }
      expect(tried).toBeGreaterThanOrEqual(4); // page_size on each at least
    });

    it.runIf(dialect.name === 'postgres')(
      'a warmed cache never answers a malformed x-read-after: 400 naming the header',
      async () => {
        for (const route of cachedRoutes()) {
          const url = `${urlOf(route)}?page_size=7`;
          expect((await t.get(url)).statusCode, url).toBe(200);
          expect((await t.get(url)).statusCode, url).toBe(200); // kept
          for (const token of ['0/', 'zz/1', '', '1']) {
            const answer = await t.request({ method: 'GET', url, headers: { 'x-read-after': token } });
            expect(answer.statusCode, `${url} x-read-after: '${token}'`).toBe(400);
            expect(answer.json()).toMatchObject({
              code: 'VALIDATION_FAILED',
              errors: [{ path: 'headers.x-read-after' }],
            });
          }
          // A well-formed token still reads (from the cache or not).
          expect((await t.request({ method: 'GET', url, headers: { 'x-read-after': '0/0' } })).statusCode).toBe(200);
        }
      },
    );

    it.runIf(dialect.name === 'postgres')(
      'a malformed x-read-after is refused on the single-product stock read, whose answers are cached too',
      async () => {
        const url = `${API}/stores/V1/products/P1/stock`;
        expect((await t.get(url)).statusCode).toBe(200);
        expect((await t.get(url)).statusCode).toBe(200);
        const answer = await t.request({ method: 'GET', url, headers: { 'x-read-after': '0/' } });
        expect(answer.statusCode).toBe(400);
        expect(answer.json()).toMatchObject({ errors: [{ path: 'headers.x-read-after' }] });
      },
    );
  });
}
