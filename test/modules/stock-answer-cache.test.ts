import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { StockAnswerCache } from '../../src/shared/stock-answer-cache.js';
import { productStockBody } from '../../src/modules/store-stock/service.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

// The single-product stock read answers from a per-process cache (store-stock/answer-cache.ts)
// while its fingerprint holds. A stale answer is the risk: every write path that changes what
// the answer shows must be seen by a warm instance A, also when the write went through
// instance B (a second server process with its own cache) on the same database.

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const LOCATIONS = (store: string) => `${API}/stores/${store}/locations`;
const STORE_PRODUCTS = (store: string) => `${API}/stores/${store}/storeproducts`;

interface Flags {
  include_locations?: boolean;
  include_zero_lines?: boolean;
  exclude_customer_order_stock?: boolean;
}
type Entry = Record<string, unknown> & { store_locations?: Array<Record<string, unknown>> };
interface Answer {
  body: string;
  entry: Entry;
  /** The cache gave this answer (StockAnswerCache.get returned a body). */
  hit: boolean;
}

const entry = (productNumber: string, quantity: number, overrides: Record<string, unknown> = {}) => ({
  product_number: productNumber,
  quantity,
  customer_order_line_number: 0,
  modification_datetime: '2026-01-10T10:00:00Z',
  ...overrides,
});

/** Barcodes of product AC-n: its own, one of barcodes_array and a unit barcode (tray of 6). */
const barcodes = (n: number) => {
  const id = String(n).padStart(3, '0');
  return { own: `770${id}`, extra: `771${id}`, unit: `776${id}` };
};
const productOf = (n: number, overrides: Record<string, unknown> = {}) => {
  const b = barcodes(n);
  return productInput(`AC-${n}`, {
    barcode: b.own,
    barcodes_array: [{ barcode: b.extra }],
    units: [{ unit_barcode: b.unit, unit_name: 'tray', unit_quantity: 6 }],
    ...overrides,
  });
};

const FLAG_VARIANTS: Flags[] = [false, true].flatMap((include_locations) =>
  [false, true].flatMap((include_zero_lines) =>
    [false, true].map((exclude_customer_order_stock) => ({
      include_locations,
      include_zero_lines,
      exclude_customer_order_stock,
    })),
  ),
);

const locationQuantities = (e: Entry) =>
  Object.fromEntries((e.store_locations ?? []).map((l) => [String(l.store_location_code ?? '-'), l.quantity]));

for (const dialect of DIALECTS) {
  describe(`single-product stock answer cache (${dialect.name})`, () => {
    let a: TestApp;
    let b: TestApp;
    let tempDir: string | undefined;
    const spies = new Map<TestApp, MockInstance<StockAnswerCache['get']>>();

    const ok = (response: { statusCode: number; body: string }) => expect(response.statusCode, response.body).toBe(200);

    async function book(t: TestApp, store: string, lines: unknown[]): Promise<number[]> {
      const response = await t.post(LOGS(store), { storeproductlog: lines });
      ok(response);
      return response.json().data as number[];
    }

    const url = (store: string, ref: string, flags: Flags) => {
      const query = Object.entries(flags)
        .filter(([, on]) => on !== undefined)
        .map(([name, on]) => `${name}=${on}`)
        .join('&');
      return `${API}/stores/${store}/products/${ref}/stock${query ? `?${query}` : ''}`;
    };

    /** The answer as built from the database with an empty cache: what any answer must equal. */
    async function coldAnswer(store: string, ref: string, flags: Flags): Promise<Entry> {
      const ctx = { ...a.app.ctx, stockAnswers: new StockAnswerCache() };
      return JSON.parse(await productStockBody(ctx, store, ref, flags, (response) => JSON.stringify(response)))
        .products[0];
    }

    async function read(t: TestApp, store: string, ref: string, flags: Flags = {}): Promise<Answer> {
      const spy = spies.get(t)!;
      const before = spy.mock.results.length;
      const response = await t.get(url(store, ref, flags));
      ok(response);
      const hit = spy.mock.results.slice(before).some((r) => r.type === 'return' && r.value !== undefined);
      const answer: Answer = { body: response.body, entry: response.json().products[0], hit };
      expect(answer.entry, `${store}/${ref} ${JSON.stringify(flags)} equals a cold read`).toEqual(
        await coldAnswer(store, ref, flags),
      );
      return answer;
    }

    /** Reads twice through `t` and makes sure the second answer came from its cache: the case below cannot pass vacuously. */
    async function warm(t: TestApp, store: string, ref: string, flags: Flags = {}): Promise<Entry> {
      const first = await read(t, store, ref, flags);
      const second = await read(t, store, ref, flags);
      expect(second.hit, `${store}/${ref} ${JSON.stringify(flags)} is cached`).toBe(true);
      expect(second.body).toBe(first.body);
      return second.entry;
    }

    beforeAll(async () => {
      let databaseUrl: string;
      if (dialect.name === 'sqlite') {
        // In-memory SQLite cannot be shared between two apps: one file both open.
        tempDir = mkdtempSync(join(tmpdir(), 'stock-answer-cache-'));
        databaseUrl = `sqlite:${join(tempDir, 'stock.sqlite')}`;
      } else {
        databaseUrl = await dialect.freshDatabaseUrl();
      }
      a = await buildTestApp(dialect, { databaseUrl });
      b = await buildTestApp(dialect, { databaseUrl });
      for (const t of [a, b]) spies.set(t, vi.spyOn(t.app.ctx.stockAnswers, 'get'));

      ok(
        await a.post(`${API}/stores`, {
          stores: [
            storeInput('S1', { store_stock_pool_2: 'Backroom', store_stock_pool_3: 'Display' }),
            storeInput('S2'),
            storeInput('S7', { store_stock_pool_3: 'Display' }),
          ],
        }),
      );
      ok(await a.post(`${API}/products`, { products: Array.from({ length: 12 }, (_, i) => productOf(i + 1)) }));
      ok(
        await a.post(`${API}/reasoncodes`, {
          reason_codes: [
            reasonCodeInput(30, { is_loss: true, default_review_status: 1 }),
            reasonCodeInput(300, { reason_code_type: 3 }),
          ],
        }),
      );
      ok(
        await a.post(LOCATIONS('S1'), {
          locations: [
            locationInput('L1', { location_order: 1, tags: ['front'], default_stock_pool: 3 }),
            locationInput('L2', { location_order: 2, tags: ['back'], default_stock_pool: 2 }),
            locationInput('L6A', { location_order: 5, tags: ['t1'], default_stock_pool: 2 }),
            locationInput('L6B', { location_order: 6 }),
            locationInput('L9', { location_order: 9 }),
          ],
        }),
      );
      ok(await a.post(LOCATIONS('S7'), { locations: [locationInput('L7', { default_stock_pool: 3 })] }));
    });

    afterAll(async () => {
      for (const spy of spies.values()) spy.mockRestore();
      await a?.close();
      await b?.close();
      await dialect.cleanup();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    });

    it('1. a stock post through B is seen by A, by product number and by every kind of barcode', async () => {
      const p = barcodes(1);
      await book(a, 'S1', [entry('AC-1', 5)]);
      expect(await warm(a, 'S1', 'AC-1')).toEqual({
        most_likely_stock: 5,
        stock_pool_1: 5,
        product_number: 'AC-1',
        store_number: 'S1',
      });
      for (const ref of [p.own, p.extra, p.unit]) expect((await read(a, 'S1', ref)).entry.most_likely_stock).toBe(5);

      await book(b, 'S1', [entry('AC-1', 3, { pool_location: 2 })]);
      for (const ref of ['AC-1', p.own, p.extra, p.unit]) {
        expect((await read(a, 'S1', ref)).entry).toEqual({
          most_likely_stock: 8,
          stock_pool_1: 5,
          stock_pool_2: 3,
          product_number: 'AC-1',
          store_number: 'S1',
        });
      }

      // First stock in another store (no store product there yet), then a change to it.
      expect((await read(a, 'S2', p.own)).entry.most_likely_stock).toBe(0);
      await book(b, 'S2', [entry('AC-1', 4)]);
      expect((await read(a, 'S2', p.own)).entry.most_likely_stock).toBe(4);
      await warm(a, 'S2', p.own);
      await book(b, 'S2', [entry('AC-1', -1)]);
      expect((await read(a, 'S2', 'AC-1')).entry.most_likely_stock).toBe(3);
      expect((await read(a, 'S1', 'AC-1')).entry.most_likely_stock).toBe(8);
    });

    it('2. movements through A and through B move the per-location quantities A shows', async () => {
      await book(a, 'S1', [entry('AC-2', 10, { location_code: 'L2' })]);
      const locations = { include_locations: true };
      expect(locationQuantities(await warm(a, 'S1', 'AC-2', locations))).toEqual({ L2: 10 });
      expect(await warm(a, 'S1', 'AC-2')).toMatchObject({ most_likely_stock: 10, stock_pool_2: 10 });

      ok(
        await a.post(MOVE('S1'), {
          body: [
            {
              product_number: 'AC-2',
              quantity: 4,
              from_location: { location_code: 'L2' },
              to_location: { location_code: 'L1' },
              reason_code: 300,
            },
          ],
        }),
      );
      const afterA = await read(a, 'S1', 'AC-2', locations);
      expect(afterA.entry.store_locations).toEqual([
        { quantity: 4, stock_pool_3: 4, store_location_code: 'L1', tags: ['front'], default_stock_pool: 'Display' },
        { quantity: 6, stock_pool_2: 6, store_location_code: 'L2', tags: ['back'], default_stock_pool: 'Backroom' },
      ]);
      expect((await read(a, 'S1', 'AC-2')).entry).toMatchObject({
        most_likely_stock: 10,
        stock_pool_2: 6,
        stock_pool_3: 4,
      });
      await warm(a, 'S1', 'AC-2', locations);

      ok(
        await b.post(MOVE('S1'), {
          body: [{ product_number: 'AC-2', quantity: 3, from_location: { location_code: 'L1' } }],
        }),
      );
      expect(locationQuantities((await read(a, 'S1', 'AC-2', locations)).entry)).toEqual({ L1: 1, L2: 6, '-': 3 });
      const plain = (await read(a, 'S1', 'AC-2')).entry;
      expect(plain).toMatchObject({ most_likely_stock: 10, stock_pool_2: 6, stock_pool_3: 1 });
      expect(plain.stock_pool_1).toBe(3);
    });

    it('3. external counting through B: A shows the counted total', async () => {
      // L9 has no default pool: its stock is free pool-1 stock, which a store-total count keeps.
      await book(a, 'S1', [entry('AC-3', 5), entry('AC-3', 2, { location_code: 'L9' })]);
      expect((await warm(a, 'S1', 'AC-3')).most_likely_stock).toBe(7);
      expect(locationQuantities(await warm(a, 'S1', barcodes(3).own, { include_locations: true }))).toEqual({
        L9: 2,
        '-': 5,
      });

      const counted = await b.post(`${API}/externalcountinglines`, {
        CountingDateTime: '2026-06-01T06:00:00Z',
        StoreNo: 'S1',
        Lines: [{ product_barcode: barcodes(3).own, counted_quantity: 10 }],
      });
      ok(counted);
      expect((await read(a, 'S1', 'AC-3')).entry.most_likely_stock).toBe(10);
      expect(locationQuantities((await read(a, 'S1', barcodes(3).own, { include_locations: true })).entry)).toEqual({
        L9: 2,
        '-': 8,
      });
    });

    it('4. review: a pending entry leaves A unchanged; approval through B is seen by A', async () => {
      await book(a, 'S1', [entry('AC-4', 10)]);
      const before = await read(a, 'S1', 'AC-4');
      await warm(a, 'S1', 'AC-4');
      const posted = await b.post(LOGS('S1'), { storeproductlog: [entry('AC-4', 2, { reason_code: 30 })] });
      ok(posted);
      expect(posted.json().message).toContain('pending review 1');
      const pending = await read(a, 'S1', 'AC-4');
      expect(pending.entry.most_likely_stock).toBe(10);
      expect(pending.body).toBe(before.body);

      ok(await b.post(`${LOGS('S1')}/review`, { ids: posted.json().data, approve: true }));
      expect((await read(a, 'S1', 'AC-4')).entry).toMatchObject({ most_likely_stock: 8, stock_pool_1: 8 });
    });

    it('5. a product import with is_reset_store_stock=true through B: A shows 0', async () => {
      await book(a, 'S1', [
        entry('AC-5', 5),
        entry('AC-5', 2, { location_code: 'L1' }),
        entry('AC-5', 1, { customer_order_number: 'CO-5' }),
      ]);
      const zeroLines = { include_locations: true, include_zero_lines: true };
      expect((await warm(a, 'S1', 'AC-5')).most_likely_stock).toBe(8);
      expect(locationQuantities(await warm(a, 'S1', 'AC-5', zeroLines))).toEqual({ L1: 2, '-': 6 });
      expect((await warm(a, 'S1', 'AC-5', { exclude_customer_order_stock: true })).most_likely_stock).toBe(7);

      ok(await b.post(`${API}/products`, { products: [productOf(5, { is_reset_store_stock: true })] }));
      expect((await read(a, 'S1', 'AC-5')).entry).toEqual({
        most_likely_stock: 0,
        product_number: 'AC-5',
        store_number: 'S1',
      });
      expect(locationQuantities((await read(a, 'S1', 'AC-5', zeroLines)).entry)).toEqual({ L1: 0, '-': 0 });
      expect((await read(a, 'S1', 'AC-5', { exclude_customer_order_stock: true })).entry.most_likely_stock).toBe(0);
    });

    it('6. location changes through B (tags, default pool, order) are seen by A with include_locations', async () => {
      await book(a, 'S1', [entry('AC-6', 2, { location_code: 'L6A' }), entry('AC-6', 1, { location_code: 'L6B' })]);
      const locations = { include_locations: true };
      expect((await warm(a, 'S1', 'AC-6', locations)).store_locations).toEqual([
        { quantity: 2, stock_pool_2: 2, store_location_code: 'L6A', tags: ['t1'], default_stock_pool: 'Backroom' },
        { quantity: 1, stock_pool_1: 1, store_location_code: 'L6B', tags: [] },
      ]);

      // A location without tags: only the locations row changes (no location_tags row is
      // written), so only the version bump on locations itself can tell A.
      ok(
        await b.post(LOCATIONS('S1'), {
          locations: [locationInput('L6B', { location_order: 6, default_stock_pool: 3 })],
        }),
      );
      expect((await read(a, 'S1', 'AC-6', locations)).entry.store_locations![1]).toEqual({
        quantity: 1,
        stock_pool_1: 1,
        store_location_code: 'L6B',
        tags: [],
        default_stock_pool: 'Display',
      });
      await warm(a, 'S1', 'AC-6', locations);
      ok(
        await b.post(LOCATIONS('S1'), {
          locations: [locationInput('L6B', { location_order: 1, default_stock_pool: 3 })],
        }),
      );
      expect((await read(a, 'S1', 'AC-6', locations)).entry.store_locations!.map((l) => l.store_location_code)).toEqual(
        ['L6B', 'L6A'],
      );
      await warm(a, 'S1', 'AC-6', locations);

      // Tags and default pool of a tagged location.
      ok(
        await b.post(LOCATIONS('S1'), {
          locations: [locationInput('L6A', { location_order: 5, tags: ['t1', 'cold'], default_stock_pool: 3 })],
        }),
      );
      expect((await read(a, 'S1', 'AC-6', locations)).entry.store_locations![1]).toEqual({
        quantity: 2,
        stock_pool_2: 2,
        store_location_code: 'L6A',
        tags: ['t1', 'cold'],
        default_stock_pool: 'Display',
      });
      await warm(a, 'S1', 'AC-6', locations);

      // Only the tags.
      ok(
        await b.post(LOCATIONS('S1'), {
          locations: [locationInput('L6B', { location_order: 1, default_stock_pool: 3, tags: ['bulk'] })],
        }),
      );
      expect((await read(a, 'S1', 'AC-6', locations)).entry.store_locations![0]).toMatchObject({
        store_location_code: 'L6B',
        tags: ['bulk'],
      });
    });

    it("7. the store's pool names changed through B: A shows the new default_stock_pool name", async () => {
      await book(a, 'S7', [entry('AC-7', 4, { location_code: 'L7' })]);
      const locations = { include_locations: true };
      expect((await warm(a, 'S7', 'AC-7', locations)).store_locations).toEqual([
        { quantity: 4, stock_pool_3: 4, store_location_code: 'L7', tags: [], default_stock_pool: 'Display' },
      ]);
      ok(await b.post(`${API}/stores`, { stores: [storeInput('S7', { store_stock_pool_3: 'Shop floor' })] }));
      expect((await read(a, 'S7', 'AC-7', locations)).entry.store_locations![0]!.default_stock_pool).toBe('Shop floor');
      await warm(a, 'S7', 'AC-7', locations);
      // A pool the store no longer names reads as its number (PRODUCT §5 Locations).
      ok(await b.post(`${API}/stores`, { stores: [storeInput('S7')] }));
      expect((await read(a, 'S7', 'AC-7', locations)).entry.store_locations![0]!.default_stock_pool).toBe('3');
    });

    it("8. the store product's schedule changed through B: A shows it", async () => {
      await book(a, 'S1', [entry('AC-8', 1)]);
      expect(await warm(a, 'S1', 'AC-8')).toEqual({
        most_likely_stock: 1,
        stock_pool_1: 1,
        product_number: 'AC-8',
        store_number: 'S1',
      });

      const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
        [{ next_delivery_date: '2026-12-01T06:00:00Z' }, { next_delivery_datetime: '2026-12-01T06:00:00.000Z' }],
        [{ next_ordering_date: '2026-11-28T08:00:00Z' }, { next_ordering_datetime: '2026-11-28T08:00:00.000Z' }],
        [
          { delivery_datetimes: ['2026-12-01T06:00:00Z', '2026-12-08T06:00:00Z'] },
          { delivery_datetimes: ['2026-12-01T06:00:00.000Z', '2026-12-08T06:00:00.000Z'] },
        ],
        [{ ordering_datetimes: ['2026-11-28T08:00:00Z'] }, { ordering_datetimes: ['2026-11-28T08:00:00.000Z'] }],
        [{ next_delivery_date: '2026-12-02T06:00:00Z' }, { next_delivery_datetime: '2026-12-02T06:00:00.000Z' }],
      ];
      for (const [input, shown] of steps) {
        ok(await b.put(STORE_PRODUCTS('S1'), { products: [{ product_number: 'AC-8', ...input }] }));
        expect((await read(a, 'S1', 'AC-8')).entry, JSON.stringify(input)).toMatchObject(shown);
        await warm(a, 'S1', 'AC-8');
      }
      // POST too, and a cleared field disappears from A's answer.
      ok(
        await b.post(STORE_PRODUCTS('S1'), {
          products: [{ product_number: 'AC-8', next_delivery_date: '2027-01-05T06:00:00Z' }],
        }),
      );
      expect((await read(a, 'S1', 'AC-8')).entry.next_delivery_datetime).toBe('2027-01-05T06:00:00.000Z');
      await warm(a, 'S1', 'AC-8');
      ok(await b.put(STORE_PRODUCTS('S1'), { products: [{ product_number: 'AC-8', next_delivery_date: null }] }));
      expect((await read(a, 'S1', 'AC-8')).entry.next_delivery_datetime).toBeUndefined();
    });

    it('9. every flag combination is its own answer and each reads correctly after a change', async () => {
      await book(a, 'S1', [entry('AC-9', 5), entry('AC-9', 2, { location_code: 'L9' })]);
      for (const flags of FLAG_VARIANTS) {
        const warmEntry = await warm(a, 'S1', 'AC-9', flags);
        expect(warmEntry.most_likely_stock, JSON.stringify(flags)).toBe(7);
      }
      // Order-bound stock arrives at L9 and its free stock goes to zero.
      await book(b, 'S1', [
        entry('AC-9', 3, { location_code: 'L9', customer_order_number: 'CO-9' }),
        entry('AC-9', -2, { location_code: 'L9' }),
      ]);
      for (const flags of FLAG_VARIANTS) {
        const label = JSON.stringify(flags);
        const { entry: e } = await read(a, 'S1', 'AC-9', flags);
        const total = flags.exclude_customer_order_stock ? 5 : 8;
        expect(e.most_likely_stock, label).toBe(total);
        expect(e.stock_pool_1, label).toBe(total);
        expect(e.stock_pool_4, label).toBe(flags.include_zero_lines ? 0 : undefined);
        if (!flags.include_locations) {
          expect(e.store_locations, label).toBeUndefined();
          continue;
        }
        const l9 = flags.exclude_customer_order_stock ? 0 : 3;
        const expected = l9 === 0 && !flags.include_zero_lines ? { '-': 5 } : { L9: l9, '-': 5 };
        expect(locationQuantities(e), label).toEqual(expected);
      }
    });

    it('10. the cache really answers: identical bodies from a hit, a different body after a write', async () => {
      await book(a, 'S1', [entry('AC-10', 1)]);
      const first = await read(a, 'S1', 'AC-10');
      const second = await read(a, 'S1', 'AC-10');
      expect(second.hit).toBe(true);
      expect(second.body).toBe(first.body);
      expect(a.app.ctx.stockAnswers.size).toBeGreaterThan(0);

      await book(b, 'S1', [entry('AC-10', 1)]);
      const after = await read(a, 'S1', 'AC-10');
      expect(after.hit).toBe(false);
      expect(after.body).not.toBe(second.body);
      expect(after.entry.most_likely_stock).toBe(2);
      expect((await read(a, 'S1', 'AC-10')).hit).toBe(true);
    });

    it('11. a barcode moved to another product through B: A answers for the new owner', async () => {
      await book(a, 'S1', [entry('AC-11', 4), entry('AC-12', 9)]);
      const moving = barcodes(11).extra;
      expect((await warm(a, 'S1', moving)).product_number).toBe('AC-11');
      ok(
        await b.post(`${API}/products`, {
          products: [
            productOf(11, { barcodes_array: [] }),
            productOf(12, { barcodes_array: [{ barcode: barcodes(12).extra }, { barcode: moving }] }),
          ],
        }),
      );
      expect((await read(a, 'S1', moving)).entry).toMatchObject({ product_number: 'AC-12', most_likely_stock: 9 });
    });

    it('12. a product deleted through B is a 404 through A; restored, its stock is answered again', async () => {
      expect((await warm(a, 'S1', 'AC-1')).most_likely_stock).toBe(8);
      ok(await b.del(`${API}/products`, { product_number: ['AC-1'] }));
      expect((await a.get(url('S1', 'AC-1', {}))).statusCode).toBe(404);
      expect((await a.get(url('S1', barcodes(1).own, {}))).statusCode).toBe(404);
      ok(await b.post(`${API}/products`, { products: [productOf(1)] }));
      expect((await read(a, 'S1', 'AC-1')).entry.most_likely_stock).toBe(8);
    });

    it('store-ops verify holds after every write above', async () => {
      expect(await verifyAll(a.app.ctx.handle)).toEqual([]);
    });
  });
}
