import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, productInput, reasonCodeInput, stockLogInput, storeInput } from '../helpers/factories.js';

// The stock list's filters on stock itself (issue 43): location_code, below_zero,
// not_counted_since, each alone, together, with the interface's filters, under a store token.

const LIST = `${API}/storeproducts/stock`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const REVIEW_REASON = 30;
const COUNT_REASON = 60;

interface Item {
  store_number: string;
  product_number: string;
  [field: string]: unknown;
}
interface Page {
  total_count: number;
  list: Item[];
  list_filters: Record<string, string[]>;
  scroll_id: string | null;
  [field: string]: unknown;
}

for (const dialect of DIALECTS) {
  describe(`stock list filters (${dialect.name})`, () => {
    let t: TestApp;

    const ok = <R extends { statusCode: number; body: string }>(response: R): R => {
      expect(response.statusCode, response.body).toBe(200);
      return response;
    };
    const book = async (store: string, lines: unknown[], query = '') =>
      ok(await t.post(`${LOGS(store)}${query}`, { storeproductlog: lines }));
    async function list(query: string, token?: string): Promise<Page> {
      return ok(await t.get(`${LIST}?${query}`, token)).json();
    }
    /** The products of S1 a query lists (store_number=S1 added), in list order. */
    async function s1(query: string): Promise<string[]> {
      const page = await list(`store_number=S1&page_size=1000&${query}`);
      expect(page.total_count).toBe(page.list.length);
      return page.list.map((item) => item.product_number);
    }
    const at = (day: number, hour = 10) =>
      `2026-01-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      ok(await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2')] }));
      ok(await t.post(`${API}/categories`, { categories: [categoryInput('FOOD'), categoryInput('DAIRY')] }));
      ok(
        await t.post(`${API}/products`, {
          products: [
            productInput('P1', { product_name: 'Apple', category_code: 'FOOD' }),
            productInput('P2', { product_name: 'Milk', category_code: 'DAIRY' }),
            productInput('P3', { product_name: 'Yoghurt', category_code: 'DAIRY' }),
            productInput('P4', { product_name: 'Bread', category_code: 'FOOD' }),
            productInput('P5', { product_name: 'Butter', category_code: 'DAIRY' }),
            productInput('P6', { product_name: 'Cheese', category_code: 'DAIRY' }),
            productInput('P7', { product_name: 'Never booked' }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/reasoncodes`, {
          reason_codes: [
            reasonCodeInput(REVIEW_REASON, { default_review_status: 1 }),
            reasonCodeInput(COUNT_REASON, { reason_code_type: 6 }),
          ],
        }),
      );
      for (const store of ['S1', 'S2'])
        ok(
          await t.post(`${API}/stores/${store}/locations`, {
            locations: [
              { location_code: 'A-01', default_stock_pool: 1 },
              { location_code: 'B-01', default_stock_pool: 2 },
            ],
          }),
        );
      await book('S1', [
        // P1: 5 at A-01, −2 unlocated: pool 1 is 3.
        stockLogInput('P1', 5, at(2), { location_code: 'A-01' }),
        stockLogInput('P1', -2, at(2)),
        // P2: −3 unlocated: pool 1 and the total below zero; a correction with a count-type reason is no count.
        stockLogInput('P2', -3, at(2)),
        stockLogInput('P2', 1, at(7), { reason_code: COUNT_REASON }),
        // P3: 5 in pool 1, −1 in pool 2 at B-01: the total is 4, pool 2 below zero.
        stockLogInput('P3', 5, at(2)),
        stockLogInput('P3', -1, at(2), { location_code: 'B-01' }),
        // P4: in and out of A-01 again: a zero line there.
        stockLogInput('P4', 2, at(2), { location_code: 'A-01' }),
        stockLogInput('P4', -2, at(2), { location_code: 'A-01' }),
        // P5: 3 free at B-01, −4 bound to an order not imported: pool 2 is −1, its free stock 3.
        stockLogInput('P5', 3, at(2), { location_code: 'B-01' }),
        stockLogInput('P5', -4, at(2), { location_code: 'B-01', customer_order_number: 'CO-9' }),
        // P6: only stock bound to an order, at B-01.
        stockLogInput('P6', 2, at(2), { location_code: 'B-01', customer_order_number: 'CO-9' }),
      ]);
      // Counts at levels already there (nothing moves): P1 on the 3rd, P4 on the 5th.
      await book(
        'S1',
        [
          stockLogInput('P1', 5, at(3), { location_code: 'A-01' }),
          stockLogInput('P4', 0, at(5), { location_code: 'A-01' }),
        ],
        '?is_counted_quantity=true',
      );
      await book('S2', [stockLogInput('P1', 1, at(2), { location_code: 'A-01' })]);
      await book('S2', [stockLogInput('P1', 1, at(10), { location_code: 'A-01' })], '?is_counted_quantity=true');
      ok(await t.post(`${API}/stores/S1/storeproducts`, { products: [{ product_number: 'P7' }] }));
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('location_code', () => {
      it('lists the store products with stock at the location: some pool there is not zero', async () => {
        expect(await s1('location_code=A-01')).toEqual(['P1']); // P4's line at A-01 is zero
        expect(await s1('location_code=B-01')).toEqual(['P3', 'P5', 'P6']);
      });

      it('reads the location in each store of the list', async () => {
        const page = await list('location_code=A-01');
        expect(page.list.map((i) => `${i.store_number}/${i.product_number}`)).toEqual(['S1/P1', 'S2/P1']);
      });

      it('matches the item: its store_locations show the location', async () => {
        const page = await list('store_number=S1&location_code=B-01&include_locations=true');
        for (const item of page.list) {
          const codes = (item.store_locations as Array<{ store_location_code?: string }>).map(
            (l) => l.store_location_code,
          );
          expect(codes, item.product_number).toContain('B-01');
        }
      });

      it('with exclude_customer_order_stock, free stock only (as the item then shows)', async () => {
        expect(await s1('location_code=B-01&exclude_customer_order_stock=true')).toEqual(['P3', 'P5']);
      });

      it('an unknown location code lists nothing', async () => {
        expect(await s1('location_code=NOWHERE')).toEqual([]);
      });
    });

    describe('below_zero', () => {
      it('true: a pool below zero, the total below zero or not; false: none', async () => {
        expect(await s1('below_zero=true')).toEqual(['P2', 'P3', 'P5']);
        expect(await s1('below_zero=false')).toEqual(['P1', 'P4', 'P6', 'P7']);
      });

      it('every listed item shows a pool below zero', async () => {
        for (const item of (await list('below_zero=true')).list) {
          const pools = Array.from({ length: 10 }, (_, i) => item[`most_likely_pool_${i + 1}`] as number);
          expect(
            pools.some((q) => q < 0),
            item.product_number,
          ).toBe(true);
        }
      });

      it('with exclude_customer_order_stock, free stock only', async () => {
        expect(await s1('below_zero=true&exclude_customer_order_stock=true')).toEqual(['P2', 'P3']);
        expect(await s1('below_zero=false&exclude_customer_order_stock=true')).toEqual(['P1', 'P4', 'P5', 'P6', 'P7']);
      });
    });

    describe('not_counted_since', () => {
      it('lists store products with no count at or after the moment, never counted ones included', async () => {
        expect(await s1(`not_counted_since=${at(4, 0)}`)).toEqual(['P1', 'P2', 'P3', 'P5', 'P6', 'P7']);
        expect(await s1(`not_counted_since=${at(3, 0)}`)).toEqual(['P2', 'P3', 'P5', 'P6', 'P7']);
        expect(await s1(`not_counted_since=${at(1)}`)).toEqual(['P2', 'P3', 'P5', 'P6', 'P7']);
      });

      it('a count at the very moment is a count since it; a millisecond later it is not', async () => {
        expect(await s1(`not_counted_since=${at(5)}`)).not.toContain('P4');
        expect(await s1('not_counted_since=2026-01-05T10:00:00.001Z')).toContain('P4');
      });

      it('takes the moment in any spelling PRODUCT §3 allows', async () => {
        const inUtc = await s1(`not_counted_since=${at(4, 0)}`);
        expect(await s1(`not_counted_since=${encodeURIComponent('2026-01-04T01:00:00+01:00')}`)).toEqual(inUtc);
        expect(await s1('not_counted_since=2026-01-04T00:00:00')).toEqual(inUtc);
      });

      it('a count waiting for review is no count until it is approved', async () => {
        const pending = await book(
          'S1',
          [stockLogInput('P3', 5, at(6), { reason_code: REVIEW_REASON })],
          '?is_counted_quantity=true',
        );
        expect(await s1(`not_counted_since=${at(4, 0)}`)).toContain('P3');
        ok(await t.post(`${LOGS('S1')}/review`, { ids: pending.json().data, approve: true }));
        expect(await s1(`not_counted_since=${at(4, 0)}`)).not.toContain('P3');
        const p3 = (await list('store_number=S1&product_number=P3')).list[0]!;
        expect(p3.last_counted_datetime).toBe('2026-01-06T10:00:00.000Z');
      });
    });

    describe('together', () => {
      it('every filter must hold, the interface filters included', async () => {
        expect(await s1('location_code=B-01&below_zero=true')).toEqual(['P3', 'P5']);
        expect(await s1('location_code=B-01&below_zero=false')).toEqual(['P6']);
        expect(await s1('category_code=DAIRY&below_zero=true')).toEqual(['P2', 'P3', 'P5']);
        expect(await s1(`below_zero=true&not_counted_since=${at(4, 0)}`)).toEqual(['P2', 'P5']);
        expect(await s1(`location_code=A-01&not_counted_since=${at(4, 0)}`)).toEqual(['P1']);
        expect(await s1(`location_code=A-01&not_counted_since=${at(3, 0)}`)).toEqual([]);
        expect(await s1('search_text=milk&below_zero=true')).toEqual(['P2']);
        expect(await s1('product_number=P1&below_zero=true')).toEqual([]);
      });

      it('are echoed in list_filters and page like any list, by page_start and by scroll_id', async () => {
        const filters = `below_zero=true&not_counted_since=${at(4, 0)}&location_code=B-01`;
        const first = await list(`store_number=S1&${filters}&page_size=1`);
        expect(first.list_filters).toMatchObject({
          below_zero: ['true'],
          not_counted_since: [at(4, 0)],
          location_code: ['B-01'],
        });
        expect(first.total_count).toBe(1);
        expect(first.list.map((i) => i.product_number)).toEqual(['P5']);
        const all = await s1('below_zero=true');
        const walked: string[] = [];
        let page = await list('store_number=S1&below_zero=true&page_size=1');
        walked.push(...page.list.map((i) => i.product_number));
        while (page.scroll_id) {
          page = await list(
            `store_number=S1&below_zero=true&page_size=1&scroll_id=${encodeURIComponent(page.scroll_id)}`,
          );
          expect(page.total_count).toBe(all.length);
          walked.push(...page.list.map((i) => i.product_number));
        }
        expect(walked).toEqual(all);
        expect((await list('store_number=S1&below_zero=true&page_size=1&page_start=2')).list[0]!.product_number).toBe(
          all[1],
        );
        // A cursor of one filter set is refused under another (the filters are its fingerprint).
        const cursor = (await list('store_number=S1&below_zero=true&page_size=1')).scroll_id!;
        const other = await t.get(
          `${LIST}?store_number=S1&below_zero=false&page_size=1&scroll_id=${encodeURIComponent(cursor)}`,
        );
        expect(other.statusCode).toBe(400);
      });

      it('names are case-insensitive, like every query name', async () => {
        expect(await s1('Location_Code=B-01&BELOW_ZERO=true')).toEqual(['P3', 'P5']);
      });

      it('a store token lists only its stores; another store is an empty list, as for every filter', async () => {
        const token = await t.token('store', ['S2']);
        expect((await list('location_code=A-01', token)).list.map((i) => i.store_number)).toEqual(['S2']);
        expect((await list('store_number=S1&below_zero=true', token)).total_count).toBe(0);
        expect((await list('below_zero=true', token)).total_count).toBe(0);
      });
    });

    describe('stock moves and the lists follow at once', () => {
      it('total_count and rows follow each booking (no count is kept for filters on stock)', async () => {
        const before = await list('store_number=S1&below_zero=true&page_size=1');
        await book('S1', [stockLogInput('P1', -10, at(8))]);
        const after = await list('store_number=S1&below_zero=true&page_size=1');
        expect(after.total_count).toBe(before.total_count + 1);
        expect(await s1('below_zero=true')).toContain('P1');
        await book('S1', [stockLogInput('P4', 1, at(8), { location_code: 'A-01' })]);
        expect(await s1('location_code=A-01')).toEqual(['P1', 'P4']);
        await book('S1', [stockLogInput('P1', 10, at(8))]);
        expect(await s1('below_zero=true')).not.toContain('P1');
      });

      it('the ERP delta pull with a stock filter counts every page afresh', async () => {
        const since = encodeURIComponent('2020-01-01T00:00:00Z');
        const pull = (page: number) =>
          list(`store_number=S1&last_stock_modified_datetime=${since}&below_zero=true&page_size=1&page_start=${page}`);
        const first = await pull(1);
        expect(first.total_count).toBe((await s1('below_zero=true')).length);
        await book('S1', [stockLogInput('P6', -5, at(9))]);
        const second = await pull(2);
        expect(second.total_count).toBe(first.total_count + 1);
        expect(await s1(`last_stock_modified_datetime=${since}&below_zero=true`)).toEqual(await s1('below_zero=true'));
      });
    });

    describe('bad values', () => {
      it('a 400 naming each failing field', async () => {
        const cases: Array<[string, string]> = [
          ['below_zero=maybe', 'query.below_zero'],
          ['not_counted_since=yesterday', 'query.not_counted_since'],
          ['not_counted_since=2026-02-30T00:00:00Z', 'query.not_counted_since'],
          ['location_code=', 'query.location_code'],
          [`location_code=${'x'.repeat(65)}`, 'query.location_code'],
        ];
        for (const [query, path] of cases) {
          const response = await t.get(`${LIST}?${query}`);
          expect(response.statusCode, query).toBe(400);
          expect(response.json(), query).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path }] });
        }
        const both = await t.get(`${LIST}?below_zero=maybe&not_counted_since=soon`);
        expect(both.statusCode).toBe(400);
        expect(
          both
            .json()
            .errors.map((e: { path: string }) => e.path)
            .sort(),
        ).toEqual(['query.below_zero', 'query.not_counted_since']);
      });
    });

    it('the OpenAPI document publishes the three filters with their types', async () => {
      const document = (await t.get(`${API}/openapi.json`, null)).json();
      const parameters = document.paths[`${API}/storeproducts/stock`].get.parameters as Array<{
        name: string;
        in: string;
        schema: Record<string, unknown>;
      }>;
      const named = (name: string) => parameters.find((p) => p.name === name && p.in === 'query')?.schema;
      expect(named('location_code')).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
      expect(named('below_zero')).toMatchObject({ type: 'boolean' });
      expect(named('not_counted_since')).toMatchObject({ type: 'string', format: 'date-time' });
    });
  });
}
