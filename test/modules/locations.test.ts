import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import { applyEntries, type EntryBooking } from '../../src/ledger/postings.js';
import { parseJsonTag } from '../../src/modules/locations/service.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, productInput, storeInput } from '../helpers/factories.js';
import { bareEntry, TEST_PRINCIPAL } from '../helpers/stock.js';
import { LOCATION_CHECKS } from '../../src/modules/locations/verify-checks.js';
import { seedDemoData } from '../../src/seed.js';

const locationsUrl = (store: string) => `${API}/stores/${store}/locations`;

interface StockLine {
  product: string;
  location: string | null;
  pool: number;
  quantity: number;
  order?: { number: string; line?: number; shipment?: string; shipmentLine?: number };
}

type Item = Record<string, unknown>;

describe('parseJsonTag', () => {
  it('reads a JSON array, a JSON string, and anything else as one plain tag', () => {
    expect(parseJsonTag('["a","b"]')).toEqual(['a', 'b']);
    expect(parseJsonTag('"a"')).toEqual(['a']);
    expect(parseJsonTag('aisle-1')).toEqual(['aisle-1']);
    expect(parseJsonTag('[bad')).toEqual(['[bad']);
    expect(parseJsonTag('5')).toEqual(['5']);
    expect(parseJsonTag('[1,"x",null]')).toEqual(['1', 'x']);
  });
});

for (const dialect of DIALECTS) {
  describe(`locations (${dialect.name})`, () => {
    let t: TestApp;
    const ids = { stores: new Map<string, number>(), products: new Map<string, number>() };

    /** Books stock through the posting engine (the only code that changes stock). */
    async function addStock(store: string, lines: StockLine[]): Promise<void> {
      const { db, handle } = t.app.ctx;
      const storeId = ids.stores.get(store)!;
      const entries: EntryBooking[] = [];
      for (const line of lines) {
        const productId = ids.products.get(line.product)!;
        const location = line.location
          ? await db
              .selectFrom('locations')
              .select('id')
              .where('store_id', '=', storeId)
              .where('location_code', '=', line.location)
              .executeTakeFirstOrThrow()
          : undefined;
        const posting = {
          locationId: location?.id ?? 0,
          pool: line.pool,
          orderKey: line.order?.number ?? '',
          at: Date.now(),
          quantityMilli: Math.round(line.quantity * 1000),
          isCount: false,
        };
        entries.push(
          bareEntry(storeId, productId, posting, {
            location_id: location?.id ?? null,
            customer_order_number: line.order?.number ?? null,
            customer_order_line_number: line.order?.line ?? null,
            customer_order_shipment_number: line.order?.shipment ?? null,
            customer_order_shipment_line_number: line.order?.shipmentLine ?? null,
          }),
        );
      }
      await inTransaction(handle, (trx) =>
        applyEntries(trx, t.app.ctx.ledger, entries, new Map([[storeId, store]]), TEST_PRINCIPAL, Date.now()),
      );
    }

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const stores = await t.post(`${API}/stores`, {
        stores: [storeInput('LS1', { store_stock_pool_2: 'Backroom' }), storeInput('LS2'), storeInput('LS3')],
      });
      expect(stores.statusCode).toBe(200);
      const products = await t.post(`${API}/products`, {
        products: [
          productInput('P1', { product_name: 'Red Apple Juice', barcode: '8710001', image_url: 'https://img/p1.png' }),
          productInput('P2', {
            product_name: 'Green Apple',
            barcode: '8720002',
            barcodes_array: [{ barcode: '5550002' }],
          }),
          productInput('P3', { product_name: 'Banana Split', barcode: '8730003' }),
          productInput('P4', { product_name: 'Cherry Pie', barcode: '8740004' }),
          productInput('Q10', { product_name: 'Pear 100% natural', barcode: '9990010' }),
        ],
      });
      expect(products.statusCode).toBe(200);
      for (const row of await t.app.ctx.db.selectFrom('stores').select(['id', 'store_number']).execute())
        ids.stores.set(row.store_number, row.id);
      for (const row of await t.app.ctx.db.selectFrom('products').select(['id', 'product_number']).execute())
        ids.products.set(row.product_number, row.id);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('POST /stores/{s}/locations', () => {
      it('creates, re-sends unchanged, updates and keeps location_tags in sync', async () => {
        const body = {
          locations: [
            locationInput('A-01', { location_order: 10, tags: ['aisle-1', 'cold', 'aisle-1'], default_stock_pool: 2 }),
            locationInput('B-02', { location_order: 20, tags: ['aisle-2'] }),
            locationInput('C-03'),
          ],
        };
        const created = await t.post(locationsUrl('LS1'), body);
        expect(created.statusCode).toBe(200);
        expect(created.json()).toEqual({ success: true, message: 'created 3, updated 0, unchanged 0, deleted 0' });
        const { db } = t.app.ctx;
        const a01 = await db
          .selectFrom('locations')
          .selectAll()
          .where('location_code', '=', 'A-01')
          .executeTakeFirstOrThrow();
        expect(a01).toMatchObject({
          store_id: ids.stores.get('LS1'),
          store_number: 'LS1',
          location_order: 10,
          default_stock_pool: 2,
        });
        expect(JSON.parse(a01.tags)).toEqual(['aisle-1', 'cold']);
        const c03 = await db
          .selectFrom('locations')
          .selectAll()
          .where('location_code', '=', 'C-03')
          .executeTakeFirstOrThrow();
        expect(c03).toMatchObject({ location_order: 0, default_stock_pool: null, tags: '[]' });

        const again = await t.post(locationsUrl('LS1'), body);
        expect(again.json().message).toBe('created 0, updated 0, unchanged 3, deleted 0');
        expect(
          (await db.selectFrom('locations').select('updated_on').where('id', '=', a01.id).executeTakeFirstOrThrow())
            .updated_on,
        ).toBe(a01.updated_on);

        const tagsOf = async (id: number) =>
          (await db.selectFrom('location_tags').select('tag').where('location_id', '=', id).execute())
            .map((r) => r.tag)
            .sort();
        expect(await tagsOf(a01.id)).toEqual(['aisle-1', 'cold']);
        const changed = await t.post(locationsUrl('LS1'), {
          locations: [locationInput('C-03', { tags: ['dry', 'bulk'] }), locationInput('D-04', { tags: ['dry'] })],
        });
        expect(changed.json().message).toBe('created 1, updated 1, unchanged 0, deleted 0');
        expect(await tagsOf(c03.id)).toEqual(['bulk', 'dry']);
        const removed = await t.post(locationsUrl('LS1'), { locations: [locationInput('C-03', { tags: ['bulk'] })] });
        expect(removed.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
        expect(await tagsOf(c03.id)).toEqual(['bulk']);
        const tagRows = await db.selectFrom('location_tags').selectAll().where('location_id', '=', c03.id).execute();
        expect(tagRows.every((r) => r.store_id === ids.stores.get('LS1'))).toBe(true);
      });

      it('the same location_code in another store is another location', async () => {
        const res = await t.post(locationsUrl('LS2'), { locations: [locationInput('A-01', { tags: ['aisle-1'] })] });
        expect(res.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
        const rows = await t.app.ctx.db
          .selectFrom('locations')
          .select(['store_number', 'location_order'])
          .where('location_code', '=', 'A-01')
          .orderBy('id')
          .execute();
        expect(rows).toEqual([
          { store_number: 'LS1', location_order: 10 },
          { store_number: 'LS2', location_order: 0 },
        ]);
      });

      it('bad input → 400 naming every path: missing code, pool 0/11, over-long code, empty tag, duplicates', async () => {
        const res = await t.post(locationsUrl('LS3'), {
          locations: [
            { location_order: 1 },
            locationInput('X1', { default_stock_pool: 0 }),
            locationInput('X2', { default_stock_pool: 11 }),
            locationInput('X'.repeat(65)),
            locationInput('X3', { tags: [''] }),
            locationInput('X4', { location_order: 1.5 }),
            locationInput(''),
          ],
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('VALIDATION_FAILED');
        const paths = (res.json().errors as Array<{ path: string }>).map((e) => e.path);
        for (const path of [
          'locations[0].location_code',
          'locations[1].default_stock_pool',
          'locations[2].default_stock_pool',
          'locations[3].location_code',
          'locations[4].tags[0]',
          'locations[5].location_order',
          'locations[6].location_code',
        ]) {
          expect(paths).toContain(path);
        }
        const duplicates = await t.post(locationsUrl('LS3'), {
          locations: [locationInput('Z1'), locationInput('Z2'), locationInput('Z1')],
        });
        expect(duplicates.statusCode).toBe(400);
        expect(duplicates.json().errors).toEqual([
          { path: 'locations[2].location_code', message: expect.stringContaining('Z1') },
        ]);
        expect(
          await t.app.ctx.db.selectFrom('locations').select('id').where('store_number', '=', 'LS3').execute(),
        ).toEqual([]);
        const tooMany = await t.post(locationsUrl('LS3'), {
          locations: Array.from({ length: 10_001 }, (_, i) => locationInput(`L${i}`)),
        });
        expect(tooMany.statusCode).toBe(400);
      });

      it('unknown store → 404; store tokens only for their store; read tokens only read', async () => {
        const missing = await t.post(locationsUrl('NOSUCH'), { locations: [locationInput('A')] });
        expect(missing.statusCode).toBe(404);
        expect(missing.json().code).toBe('NOT_FOUND');
        expect((await t.get(locationsUrl('NOSUCH'))).statusCode).toBe(404);
        expect((await t.get(`${locationsUrl('NOSUCH')}/A/products`)).statusCode).toBe(404);
        expect((await t.get(`${locationsUrl('NOSUCH')}/products`)).statusCode).toBe(404);

        const store3 = await t.token('store', ['LS3']);
        expect((await t.post(locationsUrl('LS1'), { locations: [locationInput('S')] }, store3)).statusCode).toBe(403);
        expect((await t.get(locationsUrl('LS1'), store3)).statusCode).toBe(403);
        expect((await t.get(`${locationsUrl('LS1')}/products`, store3)).statusCode).toBe(403);
        expect((await t.get(`${locationsUrl('LS1')}/A-01/products`, store3)).statusCode).toBe(403);
        const own = await t.post(locationsUrl('LS3'), { locations: [locationInput('S-1')] }, store3);
        expect(own.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
        const read = await t.token('read');
        expect((await t.post(locationsUrl('LS3'), { locations: [locationInput('S-2')] }, read)).statusCode).toBe(403);
        expect((await t.get(locationsUrl('LS3'), read)).statusCode).toBe(200);
      });
    });

    describe('reads with stock', () => {
      beforeAll(async () => {
        await addStock('LS1', [
          { product: 'P1', location: 'A-01', pool: 1, quantity: 5 },
          { product: 'P1', location: 'A-01', pool: 2, quantity: 3 },
          { product: 'P2', location: 'A-01', pool: 1, quantity: 2 },
          {
            product: 'P1',
            location: 'A-01',
            pool: 1,
            quantity: 1,
            order: { number: 'CO-1', line: 3, shipment: 'SH-1', shipmentLine: 1 },
          },
          // Stock that went and came back to zero, and a product whose pools cancel out.
          { product: 'P3', location: 'A-01', pool: 1, quantity: 4 },
          { product: 'P3', location: 'A-01', pool: 1, quantity: -4 },
          { product: 'P4', location: 'A-01', pool: 1, quantity: 2 },
          { product: 'P4', location: 'A-01', pool: 2, quantity: -2 },
          { product: 'P2', location: 'B-02', pool: 3, quantity: 7.5 },
          { product: 'Q10', location: 'D-04', pool: 1, quantity: 1.25 },
          // No location: never shows at a location.
          { product: 'P1', location: null, pool: 1, quantity: 100 },
        ]);
        await addStock('LS2', [{ product: 'P1', location: 'A-01', pool: 1, quantity: 9 }]);
      });

      const list = async (query = '', store = 'LS1') => {
        const res = await t.get(`${locationsUrl(store)}${query}`);
        expect(res.statusCode).toBe(200);
        return res.json() as {
          list: Item[];
          total_count: number;
          scroll_id: string | null;
          next_page: number | null;
          list_filters: Record<string, string[]>;
        };
      };
      const byCode = (items: Item[], code: string) => items.find((i) => i.location_code === code)!;

      it('GET /locations: counter, quantity, pools, customer orders, pool name, tags', async () => {
        const page = await list();
        expect(page.total_count).toBe(4);
        expect(page.list.map((l) => l.location_code)).toEqual(['A-01', 'B-02', 'C-03', 'D-04']);
        const a01 = byCode(page.list, 'A-01');
        expect(a01).toMatchObject({
          counter: 2,
          quantity: 11,
          location_order: 10,
          customer_orders: ['CO-1'],
          default_stock_pool: 'Backroom',
          tags: ['aisle-1', 'cold'],
        });
        expect(typeof a01.id).toBe('number');
        expect(a01.created_on).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        const zeros = {
          mostlikelypool3: 0,
          mostlikelypool4: 0,
          mostlikelypool5: 0,
          mostlikelypool6: 0,
          mostlikelypool7: 0,
          mostlikelypool8: 0,
          mostlikelypool9: 0,
          mostlikelypool10: 0,
        };
        expect(a01.stock).toEqual([
          {
            product_number: 'P1',
            product_description: 'Red Apple Juice',
            quantity: 8,
            mostlikelypool1: 5,
            mostlikelypool2: 3,
            ...zeros,
          },
          {
            product_number: 'P1',
            product_description: 'Red Apple Juice',
            quantity: 1,
            mostlikelypool1: 1,
            mostlikelypool2: 0,
            ...zeros,
            customer_order_number: 'CO-1',
            customer_order_line_number: 3,
            customer_order_shipment_number: 'SH-1',
            customer_order_shipment_line_number: 1,
          },
          {
            product_number: 'P2',
            product_description: 'Green Apple',
            quantity: 2,
            mostlikelypool1: 2,
            mostlikelypool2: 0,
            ...zeros,
          },
        ]);
        expect(JSON.stringify(a01)).not.toContain('most_likely_pool');
        const b02 = byCode(page.list, 'B-02');
        expect(b02).toMatchObject({ counter: 1, quantity: 7.5, customer_orders: [], tags: ['aisle-2'] });
        expect(b02.default_stock_pool).toBeUndefined();
        expect((b02.stock as Item[])[0]).toMatchObject({ product_number: 'P2', mostlikelypool3: 7.5 });
        expect(byCode(page.list, 'C-03')).toMatchObject({ counter: 0, quantity: 0, stock: [], customer_orders: [] });
        // Another store's stock at its own A-01 stays there.
        expect(byCode((await list('', 'LS2')).list, 'A-01')).toMatchObject({ counter: 1, quantity: 9 });
      });

      it('a default pool the store has not named reads as its number', async () => {
        await t.post(locationsUrl('LS2'), { locations: [locationInput('P-7', { default_stock_pool: 7 })] });
        expect(byCode((await list('', 'LS2')).list, 'P-7').default_stock_pool).toBe('7');
      });

      it('ignore_customerorder_stock=true leaves order-bound stock out everywhere', async () => {
        const page = await list('?ignore_customerorder_stock=true');
        const a01 = byCode(page.list, 'A-01');
        expect(a01).toMatchObject({ counter: 2, quantity: 10, customer_orders: [] });
        expect((a01.stock as Item[]).map((s) => s.customer_order_number)).toEqual([undefined, undefined]);
        expect(page.list_filters.ignore_customerorder_stock).toEqual(['true']);
      });

      it('search_text: case-insensitive literal substring of location_code or a tag', async () => {
        expect((await list('?search_text=COLD')).list.map((l) => l.location_code)).toEqual(['A-01']);
        expect((await list('?search_text=b-0')).list.map((l) => l.location_code)).toEqual(['B-02']);
        expect((await list('?search_text=AISLE')).list.map((l) => l.location_code)).toEqual(['A-01', 'B-02']);
        expect((await list('?search_text=dry')).list.map((l) => l.location_code)).toEqual(['D-04']);
        expect((await list('?search_text=%25')).total_count).toBe(0);
        expect((await list('?search_text=_')).total_count).toBe(0);
        expect(
          (await list('?Search_Text=cold&accept_language=nl&app_username=jan')).list.map((l) => l.location_code),
        ).toEqual(['A-01']);
      });

      it('paging: page_size, page_start and scroll_id walk every location once', async () => {
        const first = await list('?page_size=3');
        expect(first.list.map((l) => l.location_code)).toEqual(['A-01', 'B-02', 'C-03']);
        expect(first.next_page).toBe(2);
        const second = await list(`?page_size=3&scroll_id=${encodeURIComponent(first.scroll_id!)}`);
        expect(second.list.map((l) => l.location_code)).toEqual(['D-04']);
        expect(second.scroll_id).toBeNull();
        expect(byCode(second.list, 'D-04')).toMatchObject({ counter: 1, quantity: 1.25 });
        expect((await list('?page_size=3&page_start=2')).list.map((l) => l.location_code)).toEqual(['D-04']);
        expect((await list('?page_size=3&page_start=9')).list).toEqual([]);
      });

      const products = async (path: string) => {
        const res = await t.get(`${locationsUrl('LS1')}${path}`);
        expect(res.statusCode).toBe(200);
        return res.json() as { list: Item[]; total_count: number; scroll_id: string | null };
      };
      const summary = (items: Item[]) =>
        items
          .map(
            (i) => `${i.product_number}${i.customer_order_number ? `/${i.customer_order_number}` : ''}=${i.quantity}`,
          )
          .sort();

      it('GET /locations/{code}/products: one line per product and customer order, zero stock left out', async () => {
        const page = await products('/A-01/products');
        expect(page.total_count).toBe(3);
        expect(summary(page.list)).toEqual(['P1/CO-1=1', 'P1=8', 'P2=2']);
        expect(page.list.find((i) => i.product_number === 'P1' && !i.customer_order_number)).toEqual({
          barcode: '8710001',
          image_url: 'https://img/p1.png',
          product_description: 'Red Apple Juice',
          product_number: 'P1',
          quantity: 8,
        });
        expect(page.list.find((i) => i.customer_order_number === 'CO-1')).toMatchObject({
          customer_order_line_number: 3,
          customer_order_shipment_number: 'SH-1',
          customer_order_shipment_line_number: 1,
        });
        const missing = await t.get(`${locationsUrl('LS1')}/NOPE/products`);
        expect(missing.statusCode).toBe(404);
        expect(missing.json().code).toBe('NOT_FOUND');
      });

      it('customer order filters', async () => {
        expect(summary((await products('/A-01/products?customer_order_number=CO-1')).list)).toEqual(['P1/CO-1=1']);
        expect(summary((await products('/A-01/products?customer_order_shipment_number=SH-1')).list)).toEqual([
          'P1/CO-1=1',
        ]);
        expect((await products('/A-01/products?customer_order_shipment_number=SH-2')).total_count).toBe(0);
        expect((await products('/A-01/products?customer_order_number=CO-9')).total_count).toBe(0);
      });

      it('search_text without advance_search: prefix of number or any barcode, substring of description', async () => {
        expect(summary((await products('/A-01/products?search_text=apple')).list)).toEqual([
          'P1/CO-1=1',
          'P1=8',
          'P2=2',
        ]);
        expect(summary((await products('/A-01/products?search_text=juice')).list)).toEqual(['P1/CO-1=1', 'P1=8']);
        expect(summary((await products('/A-01/products?search_text=p2')).list)).toEqual(['P2=2']);
        expect(summary((await products('/A-01/products?search_text=8710')).list)).toEqual(['P1/CO-1=1', 'P1=8']);
        expect(summary((await products('/A-01/products?search_text=5550')).list)).toEqual(['P2=2']); // barcodes_array
        // Not a prefix: no match on number or barcode.
        expect((await products('/A-01/products?search_text=0001')).total_count).toBe(0);
        expect((await products('/A-01/products?search_text=red%20juice')).total_count).toBe(0);
        expect(summary((await products('/D-04/products?search_text=100%25')).list)).toEqual(['Q10=1.25']);
        expect((await products('/D-04/products?search_text=1_0')).total_count).toBe(0);
      });

      it('advance_search=true: every word anywhere in number, barcode or description', async () => {
        expect(summary((await products('/A-01/products?advance_search=true&search_text=juice%20RED')).list)).toEqual([
          'P1/CO-1=1',
          'P1=8',
        ]);
        expect(summary((await products('/A-01/products?advance_search=true&search_text=apple%200002')).list)).toEqual([
          'P2=2',
        ]);
        expect(summary((await products('/A-01/products?advance_search=true&search_text=0001')).list)).toEqual([
          'P1/CO-1=1',
          'P1=8',
        ]);
        expect((await products('/A-01/products?advance_search=true&search_text=apple%20banana')).total_count).toBe(0);
        expect(summary((await products('/A-01/products?advance_search=true&search_text=%20%20')).list)).toHaveLength(3);
      });

      it('GET /locations/products: by jsonTag (one, JSON array, malformed) and location_code', async () => {
        expect(summary((await products('/products?jsonTag=aisle-1')).list)).toEqual(['P1/CO-1=1', 'P1=8', 'P2=2']);
        const both = await products(`/products?jsonTag=${encodeURIComponent('["aisle-1","aisle-2"]')}`);
        expect(summary(both.list)).toEqual(['P1/CO-1=1', 'P1=8', 'P2=9.5']);
        expect(summary((await products(`/products?jsonTag=${encodeURIComponent('["aisle-2"]')}`)).list)).toEqual([
          'P2=7.5',
        ]);
        expect(summary((await products(`/products?jsonTag=${encodeURIComponent('"dry"')}`)).list)).toEqual([
          'Q10=1.25',
        ]);
        expect((await products(`/products?jsonTag=${encodeURIComponent('["aisle-1"')}`)).total_count).toBe(0);
        expect(summary((await products('/products?location_code=B-02')).list)).toEqual(['P2=7.5']);
        expect((await products('/products?location_code=A-01&jsonTag=aisle-2')).total_count).toBe(0);
        expect((await products('/products?location_code=NOPE')).total_count).toBe(0);
        expect(summary((await products('/products?JSONTAG=cold&search_text=green')).list)).toEqual(['P2=2']);
        // Neither: every location of the store, never stock without a location.
        expect(summary((await products('/products')).list)).toEqual(['P1/CO-1=1', 'P1=8', 'P2=9.5', 'Q10=1.25']);
      });

      it('location products page by scroll_id without repeats or gaps', async () => {
        const seen: Item[] = [];
        let scroll: string | null = null;
        let pages = 0;
        do {
          const page: { list: Item[]; total_count: number; scroll_id: string | null } = await products(
            `/products?page_size=1${scroll ? `&scroll_id=${encodeURIComponent(scroll)}` : ''}`,
          );
          expect(page.total_count).toBe(4);
          seen.push(...page.list);
          scroll = page.scroll_id;
          pages++;
        } while (scroll !== null && pages < 10);
        expect(pages).toBe(4);
        expect(summary(seen)).toEqual(['P1/CO-1=1', 'P1=8', 'P2=9.5', 'Q10=1.25']);
        const second = await products('/products?page_size=2&page_start=2');
        expect(second.list).toEqual(seen.slice(2, 4));
      });

      it("verify: location_tags match every location's tags; a drifted index is reported", async () => {
        const { handle, db } = t.app.ctx;
        expect(await LOCATION_CHECKS[0]!.run(handle)).toEqual([]);
        const a01 = await db
          .selectFrom('locations')
          .select('id')
          .where('store_number', '=', 'LS1')
          .where('location_code', '=', 'A-01')
          .executeTakeFirstOrThrow();
        await db.deleteFrom('location_tags').where('location_id', '=', a01.id).where('tag', '=', 'cold').execute();
        try {
          const violations = await LOCATION_CHECKS[0]!.run(handle);
          expect(violations).toHaveLength(1);
          expect(violations[0]!.detail).toContain("location 'A-01' of store 'LS1'");
        } finally {
          await db
            .insertInto('location_tags')
            .values({ location_id: a01.id, store_id: ids.stores.get('LS1')!, tag: 'cold' })
            .execute();
        }
        expect(await LOCATION_CHECKS[0]!.run(handle)).toEqual([]);
      });

      it('a location changed after stock moved there still reads its stock', async () => {
        await t.post(locationsUrl('LS1'), {
          locations: [locationInput('B-02', { location_order: 25, tags: ['aisle-2', 'frozen'] })],
        });
        const b02 = byCode((await list('?search_text=frozen')).list, 'B-02');
        expect(b02).toMatchObject({ location_order: 25, quantity: 7.5, tags: ['aisle-2', 'frozen'] });
      });
    });

    it('seed: demo locations (tags, default pools) and store products, idempotent and verify-clean', async () => {
      const own = await buildTestApp(dialect);
      try {
        const first = await seedDemoData(own.app.ctx);
        expect(first).toContain('locations 1001: created 7, updated 0, unchanged 0, deleted 0');
        expect(first).toContain('store products 1001: created 20, updated 0, unchanged 0, deleted 0');
        const second = await seedDemoData(own.app.ctx);
        expect(second).toContain('locations 1001: created 0, updated 0, unchanged 7, deleted 0');
        expect(second).toContain('store products 2002: created 0, updated 0, unchanged 20, deleted 0');
        expect(second.some((line) => line.startsWith('locations 9001'))).toBe(false);
        const page = (await own.get(`${API}/stores/1001/locations?search_text=backroom`)).json();
        expect(page.list.map((l: Item) => [l.location_code, l.default_stock_pool])).toEqual([
          ['BR-01', 'Backroom'],
          ['DMG', 'Damaged'],
        ]);
        const { verifyAll } = await import('../../src/verify.js');
        const mine = (await verifyAll(own.app.ctx.handle)).filter(
          (v) => v.check === 'locations' || v.check === 'store products',
        );
        expect(mine).toEqual([]);
      } finally {
        await own.close();
      }
    });
  });
}
