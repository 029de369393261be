import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput, unchecked } from '../helpers/factories.js';

type Listed = { store_number: string; store_name: string; city?: string };
const numbers = (body: { list: Listed[] }) => body.list.map((s) => s.store_number);
const json = { 'content-type': 'application/json' };

for (const dialect of DIALECTS) {
  describe(`request conventions and hostile input (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const imported = await t.post(`${API}/stores`, {
        stores: [
          storeInput('C1', { store_name: '100% Fresh', city: 'Utrecht' }),
          storeInput('C2', { store_name: 'A_B Market', city: 'Zwolle', is_warehouse: true }),
          storeInput('C3', { store_name: 'AxB Market', city: 'Leiden' }),
          storeInput('C4', { store_name: 'Back\\slash', city: 'Delft' }),
          storeInput('C5', { store_name: "O'Brien's", city: 'Cork', secondary_key: 'SK-5' }),
        ],
      });
      expect(imported.statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('query parameter names are case-insensitive (PRODUCT §3)', () => {
      it('Page_Size, SEARCH_TEXT and Is_Warehouse work as their declared spellings', async () => {
        const paged = (await t.get(`${API}/stores?Page_Size=1`)).json();
        expect(paged.page_size).toBe(1);
        expect(paged.list).toHaveLength(1);
        expect(paged.total_count).toBe(5);

        const searched = (await t.get(`${API}/stores?SEARCH_TEXT=market`)).json();
        expect(numbers(searched)).toEqual(['C2', 'C3']);
        expect(searched.list_filters).toEqual({ search_text: ['market'] });

        const warehouses = (await t.get(`${API}/stores?Is_Warehouse=true`)).json();
        expect(numbers(warehouses)).toEqual(['C2']);
        expect(warehouses.list_filters).toEqual({ is_warehouse: ['true'] });

        const combined = (await t.get(`${API}/stores?PAGE_START=2&page_SIZE=2&Secondary_Key=SK-5`)).json();
        expect(combined).toMatchObject({ page_start: 2, page_size: 2, total_count: 1, list: [] });
      });

      it('a bad value under another spelling is still validated', async () => {
        const response = await t.get(`${API}/stores?PAGE_SIZE=abc`);
        expect(response.statusCode).toBe(400);
        expect(response.json().errors).toEqual([{ path: 'query.page_size', message: 'must be integer' }]);
      });
    });

    describe('unknown names are ignored (PRODUCT §3)', () => {
      it('unknown query parameters', async () => {
        const response = await t.get(`${API}/stores?colour=blue&sort=desc&page_size=2`);
        expect(response.statusCode).toBe(200);
        expect(response.json().page_size).toBe(2);
        expect(response.json().list_filters).toEqual({});
      });

      it('unknown body fields, at the top and inside items', async () => {
        const response = await t.post(`${API}/stores`, {
          batch: 'nightly',
          stores: [storeInput('C6', unchecked({ favourite_colour: 'blue', nested: { deep: [1, 2, 3] } }))],
        });
        expect(response.statusCode).toBe(200);
        expect(response.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
        const stored = (await t.get(`${API}/stores?search_text=C6`)).json().list[0];
        expect(stored.store_number).toBe('C6');
        expect(stored).not.toHaveProperty('favourite_colour');
        expect(stored).not.toHaveProperty('nested');
      });
    });

    describe('hostile input (PRODUCT §3)', () => {
      it('__proto__ and constructor keys are dropped, nothing is polluted', async () => {
        const store = JSON.stringify(storeInput('C7')).slice(0, -1);
        const payload =
          `{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted2": "yes"}},` +
          ` "stores": [${store}, "__proto__": {"is_admin": true}, "constructor": {"prototype": {"x": 1}}}]}`;
        const response = await t.request({ method: 'POST', url: `${API}/stores`, payload, headers: json });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(({} as Record<string, unknown>).polluted2).toBeUndefined();
        expect(({} as Record<string, unknown>).is_admin).toBeUndefined();
        const stored = (await t.get(`${API}/stores?search_text=C7`)).json().list[0];
        expect(stored.store_number).toBe('C7');
        expect(stored.is_admin).toBeUndefined();
      });

      it('10,000 nested arrays inside an unknown field is not a 500', async () => {
        const deep = '['.repeat(10_000) + ']'.repeat(10_000);
        const response = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: `{"stores": [${JSON.stringify(storeInput('C8')).slice(0, -1)}, "junk": ${deep}}], "junk": ${deep}}`,
          headers: json,
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      });

      it('deep nesting inside a known field is a 400, never a 500', async () => {
        const deep = '['.repeat(10_000) + ']'.repeat(10_000);
        const response = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: `{"stores": [${JSON.stringify(storeInput('C9')).slice(0, -1)}, "free_fields": ${deep}}]}`,
          headers: json,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().code).toBe('VALIDATION_FAILED');
      });

      it('page_size: not a number → 400; below 1 and above 1000 are clamped and echoed', async () => {
        const bad = await t.get(`${API}/stores?page_size=abc`);
        expect(bad.statusCode).toBe(400);
        expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'query.page_size' }] });
        expect((await t.get(`${API}/stores?page_size=1.5`)).statusCode).toBe(400);
        expect((await t.get(`${API}/stores?page_size=${2 ** 60}`)).statusCode).toBe(400);

        const low = (await t.get(`${API}/stores?page_size=-5`)).json();
        expect(low.page_size).toBe(1);
        expect(low.list).toHaveLength(1);
        expect((await t.get(`${API}/stores?page_size=0`)).json().page_size).toBe(1);
        expect((await t.get(`${API}/stores?page_size=5000`)).json().page_size).toBe(1000);
        expect((await t.get(`${API}/stores?page_start=-3`)).json().page_start).toBe(1);
        expect((await t.get(`${API}/stores?page_start=abc`)).statusCode).toBe(400);
        expect((await t.get(`${API}/stores?is_warehouse=maybe`)).statusCode).toBe(400);
      });

      it('unicode strings are stored and read back unchanged', async () => {
        const name = 'Café ☕ 東京 Zürich 😀 עברית \u00e9\t"quoted"';
        const emojiNumber = '😀'.repeat(64);
        const response = await t.post(`${API}/stores`, {
          stores: [storeInput('Ü-1', { store_name: name, city: 'Überlingen' }), storeInput(emojiNumber)],
        });
        expect(response.statusCode, response.body).toBe(200);
        const found = (await t.get(`${API}/stores?search_text=${encodeURIComponent('東京')}`)).json();
        expect(found.list).toHaveLength(1);
        expect(found.list[0]).toMatchObject({ store_number: 'Ü-1', store_name: name, city: 'Überlingen' });
        expect(
          (await t.get(`${API}/stores?search_text=${encodeURIComponent(emojiNumber)}`)).json().list[0].store_number,
        ).toBe(emojiNumber);
        expect((await t.post(`${API}/stores`, { stores: [storeInput('😀'.repeat(65))] })).statusCode).toBe(400);
      });

      it('the NUL character is a 400 in bodies and queries (PostgreSQL text cannot hold it)', async () => {
        const store = JSON.stringify(storeInput('N1')).slice(0, -1);
        const response = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: `{"stores": [${store}, "city": "Zw\\u0000olle", "free_fields": [{"sort_order": 1, "value": "\\u0000"}]}]}`,
          headers: json,
        });
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json()).toMatchObject({
          code: 'VALIDATION_FAILED',
          errors: [
            { path: 'stores[0].city', message: expect.any(String) },
            { path: 'stores[0].free_fields[0].value', message: expect.any(String) },
          ],
        });
        expect((await t.get(`${API}/stores?search_text=N1`)).json().total_count).toBe(0);

        const query = await t.get(`${API}/stores?search_text=a%00b`);
        expect(query.statusCode).toBe(400);
        expect(query.json().errors).toEqual([{ path: 'query.search_text', message: expect.any(String) }]);
        expect((await t.get(`${API}/stores?search_text=%00`)).statusCode).toBe(400);

        // An escaped backslash followed by the text "u0000" is no NUL character.
        const literal = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: `{"stores": [${store}, "store_gln": "G\\\\u0000"}]}`,
          headers: json,
        });
        expect(literal.statusCode, literal.body).toBe(200);
        expect((await t.get(`${API}/stores?search_text=N1`)).json().list[0].store_gln).toBe('G\\u0000');
      });

      it('SQL-like search text is data, not SQL', async () => {
        for (const text of ["'; drop table stores; --", "' or '1'='1", '" or 1=1 --', 'C1) or (1=1']) {
          const response = await t.get(`${API}/stores?search_text=${encodeURIComponent(text)}`);
          expect(response.statusCode, text).toBe(200);
          expect(response.json().total_count, text).toBe(0);
        }
        const brien = (await t.get(`${API}/stores?search_text=${encodeURIComponent("o'brien")}`)).json();
        expect(numbers(brien)).toEqual(['C5']);
        expect((await t.get(`${API}/stores?page_size=1`)).json().total_count).toBeGreaterThanOrEqual(5);
      });

      it('% and _ and \\ in search_text are matched literally', async () => {
        const search = async (text: string) =>
          numbers((await t.get(`${API}/stores?search_text=${encodeURIComponent(text)}`)).json());
        expect(await search('%')).toEqual(['C1']);
        expect(await search('0%')).toEqual(['C1']);
        expect(await search('_')).toEqual(['C2']);
        expect(await search('a_b')).toEqual(['C2']);
        expect(await search('% fresh')).toEqual(['C1']);
        expect(await search('%fresh')).toEqual([]);
        expect(await search('\\')).toEqual(['C4']);
        expect(await search('k\\s')).toEqual(['C4']);
      });
    });
  });
}
