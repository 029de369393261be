import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { StockChangedData } from '../../src/modules/events/schema.js';
import { purgeExpiredEvents } from '../../src/modules/events/upkeep.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, productInput, stockLogInput, storeInput } from '../helpers/factories.js';

interface FeedEvent {
  sequence: number;
  type: string;
  occurred_at: string;
  store_number: string | null;
  data: Record<string, unknown>;
}

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;

for (const dialect of DIALECTS) {
  describe(`change feed (${dialect.name})`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    /** Every event after `after`, following next_after page by page. */
    async function follow(after = 0, query = '', token?: string): Promise<{ events: FeedEvent[]; last: number }> {
      const events: FeedEvent[] = [];
      for (;;) {
        const response = await t.get(`${API}/events?after=${after}&limit=1000${query}`, token);
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as { events: FeedEvent[]; next_after: number };
        events.push(...page.events);
        if (page.next_after === after) return { events, last: after };
        after = page.next_after;
      }
    }

    it('carries master-data upserts and deletes, and stock changes with their levels and entries, in order and without gaps', async () => {
      const start = (await follow()).last;
      expect((await t.post(`${API}/stores`, { stores: [storeInput('E1'), storeInput('E2')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: [productInput('EP1'), productInput('EP2')] })).statusCode,
      ).toBe(200);
      expect((await t.post(`${API}/stores/E1/locations`, { locations: [locationInput('L-1')] })).statusCode).toBe(200);
      const posted = await t.post(LOGS('E1'), {
        storeproductlog: [
          stockLogInput('EP1', 5, '2026-01-10T10:00:00Z'),
          stockLogInput('EP1', 2, '2026-01-10T11:00:00Z', { location_code: 'L-1' }),
        ],
      });
      expect(posted.statusCode, posted.body).toBe(200);
      // An identical re-send changes nothing, so it writes no event.
      expect(
        (await t.post(`${API}/products`, { products: [productInput('EP1'), productInput('EP2')] })).statusCode,
      ).toBe(200);

      const { events } = await follow(start);
      events.forEach((event, index) => expect(event.sequence).toBe(start + index + 1));
      const types = events.map((e) => e.type);
      expect(types.filter((type) => type === 'store.upserted')).toHaveLength(2);
      expect(types.filter((type) => type === 'product.upserted')).toHaveLength(2);
      expect(events.find((e) => e.type === 'location.upserted')).toMatchObject({
        store_number: 'E1',
        data: { location_code: 'L-1' },
      });
      const stock = events.filter((e) => e.type === 'stock.changed');
      expect(stock).toHaveLength(2);
      for (const event of stock) expect(Value.Check(StockChangedData, event.data)).toBe(true);
      expect(stock.map((e) => e.data)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            product_number: 'EP1',
            location_code: null,
            pool: 1,
            quantity: 5,
            customer_order_number: null,
          }),
          expect.objectContaining({ product_number: 'EP1', location_code: 'L-1', quantity: 2 }),
        ]),
      );
      expect(events.find((e) => e.type === 'store_product.upserted')).toMatchObject({
        store_number: 'E1',
        data: { product_number: 'EP1' },
      });
      expect(events.find((e) => e.type === 'product.upserted')!.store_number).toBeNull();

      const flushed = await t.post(`${API}/products?flush=true`, { products: [productInput('EP1')] });
      expect(flushed.statusCode).toBe(200);
      const after = await follow(events[events.length - 1]!.sequence);
      expect(after.events.map((e) => [e.type, e.data])).toEqual([['product.deleted', { product_number: 'EP2' }]]);
    });

    it('shows a store token only its stores and chain-wide data', async () => {
      const start = (await follow()).last;
      await t.post(`${API}/products`, { products: [productInput('SP1')] });
      await t.post(LOGS('E1'), { storeproductlog: [stockLogInput('SP1', 1, '2026-01-10T10:00:00Z')] });
      await t.post(LOGS('E2'), { storeproductlog: [stockLogInput('SP1', 1, '2026-01-10T10:00:00Z')] });
      const token = await t.token('store', ['E2']);
      const { events } = await follow(start, '', token);
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.store_number === null || e.store_number === 'E2')).toBe(true);
      expect(events.some((e) => e.type === 'product.upserted')).toBe(true);
      expect(events.some((e) => e.type === 'stock.changed' && e.store_number === 'E2')).toBe(true);
    });

    it('filters by type, and refuses bad cursors, limits and types naming the field', async () => {
      const { events } = await follow(0, '&types=stock.changed');
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.type === 'stock.changed')).toBe(true);
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['after=-1', 'after'],
        ['after=abc', 'after'],
        ['types=stock.nope', 'types'],
        ['after=999999999', 'after'],
      ]) {
        const response = await t.get(`${API}/events?${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(
          response.json().errors.map((e: { path: string }) => e.path),
          query,
        ).toContain(`query.${field}`);
      }
    });

    it('answers 410 naming the oldest sequence kept once retention deleted what a cursor needs', async () => {
      const { last } = await follow();
      // Everything so far is older than a retention of "now minus a day ahead".
      const purged = await purgeExpiredEvents(t.app.ctx.handle, Date.now() + 2 * 86_400_000, 1);
      expect(purged).toBeGreaterThan(0);
      const response = await t.get(`${API}/events?after=0`);
      expect(response.statusCode).toBe(410);
      expect(response.json()).toMatchObject({ code: 'GONE' });
      expect(response.json().message).toContain(`sequence ${last + 1}`);
      const fresh = await t.get(`${API}/events?after=${last}`);
      expect(fresh.statusCode).toBe(200);
    });
  });
}
