import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';

type Page = {
  list: Array<{ id: number; store_number: string }>;
  scroll_id: string | null;
  page_start: number;
  page_size: number;
  next_page: number | null;
  previous_page: number | null;
  total_count: number;
  project_last_modified_date: string | null;
};

const STORE_COUNT = 25;
const storeNumber = (i: number) => `P${String(i).padStart(2, '0')}`;
/** P01..P25; every fifth one is a warehouse. */
const ALL_STORES = Array.from({ length: STORE_COUNT }, (_, i) =>
  storeInput(storeNumber(i + 1), { is_warehouse: (i + 1) % 5 === 0 }),
);
const ALL_NUMBERS = ALL_STORES.map((s) => s.store_number);
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`paging of GET /stores (PRODUCT §3.1, ${dialect.name})`, () => {
    let t: TestApp;
    const page = async (query: string): Promise<Page> => {
      const response = await t.get(`${API}/stores?${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    };
    const numbers = (p: Page) => p.list.map((s) => s.store_number);
    const newestUpdatedOn = async () => {
      const row = await t.app.ctx.db
        .selectFrom('stores')
        .select((eb) => eb.fn.max('updated_on').as('last'))
        .executeTakeFirstOrThrow();
      return new Date(Number(row.last)).toISOString();
    };

    /** Follows scroll_id from the first page to the end; every page and the numbers in order. */
    async function scroll(query: string) {
      const pages: Page[] = [await page(query)];
      while (pages.at(-1)!.scroll_id !== null) {
        expect(pages.length).toBeLessThan(50);
        pages.push(await page(`${query}&scroll_id=${encodeURIComponent(pages.at(-1)!.scroll_id!)}`));
      }
      return { pages, numbers: pages.flatMap(numbers) };
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: ALL_STORES })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('carries every PagedResponse field, with the defaults', async () => {
      const before = Date.now();
      const response = await t.get(`${API}/stores`);
      const after = Date.now();
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(
        [
          'page_size',
          'page_start',
          'total_count',
          'list',
          'list_filters',
          'next_page',
          'previous_page',
          'project_last_modified_date',
          'scroll_id',
          'server_time',
          'sort_column',
          'sort_order',
          'task_last_modified_date',
        ].sort(),
      );
      expect(body).toMatchObject({
        page_size: 100,
        page_start: 1,
        total_count: STORE_COUNT,
        list_filters: {},
        next_page: null,
        previous_page: null,
        scroll_id: null,
        sort_column: 'id',
        sort_order: 'asc',
        task_last_modified_date: null,
      });
      expect(numbers(body)).toEqual(ALL_NUMBERS);
      expect(body.server_time).toMatch(ISO_UTC);
      const serverTime = Date.parse(body.server_time);
      expect(serverTime).toBeGreaterThanOrEqual(before);
      expect(serverTime).toBeLessThanOrEqual(after);
      expect(body.project_last_modified_date).toBe(await newestUpdatedOn());
    });

    it('next_page and previous_page are null at the ends', async () => {
      const first = await page('page_size=10');
      expect(first).toMatchObject({
        page_start: 1,
        page_size: 10,
        next_page: 2,
        previous_page: null,
        total_count: STORE_COUNT,
      });
      expect(numbers(first)).toEqual(ALL_NUMBERS.slice(0, 10));
      const middle = await page('page_size=10&page_start=2');
      expect(middle).toMatchObject({ page_start: 2, next_page: 3, previous_page: 1 });
      expect(numbers(middle)).toEqual(ALL_NUMBERS.slice(10, 20));
      const last = await page('page_size=10&page_start=3');
      expect(last).toMatchObject({ page_start: 3, next_page: null, previous_page: 2, scroll_id: null });
      expect(numbers(last)).toEqual(ALL_NUMBERS.slice(20));
      const exact = await page('page_size=5&page_start=5');
      expect(exact).toMatchObject({ next_page: null, previous_page: 4, scroll_id: null });
      expect(exact.list).toHaveLength(5);
    });

    it('a page past the last is 200 with an empty list', async () => {
      const past = await page('page_size=10&page_start=4');
      expect(past).toMatchObject({
        page_start: 4,
        total_count: STORE_COUNT,
        list: [],
        next_page: null,
        scroll_id: null,
      });
      expect((await page('page_start=999999')).list).toEqual([]);
    });

    it('total_count is exact under filters, and the filters are echoed as arrays of strings', async () => {
      const warehouses = await page('is_warehouse=true&page_size=2');
      expect(warehouses.total_count).toBe(5);
      expect(numbers(warehouses)).toEqual(['P05', 'P10']);
      const filtered = (await t.get(`${API}/stores?is_warehouse=false&search_text=P1&secondary_key=none`)).json();
      expect(filtered.list_filters).toEqual({ is_warehouse: ['false'], search_text: ['P1'], secondary_key: ['none'] });
      expect(filtered.total_count).toBe(0);
      const stores = await page('is_warehouse=false&search_text=p1');
      expect(stores.total_count).toBe(8);
      expect(numbers(stores)).toEqual(['P11', 'P12', 'P13', 'P14', 'P16', 'P17', 'P18', 'P19']);
    });

    it('project_last_modified_date is the newest updated_on of any store', async () => {
      const before = (await page('page_size=1')).project_last_modified_date;
      expect(before).toBe(await newestUpdatedOn());
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await t.post(`${API}/stores`, { stores: [{ ...ALL_STORES[2]!, city: 'Changed' }] })).json().message).toBe(
        'created 0, updated 1, unchanged 0, deleted 0',
      );
      const row = await t.app.ctx.db
        .selectFrom('stores')
        .select('updated_on')
        .where('store_number', '=', 'P03')
        .executeTakeFirstOrThrow();
      const after = (await page('page_size=1&is_warehouse=true')).project_last_modified_date;
      expect(after).toBe(new Date(Number(row.updated_on)).toISOString());
      expect(Date.parse(after!)).toBeGreaterThan(Date.parse(before!));
    });

    it('scroll_id walks every store exactly once, in order; the last page has none', async () => {
      const { pages, numbers: walked } = await scroll('page_size=10');
      expect(walked).toEqual(ALL_NUMBERS);
      expect(pages.map((p) => p.list.length)).toEqual([10, 10, 5]);
      expect(pages.map((p) => p.page_start)).toEqual([1, 2, 3]);
      expect(pages.map((p) => p.total_count)).toEqual([25, 25, 25]);
      expect(pages.at(-1)!.scroll_id).toBeNull();
      expect(pages.at(-1)!.next_page).toBeNull();

      const filtered = await scroll('page_size=7&is_warehouse=false');
      expect(filtered.numbers).toEqual(ALL_NUMBERS.filter((_, i) => (i + 1) % 5 !== 0));
    });

    it('scroll_id ignores page_start', async () => {
      const first = await page('page_size=10');
      const next = await page(`page_size=10&page_start=3&scroll_id=${encodeURIComponent(first.scroll_id!)}`);
      expect(next.page_start).toBe(2);
      expect(numbers(next)).toEqual(ALL_NUMBERS.slice(10, 20));
    });

    it('a scroll_id alone keeps its page size; a page_size given with it wins', async () => {
      const first = await page('page_size=4');
      const alone = await page(`scroll_id=${encodeURIComponent(first.scroll_id!)}`);
      expect(alone.page_size).toBe(4);
      expect(numbers(alone)).toEqual(ALL_NUMBERS.slice(4, 8));
      const wider = await page(`page_size=6&scroll_id=${encodeURIComponent(alone.scroll_id!)}`);
      expect(wider.page_size).toBe(6);
      expect(numbers(wider)).toEqual(ALL_NUMBERS.slice(8, 14));
    });

    it('scroll_id is a keyset cursor: removing a record from an earlier page shifts nothing', async () => {
      const first = await page('page_size=10');
      const flushed = await t.post(`${API}/stores?flush=true`, {
        stores: ALL_STORES.filter((s) => s.store_number !== 'P03'),
      });
      expect(flushed.json().message).toMatch(/deleted 1$/);
      const next = await page(`page_size=10&scroll_id=${encodeURIComponent(first.scroll_id!)}`);
      expect(numbers(next)).toEqual(ALL_NUMBERS.slice(10, 20));
      expect(next.total_count).toBe(STORE_COUNT - 1);
      expect((await t.post(`${API}/stores`, { stores: [ALL_STORES[2]] })).json().message).toBe(
        'created 0, updated 1, unchanged 0, deleted 0',
      );
    });

    it('a tampered, foreign or garbage scroll_id is a 400', async () => {
      const { scroll_id: cursor } = await page('page_size=10&is_warehouse=false');
      expect(cursor).toEqual(expect.any(String));
      const [body, signature] = cursor!.split('.') as [string, string];
      const flip = (text: string, at: number) =>
        text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
      const forged = Buffer.from(JSON.stringify([1, 2, 'x', 10])).toString('base64url');
      const candidates: Array<[string, string]> = [
        [
          'flipped body',
          'page_size=10&is_warehouse=false&scroll_id=' + encodeURIComponent(`${flip(body, 3)}.${signature}`),
        ],
        [
          'flipped signature',
          'page_size=10&is_warehouse=false&scroll_id=' + encodeURIComponent(`${body}.${flip(signature, 5)}`),
        ],
        ['forged body', 'page_size=10&is_warehouse=false&scroll_id=' + encodeURIComponent(`${forged}.${signature}`)],
        ['garbage', 'page_size=10&is_warehouse=false&scroll_id=garbage'],
        ['three parts', 'page_size=10&is_warehouse=false&scroll_id=' + encodeURIComponent(`${cursor}.x`)],
        ['other filters', 'page_size=10&is_warehouse=true&scroll_id=' + encodeURIComponent(cursor!)],
        ['filters left out', 'page_size=10&scroll_id=' + encodeURIComponent(cursor!)],
        ['over-long', `scroll_id=${'a'.repeat(513)}`],
      ];
      for (const [label, query] of candidates) {
        const response = await t.get(`${API}/stores?${query}`);
        expect(response.statusCode, label).toBe(400);
        expect(response.json(), label).toMatchObject({
          success: false,
          code: 'VALIDATION_FAILED',
          errors: [{ path: 'query.scroll_id' }],
        });
      }
      expect(
        (await t.get(`${API}/stores?is_warehouse=false&scroll_id=${encodeURIComponent(cursor!)}`)).statusCode,
      ).toBe(200);
    });
  });
}
