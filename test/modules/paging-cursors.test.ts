import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, productInput, storeInput } from '../helpers/factories.js';

/**
 * A scroll_id is bound to its list, its path and every filter of its query (shared/paging.ts
 * resolvePage): replayed under another filter value, another filter or another path it is
 * a 400, never a page of some other list; under the same filters it continues. The paged
 * endpoints are read from the served OpenAPI document (every GET declaring `scroll_id`), so
 * an endpoint added later is tested too — it fails here until it has a row in KEEPS_BOTH.
 */

interface Parameter {
  in: 'query' | 'path';
  name: string;
  schema?: { type?: string; format?: string; enum?: string[]; anyOf?: Array<{ const?: string; enum?: string[] }> };
}

/**
 * Per paged path: a filter, with a value, under which the seeded data still has two
 * records (so page 1 carries a scroll_id); null for a list whose query declares no filter.
 */
const KEEPS_BOTH: Record<string, { name: string; value: string } | null> = {
  '/stores': { name: 'is_warehouse', value: 'false' },
  '/categories': { name: 'search_text', value: 'Category' },
  '/stores/{store_number}/locations': { name: 'search_text', value: '-0' },
  '/stores/{store_number}/locations/products': { name: 'location_code', value: 'A-01' },
  '/stores/{store_number}/locations/{location_code}/products': { name: 'search_text', value: 'Product' },
  '/products/stock/storeproductlogs': { name: 'store_number', value: 'S1' },
  '/stores/{store_number}/externalcountinglines/unresolved': null,
  '/storeproducts/stock': { name: 'store_number', value: 'S1' },
  '/orders/deliveries': { name: 'supplier_name', value: 'acme' },
  '/orders/receipts': { name: 'is_submitted', value: 'false' },
  '/stores/{store_number}/orders/receipts': { name: 'is_submitted', value: 'false' },
  '/stores/{store_number}/orders/customerorders': { name: 'is_active', value: 'true' },
  '/stores/{store_number}/productlists': { name: 'type', value: '1' },
  '/stores/{store_number}/countingassignments': { name: 'status', value: 'open' },
  '/stores/{store_number}/countingassignments/{id}/lines': { name: 'status', value: 'not_counted' },
};

/** Query parameters a list requires: sent with every request of it, never a filter under test. */
const REQUIRED: Record<string, Record<string, string>> = {
  '/orders/receipts': { receipt_type: '1' },
  '/stores/{store_number}/orders/receipts': { receipt_type: '1' },
};

const PAGING = new Set(['page_size', 'page_start', 'scroll_id']);

/** A valid value of a query parameter's type, and a second, different one. */
function sampleValues(parameter: Parameter): [string, string] {
  const schema = parameter.schema ?? {};
  const choices =
    schema.enum ?? schema.anyOf?.flatMap((option) => option.enum ?? (option.const === undefined ? [] : [option.const]));
  if (choices && choices.length >= 2) return [choices[0]!, choices[1]!];
  if (schema.type === 'boolean') return ['true', 'false'];
  if (schema.type === 'integer') return ['1', '2'];
  if (schema.format === 'date-time') return ['2020-01-01T00:00:00Z', '2020-01-02T00:00:00Z'];
  return ['probe', 'probe2'];
}

const PATH_VALUES: Record<string, string> = { store_number: 'S1', location_code: 'A-01', id: '1' };

for (const dialect of DIALECTS) {
  describe(`scroll_id is bound to its list and filters (PRODUCT §3.1, ${dialect.name})`, () => {
    let t: TestApp;
    let pagedPaths: Array<{ path: string; query: Parameter[]; pathNames: string[] }>;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const ok = async (url: string, body: unknown) => {
        const response = await t.post(`${API}${url}`, body);
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
      };
      await ok('/stores', { stores: [storeInput('S1'), storeInput('S2')] });
      await ok('/categories', { categories: [categoryInput('C1'), categoryInput('C2')] });
      await ok('/products', {
        products: [productInput('P1', { barcode: '8710001' }), productInput('P2', { barcode: '8710002' })],
      });
      for (const store of ['S1', 'S2']) {
        await ok(`/stores/${store}/locations`, {
          locations: [
            { location_code: 'A-01', tags: ['front'] },
            { location_code: 'B-01', tags: ['back'] },
          ],
        });
        const entry = (product: string) => ({
          product_number: product,
          quantity: 5,
          location_code: 'A-01',
          customer_order_line_number: 0,
          modification_datetime: '2026-01-10T10:00:00Z',
        });
        await ok(`/stores/${store}/products/stock/storeproductlogs`, { storeproductlog: [entry('P1'), entry('P2')] });
        await ok('/externalcountinglines', {
          CountingDateTime: '2026-05-02T06:00:00Z',
          StoreNo: store,
          Lines: [
            { product_barcode: 'UNKNOWN-1', counted_quantity: 1 },
            { product_barcode: 'UNKNOWN-2', counted_quantity: 2 },
          ],
        });
      }
      // Two deliveries of S1, each received on twice (two receipts, the second with two lines).
      const delivery = (orderNumber: string) => ({
        order_number: orderNumber,
        order_type: 1,
        datetime_expected: '2026-06-01T08:00:00Z',
        no_of_containers: 1,
        supplier_name: 'Acme',
        order_lines: [{ line_number: 1, product_number: 'P1', quantity: 4, target_stock_pool: 1 }],
      });
      await ok('/stores/S1/orders/deliveries', { orders: [delivery('PC-1'), delivery('PC-2')] });
      for (const orderNumber of ['PC-1', 'PC-2', 'PC-1']) {
        await ok(`/stores/S1/orders/deliveries/${orderNumber}/receive`, {
          lines: [{ line_number: 1, received_quantity: 1 }],
        });
      }
      await ok('/stores/S1/orders/customerorders', {
        orders: ['CO-1', 'CO-2'].map((order_number) => ({
          order_number,
          lines: [{ line_number: 1, product_number: 'P1', quantity: 1 }],
        })),
      });
      for (const name of ['Reorder A', 'Reorder B']) {
        await ok('/stores/S1/productlists', {
          product_list_name: name,
          product_list_type: 1,
          lines: [{ product_number: 'P1', quantity: 2 }],
        });
      }
      // Counting assignments 1 (counting: two lines, P1 and P2 at A-01), 2 and 3 (open).
      for (const description of ['first', 'second', 'third']) {
        const created = await t.post(`${API}/stores/S1/countingassignments`, {
          description,
          scope: { whole_store: true },
        });
        expect(created.statusCode, created.body).toBe(201);
      }
      await ok('/stores/S1/countingassignments/1/start', {});
      // A receipt listing shows receipts changed before its moment: let the clock pass the last one.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const document = (await t.get(`${API}/openapi.json`, null)).json() as {
        paths: Record<string, { get?: { parameters?: Parameter[] } }>;
      };
      pagedPaths = Object.entries(document.paths)
        .filter(([, item]) => item.get?.parameters?.some((p) => p.in === 'query' && p.name === 'scroll_id'))
        .map(([path, item]) => ({
          path: path.slice(API.length),
          query: item.get!.parameters!.filter((p) => p.in === 'query' && !PAGING.has(p.name)),
          pathNames: item.get!.parameters!.filter((p) => p.in === 'path').map((p) => p.name),
        }));
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const urlOf = (path: string, pathValues: Record<string, string>, query: Record<string, string>) =>
      `${API}${path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name]!))}?${new URLSearchParams(query)}`;

    const refusedCursor = async (url: string) => {
      const response = await t.get(url);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      expect(response.json().errors).toEqual([expect.objectContaining({ path: 'query.scroll_id' })]);
    };

    it('every paged endpoint is listed here', () => {
      expect(pagedPaths.map((p) => p.path).sort()).toEqual(Object.keys(KEEPS_BOTH).sort());
    });

    it('a scroll_id continues under the same filters and path, and is a 400 under any other', async () => {
      for (const { path, query, pathNames } of pagedPaths) {
        const keep = KEEPS_BOTH[path] ?? null;
        const required = REQUIRED[path] ?? {};
        const filters: Record<string, string> =
          keep === null ? { ...required } : { ...required, [keep.name]: keep.value };
        const first = await t.get(urlOf(path, PATH_VALUES, { ...filters, page_size: '1' }));
        expect(first.statusCode, `${path}: ${first.body}`).toBe(200);
        const scrollId = first.json().scroll_id as string | null;
        expect(scrollId, `${path} page 1 has a scroll_id`).not.toBeNull();
        const cursor = { scroll_id: scrollId! };

        // The same filters (and a page_size, which is no filter): the next page.
        const next = await t.get(urlOf(path, PATH_VALUES, { ...filters, ...cursor }));
        expect(next.statusCode, `${path}: ${next.body}`).toBe(200);
        expect(next.json()).toMatchObject({ page_start: 2, page_size: 1 });
        expect(next.json().list[0]).not.toEqual(first.json().list[0]);
        expect((await t.get(urlOf(path, PATH_VALUES, { ...filters, ...cursor, page_size: '5' }))).statusCode).toBe(200);

        if (keep !== null) {
          // The filter dropped, or with another value.
          await refusedCursor(urlOf(path, PATH_VALUES, { ...required, ...cursor }));
          const parameter = query.find((p) => p.name === keep.name)!;
          const other = sampleValues(parameter).find((v) => v !== keep.value)!;
          await refusedCursor(urlOf(path, PATH_VALUES, { ...required, [keep.name]: other, ...cursor }));
        }
        // Any other declared filter added (or a required one changed): every one of them is part of the fingerprint.
        for (const parameter of query.filter((p) => p.name !== keep?.name)) {
          if (parameter.name in required) {
            await refusedCursor(
              urlOf(path, PATH_VALUES, {
                ...filters,
                [parameter.name]: sampleValues(parameter).find((v) => v !== required[parameter.name])!,
                ...cursor,
              }),
            );
            continue;
          }
          await refusedCursor(
            urlOf(path, PATH_VALUES, { ...filters, [parameter.name]: sampleValues(parameter)[0], ...cursor }),
          );
        }
        // Another store in the path (same filters, same location code).
        if (pathNames.includes('store_number'))
          await refusedCursor(urlOf(path, { ...PATH_VALUES, store_number: 'S2' }, { ...filters, ...cursor }));
        if (pathNames.includes('location_code'))
          await refusedCursor(urlOf(path, { ...PATH_VALUES, location_code: 'B-01' }, { ...filters, ...cursor }));
      }
    });

    it('the fingerprint is of the validated query: name spelling, parameter order and coerced values do not matter', async () => {
      const first = (await t.get(`${API}/stores?is_warehouse=false&search_text=S&page_size=1`)).json();
      const cursor = encodeURIComponent(first.scroll_id);
      for (const query of [
        'search_text=S&is_warehouse=false',
        'IS_WAREHOUSE=false&Search_Text=S',
        'is_warehouse=false&search_text=S&unknown_name=1',
      ]) {
        const next = await t.get(`${API}/stores?${query}&scroll_id=${cursor}`);
        expect(next.statusCode, `${query}: ${next.body}`).toBe(200);
        expect(next.json().list.map((s: { store_number: string }) => s.store_number)).toEqual(['S2']);
        expect(next.json().list_filters).toEqual({ is_warehouse: ['false'], search_text: ['S'] });
      }
      const logs = (await t.get(`${API}/products/stock/storeproductlogs?from_id=1&page_size=1`)).json();
      const logCursor = encodeURIComponent(logs.scroll_id);
      expect((await t.get(`${API}/products/stock/storeproductlogs?from_id=01&scroll_id=${logCursor}`)).statusCode).toBe(
        200,
      );
      await refusedCursor(`${API}/products/stock/storeproductlogs?from_id=2&scroll_id=${logCursor}`);
    });

    it('a scroll_id of one list is a 400 on another', async () => {
      const stores = (await t.get(`${API}/stores?page_size=1`)).json();
      await refusedCursor(`${API}/categories?scroll_id=${encodeURIComponent(stores.scroll_id)}`);
    });
  });
}
