import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  listConfiguration,
  removeModule,
  setListType,
  setModuleType,
  UnknownListTypeError,
} from '../../src/modules/product-lists/configuration.js';
import { verifyAll } from '../../src/verify.js';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, productInput, storeInput } from '../helpers/factories.js';

// Product lists: interface §2.1 and §4.1, §5 (api_key), PRODUCT §3, §4 and §8,
// docs/product-lists.md. The pure line rules have their own unit tests
// (product-lists-rules.test.ts); the CLI's `productlists` commands are in cli.test.ts.

const LISTS = (store: string) => `${API}/stores/${store}/productlists`;
const LINES = (store: string, id: number | string) => `${API}/stores/${store}/productlists/${id}`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;

type FieldError = { path: string; message: string };

interface ListLine {
  quantity: number;
  barcode?: string;
  category_code?: string;
  colli?: number;
  is_decimal?: boolean;
  parent_category_code?: string;
  product_name?: string;
  product_number?: string;
  stock_pool?: string;
  store_walking_order?: number;
}

interface ProductList {
  id: number;
  line_count: number;
  type: number;
  app_username?: string;
  free_fields?: Array<{ key: string; value: string }>;
  lines?: ListLine[];
  modified_on?: string;
  name?: string;
  type_description?: string;
  is_archived: boolean;
  module_id?: number;
  created_on?: string;
}

interface Page {
  page_size: number;
  page_start: number;
  total_count: number;
  list: ProductList[];
  list_filters: Record<string, string[]>;
  next_page: number | null;
  previous_page: number | null;
  scroll_id: string | null;
  project_last_modified_date: string | null;
  [field: string]: unknown;
}

type Body = Record<string, unknown>;
type SentLine = { product_number: string; quantity: number; barcode?: string };
type UpdateLine = {
  quantity: number;
  product_number?: string | number;
  article_no?: string;
  barcode?: string;
  stock_pool?: string | number;
};

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DEFAULT_TYPES: Array<[number, string]> = [
  [1, 'Re-order list'],
  [2, 'Shelf-label list'],
  [3, 'Promotion check'],
  [4, 'Counting list'],
  [5, 'Price check'],
];

const errorsOf = (response: LightMyRequestResponse): FieldError[] => response.json().errors;
const pathsOf = (response: LightMyRequestResponse): string[] =>
  [...new Set(errorsOf(response).map((e) => e.path))].sort();

function expectError(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({ success: false, code, message: expect.any(String) });
}

/** Waits until the clock is past `at` (ms), so a later write gets a later modified_on. */
async function pastMoment(at: number): Promise<void> {
  while (Date.now() <= at + 1) await new Promise((resolve) => setTimeout(resolve, 2));
}

const line = (productNumber: string, quantity: number, extra: Partial<SentLine> = {}): SentLine => ({
  product_number: productNumber,
  quantity,
  ...extra,
});
/** Product number and quantity of each line, in list order. */
const pairs = (list: ProductList | undefined) => (list?.lines ?? []).map((l) => [l.product_number, l.quantity]);

for (const dialect of DIALECTS) {
  describe(`product lists (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;
    const next = (prefix: string) => `${prefix}-${++counter}`;
    /** A list name unique in the whole run (names are filtered as substrings). */
    const uniqueName = () => `List ${++counter} u${counter}x`;

    // ---- helpers -----------------------------------------------------------------------

    /** A new product (unique per call) through the products API. */
    async function product(overrides: Record<string, unknown> = {}): Promise<string> {
      const number = (overrides.product_number as string | undefined) ?? next('PL');
      const response = await t.post(`${API}/products`, { products: [productInput(number, overrides)] });
      expect(response.statusCode, response.body).toBe(200);
      return number;
    }

    /** A new store with no lists (paging and filter tests count on an empty store). */
    async function newStore(): Promise<string> {
      const number = next('PLS');
      const response = await t.post(`${API}/stores`, { stores: [storeInput(number)] });
      expect(response.statusCode, response.body).toBe(200);
      return number;
    }

    /** A stock log entry (a delta) of a product in a store, at a location when given. */
    async function stock(productNumber: string, quantity: number, locationCode?: string, store = 'S1'): Promise<void> {
      const entry = {
        product_number: productNumber,
        quantity,
        customer_order_line_number: 0,
        modification_datetime: '2026-01-10T10:00:00Z',
        ...(locationCode === undefined ? {} : { location_code: locationCode }),
      };
      const response = await t.post(LOGS(store), { storeproductlog: [entry] });
      expect(response.statusCode, response.body).toBe(200);
    }

    const listBody = (overrides: Body = {}): Body => ({
      product_list_name: uniqueName(),
      product_list_type: 1,
      ...overrides,
    });

    const createRaw = (body: Body, store = 'S1', query = '', token?: string | null) =>
      t.post(`${LISTS(store)}${query}`, body, token);

    /** Creates a list; returns its id. */
    async function create(overrides: Body = {}, store = 'S1', query = ''): Promise<number> {
      const response = await createRaw(listBody(overrides), store, query);
      expect(response.statusCode, response.body).toBe(200);
      const id = response.json().product_list_id;
      expect(Number.isInteger(id)).toBe(true);
      return id;
    }

    async function page(store: string, query = '', token?: string | null): Promise<Page> {
      const response = await t.get(`${LISTS(store)}${query}`, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    }

    /** The list as GET shows it with its lines (archived ones with archived=true), or undefined. */
    async function read(id: number, store = 'S1', archived = false): Promise<ProductList | undefined> {
      const body = await page(store, `?product_list_id=${id}&show_lines=true${archived ? '&is_archived=true' : ''}`);
      expect(body.total_count).toBeLessThanOrEqual(1);
      return body.list[0];
    }

    async function mustRead(id: number, store = 'S1', archived = false): Promise<ProductList> {
      const list = await read(id, store, archived);
      expect(list, `list ${id} in ${store}`).toBeDefined();
      return list!;
    }

    const update = (id: number | string, lines: UpdateLine[], store = 'S1', token?: string | null) =>
      t.post(LINES(store, id), { lines }, token);

    async function updateOk(id: number, lines: UpdateLine[], store = 'S1'): Promise<string> {
      const response = await update(id, lines, store);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ code: 200, status: 'success', data: String(id) });
      return response.json().message;
    }

    const remove = (query: string, store = 'S1', token?: string | null) =>
      t.request({ method: 'DELETE', url: `${LISTS(store)}?${query}`, token });

    const withApiKey = (method: 'GET' | 'POST' | 'DELETE', url: string, apiKey: string, payload?: Body) =>
      t.request({
        method,
        url,
        token: null,
        headers: { api_key: apiKey },
        ...(payload === undefined ? {} : { payload }),
      });

    const listCount = async () =>
      Number(
        (
          await t.app.ctx.db
            .selectFrom('product_lists')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const lineCount = async () =>
      Number(
        (
          await t.app.ctx.db
            .selectFrom('product_list_lines')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    // ---- set-up ------------------------------------------------------------------------

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const ok = (r: LightMyRequestResponse) => expect(r.statusCode, r.body).toBe(200);
      ok(await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2')] }));
      ok(
        await t.post(`${API}/categories`, {
          categories: [categoryInput('FOOD'), categoryInput('CHEESE', { parent_category_code: 'FOOD' })],
        }),
      );
      ok(
        await t.post(`${API}/stores/S1/locations`, {
          locations: [
            { location_code: 'FAR', location_order: 30 },
            { location_code: 'NEAR', location_order: 10 },
            { location_code: 'MID', location_order: 20 },
          ],
        }),
      );
      ok(await t.post(`${API}/stores/S2/locations`, { locations: [{ location_code: 'S2-FIRST', location_order: 1 }] }));
    });

    // store-ops verify's checks (lines of existing products, quantity ≥ 1, pools 1-10, merged lists
    // hold each product once, headers of existing stores) hold after every test.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    // ---- POST /stores/{s}/productlists -------------------------------------------------

    describe('create (POST /stores/{s}/productlists)', () => {
      it('answers {product_list_id} and the list reads back with every field of §2.1', async () => {
        const p = await product({ barcode: '8700000000001' });
        const name = uniqueName();
        const response = await createRaw({ product_list_name: name, product_list_type: 2, lines: [line(p, 3)] });
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        expect(body).toEqual({ product_list_id: expect.any(Number) });
        expect(body.product_list_id).toBeGreaterThan(0);

        const list = (await page('S1', `?product_list_id=${body.product_list_id}`)).list[0]!;
        expect(list).toEqual({
          id: body.product_list_id,
          line_count: 1,
          type: 2,
          type_description: 'Shelf-label list',
          app_username: 'unknown',
          free_fields: [],
          name,
          is_archived: false,
          modified_on: expect.stringMatching(ISO_MS),
          created_on: expect.stringMatching(ISO_MS),
        });
        expect(list.modified_on).toBe(list.created_on);
      });

      it('app_username defaults to "unknown" and keeps the given value', async () => {
        const unnamed = await create();
        const named = await create({}, 'S1', '?app_username=anna.b');
        expect((await mustRead(unnamed)).app_username).toBe('unknown');
        expect((await mustRead(named)).app_username).toBe('anna.b');
        // Sent empty is not a user either.
        expect((await mustRead(await create({}, 'S1', '?app_username='))).app_username).toBe('unknown');
      });

      it('names of letters (any script), digits, spaces, dots, hyphens and underscores are accepted as sent', async () => {
        const names = [
          'Käse Regal 3',
          'Ka\u0308se',
          'Réassort_2026-11.v2',
          '  leading and trailing  ',
          'Ωμέγα',
          '名前リスト',
          '.',
          '-',
          '_',
          '0',
          'x'.repeat(100),
        ];
        for (const name of names) {
          const response = await createRaw({ product_list_name: name, product_list_type: 1 });
          expect(response.statusCode, `${JSON.stringify(name)}: ${response.body}`).toBe(200);
          expect((await mustRead(response.json().product_list_id)).name).toBe(name);
        }
      });

      it('other characters, only spaces, empty or over 100 characters: 400 naming product_list_name, nothing stored', async () => {
        const before = await listCount();
        const names = [
          'a/b',
          'Regal #3',
          'Liste 😀',
          '   ',
          '',
          'tab\there',
          'line\nbreak',
          '100%',
          'a,b',
          "it's",
          'x'.repeat(101),
        ];
        for (const name of names) {
          const response = await createRaw({ product_list_name: name, product_list_type: 1 });
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response), JSON.stringify(name)).toEqual(['product_list_name']);
        }
        // The pattern's failure says what is allowed, not a regular expression.
        const refused = await createRaw({ product_list_name: 'a/b', product_list_type: 1 });
        expect(errorsOf(refused)[0]!.message).toMatch(/letters, digits, spaces, dots, hyphens and underscores/);
        expect(await listCount()).toBe(before);
      });

      it('a very long name of letters ending in a refused character is a 400 like any other (the name pattern is linear)', async () => {
        // With overlapping parts the pattern took time growing with the square of the length
        // (80,000 characters: seconds of a blocked event loop); this one ends within the test.
        const response = await createRaw({ product_list_name: `${'a'.repeat(400_000)}/`, product_list_type: 1 });
        expectError(response, 400, 'VALIDATION_FAILED');
        expect(pathsOf(response)).toEqual(['product_list_name']);
      });

      it('product_list_name and product_list_type are required; the type is a non-negative integer', async () => {
        const missing = await createRaw({});
        expectError(missing, 400, 'VALIDATION_FAILED');
        expect(pathsOf(missing)).toEqual(['product_list_name', 'product_list_type']);
        for (const type of [-1, 1.5, '1']) {
          const response = await createRaw({ product_list_name: 'Typed', product_list_type: type });
          expect(response.statusCode, String(type)).toBe(400);
          expect(pathsOf(response)).toEqual(['product_list_type']);
        }
      });

      it('quantity 0 is stored as 1; up to 3 decimals are kept exactly', async () => {
        const p = await product();
        const q = await product();
        const r = await product();
        const id = await create({ lines: [line(p, 0), line(q, 2.5), line(r, 0.001)] });
        expect(pairs(await mustRead(id))).toEqual([
          [p, 1],
          [q, 2.5],
          [r, 0.001],
        ]);
      });

      it('a 4th decimal, a negative quantity or a quantity that is not a number: 400 naming the line, nothing stored', async () => {
        const p = await product();
        const before = await listCount();
        for (const quantity of [1.2345, -1, -0.001, '2']) {
          const response = await createRaw(listBody({ lines: [line(p, 1), { product_number: p, quantity }] }));
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response), String(quantity)).toEqual(['lines[1].quantity']);
        }
        const missing = await createRaw(listBody({ lines: [{ quantity: 1 }, { product_number: p }] }));
        expect(pathsOf(missing)).toEqual(['lines[0].product_number', 'lines[1].quantity']);
        expect(await listCount()).toBe(before);
      });

      it('a product number sent as a JSON integer names the product of that text', async () => {
        const p = await product({ product_number: String(700_000 + ++counter) });
        const id = await create({ lines: [{ product_number: Number(p), quantity: 2 }] });
        expect(pairs(await mustRead(id))).toEqual([[p, 2]]);
      });

      it('lines of unknown products are skipped silently; the list is still created', async () => {
        const p = await product();
        const q = await product();
        const id = await create({ lines: [line('NO-SUCH-1', 1), line(p, 2), line('NO-SUCH-2', 3), line(q, 4)] });
        const list = await mustRead(id);
        expect(list.line_count).toBe(2);
        expect(pairs(list)).toEqual([
          [p, 2],
          [q, 4],
        ]);

        const allUnknown = await create({ lines: [line('NO-SUCH-3', 1), line('NO-SUCH-4', 1)] });
        expect(await mustRead(allUnknown)).toMatchObject({ line_count: 0, lines: [] });
      });

      it('no lines, or an empty array: a list with 0 lines', async () => {
        for (const id of [await create(), await create({ lines: [] })])
          expect(await mustRead(id)).toMatchObject({ line_count: 0, lines: [] });
      });

      it('the barcode sent on a line is ignored: the line shows the master’s barcode, read live', async () => {
        const p = await product({ barcode: '8711000000011' });
        const noBarcode = await product();
        const id = await create({
          lines: [line(p, 1, { barcode: 'SENT-BARCODE' }), line(noBarcode, 1, { barcode: 'ALSO-IGNORED' })],
        });
        const [first, second] = (await mustRead(id)).lines!;
        expect(first!.barcode).toBe('8711000000011');
        expect(second).not.toHaveProperty('barcode');

        const changed = await t.post(`${API}/products`, { products: [productInput(p, { barcode: '8711000000028' })] });
        expect(changed.statusCode, changed.body).toBe(200);
        expect((await mustRead(id)).lines![0]!.barcode).toBe('8711000000028');
      });

      it('duplicates are kept by default (and with is_allow_duplicate_products=true)', async () => {
        const p = await product();
        const q = await product();
        for (const flag of [undefined, true]) {
          const id = await create({ is_allow_duplicate_products: flag, lines: [line(p, 1), line(q, 2), line(p, 3)] });
          const list = await mustRead(id);
          expect(list.line_count).toBe(3);
          expect(pairs(list)).toEqual([
            [p, 1],
            [q, 2],
            [p, 3],
          ]);
        }
      });

      it('is_allow_duplicate_products=false merges lines of a product at its first occurrence, summing quantities (0 counts 1)', async () => {
        const p = await product();
        const q = await product();
        const r = await product();
        const id = await create({
          is_allow_duplicate_products: false,
          lines: [line(q, 1.5), line(p, 2), line(q, 0), line('NO-SUCH', 9), line(r, 1), line(p, 0.25), line(q, 3)],
        });
        const list = await mustRead(id);
        expect(list.line_count).toBe(3);
        expect(pairs(list)).toEqual([
          [q, 5.5],
          [p, 2.25],
          [r, 1],
        ]);
      });

      it('merged quantities beyond 999,999,999,999: 422 naming the line, nothing stored (PRODUCT §3 exact sums)', async () => {
        const p = await product();
        const before = await listCount();
        const response = await createRaw(
          listBody({ is_allow_duplicate_products: false, lines: [line(p, 999_999_999_999), line(p, 1)] }),
        );
        expectError(response, 422, 'UNPROCESSABLE');
        expect(pathsOf(response)).toEqual(['lines[1].quantity']);
        expect(await listCount()).toBe(before);
        // Kept apart (duplicates allowed) each line is within the limit.
        const id = await create({ lines: [line(p, 999_999_999_999), line(p, 1)] });
        expect(pairs(await mustRead(id))).toEqual([
          [p, 999_999_999_999],
          [p, 1],
        ]);
      });

      it('free fields are echoed as {key, value} in order; an empty value is kept', async () => {
        const freeFields = [
          { key: 'department', value: 'Dairy' },
          { key: 'note', value: '' },
          { key: 'Department', value: 'keys are case-sensitive' },
        ];
        const id = await create({ free_fields: freeFields });
        expect((await mustRead(id)).free_fields).toEqual(freeFields);
      });

      it('duplicate free field keys, or a field without key or value: 400, nothing stored', async () => {
        const before = await listCount();
        const duplicate = await createRaw(
          listBody({
            free_fields: [
              { key: 'a', value: '1' },
              { key: 'b', value: '2' },
              { key: 'a', value: '3' },
            ],
          }),
        );
        expectError(duplicate, 400, 'VALIDATION_FAILED');
        expect(pathsOf(duplicate)).toEqual(['free_fields[2].key']);
        const incomplete = await createRaw(
          listBody({ free_fields: [{ key: '', value: '1' }, { value: 'x' }, { key: 'k' }] }),
        );
        expectError(incomplete, 400, 'VALIDATION_FAILED');
        expect(pathsOf(incomplete)).toEqual(['free_fields[0].key', 'free_fields[1].key', 'free_fields[2].value']);
        expect(await listCount()).toBe(before);
      });

      it('module_id: the type is the module’s configured type (defaults: module n → type n) with its description', async () => {
        for (const [type, description] of DEFAULT_TYPES) {
          const id = await create({ module_id: type, product_list_type: 99 });
          expect(await mustRead(id)).toMatchObject({ type, type_description: description, module_id: type });
        }
      });

      it('without module_id the type is product_list_type; each default type reads with its description', async () => {
        for (const [type, description] of DEFAULT_TYPES) {
          const list = await mustRead(await create({ product_list_type: type }));
          expect(list).toMatchObject({ type, type_description: description });
          expect(list).not.toHaveProperty('module_id');
        }
      });

      it('an unknown module_id is a 422 naming module_id; nothing is stored', async () => {
        const p = await product();
        const [lists, lines] = [await listCount(), await lineCount()];
        const response = await createRaw(listBody({ module_id: 4242, lines: [line(p, 1)] }));
        expectError(response, 422, 'UNPROCESSABLE');
        expect(pathsOf(response)).toEqual(['module_id']);
        expect([await listCount(), await lineCount()]).toEqual([lists, lines]);
      });

      it('a type that is not configured is accepted and reads without type_description', async () => {
        for (const type of [0, 42]) {
          const list = await mustRead(await create({ product_list_type: type }));
          expect(list.type).toBe(type);
          expect(list).not.toHaveProperty('type_description');
        }
      });

      it('an unknown store is a 404', async () => {
        expectError(await createRaw(listBody(), 'NO-STORE'), 404, 'NOT_FOUND');
      });

      it('unknown body fields are ignored (a store_number in the body does not move the list); query names match case-insensitively', async () => {
        const id = await create({ store_number: 'S2', id: 1, type: 5, line_count: 9 }, 'S1', '?App_UserName=carla');
        expect(await mustRead(id)).toMatchObject({ id, type: 1, line_count: 0, app_username: 'carla' });
        expect(await read(id, 'S2')).toBeUndefined();
        expect((await page('S1', `?Product_List_Id=${id}&SHOW_LINES=true`)).list[0]).toMatchObject({ id, lines: [] });
      });

      it('concurrent creates each make their own list with their own lines', async () => {
        const store = await newStore();
        const [a, b] = [await product(), await product()];
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            createRaw(
              { product_list_name: `Parallel ${i}`, product_list_type: 1, lines: [line(a, i + 1), line(b, 1)] },
              store,
            ),
          ),
        );
        for (const response of responses) expect(response.statusCode, response.body).toBe(200);
        const ids = responses.map((r) => r.json().product_list_id as number);
        expect(new Set(ids).size).toBe(8);
        const listed = await page(store, '?show_lines=true');
        expect(listed.total_count).toBe(8);
        for (const list of listed.list) {
          const i = Number(list.name!.replace('Parallel ', ''));
          expect(pairs(list)).toEqual([
            [a, i + 1],
            [b, 1],
          ]);
        }
      });

      it('5,000 lines with line 4,999 invalid: 400 naming lines[4998].quantity, nothing stored', async () => {
        const p = await product();
        const q = await product();
        const name = uniqueName();
        const [lists, lines] = [await listCount(), await lineCount()];
        for (const bad of [-1, 1.0001]) {
          const sent = Array.from({ length: 5000 }, (_, i) => line(i % 2 === 0 ? p : q, i === 4998 ? bad : 1));
          const response = await createRaw({ product_list_name: name, product_list_type: 1, lines: sent });
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response)).toEqual(['lines[4998].quantity']);
        }
        expect((await page('S1', `?name=${encodeURIComponent(name)}`)).total_count).toBe(0);
        expect([await listCount(), await lineCount()]).toEqual([lists, lines]);
      });

      it('5,000 valid lines: line_count 5000, and show_lines returns them in the order sent', async () => {
        const products = [await product(), await product(), await product()];
        const sent = Array.from({ length: 5000 }, (_, i) => line(products[(i * 7) % 3]!, (i % 11) + 0.5));
        const id = await create({ lines: sent });
        const list = await mustRead(id);
        expect(list.line_count).toBe(5000);
        expect(pairs(list)).toEqual(sent.map((l) => [l.product_number, l.quantity]));
      });

      it('10,000 lines is the most one list (and one request) holds: 10,001 is a 400', async () => {
        const p = await product();
        const id = await create({ lines: Array.from({ length: 10_000 }, () => line(p, 1)) });
        expect((await page('S1', `?product_list_id=${id}`)).list[0]!.line_count).toBe(10_000);
        const tooMany = await createRaw(listBody({ lines: Array.from({ length: 10_001 }, () => line(p, 1)) }));
        expectError(tooMany, 400, 'VALIDATION_FAILED');
        expect(pathsOf(tooMany)).toEqual(['lines']);

        // A line update that would make the list longer than 10,000 lines is a 422; nothing changes.
        const q = await product();
        const over = await update(id, [line(q, 1)]);
        expectError(over, 422, 'UNPROCESSABLE');
        expect(pathsOf(over)).toEqual(['lines']);
        expect((await page('S1', `?product_list_id=${id}`)).list[0]!.line_count).toBe(10_000);
        // Updating a line it already holds is still fine.
        expect(await updateOk(id, [line(p, 5)])).toBe('added 0, updated 1, unchanged 0');
      });

      it('the same Idempotency-Key and body: the same product_list_id, one list', async () => {
        const p = await product();
        const name = uniqueName();
        const body = { product_list_name: name, product_list_type: 1, lines: [line(p, 1)] };
        const send = (payload: Body) =>
          t.request({
            method: 'POST',
            url: LISTS('S1'),
            payload,
            headers: { 'idempotency-key': `pl-${dialect.name}-${name}` },
          });
        const first = await send(body);
        expect(first.statusCode, first.body).toBe(200);
        const replay = await send(body);
        expect(replay.statusCode).toBe(200);
        expect(replay.json()).toEqual(first.json());
        expect(replay.headers['idempotent-replayed']).toBe('true');
        const listed = await page('S1', `?name=${encodeURIComponent(name)}`);
        expect(listed.total_count).toBe(1);
        expect(listed.list[0]!.id).toBe(first.json().product_list_id);
        // The same key with another body is a 409; still one list.
        expectError(await send({ ...body, lines: [line(p, 2)] }), 409, 'CONFLICT');
        expect((await page('S1', `?name=${encodeURIComponent(name)}`)).total_count).toBe(1);
        // Without a key every create is a new list (there is no natural key).
        await create({ product_list_name: name });
        expect((await page('S1', `?name=${encodeURIComponent(name)}`)).total_count).toBe(2);
      });
    });

    // ---- GET /stores/{s}/productlists ----------------------------------------------------

    describe('read (GET /stores/{s}/productlists)', () => {
      it('lines are enriched from the product master and its category', async () => {
        const full = await product({
          product_name: 'Gouda 48+',
          barcode: '8712000000017',
          carrier_item_quantity: 6,
          allow_decimal: true,
          category_code: 'CHEESE',
        });
        const root = await product({
          product_name: 'Bread',
          carrier_item_quantity: 2.5,
          allow_decimal: false,
          category_code: 'FOOD',
        });
        const uncategorised = await product({ product_name: 'Loose item', category_code: 'NOT-A-CATEGORY' });
        const bare = await product({ product_name: 'Bare' });
        const id = await create({ lines: [line(full, 1.5), line(root, 2), line(uncategorised, 3), line(bare, 4)] });
        const lines = (await mustRead(id)).lines!;
        expect(lines[0]).toEqual({
          quantity: 1.5,
          barcode: '8712000000017',
          category_code: 'CHEESE',
          parent_category_code: 'FOOD',
          colli: 6,
          is_decimal: true,
          product_name: 'Gouda 48+',
          product_number: full,
          store_walking_order: 0,
        });
        expect(lines[1]).toEqual({
          quantity: 2,
          category_code: 'FOOD',
          parent_category_code: '0',
          colli: 2.5,
          is_decimal: false,
          product_name: 'Bread',
          product_number: root,
          store_walking_order: 0,
        });
        expect(lines[2]).toEqual({
          quantity: 3,
          category_code: 'NOT-A-CATEGORY',
          colli: 1,
          is_decimal: false,
          product_name: 'Loose item',
          product_number: uncategorised,
          store_walking_order: 0,
        });
        expect(lines[3]).toEqual({
          quantity: 4,
          colli: 1,
          is_decimal: false,
          product_name: 'Bare',
          product_number: bare,
          store_walking_order: 0,
        });
      });

      it('what the master says is read live: a renamed product shows its new name and colli', async () => {
        const p = await product({ product_name: 'Before', carrier_item_quantity: 4 });
        const id = await create({ lines: [line(p, 1)] });
        expect((await mustRead(id)).lines![0]).toMatchObject({ product_name: 'Before', colli: 4 });
        const changed = await t.post(`${API}/products`, {
          products: [productInput(p, { product_name: 'After', carrier_item_quantity: 12 })],
        });
        expect(changed.statusCode, changed.body).toBe(200);
        expect((await mustRead(id)).lines![0]).toMatchObject({ product_name: 'After', colli: 12 });
      });

      it('a category moved under another parent, and a product moved to another category, read at once (the product details cache follows both)', async () => {
        const ok = async (url: string, body: unknown) => {
          const response = await t.post(`${API}${url}`, body);
          expect(response.statusCode, response.body).toBe(200);
        };
        await ok('/categories', {
          categories: [
            categoryInput('LIVE-ROOT-A'),
            categoryInput('LIVE-ROOT-B'),
            categoryInput('LIVE-LEAF', { parent_category_code: 'LIVE-ROOT-A' }),
          ],
        });
        const p = await product({ category_code: 'LIVE-LEAF' });
        const id = await create({ lines: [line(p, 1)] });
        expect((await mustRead(id)).lines![0]).toMatchObject({
          category_code: 'LIVE-LEAF',
          parent_category_code: 'LIVE-ROOT-A',
        });
        await ok('/categories', { categories: [categoryInput('LIVE-LEAF', { parent_category_code: 'LIVE-ROOT-B' })] });
        expect((await mustRead(id)).lines![0]).toMatchObject({
          category_code: 'LIVE-LEAF',
          parent_category_code: 'LIVE-ROOT-B',
        });
        await ok('/products', { products: [productInput(p, { category_code: 'LIVE-ROOT-A' })] });
        expect((await mustRead(id)).lines![0]).toMatchObject({ category_code: 'LIVE-ROOT-A' });
      });

      it('stock_pool reads as text once a line update set it, and is absent before', async () => {
        const p = await product();
        const id = await create({ lines: [line(p, 1)] });
        expect((await mustRead(id)).lines![0]).not.toHaveProperty('stock_pool');
        await updateOk(id, [{ product_number: p, quantity: 1, stock_pool: '7' }]);
        expect((await mustRead(id)).lines![0]!.stock_pool).toBe('7');
      });

      it('store_walking_order: the lowest location_order among the store’s locations holding a balance of the product; 0 when none', async () => {
        const twoPlaces = await product();
        await stock(twoPlaces, 5, 'FAR');
        await stock(twoPlaces, 2, 'MID');
        const emptyShelf = await product();
        await stock(emptyShelf, 3, 'NEAR');
        await stock(emptyShelf, -3, 'NEAR'); // a zero balance: still the product's place
        await stock(emptyShelf, 1, 'FAR');
        const unlocated = await product();
        await stock(unlocated, 4); // no location
        const otherStore = await product();
        await stock(otherStore, 4, 'S2-FIRST', 'S2'); // S2's location does not count in S1
        const nowhere = await product();
        const id = await create({
          lines: [line(twoPlaces, 1), line(emptyShelf, 1), line(unlocated, 1), line(otherStore, 1), line(nowhere, 1)],
        });
        expect((await mustRead(id)).lines!.map((l) => [l.product_number, l.store_walking_order])).toEqual([
          [twoPlaces, 20],
          [emptyShelf, 10],
          [unlocated, 0],
          [otherStore, 0],
          [nowhere, 0],
        ]);
        // The same products on a list of S2: there only S2's locations count.
        const inS2 = await create({ lines: [line(twoPlaces, 1), line(otherStore, 1)] }, 'S2');
        expect((await mustRead(inS2, 'S2')).lines!.map((l) => l.store_walking_order)).toEqual([0, 1]);
      });

      it('store_walking_order follows a location’s order when it changes', async () => {
        const store = await newStore();
        const ok = await t.post(`${API}/stores/${store}/locations`, {
          locations: [
            { location_code: 'A', location_order: 5 },
            { location_code: 'B', location_order: 9 },
          ],
        });
        expect(ok.statusCode, ok.body).toBe(200);
        const p = await product();
        await stock(p, 1, 'A', store);
        await stock(p, 1, 'B', store);
        const id = await create({ lines: [line(p, 1)] }, store);
        expect((await mustRead(id, store)).lines![0]!.store_walking_order).toBe(5);
        const moved = await t.post(`${API}/stores/${store}/locations`, {
          locations: [{ location_code: 'A', location_order: 50 }],
        });
        expect(moved.statusCode, moved.body).toBe(200);
        expect((await mustRead(id, store)).lines![0]!.store_walking_order).toBe(9);
      });

      it('without show_lines (or show_lines=false) items carry line_count but no lines key', async () => {
        const p = await product();
        const id = await create({ lines: [line(p, 1), line(p, 2)] });
        for (const query of [`?product_list_id=${id}`, `?product_list_id=${id}&show_lines=false`]) {
          const item = (await page('S1', query)).list[0]!;
          expect(item.line_count).toBe(2);
          expect(Object.keys(item)).not.toContain('lines');
        }
        expect((await mustRead(id)).lines).toHaveLength(2);
      });

      it('a store only sees its own lists', async () => {
        const s1 = await create();
        const s2 = await create({}, 'S2');
        const inS1 = await page('S1', '?page_size=1000');
        const inS2 = await page('S2', '?page_size=1000');
        expect(inS1.list.map((l) => l.id)).toContain(s1);
        expect(inS1.list.map((l) => l.id)).not.toContain(s2);
        expect(inS2.list.map((l) => l.id)).toContain(s2);
        expect(inS2.list.map((l) => l.id)).not.toContain(s1);
        expect(await read(s2, 'S1')).toBeUndefined();
      });

      it('an unknown store is a 404', async () => {
        expectError(await t.get(LISTS('NO-STORE')), 404, 'NOT_FOUND');
      });

      it('name: a case-insensitive part of the name (non-ASCII letters too)', async () => {
        const store = await newStore();
        const kase = await create({ product_list_name: 'Käse Regal 3' }, store);
        const upper = await create({ product_list_name: 'KÄSE extra' }, store);
        const other = await create({ product_list_name: 'Brot' }, store);
        const ids = async (name: string) =>
          (await page(store, `?name=${encodeURIComponent(name)}`)).list.map((l) => l.id);
        expect(await ids('käse')).toEqual([kase, upper]);
        expect(await ids('KÄSE')).toEqual([kase, upper]);
        expect(await ids('regal 3')).toEqual([kase]);
        expect(await ids('BROT')).toEqual([other]);
        expect(await ids('nothing like it')).toEqual([]);
        expect(await ids('')).toEqual([kase, upper, other]);
      });

      it('name is matched literally: % and _ are no wildcards', async () => {
        const store = await newStore();
        const underscore = await create({ product_list_name: 'a_b' }, store);
        await create({ product_list_name: 'axb' }, store);
        await create({ product_list_name: 'a.b' }, store);
        const ids = async (name: string) =>
          (await page(store, `?name=${encodeURIComponent(name)}`)).list.map((l) => l.id);
        expect(await ids('a_b')).toEqual([underscore]);
        expect(await ids('_')).toEqual([underscore]);
        expect(await ids('%')).toEqual([]);
        expect(await ids('a%b')).toEqual([]);
      });

      it('type and product_list_id filters', async () => {
        const store = await newStore();
        const a = await create({ product_list_type: 901 }, store);
        const b = await create({ product_list_type: 902 }, store);
        const c = await create({ product_list_type: 901 }, store);
        expect((await page(store, '?type=901')).list.map((l) => l.id)).toEqual([a, c]);
        expect((await page(store, '?type=902')).list.map((l) => l.id)).toEqual([b]);
        expect((await page(store, '?type=903')).total_count).toBe(0);
        expect((await page(store, `?product_list_id=${b}`)).list.map((l) => l.id)).toEqual([b]);
        expect((await page(store, `?product_list_id=${b}&type=901`)).total_count).toBe(0);
        expect((await page(store, `?product_list_id=${b + 100_000}`)).total_count).toBe(0);
      });

      it('last_updated_on: lists modified at or after the moment', async () => {
        const store = await newStore();
        const p = await product();
        const older = await create({ lines: [line(p, 1)] }, store);
        const olderModified = Date.parse((await mustRead(older, store)).modified_on!);
        await pastMoment(olderModified);
        const newer = await create({}, store);
        const newerModified = (await mustRead(newer, store)).modified_on!;
        const since = async (moment: string) =>
          (await page(store, `?last_updated_on=${encodeURIComponent(moment)}`)).list.map((l) => l.id);
        expect(await since(newerModified)).toEqual([newer]);
        expect(await since(new Date(Date.parse(newerModified) + 1).toISOString())).toEqual([]);
        expect(await since(new Date(olderModified).toISOString())).toEqual([older, newer]);
        // An offset is the same moment.
        expect(await since(new Date(Date.parse(newerModified)).toISOString().replace('Z', '+00:00'))).toEqual([newer]);

        // A line update modifies the list.
        await pastMoment(Date.parse(newerModified));
        await updateOk(older, [line(p, 5)], store);
        expect(await since(new Date(Date.parse(newerModified) + 1).toISOString())).toEqual([older]);

        const invalid = await t.get(`${LISTS(store)}?last_updated_on=yesterday`);
        expectError(invalid, 400, 'VALIDATION_FAILED');
        expect(pathsOf(invalid)).toEqual(['query.last_updated_on']);
      });

      it('list_filters echoes the active filters as strings', async () => {
        const store = await newStore();
        await create({ product_list_name: 'Echo me', product_list_type: 3 }, store);
        const body = await page(
          store,
          '?name=Echo&type=3&show_lines=true&last_updated_on=2020-01-01T00:00:00Z&page_size=5',
        );
        expect(body.total_count).toBe(1);
        expect(body.list_filters).toEqual({
          name: ['Echo'],
          type: ['3'],
          show_lines: ['true'],
          last_updated_on: ['2020-01-01T00:00:00Z'],
        });
        expect((await page(store)).list_filters).toEqual({});
      });

      it('paging: page_size, page_start, next/previous_page and a scroll_id that walks the lists in id order', async () => {
        const store = await newStore();
        const ids: number[] = [];
        for (let i = 0; i < 5; i++) ids.push(await create({ product_list_name: `Paged ${i}` }, store));
        expect(ids).toEqual([...ids].sort((a, b) => a - b));

        const first = await page(store, '?page_size=2');
        expect(first).toMatchObject({
          page_size: 2,
          page_start: 1,
          total_count: 5,
          next_page: 2,
          previous_page: null,
          sort_column: 'id',
          sort_order: 'asc',
        });
        expect(first.list.map((l) => l.id)).toEqual(ids.slice(0, 2));
        expect(first.scroll_id).toEqual(expect.any(String));
        expect(first.project_last_modified_date).toMatch(ISO_MS);

        const second = await page(store, `?scroll_id=${encodeURIComponent(first.scroll_id!)}`);
        expect(second).toMatchObject({ page_size: 2, page_start: 2, total_count: 5, next_page: 3, previous_page: 1 });
        expect(second.list.map((l) => l.id)).toEqual(ids.slice(2, 4));
        const third = await page(store, `?scroll_id=${encodeURIComponent(second.scroll_id!)}`);
        expect(third).toMatchObject({ page_start: 3, next_page: null, scroll_id: null });
        expect(third.list.map((l) => l.id)).toEqual(ids.slice(4));

        expect((await page(store, '?page_size=2&page_start=3')).list.map((l) => l.id)).toEqual(ids.slice(4));
        expect((await page(store, '?page_size=2&page_start=4')).list).toEqual([]);
        // A scroll_id of another store's listing is refused.
        expectError(
          await t.get(`${LISTS('S1')}?scroll_id=${encodeURIComponent(first.scroll_id!)}`),
          400,
          'VALIDATION_FAILED',
        );
      });

      it('show_lines on a page: every list of the page carries its own lines', async () => {
        const store = await newStore();
        const p = await product();
        const q = await product();
        const a = await create({ lines: [line(p, 1)] }, store);
        const b = await create({ lines: [line(q, 2), line(p, 3)] }, store);
        const c = await create({}, store);
        const body = await page(store, '?show_lines=true');
        expect(body.list.map((l) => [l.id, l.line_count, pairs(l)])).toEqual([
          [a, 1, [[p, 1]]],
          [
            b,
            2,
            [
              [q, 2],
              [p, 3],
            ],
          ],
          [c, 0, []],
        ]);
        const paged = await page(store, '?show_lines=true&page_size=1&page_start=2');
        expect(paged.list.map((l) => [l.id, pairs(l).length])).toEqual([[b, 2]]);
      });
    });

    // ---- POST /stores/{s}/productlists/{id} ----------------------------------------------

    describe('line update (POST /stores/{s}/productlists/{id})', () => {
      it('1,200 lines updated in one request (quantities and pools, several statements): every line reads its new values', async () => {
        const numbers = Array.from({ length: 1200 }, (_, i) => `BULK-UPD-${i}`);
        const seeded = await t.post(`${API}/products`, { products: numbers.map((number) => productInput(number)) });
        expect(seeded.statusCode, seeded.body).toBe(200);
        const id = await create({ lines: numbers.map((number) => line(number, 1)) });
        const message = await updateOk(
          id,
          numbers.map((number, i) => ({ product_number: number, quantity: i + 2, stock_pool: String((i % 10) + 1) })),
        );
        expect(message).toBe('added 0, updated 1200, unchanged 0');
        const lines = (await mustRead(id)).lines!;
        expect(lines.map((l) => [l.product_number, l.quantity, l.stock_pool])).toEqual(
          numbers.map((number, i) => [number, i + 2, String((i % 10) + 1)]),
        );
      });

      it('adds new products at the end and sets the quantity of a product’s first line', async () => {
        const [a, b, c] = [await product(), await product(), await product()];
        const id = await create({ lines: [line(a, 2), line(b, 3), line(a, 4)] });
        const response = await update(id, [line(a, 10), line(c, 1)]);
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json()).toEqual({
          code: 200,
          status: 'success',
          data: String(id),
          message: 'added 1, updated 1, unchanged 0',
        });
        const list = await mustRead(id);
        expect(list.line_count).toBe(4);
        expect(pairs(list)).toEqual([
          [a, 10],
          [b, 3],
          [a, 4],
          [c, 1],
        ]);
      });

      it('stock_pool is set when sent (text or integer) and kept when not', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 1), line(b, 1)] });
        expect(
          await updateOk(id, [
            { product_number: a, quantity: 1, stock_pool: '3' },
            { product_number: b, quantity: 1, stock_pool: 10 },
          ]),
        ).toBe('added 0, updated 2, unchanged 0');
        expect((await mustRead(id)).lines!.map((l) => l.stock_pool)).toEqual(['3', '10']);
        expect(await updateOk(id, [line(a, 6)])).toBe('added 0, updated 1, unchanged 0');
        expect((await mustRead(id)).lines!.map((l) => [l.quantity, l.stock_pool])).toEqual([
          [6, '3'],
          [1, '10'],
        ]);
        const c = await product();
        await updateOk(id, [{ product_number: c, quantity: 2, stock_pool: '4' }]);
        expect((await mustRead(id)).lines![2]).toMatchObject({ product_number: c, quantity: 2, stock_pool: '4' });
      });

      it('stock_pool other than "1"…"10" is a 400 naming the line; nothing changes', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        for (const pool of ['11', '0', 'x', '01', '', 11, -1]) {
          const response = await update(id, [line(a, 5), { product_number: a, quantity: 1, stock_pool: pool }]);
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response), String(pool)).toEqual(['lines[1].stock_pool']);
        }
        expect(pairs(await mustRead(id))).toEqual([[a, 1]]);
      });

      it('article_no (deprecated) names the product like product_number; both the same is fine', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 1)] });
        expect(
          await updateOk(id, [
            { article_no: a, quantity: 7 },
            { article_no: b, product_number: b, quantity: 2 },
          ]),
        ).toBe('added 1, updated 1, unchanged 0');
        expect(pairs(await mustRead(id))).toEqual([
          [a, 7],
          [b, 2],
        ]);
      });

      it('product_number and article_no differing: 400 naming lines[i].article_no; neither: 400 naming lines[i].product_number', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 1)] });
        const differing = await update(id, [line(a, 2), { product_number: a, article_no: b, quantity: 1 }]);
        expectError(differing, 400, 'VALIDATION_FAILED');
        expect(pathsOf(differing)).toEqual(['lines[1].article_no']);
        const neither = await update(id, [{ quantity: 1 }, line(a, 2), { quantity: 3, barcode: '123' }]);
        expectError(neither, 400, 'VALIDATION_FAILED');
        expect(pathsOf(neither)).toEqual(['lines[0].product_number', 'lines[2].product_number']);
        expect(pairs(await mustRead(id))).toEqual([[a, 1]]);
      });

      it('lines of one product in one request are summed', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 9)] });
        expect(await updateOk(id, [line(a, 1), line(b, 2), { article_no: a, quantity: 2.5 }, line(b, 0)])).toBe(
          'added 1, updated 1, unchanged 0',
        );
        expect(pairs(await mustRead(id))).toEqual([
          [a, 3.5],
          [b, 3],
        ]);
      });

      it('one product with two different stock pools in one request: 400; the same pool twice, or one pool and none, is fine', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        const response = await update(id, [
          { product_number: a, quantity: 1, stock_pool: '2' },
          { product_number: a, quantity: 1, stock_pool: '3' },
        ]);
        expectError(response, 400, 'VALIDATION_FAILED');
        expect(pathsOf(response)).toEqual(['lines[1].stock_pool']);
        expect(pairs(await mustRead(id))).toEqual([[a, 1]]);

        await updateOk(id, [
          { product_number: a, quantity: 1 },
          { product_number: a, quantity: 1, stock_pool: '2' },
          { product_number: a, quantity: 1, stock_pool: '2' },
        ]);
        expect((await mustRead(id)).lines![0]).toMatchObject({ quantity: 3, stock_pool: '2' });
      });

      it('quantity 0 is stored as 1; a negative quantity or a 4th decimal is a 400', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 5)] });
        await updateOk(id, [line(a, 0), line(b, 0)]);
        expect(pairs(await mustRead(id))).toEqual([
          [a, 1],
          [b, 1],
        ]);
        for (const quantity of [-1, 0.0005]) {
          const response = await update(id, [line(a, quantity)]);
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response)).toEqual(['lines[0].quantity']);
        }
      });

      it('summed quantities beyond 999,999,999,999: 422, nothing changes (PRODUCT §3 exact sums)', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        const response = await update(id, [line(a, 999_999_999_999), line(a, 0.001)]);
        expectError(response, 422, 'UNPROCESSABLE');
        expect(pathsOf(response)).toEqual(['lines[1].quantity']);
        expect(pairs(await mustRead(id))).toEqual([[a, 1]]);
      });

      it('unknown products are skipped and named in the message', async () => {
        const a = await product();
        const id = await create();
        expect(await updateOk(id, [line('NOPE-1', 1), line(a, 2), line('NOPE-2', 1), line('NOPE-1', 3)])).toBe(
          "added 1, updated 0, unchanged 0, skipped 3 (unknown products: 'NOPE-1', 'NOPE-2')",
        );
        expect(pairs(await mustRead(id))).toEqual([[a, 2]]);
        // At most ten are named.
        const many = Array.from({ length: 12 }, (_, i) => line(`MISSING-${i}`, 1));
        const message = await updateOk(id, many);
        expect(message).toBe(
          `added 0, updated 0, unchanged 0, skipped 12 (unknown products: ${many
            .slice(0, 10)
            .map((l) => `'${l.product_number}'`)
            .join(', ')}, …)`,
        );
        expect((await mustRead(id)).line_count).toBe(1);
      });

      it('an identical re-send is "unchanged" and leaves modified_on; a change moves it', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 1)] });
        expect(await updateOk(id, [{ product_number: a, quantity: 2, stock_pool: '5' }, line(b, 1)])).toBe(
          'added 1, updated 1, unchanged 0',
        );
        const before = await mustRead(id);
        await pastMoment(Date.parse(before.modified_on!));
        expect(await updateOk(id, [{ product_number: a, quantity: 2, stock_pool: '5' }, line(b, 1)])).toBe(
          'added 0, updated 0, unchanged 2',
        );
        expect(await updateOk(id, [{ product_number: a, quantity: 2 }])).toBe('added 0, updated 0, unchanged 1');
        expect(await updateOk(id, [])).toBe('added 0, updated 0, unchanged 0');
        expect(await updateOk(id, [line('NOPE-X', 1)])).toBe(
          "added 0, updated 0, unchanged 0, skipped 1 (unknown products: 'NOPE-X')",
        );
        const unchanged = await mustRead(id);
        expect(unchanged.modified_on).toBe(before.modified_on);
        expect(unchanged.lines).toEqual(before.lines);

        expect(await updateOk(id, [{ product_number: a, quantity: 2, stock_pool: '6' }])).toBe(
          'added 0, updated 1, unchanged 0',
        );
        const changed = await mustRead(id);
        expect(Date.parse(changed.modified_on!)).toBeGreaterThan(Date.parse(before.modified_on!));
        expect(changed.created_on).toBe(before.created_on);
      });

      it('concurrent line updates of one list all apply, each new product appended once', async () => {
        const id = await create();
        const products: string[] = [];
        for (let i = 0; i < 8; i++) products.push(await product());
        const responses = await Promise.all(products.map((p, i) => update(id, [line(p, i + 1)])));
        for (const response of responses) {
          expect(response.statusCode, response.body).toBe(200);
          expect(response.json().message).toBe('added 1, updated 0, unchanged 0');
        }
        const list = await mustRead(id);
        expect(list.line_count).toBe(8);
        expect(new Set(list.lines!.map((l) => l.product_number))).toEqual(new Set(products));
        // The same product from many requests at once: one line, the last write's quantity.
        const again = await Promise.all([1, 2, 3, 4].map((q) => update(id, [line(products[0]!, q * 10)])));
        for (const response of again) expect(response.statusCode, response.body).toBe(200);
        const after = await mustRead(id);
        expect(after.line_count).toBe(8);
        expect([10, 20, 30, 40]).toContain(after.lines!.find((l) => l.product_number === products[0])!.quantity);
      });

      it('an Idempotency-Key replays the first answer without applying the update again', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        const send = () =>
          t.request({
            method: 'POST',
            url: LINES('S1', id),
            payload: { lines: [line(a, 5)] },
            headers: { 'idempotency-key': `lines-${dialect.name}-${id}` },
          });
        const first = await send();
        expect(first.json().message).toBe('added 0, updated 1, unchanged 0');
        await updateOk(id, [line(a, 7)]);
        const replay = await send();
        expect(replay.body).toBe(first.body);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(pairs(await mustRead(id))).toEqual([[a, 7]]);
      });

      it('a body without lines changes nothing', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        const response = await t.post(LINES('S1', id), {});
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().message).toBe('added 0, updated 0, unchanged 0');
      });

      it('an unknown list id, or a list of another store: 404 in the error envelope', async () => {
        const a = await product();
        const unknown = await update(987_654_321, [line(a, 1)]);
        expectError(unknown, 404, 'NOT_FOUND');
        expect(unknown.json()).toMatchObject({
          success: false,
          code: 'NOT_FOUND',
          message: expect.stringContaining('987654321'),
        });

        const inS2 = await create({ lines: [line(a, 1)] }, 'S2');
        expectError(await update(inS2, [line(a, 5)], 'S1'), 404, 'NOT_FOUND');
        expect(pairs(await mustRead(inS2, 'S2'))).toEqual([[a, 1]]);
        expectError(await update(inS2, [line(a, 5)], 'NO-STORE'), 404, 'NOT_FOUND');
      });

      it('a list id that is not a positive whole number is a 400', async () => {
        for (const id of ['abc', '0', '-1', '1.5']) {
          const response = await update(id, [{ product_number: 'X', quantity: 1 }]);
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response), id).toEqual(['params.id']);
        }
      });

      it('an archived list refuses line updates: 409, lines kept', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        expect((await remove(`product_list_id=${id}&is_archived=true`)).body).toBe('true');
        expectError(await update(id, [line(a, 5)]), 409, 'CONFLICT');
        expect(pairs(await mustRead(id, 'S1', true))).toEqual([[a, 1]]);
      });

      it('atomic: one bad line anywhere and nothing changes', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ lines: [line(a, 1)] });
        const before = await mustRead(id);
        const attempts: UpdateLine[][] = [
          [line(a, 5), line(b, 1), { product_number: a, article_no: b, quantity: 1 }],
          [line(a, 5), line(b, 1), { product_number: b, quantity: 1, stock_pool: '12' }],
          [
            line(a, 5),
            { product_number: b, quantity: 1, stock_pool: '1' },
            { product_number: b, quantity: 1, stock_pool: '2' },
          ],
          [line(b, 1), line(a, 5), { quantity: 1 }],
        ];
        for (const lines of attempts) expectError(await update(id, lines), 400, 'VALIDATION_FAILED');
        // A merged quantity past the range is a 422 (PRODUCT §3 exact sums), just as atomic.
        expectError(await update(id, [line(a, 5), line(b, 1), line(b, 999_999_999_999)]), 422, 'UNPROCESSABLE');
        const after = await mustRead(id);
        expect(after).toEqual(before);
      });
    });

    // ---- DELETE /stores/{s}/productlists ---------------------------------------------------

    describe('delete (DELETE /stores/{s}/productlists)', () => {
      it('is_archived=true: true; the list leaves the listing and is found with is_archived=true, lines kept', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 2)] });
        const before = await mustRead(id);
        await pastMoment(Date.parse(before.modified_on!));
        const response = await remove(`product_list_id=${id}&is_archived=true`);
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe('true');
        expect(response.headers['content-type']).toMatch(/^application\/json/);

        expect(await read(id)).toBeUndefined();
        expect((await page('S1', '?page_size=1000')).list.map((l) => l.id)).not.toContain(id);
        const archived = await mustRead(id, 'S1', true);
        expect(archived).toMatchObject({ id, is_archived: true, line_count: 1 });
        expect(pairs(archived)).toEqual([[a, 2]]);
        expect(Date.parse(archived.modified_on!)).toBeGreaterThan(Date.parse(before.modified_on!));
        // Only archived lists with is_archived=true.
        const live = await create();
        const archivedPage = await page('S1', '?is_archived=true&page_size=1000');
        expect(archivedPage.list.map((l) => l.id)).toContain(id);
        expect(archivedPage.list.map((l) => l.id)).not.toContain(live);
        expect(archivedPage.list.every((l) => l.is_archived)).toBe(true);

        // Archiving again: still true, nothing changes.
        await pastMoment(Date.parse(archived.modified_on!));
        expect((await remove(`product_list_id=${id}&is_archived=true`)).body).toBe('true');
        expect((await mustRead(id, 'S1', true)).modified_on).toBe(archived.modified_on);
      });

      it('is_archived wins over is_delete_header', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 2)] });
        expect((await remove(`product_list_id=${id}&is_archived=true&is_delete_header=true`)).body).toBe('true');
        expect(await mustRead(id, 'S1', true)).toMatchObject({ is_archived: true, line_count: 1 });
      });

      it('is_delete_header=true: true; the list is gone with its lines', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 2), line(a, 3)] });
        const lines = await lineCount();
        const response = await remove(`product_list_id=${id}&is_delete_header=true`);
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe('true');
        expect((await page('S1', `?product_list_id=${id}`)).total_count).toBe(0);
        expect((await page('S1', `?product_list_id=${id}&is_archived=true`)).total_count).toBe(0);
        expect(await lineCount()).toBe(lines - 2);
        expectError(await update(id, [line(a, 1)]), 404, 'NOT_FOUND');
        // Gone: a second delete finds nothing.
        expect((await remove(`product_list_id=${id}&is_delete_header=true`)).body).toBe('false');
      });

      it('an archived list can still be removed with is_delete_header=true', async () => {
        const id = await create();
        expect((await remove(`product_list_id=${id}&is_archived=true`)).body).toBe('true');
        expect((await remove(`product_list_id=${id}&is_delete_header=true`)).body).toBe('true');
        expect(await read(id, 'S1', true)).toBeUndefined();
      });

      it('neither flag (or both false): true; only the lines go, the list stays with line_count 0', async () => {
        const a = await product();
        for (const flags of ['', '&is_archived=false&is_delete_header=false']) {
          const id = await create({ lines: [line(a, 2), line(a, 3)] });
          const before = await mustRead(id);
          await pastMoment(Date.parse(before.modified_on!));
          const response = await remove(`product_list_id=${id}${flags}`);
          expect(response.statusCode).toBe(200);
          expect(response.body).toBe('true');
          const after = await mustRead(id);
          expect(after).toMatchObject({ id, line_count: 0, lines: [], is_archived: false, name: before.name });
          expect(Date.parse(after.modified_on!)).toBeGreaterThan(Date.parse(before.modified_on!));
          // The emptied list takes lines again.
          expect(await updateOk(id, [line(a, 1)])).toBe('added 1, updated 0, unchanged 0');
          expect(pairs(await mustRead(id))).toEqual([[a, 1]]);
        }
      });

      it('an unknown list, or one of another store: the bare JSON false, and nothing changes', async () => {
        const response = await remove('product_list_id=987654321');
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe('false');
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.json()).toBe(false);

        const a = await product();
        const inS2 = await create({ lines: [line(a, 1)] }, 'S2');
        for (const flags of ['', '&is_archived=true', '&is_delete_header=true']) {
          expect((await remove(`product_list_id=${inS2}${flags}`, 'S1')).body).toBe('false');
        }
        expect(await mustRead(inS2, 'S2')).toMatchObject({ line_count: 1, is_archived: false });
      });

      it('product_list_id missing or not a positive integer: 400 naming query.product_list_id; an unknown store: 404', async () => {
        for (const query of [
          '',
          'is_archived=true',
          'product_list_id=abc',
          'product_list_id=0',
          'product_list_id=1.5',
        ]) {
          const response = await remove(query);
          expectError(response, 400, 'VALIDATION_FAILED');
          expect(pathsOf(response), query).toEqual(['query.product_list_id']);
        }
        expectError(await remove('product_list_id=1', 'NO-STORE'), 404, 'NOT_FOUND');
      });

      it('an Idempotency-Key replays the bare boolean', async () => {
        const id = await create();
        const send = () =>
          t.request({
            method: 'DELETE',
            url: `${LISTS('S1')}?product_list_id=${id}&is_delete_header=true`,
            headers: { 'idempotency-key': `del-${dialect.name}-${id}` },
          });
        const first = await send();
        expect(first.body).toBe('true');
        const replay = await send();
        expect(replay.statusCode).toBe(200);
        expect(replay.body).toBe('true');
        expect(replay.headers['content-type']).toBe(first.headers['content-type']);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        // Without the key the list is not found any more.
        expect((await remove(`product_list_id=${id}&is_delete_header=true`)).body).toBe('false');
      });

      it('Accept-Language is accepted and changes nothing', async () => {
        const id = await create();
        const response = await t.request({
          method: 'DELETE',
          url: `${LISTS('S1')}?product_list_id=${id}&is_delete_header=true`,
          headers: { 'accept-language': 'de-DE' },
        });
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe('true');
      });
    });

    // ---- authentication and roles ----------------------------------------------------------

    describe('authentication and roles (PRODUCT §4, interface §5)', () => {
      it('api_key (without Authorization) is taken on DELETE and on the line update', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        const updated = await withApiKey('POST', LINES('S1', id), ADMIN_TOKEN, { lines: [line(a, 4)] });
        expect(updated.statusCode, updated.body).toBe(200);
        expect(updated.json().message).toBe('added 0, updated 1, unchanged 0');
        const deleted = await withApiKey(
          'DELETE',
          `${LISTS('S1')}?product_list_id=${id}&is_delete_header=true`,
          ADMIN_TOKEN,
        );
        expect(deleted.statusCode, deleted.body).toBe(200);
        expect(deleted.body).toBe('true');
      });

      it('api_key is ignored on GET and on create: 401', async () => {
        const before = await listCount();
        expectError(await withApiKey('GET', LISTS('S1'), ADMIN_TOKEN), 401, 'UNAUTHORIZED');
        expectError(await withApiKey('POST', LISTS('S1'), ADMIN_TOKEN, listBody()), 401, 'UNAUTHORIZED');
        expect(await listCount()).toBe(before);
      });

      it('no credential, or an unknown one (in Authorization or api_key): 401, nothing changes', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        expectError(await t.get(LISTS('S1'), null), 401, 'UNAUTHORIZED');
        expectError(await createRaw(listBody(), 'S1', '', null), 401, 'UNAUTHORIZED');
        expectError(await update(id, [line(a, 5)], 'S1', null), 401, 'UNAUTHORIZED');
        expectError(await remove(`product_list_id=${id}`, 'S1', null), 401, 'UNAUTHORIZED');
        expectError(await update(id, [line(a, 5)], 'S1', 'sot_unknown-token'), 401, 'UNAUTHORIZED');
        expectError(
          await withApiKey('POST', LINES('S1', id), 'sot_unknown-token', { lines: [line(a, 5)] }),
          401,
          'UNAUTHORIZED',
        );
        expectError(
          await withApiKey('DELETE', `${LISTS('S1')}?product_list_id=${id}`, 'sot_unknown-token'),
          401,
          'UNAUTHORIZED',
        );
        expect(pairs(await mustRead(id))).toEqual([[a, 1]]);
      });

      it('a store token reads and writes its store’s lists; another store is 403 and nothing is written there', async () => {
        const storeToken = await t.token('store', ['S1']);
        const a = await product();
        const own = await createRaw(listBody({ lines: [line(a, 1)] }), 'S1', '', storeToken);
        expect(own.statusCode, own.body).toBe(200);
        const ownId = own.json().product_list_id;
        expect((await page('S1', `?product_list_id=${ownId}`, storeToken)).total_count).toBe(1);
        expect((await update(ownId, [line(a, 3)], 'S1', storeToken)).statusCode).toBe(200);
        expect((await withApiKey('POST', LINES('S1', ownId), storeToken, { lines: [line(a, 4)] })).statusCode).toBe(
          200,
        );
        expect(pairs(await mustRead(ownId))).toEqual([[a, 4]]);
        expect((await withApiKey('DELETE', `${LISTS('S1')}?product_list_id=${ownId}`, storeToken)).body).toBe('true');

        const s2List = await create({ lines: [line(a, 1)] }, 'S2');
        const s2Before = await page('S2', '?page_size=1000&show_lines=true');
        const archivedBefore = await page('S2', '?page_size=1000&is_archived=true');
        expectError(await t.get(LISTS('S2'), storeToken), 403, 'FORBIDDEN');
        expectError(await createRaw(listBody(), 'S2', '', storeToken), 403, 'FORBIDDEN');
        expectError(await update(s2List, [line(a, 9)], 'S2', storeToken), 403, 'FORBIDDEN');
        expectError(
          await withApiKey('POST', LINES('S2', s2List), storeToken, { lines: [line(a, 9)] }),
          403,
          'FORBIDDEN',
        );
        expectError(
          await remove(`product_list_id=${s2List}&is_delete_header=true`, 'S2', storeToken),
          403,
          'FORBIDDEN',
        );
        expectError(
          await withApiKey('DELETE', `${LISTS('S2')}?product_list_id=${s2List}&is_archived=true`, storeToken),
          403,
          'FORBIDDEN',
        );
        const s2After = await page('S2', '?page_size=1000&show_lines=true');
        expect(s2After.list).toEqual(s2Before.list);
        expect((await page('S2', '?page_size=1000&is_archived=true')).list).toEqual(archivedBefore.list);
      });

      it('a read token reads (200) and every write is a 403', async () => {
        const readToken = await t.token('read');
        const a = await product();
        const id = await create({ lines: [line(a, 1)] });
        const before = await listCount();
        expect((await page('S1', `?product_list_id=${id}&show_lines=true`, readToken)).list[0]!.id).toBe(id);
        expectError(await createRaw(listBody(), 'S1', '', readToken), 403, 'FORBIDDEN');
        expectError(await update(id, [line(a, 5)], 'S1', readToken), 403, 'FORBIDDEN');
        expectError(await withApiKey('POST', LINES('S1', id), readToken, { lines: [line(a, 5)] }), 403, 'FORBIDDEN');
        expectError(await remove(`product_list_id=${id}`, 'S1', readToken), 403, 'FORBIDDEN');
        expectError(
          await withApiKey('DELETE', `${LISTS('S1')}?product_list_id=${id}&is_delete_header=true`, readToken),
          403,
          'FORBIDDEN',
        );
        expect(await listCount()).toBe(before);
        expect(pairs(await mustRead(id))).toEqual([[a, 1]]);
      });

      it('an integration token creates, reads, updates and deletes in any store', async () => {
        const integration = await t.token('integration');
        const a = await product();
        for (const store of ['S1', 'S2']) {
          const created = await createRaw(listBody({ lines: [line(a, 1)] }), store, '', integration);
          expect(created.statusCode, created.body).toBe(200);
          const id = created.json().product_list_id;
          expect((await page(store, `?product_list_id=${id}`, integration)).total_count).toBe(1);
          expect((await update(id, [line(a, 2)], store, integration)).statusCode).toBe(200);
          expect((await withApiKey('POST', LINES(store, id), integration, { lines: [line(a, 3)] })).statusCode).toBe(
            200,
          );
          expect(pairs(await mustRead(id, store))).toEqual([[a, 3]]);
          expect((await remove(`product_list_id=${id}&is_delete_header=true`, store, integration)).body).toBe('true');
        }
      });
    });

    // ---- store-ops verify (src/modules/product-lists/verify-checks.ts) -----------------------

    describe('store-ops verify checks', () => {
      const productId = async (number: string) =>
        Number(
          (
            await t.app.ctx.db
              .selectFrom('products')
              .select('id')
              .where('product_number', '=', number)
              .executeTakeFirstOrThrow()
          ).id,
        );
      const lineIds = async (listId: number) =>
        (
          await t.app.ctx.db
            .selectFrom('product_list_lines')
            .select('line_no')
            .where('list_id', '=', listId)
            .orderBy('line_no')
            .execute()
        ).map((r) => Number(r.line_no));
      const listViolations = async () => (await verifyAll(t.app.ctx.handle)).filter((v) => v.check === 'product lists');

      it('a line below a thousandth or with a pool outside 1-10 is reported, and nothing else', async () => {
        const a = await product();
        const id = await create({ lines: [line(a, 1), line(a, 2)] });
        const [first, second] = await lineIds(id);
        const pid = await productId(a);
        await t.app.ctx.db
          .updateTable('product_list_lines')
          .set({ quantity: 0 })
          .where('list_id', '=', id)
          .where('line_no', '=', first!)
          .execute();
        await t.app.ctx.db
          .updateTable('product_list_lines')
          .set({ stock_pool: 11 })
          .where('list_id', '=', id)
          .where('line_no', '=', second!)
          .execute();
        try {
          expect(await listViolations()).toEqual([
            { check: 'product lists', detail: `list ${id} product ${pid}: impossible line` },
            { check: 'product lists', detail: `list ${id} product ${pid}: impossible line` },
          ]);
        } finally {
          await t.app.ctx.db
            .updateTable('product_list_lines')
            .set({ quantity: 1000, stock_pool: null })
            .where('list_id', '=', id)
            .execute();
        }
        expect(await listViolations()).toEqual([]);
      });

      it('a product twice on a list that merges duplicates is reported', async () => {
        const [a, b] = [await product(), await product()];
        const id = await create({ is_allow_duplicate_products: false, lines: [line(a, 1), line(b, 1)] });
        const [, second] = await lineIds(id);
        const pid = await productId(a);
        await t.app.ctx.db
          .updateTable('product_list_lines')
          .set({ product_id: pid })
          .where('list_id', '=', id)
          .where('line_no', '=', second!)
          .execute();
        try {
          expect(await listViolations()).toEqual([
            {
              check: 'product lists',
              detail: `list ${id} product ${pid}: duplicate product on a list that merges duplicates`,
            },
          ]);
        } finally {
          await t.app.ctx.db
            .updateTable('product_list_lines')
            .set({ product_id: await productId(b) })
            .where('list_id', '=', id)
            .where('line_no', '=', second!)
            .execute();
        }
        expect(await listViolations()).toEqual([]);
      });

      it('free fields that are no JSON array, or a store number that is not the list’s store, are reported', async () => {
        const id = await create({ free_fields: [{ key: 'k', value: 'v' }] });
        const detail = `list ${id}: its store or free fields are not what they should be`;
        for (const change of [{ free_fields: '{"k":"v"}' }, { free_fields: 'not json' }, { store_number: 'S2' }]) {
          await t.app.ctx.db.updateTable('product_lists').set(change).where('id', '=', id).execute();
          try {
            expect(await listViolations(), JSON.stringify(change)).toEqual([{ check: 'product lists', detail }]);
          } finally {
            await t.app.ctx.db
              .updateTable('product_lists')
              .set({ free_fields: '[{"key":"k","value":"v"}]', store_number: 'S1' })
              .where('id', '=', id)
              .execute();
          }
        }
        expect(await listViolations()).toEqual([]);
      });
    });

    // ---- configuration (src/modules/product-lists/configuration.ts) -------------------------

    describe('configuration of types and modules', () => {
      it('is seeded with types 1-5 and module n → type n', async () => {
        const configuration = await listConfiguration(t.app.ctx.db);
        expect(configuration.types.filter((x) => x.type <= 5)).toEqual(
          DEFAULT_TYPES.map(([type, description]) => ({ type, description })),
        );
        expect(configuration.modules.filter((m) => m.module_id <= 5)).toEqual(
          DEFAULT_TYPES.map(([type]) => ({ module_id: type, type })),
        );
      });

      it('a named type and a module pointing at it are used at once by create and read', async () => {
        const type = 700 + ++counter;
        const moduleId = 800 + counter;
        expectError(await createRaw(listBody({ module_id: moduleId })), 422, 'UNPROCESSABLE');
        const early = await create({ product_list_type: type });
        expect(await mustRead(early)).not.toHaveProperty('type_description');

        await setListType(t.app.ctx.db, type, 'Markdown list');
        await setModuleType(t.app.ctx.db, moduleId, type);
        const id = await create({ module_id: moduleId, product_list_type: 1 });
        expect(await mustRead(id)).toMatchObject({ type, type_description: 'Markdown list', module_id: moduleId });
        // The description is read live, also for lists made before the type was named.
        expect((await mustRead(early)).type_description).toBe('Markdown list');
        await setListType(t.app.ctx.db, type, 'Markdown (renamed)');
        expect((await mustRead(id)).type_description).toBe('Markdown (renamed)');

        // Re-pointing a module changes what new lists get, not existing ones.
        await setModuleType(t.app.ctx.db, moduleId, 2);
        expect((await mustRead(await create({ module_id: moduleId }))).type).toBe(2);
        expect((await mustRead(id)).type).toBe(type);

        expect(await removeModule(t.app.ctx.db, moduleId)).toBe(true);
        expect(await removeModule(t.app.ctx.db, moduleId)).toBe(false);
        const gone = await createRaw(listBody({ module_id: moduleId }));
        expectError(gone, 422, 'UNPROCESSABLE');
        expect(pathsOf(gone)).toEqual(['module_id']);
        // Lists made for the removed module keep their type and module.
        expect(await mustRead(id)).toMatchObject({ type, module_id: moduleId });
      });

      it('a module cannot point at a type that is not configured', async () => {
        const moduleId = 900 + ++counter;
        await expect(setModuleType(t.app.ctx.db, moduleId, 4_000_000)).rejects.toBeInstanceOf(UnknownListTypeError);
        expect((await listConfiguration(t.app.ctx.db)).modules.find((m) => m.module_id === moduleId)).toBeUndefined();
        expectError(await createRaw(listBody({ module_id: moduleId })), 422, 'UNPROCESSABLE');
      });
    });
  });
}
