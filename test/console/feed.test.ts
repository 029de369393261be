import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/schema.js';
import { purgeExpiredEvents } from '../../src/modules/events/upkeep.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

/**
 * The console's reading of the change feed (src/console/public/js/feed.js), run in Node: where
 * the feed ends and where it starts again after retention, found from the API's answers alone
 * (against the real API on every database, and against a model of a long feed that counts the
 * calls), and the sentence each type of event becomes.
 */

interface Failure {
  code?: string;
  fields: string[];
  message: string;
}
type Get = (route: string, query: Record<string, unknown>) => Promise<any>;
interface FeedModule {
  EVENT_TYPES: string[];
  TYPE_GROUPS: Array<{ value: string; types?: string[] }>;
  findEnd(get: Get, from?: number): Promise<number>;
  findOldestKept(get: Get, failure: unknown, gone: number): Promise<number>;
  summary(event: { type: string; data: Record<string, unknown>; store_number?: string | null }): string;
}
interface FailuresModule {
  failureFromAnswer(status: number, envelope: unknown): Failure;
}

// Browser modules without type declarations: loaded by URL, typed here.
const load = (file: string) => import(new URL(`../../src/console/public/js/${file}`, import.meta.url).href);
const feed: FeedModule = await load('feed.js');
const { failureFromAnswer }: FailuresModule = await load('failures.js');

/** The API's GET as the console's api.js makes it: the answer, or the failure it throws. */
function apiGet(t: TestApp, calls: string[] = []): Get {
  return async (route, query) => {
    const search = new URLSearchParams(
      Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    );
    calls.push(`${route}?${search}`);
    const response = await t.get(`${API}${route}?${search}`);
    const answer = response.json();
    if (response.statusCode === 200) return answer;
    throw failureFromAnswer(response.statusCode, answer);
  };
}

/**
 * A feed of `last` events whose first `purged` are gone, answering as GET /events does: 400
 * naming query.after past the end, 410 before the oldest kept (optionally without naming it),
 * and pages whose next_after stops at the scan window.
 */
function modelFeed({ last, purged = 0, namesOldest = true }: { last: number; purged?: number; namesOldest?: boolean }) {
  const calls: number[] = [];
  const get: Get = async (_route, query) => {
    const after = Number(query.after ?? 0);
    const limit = Number(query.limit ?? 100);
    calls.push(after);
    if (after > last) {
      throw failureFromAnswer(400, {
        code: 'VALIDATION_FAILED',
        message: `No event has sequence ${after} yet`,
        errors: [{ path: 'query.after', message: `must be at most ${last}` }],
      });
    }
    if (after < purged) {
      const message = namesOldest
        ? `Events after ${after} are no longer kept: the oldest event kept is sequence ${purged + 1}`
        : 'Too old';
      throw failureFromAnswer(410, { code: 'GONE', message, errors: [] });
    }
    const through = Math.min(last, after + 10_000);
    const events = [];
    for (let sequence = after + 1; sequence <= through && events.length < limit; sequence++) events.push({ sequence });
    return { events, next_after: events.length === limit ? events[events.length - 1]!.sequence : through };
  };
  return { get, calls };
}

describe('the console reads the change feed', () => {
  it('knows the feed’s event types', () => {
    expect(feed.EVENT_TYPES).toEqual([...EVENT_TYPES]);
    // Every type is in exactly one group of the filter.
    const grouped = feed.TYPE_GROUPS.flatMap((group) => group.types ?? []);
    expect([...grouped].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('finds the end of a long feed in a few dozen one-event reads, from nothing or from a sequence seen', async () => {
    for (const last of [0, 1, 2, 999, 10_000, 12_345_678]) {
      const model = modelFeed({ last });
      expect(await feed.findEnd(model.get)).toBe(last);
      expect(model.calls.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(last + 2)) + 2);
    }
    // From a sequence seen a little while ago: a handful of calls.
    const model = modelFeed({ last: 12_345_678 });
    expect(await feed.findEnd(model.get, 12_345_600)).toBe(12_345_678);
    expect(model.calls.length).toBeLessThanOrEqual(16);
    // A sequence from another database (beyond this feed's end) is forgotten.
    expect(await feed.findEnd(modelFeed({ last: 40 }).get, 5_000)).toBe(40);
  });

  it('finds the end past retention, and where the oldest event kept starts when a 410 names it or not', async () => {
    const named = modelFeed({ last: 5_000_000, purged: 4_000_000 });
    expect(await feed.findEnd(named.get)).toBe(5_000_000);
    const gone = await named.get('/events', { after: 5, limit: 1 }).catch((failure: unknown) => failure);
    expect(await feed.findOldestKept(named.get, gone, 5)).toBe(4_000_000);

    const unnamed = modelFeed({ last: 5_000_000, purged: 4_000_000, namesOldest: false });
    const silent = await unnamed.get('/events', { after: 5, limit: 1 }).catch((failure: unknown) => failure);
    expect(await feed.findOldestKept(unnamed.get, silent, 5)).toBe(4_000_000);
    expect(unnamed.calls.length).toBeLessThan(100);
  });

  it('says what each event is', () => {
    const say = (type: string, data: Record<string, unknown>) => feed.summary({ type, data });
    expect(
      say('stock.changed', {
        product_number: 'P123',
        location_code: 'A-01',
        pool: 1,
        customer_order_number: null,
        quantity: 12.5,
        log_entry_ids: [4711, 4712],
      }),
    ).toBe('P123 @ A-01 pool 1 → 12.5 (entries 4711, 4712)');
    expect(
      say('stock.changed', {
        product_number: 'P1',
        location_code: null,
        pool: 2,
        customer_order_number: 'CO-9',
        quantity: -3,
        log_entry_ids: [1, 2, 3, 4, 5, 6, 7],
      }),
    ).toBe('P1 not at a location, pool 2 for order CO-9 → -3 (entries 1, 2, 3, 4, 5 and 2 more)');
    expect(say('delivery.changed', { order_number: 'PO-1', status: 'receiving' })).toBe('Delivery PO-1: Receiving');
    expect(say('customer_order.changed', { order_number: 'CO-1', status_id: 4 })).toBe('Customer order CO-1: Picked');
    expect(say('receipt.created', { order_number: 'PO-1', is_submitted: false })).toBe('Receipt of PO-1 created');
    expect(say('receipt.changed', { order_number: 'PO-1', is_submitted: true })).toBe(
      'Receipt of PO-1 changed, submitted',
    );
    expect(say('product.upserted', { product_number: '100200' })).toBe('Product 100200 created or changed');
    expect(say('price.deleted', { price_id: 'PR-1', product_number: '100200' })).toBe(
      'Price PR-1 of product 100200 deleted',
    );
    expect(say('discount.upserted', { discount_id: 'WEEK-12', product_number: '100200', line_number: 1 })).toBe(
      'Discount WEEK-12 line 1 of product 100200 created or changed',
    );
    expect(say('product_list.upserted', { product_list_id: 7, name: 'Weekly', is_archived: true })).toBe(
      'Product list 7 “Weekly” (archived) created or changed',
    );
    expect(say('location.deleted', { location_code: 'A-01' })).toBe('Location A-01 deleted');
    expect(say('something.new', { a: 1, b: 'x' })).toBe('a: 1, b: x');
    // Every known type has a sentence of its own, not the field list.
    for (const type of EVENT_TYPES) expect(say(type, {}), type).not.toBe('–');
  });

  for (const dialect of DIALECTS) {
    describe(`against the API (${dialect.name})`, () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await buildTestApp(dialect);
        for (let i = 0; i < 3; i++) {
          expect((await t.post(`${API}/stores`, { stores: [storeInput(`90${i}`)] })).statusCode).toBe(200);
          expect(
            (await t.post(`${API}/products`, { products: [productInput(`77${i}`), productInput(`78${i}`)] }))
              .statusCode,
          ).toBe(200);
        }
      });
      afterAll(async () => {
        await t?.close();
        await dialect.cleanup();
      });

      it('finds the end the feed pages reach, for an admin and a store token', async () => {
        const all = await apiGet(t)('/events', { after: 0, limit: 1000 });
        const last = all.events.at(-1).sequence;
        expect(last).toBeGreaterThanOrEqual(9);
        expect(await feed.findEnd(apiGet(t))).toBe(last);
        expect(await feed.findEnd(apiGet(t), 3)).toBe(last);
        // A store token sees fewer events; the end is the feed's all the same.
        const storeToken = await t.token('store', ['900']);
        const get: Get = async (route, query) => {
          const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
          const response = await t.get(`${API}${route}?${search}`, storeToken);
          if (response.statusCode === 200) return response.json();
          throw failureFromAnswer(response.statusCode, response.json());
        };
        expect(await feed.findEnd(get)).toBe(last);
      });

      it('goes on from the oldest event kept after the retention purged the start', async () => {
        const calls: string[] = [];
        const get = apiGet(t, calls);
        const before = await feed.findEnd(get);
        // Everything so far is past a 30-day retention seen from 31 days on.
        await purgeExpiredEvents(t.app.ctx.handle, Date.now() + 31 * 24 * 3600 * 1000, 30);
        expect((await t.post(`${API}/products`, { products: [productInput('79000')] })).statusCode).toBe(200);
        const gone = await get('/events', { after: 2, limit: 10 }).catch((failure: Failure) => failure);
        expect(gone.code).toBe('GONE');
        const restart = await feed.findOldestKept(get, gone, 2);
        expect(restart).toBe(before);
        const page = await get('/events', { after: restart, limit: 10 });
        expect(page.events.map((event: { sequence: number }) => event.sequence)).toEqual([before + 1]);
        expect(await feed.findEnd(get)).toBe(before + 1);
      });
    });
  }
});
