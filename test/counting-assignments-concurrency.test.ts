import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { verifyAll } from '../src/verify.js';
import { DIALECTS } from './helpers/dialects.js';
import { locationInput, productInput, restartableDatabaseUrl, storeInput } from './helpers/factories.js';
import {
  callJson,
  type Json,
  type ServerProcess,
  sharedDatabaseConfig,
  startTwoServers,
} from './helpers/server-process.js';

// Counting assignments under concurrency (issue 44): two handhelds count one assignment
// through two server processes on one database (a PostgreSQL schema; one SQLite file, where
// writers queue on the file lock) — adds to one line from both lose nothing, a submission
// racing both handhelds' posts leaves every count either booked once or refused, and a sale
// booked between a scan and the submission stays on top.

const TOKEN = 'counting-concurrency-admin-token';
const API = '/api/v2/public';
const STORE = 'CC1';
const PRODUCTS = ['CC-1', 'CC-2', 'CC-3', 'CC-4', 'CC-5', 'CC-6'];
const CA = `${API}/stores/${STORE}/countingassignments`;

for (const dialect of DIALECTS) {
  describe(`counting assignments on two processes (${dialect.name})`, () => {
    let databaseUrl: string;
    let servers: ServerProcess[] = [];
    const call = (server: number, method: string, url: string, body?: unknown) =>
      callJson(servers[server]!, TOKEN, method, url, body);
    const ok = async (answer: Promise<{ status: number; json: Json }>) => {
      const { status, json } = await answer;
      expect(status, JSON.stringify(json)).toBeLessThan(300);
      return json;
    };
    const book = (server: number, product: string, quantity: number, at: string) =>
      ok(
        call(server, 'POST', `${API}/stores/${STORE}/products/stock/storeproductlogs`, {
          storeproductlog: [
            {
              customer_order_line_number: 0,
              product_number: product,
              quantity,
              location_code: 'A',
              modification_datetime: at,
            },
          ],
        }),
      );
    const level = async (product: string) => {
      const answer = await ok(call(0, 'GET', `${API}/stores/${STORE}/products/${product}/stock`));
      return answer.products[0].most_likely_stock as number;
    };
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

    beforeAll(async () => {
      databaseUrl = await restartableDatabaseUrl(dialect);
      const app = await buildApp(sharedDatabaseConfig(databaseUrl, TOKEN));
      const inject = (url: string, payload: unknown) =>
        app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: `Bearer ${TOKEN}` } });
      expect((await inject(`${API}/stores`, { stores: [storeInput(STORE)] })).statusCode).toBe(200);
      expect((await inject(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) })).statusCode).toBe(
        200,
      );
      expect((await inject(`${API}/stores/${STORE}/locations`, { locations: [locationInput('A')] })).statusCode).toBe(
        200,
      );
      await app.close();
      servers = await startTwoServers(databaseUrl);
      for (const product of PRODUCTS) await book(0, product, 10, ago(3600));
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dialect.cleanup();
    });

    it('two handhelds adding to one line through two processes lose no count; replace counts land on their lines', async () => {
      const id = (await ok(call(0, 'POST', CA, { scope: { product_numbers: ['CC-1', 'CC-2', 'CC-3'] } })))
        .counting_assignment_id as number;
      await ok(call(1, 'POST', `${CA}/${id}/start`, {}));
      // 2 × 30 requests of one unit each, added to CC-1 at A from both processes at once.
      const adds = (server: number) =>
        Array.from({ length: 30 }, () =>
          ok(
            call(server, 'POST', `${CA}/${id}/counts`, {
              counts: [
                { product_number: 'CC-1', location_code: 'A', counted_quantity: 1, counted_at: ago(60), mode: 'add' },
              ],
            }),
          ),
        );
      const replaces = [
        call(0, 'POST', `${CA}/${id}/counts`, {
          counts: [{ product_number: 'CC-2', location_code: 'A', counted_quantity: 7, counted_at: ago(50) }],
        }),
        call(1, 'POST', `${CA}/${id}/counts`, {
          counts: [{ product_number: 'CC-3', location_code: 'A', counted_quantity: 12, counted_at: ago(50) }],
        }),
      ];
      await Promise.all([...adds(0), ...adds(1), ...replaces.map(ok)]);
      const lines = (await ok(call(0, 'GET', `${CA}/${id}/lines`))).list as Json[];
      expect(lines.map((line) => [line.product_number, line.counted_quantity])).toEqual([
        ['CC-1', 60],
        ['CC-2', 7],
        ['CC-3', 12],
      ]);

      // A sale on the other process after the scans, before the submission: it stays on top.
      await book(1, 'CC-2', -2, ago(10));
      const submitted = await ok(call(1, 'POST', `${CA}/${id}/submit`, {}));
      expect(submitted.data).toHaveLength(3);
      expect(await level('CC-1')).toBe(60);
      expect(await level('CC-2')).toBe(5);
      expect(await level('CC-3')).toBe(12);
      expect((await ok(call(0, 'GET', `${CA}/${id}`))).status).toBe('closed');
    });

    it('a submission racing both handhelds: every count is booked once or refused with 409, never lost', async () => {
      const products = ['CC-4', 'CC-5', 'CC-6'];
      const id = (await ok(call(1, 'POST', CA, { scope: { product_numbers: products } })))
        .counting_assignment_id as number;
      await ok(call(0, 'POST', `${CA}/${id}/start`, {}));
      const post = (server: number, product: string, quantity: number) =>
        call(server, 'POST', `${CA}/${id}/counts`, {
          counts: [{ product_number: product, location_code: 'A', counted_quantity: quantity, counted_at: ago(30) }],
        });
      const posts = products.flatMap((product, index) => [post(0, product, 20 + index), post(1, product, 30 + index)]);
      const [submit, ...answers] = await Promise.all([
        call(index(posts.length), 'POST', `${CA}/${id}/submit`, {}),
        ...posts,
      ]);
      expect(submit.status, JSON.stringify(submit.json)).toBe(200);
      for (const answer of answers) expect([200, 409], JSON.stringify(answer.json)).toContain(answer.status);
      const lines = (await ok(call(0, 'GET', `${CA}/${id}/lines`))).list as Json[];
      for (const line of lines) {
        // A line counted before the submission took its turn is booked at its count; one never counted stays as it was.
        if (line.counted_quantity === null) {
          expect(line.status).toBe('not_counted');
          expect(await level(line.product_number)).toBe(10);
        } else {
          expect(line.status).toBe('booked');
          expect(await level(line.product_number)).toBe(line.counted_quantity);
        }
      }
      expect(submit.json.data).toHaveLength(lines.filter((line) => line.counted_quantity !== null).length);
      const app = await buildApp(sharedDatabaseConfig(databaseUrl, TOKEN));
      try {
        expect(await verifyAll(app.ctx.handle)).toEqual([]);
      } finally {
        await app.close();
      }
    });
  });
}

/** The process the submission goes to: the one after the posts' last. */
const index = (count: number) => count % 2;
