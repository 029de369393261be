import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { balancesOf } from '../helpers/stock.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;

for (const dialect of DIALECTS) {
  describe(`stock movement (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    async function productWithStock(lines: Array<Record<string, unknown>>): Promise<string> {
      const number = `MV-${++counter}`;
      expect((await t.post(`${API}/products`, { products: [productInput(number)] })).statusCode).toBe(200);
      const posted = await t.post(LOGS('S1'), {
        storeproductlog: lines.map((line) => ({
          product_number: number,
          customer_order_line_number: 0,
          modification_datetime: '2026-01-01T00:00:00Z',
          ...line,
        })),
      });
      expect(posted.statusCode).toBe(200);
      return number;
    }

    const balances = (productNumber: string) => balancesOf(t.app.ctx.db, productNumber);

    const move = (product: string, quantity: number, from?: object, to?: object, extra: object = {}) => ({
      product_number: product,
      quantity,
      from_location: from,
      to_location: to,
      ...extra,
    });

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2')] });
      await t.post(`${API}/reasoncodes`, {
        reason_codes: [
          reasonCodeInput(300, { reason_code_type: 3 }),
          reasonCodeInput(100, { reason_code_type: 1, is_loss: true }),
        ],
      });
      await t.post(`${API}/stores/S1/locations`, {
        locations: [
          { location_code: 'SHELF', location_order: 1, default_stock_pool: 1 },
          { location_code: 'BACK', location_order: 2, default_stock_pool: 2 },
        ],
      });
    });

    // store-ops verify's checks hold after every single test, not only at the end.
    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('moves between locations with default pools; both legs are linked by reference_id', async () => {
      const p = await productWithStock([{ quantity: 10, location_code: 'BACK' }]);
      const response = await t.post(`${MOVE('S1')}?AppUserName=dora`, {
        body: [
          move(p, 4, { location_code: 'BACK' }, { location_code: 'SHELF' }, { reason_code: 300, reference: 'refill' }),
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ success: true, message: 'moved 1' });
      expect(await balances(p)).toEqual({ 'BACK|2|-': 6, 'SHELF|1|-': 4 });
      const legs = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p}&reference=refill`)).json()
        .list;
      expect(legs).toHaveLength(2);
      expect(legs[0]).toMatchObject({
        quantity: -4,
        location_code: 'BACK',
        stock_pool_2: -4,
        app_user_name: 'dora',
        reason_code: 300,
      });
      expect(legs[1]).toMatchObject({ quantity: 4, location_code: 'SHELF', stock_pool_1: 4 });
      expect(legs[0].reference_id).toBe(legs[0].id);
      expect(legs[1].reference_id).toBe(legs[0].id);
      const byReference = (await t.get(`${API}/products/stock/storeproductlogs?reference_id=${legs[0].id}`)).json();
      expect(byReference.total_count).toBe(2);
    });

    it('unlocated stock, explicit pools, and order-bound stock both ways', async () => {
      const p = await productWithStock([{ quantity: 8 }]);
      const response = await t.post(MOVE('S1'), {
        body: [
          move(p, 3, undefined, { location_code: 'SHELF', stock_pool: 4 }),
          move(p, 2, undefined, {
            location_code: 'SHELF',
            customer_order_number: 'CO-9',
            customer_order_line_number: 1,
          }),
          move(p, 1, { location_code: 'SHELF', customer_order_number: 'CO-9' }, { location_code: 'SHELF' }),
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(await balances(p)).toEqual({ '-|1|-': 3, 'SHELF|4|-': 3, 'SHELF|1|CO-9': 1, 'SHELF|1|-': 1 });
    });

    it('a move that would take its source below zero is a 409 naming the line; nothing moves', async () => {
      const p = await productWithStock([{ quantity: 5, location_code: 'SHELF' }]);
      const response = await t.post(MOVE('S1'), {
        body: [
          move(p, 2, { location_code: 'SHELF' }, { location_code: 'BACK' }),
          move(p, 4, { location_code: 'SHELF' }, { location_code: 'BACK' }),
        ],
      });
      expect(response.statusCode).toBe(409);
      expect(response.json().code).toBe('CONFLICT');
      expect(response.json().errors).toEqual([
        { path: 'body[1].quantity', message: '4 requested, 3 available at the source' },
      ]);
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 5 });
    });

    it('allow_overage=true lets the source go negative', async () => {
      const p = await productWithStock([{ quantity: 1, location_code: 'SHELF' }]);
      const response = await t.post(MOVE('S1'), {
        body: [move(p, 3, { location_code: 'SHELF' }, { location_code: 'BACK' }, { allow_overage: true })],
      });
      expect(response.statusCode).toBe(200);
      expect(await balances(p)).toEqual({ 'SHELF|1|-': -2, 'BACK|2|-': 3 });
    });

    it('reason codes must exist and be movement codes (type 3); unknown references are 422', async () => {
      const p = await productWithStock([{ quantity: 5 }]);
      const response = await t.post(MOVE('S1'), {
        body: [
          move(p, 1, undefined, { location_code: 'SHELF' }, { reason_code: 100 }),
          move(p, 1, undefined, { location_code: 'SHELF' }, { reason_code: 999 }),
          move(p, 1, undefined, { location_code: 'NOWHERE' }),
          move('NO-SUCH', 1, undefined, { location_code: 'SHELF' }),
        ],
      });
      expect(response.statusCode).toBe(422);
      expect(response.json().errors.map((e: { path: string }) => e.path)).toEqual([
        'body[0].reason_code',
        'body[1].reason_code',
        'body[2].to_location.location_code',
        'body[3].product_number',
      ]);
      expect(await balances(p)).toEqual({ '-|1|-': 5 });
    });

    it('bad input is a 400: no product, zero quantity, same stock on both sides, too many decimals', async () => {
      const p = await productWithStock([{ quantity: 5 }]);
      const response = await t.post(MOVE('S1'), {
        body: [
          { quantity: 1, to_location: { location_code: 'SHELF' } },
          move(p, 0, undefined, { location_code: 'SHELF' }),
        ],
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().errors.map((e: { path: string }) => e.path)).toEqual([
        'body[0].product_number',
        'body[1].quantity',
      ]);
      const same = await t.post(MOVE('S1'), {
        body: [move(p, 1, { location_code: 'SHELF' }, { location_code: 'SHELF', stock_pool: 1 })],
      });
      expect(same.statusCode).toBe(400);
      const decimals = await t.post(MOVE('S1'), { body: [move(p, 1.0001, undefined, { location_code: 'SHELF' })] });
      expect(decimals.statusCode).toBe(400);
      expect(decimals.json().errors[0].path).toBe('body[0].quantity');
    });

    it('unknown store is a 404; store tokens move only in their own stores', async () => {
      const p = await productWithStock([{ quantity: 5 }]);
      expect((await t.post(MOVE('NOPE'), { body: [move(p, 1)] })).statusCode).toBe(404);
      const token = await t.token('store', ['S2']);
      expect(
        (await t.post(MOVE('S1'), { body: [move(p, 1, undefined, { location_code: 'SHELF' })] }, token)).statusCode,
      ).toBe(403);
    });

    it('concurrent moves out of one source never take it below zero together', async () => {
      const p = await productWithStock([{ quantity: 10, location_code: 'BACK' }]);
      const responses = await Promise.all(
        Array.from({ length: 25 }, () =>
          t.post(MOVE('S1'), { body: [move(p, 1, { location_code: 'BACK' }, { location_code: 'SHELF' })] }),
        ),
      );
      const statuses = responses.map((r) => r.statusCode).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 409)).toHaveLength(15);
      expect(await balances(p)).toEqual({ 'SHELF|1|-': 10 });
    });
  });
}
