import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { csvPaging } from '../../src/modules/store-stock/stock-csv.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, productInput, stockLogInput, storeInput } from '../helpers/factories.js';

// GET /stores/{s}/storeproducts/stock.csv (issue 43): the store's whole filtered stock list as
// RFC 4180 CSV, checked against the JSON list it must equal, record for item.

const CSV = (store: string, query = '') => `${API}/stores/${encodeURIComponent(store)}/storeproducts/stock.csv${query}`;
const LIST = `${API}/storeproducts/stock`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const POOL_COLUMNS = Array.from({ length: 10 }, (_, i) => `most_likely_pool_${i + 1}`);

/**
 * A strict RFC 4180 reader: records end in CRLF (the last one too), a quoted field doubles its
 * quotes, and a CR or LF outside quotes, or a quote inside an unquoted field, is an error.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let at = 0;
  while (at < text.length) {
    let field = '';
    if (text[at] === '"') {
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote === -1) throw new Error(`unclosed quote at ${at}`);
        field += text.slice(at, quote);
        if (text[quote + 1] === '"') {
          field += '"';
          at = quote + 2;
        } else {
          at = quote + 1;
          break;
        }
      }
    } else {
      const end = text.slice(at).search(/[,\r\n"]/);
      field = end === -1 ? text.slice(at) : text.slice(at, at + end);
      at += field.length;
      if (text[at] === '"') throw new Error(`a quote inside an unquoted field at ${at}`);
    }
    record.push(field);
    if (text[at] === ',') at++;
    else if (text.startsWith('\r\n', at)) {
      records.push(record);
      record = [];
      at += 2;
    } else throw new Error(`expected , or CRLF at ${at}: ${JSON.stringify(text.slice(at, at + 10))}`);
  }
  if (record.length > 0) throw new Error('the last record has no CRLF');
  return records;
}

/** What a spreadsheet would see of a text cell: the guard's quote taken off again. */
const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

interface Item {
  product_number: string;
  [field: string]: unknown;
}

/** The record the export must write for a JSON list item (include_locations=true). */
function expectedRecord(item: Item): string[] {
  const text = (value: unknown) => (value === undefined ? '' : String(value));
  const codes = ((item.store_locations as Array<{ store_location_code?: string }>) ?? [])
    .map((l) => l.store_location_code)
    .filter((c) => c !== undefined);
  return [
    text(item.product_number),
    text(item.product_description),
    text(item.barcode),
    text(item.category_code),
    text(item.category_name),
    JSON.stringify(item.most_likely_quantity),
    ...POOL_COLUMNS.map((name) => JSON.stringify(item[name])),
    codes.join('|'),
    text(item.last_counted_datetime),
    text(item.most_likely_datetime),
  ];
}

for (const dialect of DIALECTS) {
  describe(`stock list as CSV (${dialect.name})`, () => {
    let t: TestApp;
    const ok = <R extends { statusCode: number; body: string }>(response: R): R => {
      expect(response.statusCode, response.body).toBe(200);
      return response;
    };
    const book = async (store: string, lines: unknown[], query = '') =>
      ok(await t.post(`${LOGS(store)}${query}`, { storeproductlog: lines }));
    const csv = async (store: string, query = '') => ok(await t.get(CSV(store, query)));
    /** Every item of the JSON list, walked page by page by scroll_id. */
    async function jsonList(query: string): Promise<Item[]> {
      const items: Item[] = [];
      let url = `${LIST}?include_locations=true&page_size=3&${query}`;
      for (;;) {
        const page = ok(await t.get(url)).json();
        items.push(...page.list);
        if (!page.scroll_id) return items;
        url = `${LIST}?include_locations=true&page_size=3&${query}&scroll_id=${encodeURIComponent(page.scroll_id)}`;
      }
    }
    async function expectExportEqualsList(store: string, filters: string) {
      const records = parseCsv((await csv(store, `?${filters}`)).body).slice(1);
      const items = await jsonList(`store_number=${encodeURIComponent(store)}&${filters}`);
      expect(records.map((r) => r.map(unguard))).toEqual(items.map(expectedRecord));
      return records;
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      ok(
        await t.post(`${API}/stores`, {
          stores: [
            storeInput('S1', { store_stock_pool_1: 'Shop floor', store_stock_pool_2: 'Back, room "2"' }),
            storeInput('S2'),
            storeInput('Ü 1'),
          ],
        }),
      );
      ok(
        await t.post(`${API}/categories`, {
          categories: [
            categoryInput('FOOD', { category_name: 'Food' }),
            categoryInput('ODD', { category_name: '=cmd|calc' }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/products`, {
          products: [
            productInput('C1', { product_name: 'Milk, whole', barcode: '8710001', category_code: 'FOOD' }),
            productInput('C2', { product_name: 'Say "cheese"', category_code: 'FOOD' }),
            productInput('C3', { product_name: 'Two\nlines' }),
            productInput('C4', { product_name: 'Carriage\r\nreturn' }),
            productInput('C5', { product_name: '=HYPERLINK("http://example.invalid","x")' }),
            productInput('C6', { product_name: '+1 pack', barcode: '-123' }),
            productInput('C7', { product_name: '@SUM(A1)', category_code: 'ODD' }),
            productInput('C8', { product_name: '\tTabbed' }),
            productInput('-C9', { product_name: 'Plain' }),
          ],
        }),
      );
      ok(
        await t.post(`${API}/stores/S1/locations`, {
          locations: [{ location_code: 'A-01' }, { location_code: 'B 02' }],
        }),
      );
      await book('S1', [
        stockLogInput('C1', 1.5, '2026-01-02T10:00:00Z', { location_code: 'A-01' }),
        stockLogInput('C1', 2, '2026-01-02T10:00:00Z', { location_code: 'B 02' }),
        stockLogInput('C2', -0.25, '2026-01-02T10:00:00Z', { pool_location: 2 }),
        stockLogInput('C3', 0.001, '2026-01-02T10:00:00Z'),
        stockLogInput('C4', 1234567.891, '2026-01-02T10:00:00Z'),
        stockLogInput('C5', -3, '2026-01-02T10:00:00Z', { location_code: 'A-01' }),
        stockLogInput('C6', 4, '2026-01-02T10:00:00Z', { customer_order_number: 'CO-1' }),
        stockLogInput('C7', 1, '2026-01-02T10:00:00Z'),
        stockLogInput('C8', 1, '2026-01-02T10:00:00Z'),
        stockLogInput('-C9', 1, '2026-01-02T10:00:00Z'),
      ]);
      await book(
        'S1',
        [stockLogInput('C1', 1.5, '2026-01-03T10:00:00Z', { location_code: 'A-01' })],
        '?is_counted_quantity=true',
      );
    });

    afterEach(() => {
      csvPaging.pageSize = 1000;
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('answers text/csv as an attachment named after the store and the day', async () => {
      const response = await csv('S1');
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      const day = new Date().toISOString().slice(0, 10);
      expect(response.headers['content-disposition']).toBe(`attachment; filename="stock-S1-${day}.csv"`);
    });

    it('a store number beyond plain ASCII keeps its exact name in filename* (RFC 6266)', async () => {
      const response = await csv('Ü 1');
      const day = new Date().toISOString().slice(0, 10);
      expect(response.headers['content-disposition']).toBe(
        `attachment; filename="stock-__1-${day}.csv"; filename*=UTF-8''stock-%C3%9C%201-${day}.csv`,
      );
    });

    it('starts with a header row: API field names, the store names of its pools beside theirs', async () => {
      const header = (await csv('S1')).body.split('\r\n')[0];
      expect(header).toBe(
        [
          'product_number,product_description,barcode,category_code,category_name,most_likely_quantity',
          'most_likely_pool_1 (Shop floor)',
          '"most_likely_pool_2 (Back, room ""2"")"',
          ...POOL_COLUMNS.slice(2),
          'store_location_codes,last_counted_datetime,most_likely_datetime',
        ].join(','),
      );
      expect(parseCsv((await csv('S2')).body)).toHaveLength(1); // a store without stock: the header alone
    });

    it('is RFC 4180: CRLF after every record, quotes around commas, quotes, CR and LF, quotes doubled', async () => {
      const body = (await csv('S1')).body;
      expect(body.endsWith('\r\n')).toBe(true);
      const records = parseCsv(body);
      expect(records).toHaveLength(10);
      expect(new Set(records.map((r) => r.length))).toEqual(new Set([19]));
      expect(body).toContain('\r\nC1,"Milk, whole",8710001,FOOD,Food,3.5,3.5,0,');
      expect(body).toContain('\r\nC2,"Say ""cheese""",,FOOD,Food,-0.25,0,-0.25,');
      expect(body).toContain('\r\nC3,"Two\nlines",,,,0.001,0.001,');
      expect(body).toContain('\r\nC4,"Carriage\r\nreturn",,,,1234567.891,1234567.891,');
      const names = Object.fromEntries(records.slice(1).map((r) => [r[0], r[1]]));
      expect(names.C3).toBe('Two\nlines');
      expect(names.C4).toBe('Carriage\r\nreturn');
    });

    it('guards text that a spreadsheet would run as a formula with a quote, never a number', async () => {
      const body = (await csv('S1')).body;
      expect(body).toContain(`\r\nC5,"'=HYPERLINK(""http://example.invalid"",""x"")",,,,-3,-3,0,`);
      expect(body).toContain("\r\nC6,'+1 pack,'-123,,,4,4,");
      expect(body).toContain("\r\nC7,'@SUM(A1),,ODD,'=cmd|calc,1,");
      expect(body).toContain("\r\nC8,'\tTabbed,");
      expect(body).toContain("\r\n'-C9,Plain,");
    });

    it('every record is the JSON list item: the same decimals, dates, locations, in the same order', async () => {
      const records = await expectExportEqualsList('S1', '');
      const c1 = records.find((r) => r[0] === 'C1')!;
      expect(c1.slice(16)).toEqual(['A-01|B 02', '2026-01-03T10:00:00.000Z', expect.stringMatching(/Z$/)]);
    });

    it('takes every filter of the list and exports what the list shows under it', async () => {
      for (const filters of [
        'below_zero=true',
        'below_zero=false',
        'location_code=A-01',
        'location_code=B%2002',
        'not_counted_since=2026-01-03T00:00:00Z',
        'category_code=FOOD&below_zero=true',
        'exclude_customer_order_stock=true',
        'search_text=milk',
      ])
        await expectExportEqualsList('S1', filters);
      const bound = parseCsv((await csv('S1', '?exclude_customer_order_stock=true')).body).find((r) => r[0] === 'C6')!;
      expect(bound[5]).toBe('0');
    });

    it('reads the whole list page by page: many pages equal the JSON list walked by scroll_id', async () => {
      csvPaging.pageSize = 2;
      expect(parseCsv((await csv('S1')).body)).toHaveLength(10);
      await expectExportEqualsList('S1', '');
      await expectExportEqualsList('S1', 'below_zero=false');
      csvPaging.pageSize = 3; // a last page exactly full
      await expectExportEqualsList('S1', '');
    });

    it('a store of 2,500 products in three pages of 1,000', async () => {
      const numbers = Array.from({ length: 2500 }, (_, i) => `BIG-${String(i).padStart(4, '0')}`);
      ok(await t.post(`${API}/products`, { products: numbers.map((n) => productInput(n)) }));
      ok(
        await t.post(`${API}/stores/S2/products/stock/storeproductlogs`, {
          storeproductlog: numbers.map((n, i) => stockLogInput(n, (i % 7) - 3, '2026-01-04T10:00:00Z')),
        }),
      );
      const records = parseCsv((await csv('S2')).body).slice(1);
      expect(records.map((r) => r[0])).toEqual(numbers);
      expect(records.map((r) => Number(r[5]))).toEqual(numbers.map((_, i) => (i % 7) - 3));
      const below = parseCsv((await csv('S2', '?below_zero=true')).body).slice(1);
      expect(below).toHaveLength(numbers.filter((_, i) => i % 7 < 3).length);
    });

    describe('authority, as every store path (PRODUCT §4)', () => {
      it('a store token exports its own stores only; other stores are 403, unknown ones 404', async () => {
        const token = await t.token('store', ['S1']);
        expect((await t.get(CSV('S1'), token)).statusCode).toBe(200);
        const refused = await t.get(CSV('S2'), token);
        expect(refused.statusCode).toBe(403);
        expect(refused.headers['content-type']).toMatch(/^application\/json/);
        expect(refused.json()).toMatchObject({ success: false, code: 'FORBIDDEN' });
        expect((await t.get(CSV('NOPE'))).statusCode).toBe(404);
        expect((await t.get(CSV('NOPE'))).json().code).toBe('NOT_FOUND');
        expect((await t.get(CSV('S1'), await t.token('read'))).statusCode).toBe(200);
        expect((await t.get(CSV('S1'), null)).statusCode).toBe(401);
      });

      it('bad values are a 400 in the envelope naming the field', async () => {
        const response = await t.get(CSV('S1', '?below_zero=maybe&not_counted_since=soon'));
        expect(response.statusCode).toBe(400);
        expect(
          response
            .json()
            .errors.map((e: { path: string }) => e.path)
            .sort(),
        ).toEqual(['query.below_zero', 'query.not_counted_since']);
      });
    });

    it('the OpenAPI document lists the export with the list filters and a text/csv answer', async () => {
      const document = (await t.get(`${API}/openapi.json`, null)).json();
      const operation = document.paths[`${API}/stores/{store_number}/storeproducts/stock.csv`].get;
      const names = (operation.parameters as Array<{ name: string; in: string }>)
        .filter((p) => p.in === 'query')
        .map((p) => p.name);
      expect(names).toEqual(
        expect.arrayContaining(['location_code', 'below_zero', 'not_counted_since', 'category_code']),
      );
      expect(names).not.toContain('page_size');
      expect(names).not.toContain('store_number');
      expect(Object.keys(operation.responses['200'].content)).toEqual(['text/csv']);
    });
  });
}
