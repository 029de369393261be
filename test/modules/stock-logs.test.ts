import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { balancesOf } from '../helpers/stock.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;

const entry = (productNumber: string, quantity: number, overrides: Record<string, unknown> = {}) => ({
  product_number: productNumber,
  quantity,
  customer_order_line_number: 0,
  modification_datetime: '2026-01-10T10:00:00Z',
  ...overrides,
});

for (const dialect of DIALECTS) {
  describe(`stock log entries (${dialect.name})`, () => {
    let t: TestApp;
    let productCounter = 0;

    /** A fresh product per test keeps balances independent. */
    async function newProduct(): Promise<string> {
      const number = `SL-${++productCounter}`;
      expect(
        (await t.post(`${API}/products`, { products: [productInput(number, { barcode: `871000${productCounter}` })] }))
          .statusCode,
      ).toBe(200);
      return number;
    }

    /** Balances of a product in S1 as {"location|pool|order": quantity}. */
    const balances = (productNumber: string) => balancesOf(t.app.ctx.db, productNumber);

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2')] });
      await t.post(`${API}/reasoncodes`, {
        reason_codes: [
          reasonCodeInput(10, { is_loss: true, reason_code_description: 'Damaged' }),
          reasonCodeInput(20, { is_gain: true, reason_code_type: 7, reason_code_description: 'Found' }),
          reasonCodeInput(30, {
            is_loss: true,
            default_review_status: 1,
            reason_code_description: 'Theft (needs review)',
          }),
          reasonCodeInput(40, { reason_code_description: 'Correction' }),
        ],
      });
      const locations = await t.post(`${API}/stores/S1/locations`, {
        locations: [
          { location_code: 'A-01', location_order: 1, tags: ['front'], default_stock_pool: 3 },
          { location_code: 'B-01', location_order: 2, tags: ['back'] },
        ],
      });
      expect(locations.statusCode).toBe(200);
    });

    // store-ops verify's checks hold after every single test, not only at the end.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('books deltas and returns the new ids in input order', async () => {
      const p = await newProduct();
      const response = await t.post(`${LOGS('S1')}?appUserName=anna`, {
        storeproductlog: [entry(p, 5), entry(p, -2, { app_user_name: 'bob' })],
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.success).toBe(true);
      expect(body.data).toHaveLength(2);
      expect(body.data[1]).toBeGreaterThan(body.data[0]);
      expect(await balances(p)).toEqual({ '-|1|-': 3 });
      const listed = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}`)).json();
      expect(listed.total_count).toBe(2);
      expect(listed.list.map((l: { id: number }) => l.id)).toEqual(body.data);
      expect(listed.list[0]).toMatchObject({
        quantity: 5,
        app_user_name: 'anna',
        purged_to_most_likely: true,
        stock_pool_1: 5,
        stock_pool: '1',
        store_number: 'S1',
        review_status: '0',
      });
      expect(listed.list[1]).toMatchObject({ quantity: -2, app_user_name: 'bob' });
    });

    it('loss codes subtract |q|, gain codes add |q|, others keep the sign', async () => {
      const p = await newProduct();
      await t.post(LOGS('S1'), {
        storeproductlog: [
          entry(p, 10),
          entry(p, 3, { reason_code: 10 }),
          entry(p, -2, { reason_code: 20 }),
          entry(p, -1, { reason_code: 40 }),
        ],
      });
      expect(await balances(p)).toEqual({ '-|1|-': 10 - 3 + 2 - 1 });
    });

    it('pools: pool_location, then the location default pool, then 1; stock_pool_N splits', async () => {
      const p = await newProduct();
      const response = await t.post(LOGS('S1'), {
        storeproductlog: [
          entry(p, 1, { pool_location: 2 }),
          entry(p, 4, { location_code: 'A-01' }),
          entry(p, 2, { location_code: 'B-01' }),
          entry(p, 5, { stock_pool_4: 3, stock_pool_5: 2 }),
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(await balances(p)).toEqual({ '-|2|-': 1, 'A-01|3|-': 4, 'B-01|1|-': 2, '-|4|-': 3, '-|5|-': 2 });
    });

    it('a split that does not add up is a 400 naming the line; nothing is booked', async () => {
      const p = await newProduct();
      const response = await t.post(LOGS('S1'), {
        storeproductlog: [entry(p, 1), entry(p, 5, { stock_pool_1: 1, stock_pool_2: 1 })],
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().errors).toEqual([expect.objectContaining({ path: 'storeproductlog[1].quantity' })]);
      expect(await balances(p)).toEqual({});
    });

    it('unknown product, reason code or location is a 422 naming each line; the batch is atomic', async () => {
      const p = await newProduct();
      const response = await t.post(LOGS('S1'), {
        storeproductlog: [
          entry(p, 1),
          entry('NOPE', 1),
          entry(p, 1, { reason_code: 999 }),
          entry(p, 1, { location_code: 'ZZ' }),
        ],
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().code).toBe('UNPROCESSABLE');
      expect(response.json().errors.map((e: { path: string }) => e.path)).toEqual([
        'storeproductlog[1].product_number',
        'storeproductlog[2].reason_code',
        'storeproductlog[3].location_code',
      ]);
      expect(await balances(p)).toEqual({});
    });

    it('bad input is a 400 with every path: missing fields, decimals, bad date', async () => {
      const response = await t.post(LOGS('S1'), {
        storeproductlog: [
          { quantity: 1.2345, modification_datetime: 'yesterday' },
          { product_number: 'x', customer_order_line_number: 0, modification_datetime: '2026-01-01T00:00:00Z' },
        ],
      });
      expect(response.statusCode).toBe(400);
      const paths = response.json().errors.map((e: { path: string }) => e.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          'storeproductlog[0].customer_order_line_number',
          'storeproductlog[0].modification_datetime',
          'storeproductlog[0].quantity',
          'storeproductlog[1].quantity',
        ]),
      );
      const noProduct = await t.post(LOGS('S1'), { storeproductlog: [entry('', 1)] });
      expect(noProduct.statusCode).toBe(400);
      expect(noProduct.json().errors[0].path).toBe('storeproductlog[0].product_number');
    });

    it('unknown store is a 404', async () => {
      const p = await newProduct();
      expect((await t.post(LOGS('NOSTORE'), { storeproductlog: [entry(p, 1)] })).statusCode).toBe(404);
    });

    it('counts book counted − expected at their moment; later entries stay on top', async () => {
      const p = await newProduct();
      await t.post(LOGS('S1'), {
        storeproductlog: [
          entry(p, 10, { modification_datetime: '2026-01-10T08:00:00Z' }),
          entry(p, -3, { modification_datetime: '2026-01-10T12:00:00Z' }),
        ],
      });
      // Counted 8 at 10:00 (arrives late, after the sale at 12:00): expected 10, delta −2.
      const counted = await t.post(`${LOGS('S1')}?is_counted_quantity=true`, {
        storeproductlog: [entry(p, 8, { modification_datetime: '2026-01-10T10:00:00Z' })],
      });
      expect(counted.statusCode).toBe(200);
      expect(await balances(p)).toEqual({ '-|1|-': 5 });
      const log = (
        await t.get(
          `${API}/products/stock/storeproductlogs?from_id=${counted.json().data[0]}&to_id=${counted.json().data[0]}`,
        )
      ).json().list[0];
      expect(log).toMatchObject({ counted_quantity: 8, expected_quantity: 10, quantity: -2 });
    });

    it('a count arriving after a newer count re-bases the newer one, which still holds', async () => {
      const p = await newProduct();
      const at = (h: number) => `2026-01-10T${String(h).padStart(2, '0')}:00:00Z`;
      await t.post(LOGS('S1'), { storeproductlog: [entry(p, 10, { modification_datetime: at(8) })] });
      await t.post(`${LOGS('S1')}?is_counted_quantity=true`, {
        storeproductlog: [entry(p, 20, { modification_datetime: at(14) })],
      });
      await t.post(LOGS('S1'), { storeproductlog: [entry(p, -1, { modification_datetime: at(15) })] });
      await t.post(`${LOGS('S1')}?is_counted_quantity=true`, {
        storeproductlog: [entry(p, 4, { modification_datetime: at(10) })],
      });
      await t.post(LOGS('S1'), { storeproductlog: [entry(p, -2, { modification_datetime: at(12) })] }); // late sale before the 14:00 count
      expect(await balances(p)).toEqual({ '-|1|-': 19 }); // 20 counted at 14:00, then −1
    });

    it('a negative counted level is a 400', async () => {
      const p = await newProduct();
      const response = await t.post(`${LOGS('S1')}?is_counted_quantity=true`, { storeproductlog: [entry(p, -1)] });
      expect(response.statusCode).toBe(400);
    });

    it('counting zero in a pool is booked', async () => {
      const p = await newProduct();
      await t.post(LOGS('S1'), {
        storeproductlog: [entry(p, 6, { pool_location: 2, modification_datetime: '2026-01-01T00:00:00Z' })],
      });
      await t.post(`${LOGS('S1')}?is_counted_quantity=true`, { storeproductlog: [entry(p, 0, { stock_pool_2: 0 })] });
      expect(await balances(p)).toEqual({});
    });

    it('order-bound stock has its own balance', async () => {
      const p = await newProduct();
      await t.post(LOGS('S1'), {
        storeproductlog: [
          entry(p, 2, { customer_order_number: 'CO-1', location_code: 'B-01' }),
          entry(p, 5, { location_code: 'B-01' }),
        ],
      });
      expect(await balances(p)).toEqual({ 'B-01|1|CO-1': 2, 'B-01|1|-': 5 });
      const listed = (await t.get(`${API}/products/stock/storeproductlogs?customer_order_number=CO-1`)).json();
      expect(listed.list.map((l: { product_number: string }) => l.product_number)).toContain(p);
    });

    it('review: pending entries are listed but not applied; approve applies, reject never; twice is 409', async () => {
      const p = await newProduct();
      const posted = (
        await t.post(LOGS('S1'), {
          storeproductlog: [entry(p, 10), entry(p, 2, { reason_code: 30 }), entry(p, 3, { reason_code: 30 })],
        })
      ).json();
      expect(posted.message).toContain('pending review 2');
      expect(await balances(p)).toEqual({ '-|1|-': 10 });
      const [, first, second] = posted.data as number[];
      const pending = (
        await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&is_historic=false`)
      ).json();
      expect(pending.list.map((l: { id: number }) => l.id)).toEqual([first, second]);
      expect(pending.list[0]).toMatchObject({ purged_to_most_likely: false, review_status: '1', quantity: -2 });

      const approved = await t.post(`${LOGS('S1')}/review`, { ids: [first], approve: true });
      expect(approved.statusCode).toBe(200);
      expect(await balances(p)).toEqual({ '-|1|-': 8 });
      expect((await t.post(`${LOGS('S1')}/review`, { ids: [second], approve: false })).statusCode).toBe(200);
      expect(await balances(p)).toEqual({ '-|1|-': 8 });
      const again = await t.post(`${LOGS('S1')}/review`, { ids: [first], approve: false });
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('CONFLICT');

      const reviewed = (
        await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&is_reviewed=true`)
      ).json();
      expect(reviewed.list.map((l: { id: number; review_status: string }) => [l.id, l.review_status])).toEqual([
        [first, '2'],
        [second, '3'],
      ]);
      const rejected = (
        await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&review_status=3`)
      ).json();
      expect(rejected.list.map((l: { id: number }) => l.id)).toEqual([second]);
      const historic = (
        await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&is_historic=true`)
      ).json();
      expect(historic.list.map((l: { id: number }) => l.id)).toEqual([posted.data[0], first]);
    });

    it('review of an entry of another store or unknown id is a 404', async () => {
      const p = await newProduct();
      const posted = (await t.post(LOGS('S1'), { storeproductlog: [entry(p, 2, { reason_code: 30 })] })).json();
      expect((await t.post(`${LOGS('S2')}/review`, { ids: posted.data, approve: true })).statusCode).toBe(404);
      expect((await t.post(`${LOGS('S1')}/review`, { ids: [99_999_999], approve: true })).statusCode).toBe(404);
    });

    it('store tokens write only their own stores; read tokens never write', async () => {
      const p = await newProduct();
      const storeToken = await t.token('store', ['S1']);
      expect((await t.post(LOGS('S1'), { storeproductlog: [entry(p, 1)] }, storeToken)).statusCode).toBe(200);
      expect((await t.post(LOGS('S2'), { storeproductlog: [entry(p, 1)] }, storeToken)).statusCode).toBe(403);
      const readToken = await t.token('read');
      expect((await t.post(LOGS('S1'), { storeproductlog: [entry(p, 1)] }, readToken)).statusCode).toBe(403);
      const listed = (await t.get(`${API}/products/stock/storeproductlogs?store_number=S2`, storeToken)).json();
      expect(listed.total_count).toBe(0);
    });

    it('the first stock change creates the store product and stamps its bookkeeping', async () => {
      const p = await newProduct();
      await t.post(`${LOGS('S1')}?appUserName=carl`, {
        storeproductlog: [entry(p, 1, { reason_code: 10, modification_datetime: '2026-02-01T09:00:00Z' })],
      });
      const row = await t.app.ctx.db
        .selectFrom('store_products')
        .selectAll()
        .where('product_number', '=', p)
        .executeTakeFirstOrThrow();
      expect(row.last_loss_by).toBe('carl');
      expect(Number(row.last_loss_at)).toBe(Date.parse('2026-02-01T09:00:00Z'));
      expect(row.stock_modified_at).not.toBeNull();
    });

    it('is_reset_store_stock on a written product counts its stock to zero in every store, through the ledger', async () => {
      const p = await newProduct();
      await t.post(LOGS('S1'), {
        storeproductlog: [
          entry(p, 5),
          entry(p, 2, { location_code: 'A-01' }),
          entry(p, 1, { customer_order_number: 'CO-R' }),
        ],
      });
      await t.post(LOGS('S2'), { storeproductlog: [entry(p, 7)] });
      const reset = await t.post(`${API}/products`, {
        products: [productInput(p, { barcode: `871000${productCounter}`, is_reset_store_stock: true })],
      });
      expect(reset.statusCode).toBe(200);
      expect(await balances(p)).toEqual({});
      const logs = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}`))
        .json()
        .list.filter((l: { source?: string }) => l.source === 'reset_store_stock');
      expect(logs.map((l: { store_number: string; quantity: number }) => [l.store_number, l.quantity]).sort()).toEqual([
        ['S1', -1],
        ['S1', -2],
        ['S1', -5],
        ['S2', -7],
      ]);
      // An identical re-send writes nothing, so it resets nothing.
      // After the reset's moment (the import's now): an entry of now, not of the future (PRODUCT §3 no future events).
      await t.post(LOGS('S1'), { storeproductlog: [entry(p, 3, { modification_datetime: new Date().toISOString() })] });
      await t.post(`${API}/products`, {
        products: [productInput(p, { barcode: `871000${productCounter}`, is_reset_store_stock: true })],
      });
      expect(await balances(p)).toEqual({ '-|1|-': 3 });
      const resetsAfter = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}`))
        .json()
        .list.filter((l: { source?: string }) => l.source === 'reset_store_stock');
      expect(resetsAfter).toHaveLength(4);
    });

    it('lists with paging, scroll_id and filters', async () => {
      const p = await newProduct();
      await t.post(LOGS('S1'), {
        storeproductlog: Array.from({ length: 7 }, (_, i) => entry(p, i + 1, { reference: i % 2 ? 'odd' : 'even' })),
      });
      let page = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&page_size=3`)).json();
      const seen: number[] = page.list.map((l: { id: number }) => l.id);
      while (page.scroll_id) {
        page = (
          await t.get(
            `${API}/products/stock/storeproductlogs?article_number=${p}&page_size=3&scroll_id=${encodeURIComponent(page.scroll_id)}`,
          )
        ).json();
        seen.push(...page.list.map((l: { id: number }) => l.id));
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      const odd = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&reference=odd`)).json();
      expect(odd.total_count).toBe(3);
      expect(odd.list_filters).toEqual({ article_number: [p], reference: ['odd'] });
    });
  });
}
