import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { FastifyInstance } from 'fastify';
import { API, ADMIN_TOKEN } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import {
  categoryInput,
  priceInput,
  productInput,
  reasonCodeInput,
  restartableDatabaseUrl,
  storeInput,
} from '../helpers/factories.js';
import { createToken } from '../../src/modules/tokens/service.js';

// The list cache (plugins/list-cache.ts) must never serve anything a fresh answer would
// not: two app instances on one database stand for two server processes.
for (const dialect of DIALECTS) {
  describe(`list cache (${dialect.name})`, () => {
    let a: FastifyInstance;
    let b: FastifyInstance;
    const get = (app: FastifyInstance, url: string, token = ADMIN_TOKEN) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    const post = (app: FastifyInstance, url: string, payload: object) =>
      app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

    beforeAll(async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      const config = {
        port: 0,
        host: '127.0.0.1',
        databaseUrl,
        adminToken: ADMIN_TOKEN,
        logLevel: 'silent' as const,
        rateLimitPerMinute: 0,
      };
      a = await buildApp(config);
      b = await buildApp({ ...config });
    });
    afterAll(async () => {
      await a.close();
      await b.close();
      await dialect.cleanup();
    });

    it('a repeated list is the same answer with a fresh server_time', async () => {
      await post(a, `${API}/stores`, { stores: [storeInput('C1'), storeInput('C2')] });
      const first = (await get(a, `${API}/stores?page_size=10`)).json();
      await new Promise((r) => setTimeout(r, 5));
      const second = (await get(a, `${API}/stores?page_size=10`)).json();
      expect(second.server_time).not.toBe(first.server_time);
      expect({ ...second, server_time: null }).toEqual({ ...first, server_time: null });
    });

    it('stamps each hit with the millisecond it is answered in, hits of one millisecond alike', async () => {
      const url = `${API}/stores?page_size=10`;
      await get(a, url); // kept
      const at = Date.parse('2026-11-25T10:00:00.000Z');
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(at);
        const first = await get(a, url);
        const second = await get(a, url);
        expect(first.json().server_time).toBe('2026-11-25T10:00:00.000Z');
        expect(second.body).toBe(first.body);
        vi.setSystemTime(at + 1);
        expect((await get(a, url)).json().server_time).toBe('2026-11-25T10:00:00.001Z');
      } finally {
        vi.useRealTimers();
      }
    });

    it('a change through another process is seen on the next request', async () => {
      expect((await get(a, `${API}/stores?page_size=10`)).json().total_count).toBe(2);
      await post(b, `${API}/stores`, { stores: [storeInput('C1', { store_name: 'Renamed' }), storeInput('C3')] });
      const after = (await get(a, `${API}/stores?page_size=10`)).json();
      expect(after.total_count).toBe(3);
      expect(after.list.find((s: { store_number: string }) => s.store_number === 'C1').store_name).toBe('Renamed');
      // A flush soft-deletes through the same tables: also seen at once.
      await post(b, `${API}/stores?flush=true`, { stores: [storeInput('C3')] });
      expect((await get(a, `${API}/stores?page_size=10`)).json().total_count).toBe(1);
    });

    it('store tokens and other tokens never share an answer', async () => {
      await post(a, `${API}/stores`, { stores: [storeInput('C1'), storeInput('C2')] });
      const storeToken = await createToken(a.ctx.db, {
        name: `cache-store-${dialect.name}`,
        role: 'store',
        stores: ['C2'],
        createdBy: 'test',
      });
      const admin = (await get(a, `${API}/stores`)).json();
      const scoped = (await get(a, `${API}/stores`, storeToken)).json();
      expect(admin.total_count).toBe(3);
      expect(scoped.list.map((s: { store_number: string }) => s.store_number)).toEqual(['C2']);
    });

    it('categories and reason codes are refreshed by their own writes', async () => {
      await post(a, `${API}/categories`, { categories: [categoryInput('K1')] });
      expect((await get(a, `${API}/categories`)).json().total_count).toBe(1);
      await post(b, `${API}/categories`, { categories: [categoryInput('K2')] });
      expect((await get(a, `${API}/categories`)).json().total_count).toBe(2);
      await post(a, `${API}/reasoncodes`, { reason_codes: [reasonCodeInput(1)] });
      expect((await get(a, `${API}/reasoncodes`)).json()).toHaveLength(1);
      await post(b, `${API}/reasoncodes`, { reason_codes: [reasonCodeInput(2)] });
      expect((await get(a, `${API}/reasoncodes`)).json()).toHaveLength(2);
    });

    it('products: prices and discounts written elsewhere are seen at once, and a price starting later is seen when it starts', async () => {
      await post(a, `${API}/products`, { products: [productInput('LC-1', { price: 2 })] });
      const url = `${API}/products?product_number=LC-1`;
      expect((await get(a, url)).json().records[0].price).toBe(2);
      await post(b, `${API}/products/prices`, { prices: [priceInput('LC-P1', 'LC-1', 1.5)] });
      expect((await get(a, url)).json().records[0].price).toBe(1.5);
      // Far enough ahead that a busy machine reads twice before it starts (issue 40 item 7).
      const startsAt = Date.now() + 4_000;
      const startsSoon = new Date(startsAt).toISOString();
      await post(b, `${API}/products/prices`, {
        prices: [priceInput('LC-P2', 'LC-1', 1.25, { valid_from: startsSoon })],
      });
      expect((await get(a, url)).json().records[0].price).toBe(1.5);
      expect((await get(a, url)).json().records[0].price).toBe(1.5); // served from the cache
      await new Promise((r) => setTimeout(r, startsAt - Date.now() + 200));
      expect((await get(a, url)).json().records[0].price).toBe(1.25);
      await post(b, `${API}/products/discountprices`, {
        discounts: [{ is_delete: false, discount_id: 'LC-D', product_number: 'LC-1', price: 0.99 }],
      });
      expect((await get(a, url)).json().records[0].special_price).toBe(0.99);
    });

    it('an identical import is answered as unchanged and keeps the data as it was', async () => {
      const body = { stores: [storeInput('D1'), storeInput('D2')] };
      expect((await post(a, `${API}/stores`, body)).json().message).toBe(
        'created 2, updated 0, unchanged 0, deleted 0',
      );
      const before = (await get(a, `${API}/stores?search_text=D`)).json();
      expect((await post(b, `${API}/stores`, body)).json().message).toBe(
        'created 0, updated 0, unchanged 2, deleted 0',
      );
      // After a change in between, the same body is compared item by item again.
      await post(a, `${API}/stores`, { stores: [storeInput('D1', { city: 'Delft' })] });
      expect((await post(b, `${API}/stores`, body)).json().message).toBe(
        'created 0, updated 1, unchanged 1, deleted 0',
      );
      const after = (await get(a, `${API}/stores?search_text=D`)).json();
      expect(after.list.find((s: { store_number: string }) => s.store_number === 'D1').city).toBeUndefined();
      expect(before.total_count).toBe(after.total_count);
    });
  });
}
