import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { discountInput, priceInput, productInput, storeInput } from '../helpers/factories.js';

type Json = Record<string, any>;

const PAST = '2020-01-01T00:00:00Z';
const RECENT = '2025-06-01T00:00:00Z';
const ENDED = '2021-01-01T00:00:00Z';
const FUTURE = '2099-01-01T00:00:00Z';
const FAR = '2100-01-01T00:00:00Z';

for (const dialect of DIALECTS) {
  describe(`product prices and discounts (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, {
        stores: [
          storeInput('1001', { country_code: 'NL', price_line_id: 7 }),
          storeInput('1002', { country_code: 'NL', price_line_id: 7 }),
          storeInput('2001', { country_code: 'BE' }),
        ],
      });
      const response = await t.post(`${API}/products`, {
        products: ['E1', 'E2', 'S1', 'O1', 'DH'].map((n) => productInput(n, { price: 3 })),
      });
      expect(response.statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const postPrices = (prices: unknown[]) => t.post(`${API}/products/prices`, { prices });
    const postDiscounts = (discounts: unknown[], headers: Record<string, string> = {}) =>
      t.request({ method: 'POST', url: `${API}/products/discountprices`, payload: { discounts }, headers });
    const product = async (productNumber: string, storeNumber?: string): Promise<Json> => {
      const store = storeNumber === undefined ? '' : `&store_number=${storeNumber}`;
      const response = await t.get(`${API}/products?product_number=${productNumber}${store}`);
      expect(response.statusCode).toBe(200);
      return response.json().records[0];
    };

    describe('POST /products/prices validation', () => {
      it('lists every missing field and refuses 5 decimals', async () => {
        const response = await postPrices([{}, priceInput('V1', 'E1', 1.23456)]);
        expect(response.statusCode).toBe(400);
        const paths = response.json().errors.map((e: Json) => e.path);
        for (const field of ['price', 'price_id', 'price_type', 'product_number', 'valid_from', 'valid_to'])
          expect(paths).toContain(`prices[0].${field}`);
        expect(paths).toContain('prices[1].price');
      });

      it('refuses valid_from at or after valid_to, a bad date-time and a repeated price_id (400)', async () => {
        const response = await postPrices([
          priceInput('V2', 'E1', 1, { valid_from: FAR, valid_to: FAR }),
          priceInput('V3', 'E1', 1, { valid_from: 'tomorrow' }),
          priceInput('V4', 'E1', 1),
          priceInput('V4', 'E1', 2),
        ]);
        expect(response.statusCode).toBe(400);
        expect(response.json().errors.map((e: Json) => e.path)).toEqual(['prices[1].valid_from']);
        const again = await postPrices([
          priceInput('V2', 'E1', 1, { valid_from: FAR, valid_to: FUTURE }),
          priceInput('V4', 'E1', 1),
          priceInput('V4', 'E1', 2),
        ]);
        expect(again.json().errors.map((e: Json) => e.path)).toEqual(['prices[2].price_id', 'prices[0].valid_to']);
      });

      it('refuses unknown products and stores (422 naming the line), storing nothing', async () => {
        const response = await postPrices([
          priceInput('U1', 'E1', 1),
          priceInput('U2', 'NOPE', 1),
          priceInput('U3', 'E1', 1, { store_number: '9999' }),
        ]);
        expect(response.statusCode).toBe(422);
        expect(response.json().errors).toEqual([
          { path: 'prices[1].product_number', message: "unknown product 'NOPE'" },
          { path: 'prices[2].store_number', message: "unknown store '9999'" },
        ]);
        expect(
          await t.app.ctx.db.selectFrom('product_prices').select('id').where('price_id', '=', 'U1').execute(),
        ).toEqual([]);
      });

      it('upserts by price_id and leaves an identical re-send alone', async () => {
        expect((await postPrices([priceInput('UP1', 'E2', 2.5)])).json().message).toBe(
          'created 1, updated 0, unchanged 0, deleted 0',
        );
        expect((await postPrices([priceInput('UP1', 'E2', 2.5)])).json().message).toBe(
          'created 0, updated 0, unchanged 1, deleted 0',
        );
        expect((await postPrices([priceInput('UP1', 'E2', 2.25)])).json().message).toBe(
          'created 0, updated 1, unchanged 0, deleted 0',
        );
        expect((await product('E2')).price).toBe(2.25);
      });
    });

    describe('effective price (PRODUCT §6)', () => {
      it('uses the master price while no price record is valid', async () => {
        await postPrices([
          priceInput('F1', 'E1', 1, { valid_from: FUTURE, valid_to: FAR }),
          priceInput('F2', 'E1', 1.1, { valid_from: PAST, valid_to: ENDED }),
        ]);
        expect((await product('E1')).price).toBe(3);
      });

      it('prefers store > price group > country > chain, latest valid_from first', async () => {
        await postPrices([
          priceInput('C-OLD', 'E1', 2.9, { valid_from: PAST }),
          priceInput('C-NEW', 'E1', 2.8, { valid_from: RECENT }),
        ]);
        expect((await product('E1')).price).toBe(2.8);
        expect((await product('E1', '2001')).price).toBe(2.8);

        await postPrices([
          priceInput('CO-NL', 'E1', 2.7, { country_code: 'NL' }),
          priceInput('CO-BE', 'E1', 2.75, { country_code: 'BE' }),
        ]);
        expect((await product('E1')).price).toBe(2.7); // the product's own country (NL by default)
        expect((await product('E1', '2001')).price).toBe(2.75);

        await postPrices([priceInput('PG-7', 'E1', 2.6, { price_group: '7' })]);
        expect((await product('E1')).price).toBe(2.7); // no store: price groups do not apply
        expect((await product('E1', '1002')).price).toBe(2.6);

        await postPrices([priceInput('ST-1001', 'E1', 2.5, { store_number: '1001', valid_from: PAST })]);
        expect((await product('E1', '1001')).price).toBe(2.5);
        expect((await product('E1', '1002')).price).toBe(2.6);
        expect((await product('E1', '2001')).price).toBe(2.75);
      });

      it('treats empty scope fields as absent', async () => {
        await postPrices([priceInput('EMPTY', 'S1', 2.2, { store_number: '', country_code: '', price_group: '' })]);
        expect((await product('S1', '1001')).price).toBe(2.2);
      });
    });

    describe('discounts and special_price', () => {
      it('special_price is the lowest discount price valid now', async () => {
        const response = await postDiscounts([
          discountInput('S1', 1.99, { discount_id: 'D-A' }),
          discountInput('S1', 1.49, { discount_id: 'D-B', valid_from: PAST, valid_to: FAR }),
          discountInput('S1', 0.99, { discount_id: 'D-C', valid_from: FUTURE }),
          discountInput('S1', 0.5, { discount_id: 'D-D', valid_from: PAST, valid_to: ENDED }),
        ]);
        expect(response.json().message).toBe('created 4, updated 0, unchanged 0, deleted 0');
        const read = await product('S1');
        expect(read.special_price).toBe(1.49);
        expect(read.price).toBe(2.2);
        expect((await product('E2')).special_price).toBeUndefined();
      });

      it('validates lines: product and price unless is_delete, valid window, unknown product (422)', async () => {
        const bad = await postDiscounts([
          { is_delete: false, discount_id: 'X' },
          { is_delete: true },
          discountInput('S1', 1, { valid_from: FAR, valid_to: PAST }),
          discountInput('S1', 1.00001),
        ]);
        expect(bad.statusCode).toBe(400);
        expect(bad.json().errors.map((e: Json) => e.path)).toEqual(['discounts[3].price']);
        const rules = await postDiscounts([
          { is_delete: false, discount_id: 'X' },
          { is_delete: true },
          discountInput('S1', 1, { valid_from: FAR, valid_to: PAST }),
        ]);
        expect(rules.statusCode).toBe(400);
        expect(rules.json().errors.map((e: Json) => e.path)).toEqual([
          'discounts[0].product_number',
          'discounts[0].price',
          'discounts[1].discount_id',
          'discounts[2].valid_to',
        ]);
        const repeated = await postDiscounts([
          discountInput('S1', 1, { line_number: 1 }),
          discountInput('S1', 2, { line_number: 1 }),
        ]);
        expect(repeated.statusCode).toBe(400);
        expect(repeated.json().errors[0].path).toBe('discounts[1].discount_id');
        const unknown = await postDiscounts([discountInput('S1', 1), discountInput('NOPE', 1)]);
        expect(unknown.statusCode).toBe(422);
        expect(unknown.json().errors).toEqual([
          { path: 'discounts[1].product_number', message: "unknown product 'NOPE'" },
        ]);
      });

      it('is_delete removes the matching entry; a delete matching nothing is reported', async () => {
        const response = await postDiscounts([
          { is_delete: true, discount_id: 'D-B' },
          { is_delete: true, discount_id: 'NONE' },
        ]);
        expect(response.json().message).toBe(
          'created 0, updated 0, unchanged 0, deleted 1; delete lines matching nothing: 1',
        );
        expect((await product('S1')).special_price).toBe(1.99);
      });

      it('is_expire_discounts first removes discounts whose valid_to has passed', async () => {
        const live = () =>
          t.app.ctx.db
            .selectFrom('product_discounts')
            .select('discount_id')
            .where('deleted_on', 'is', null)
            .orderBy('discount_id')
            .execute();
        expect((await live()).map((r) => r.discount_id)).toEqual(['D-A', 'D-C', 'D-D']);
        const response = await postDiscounts([discountInput('DH', 2.5, { discount_id: 'H-1' })], {
          is_expire_discounts: 'true',
        });
        expect(response.json().message).toBe('created 1, updated 0, unchanged 0, deleted 1; expired 1');
        expect((await live()).map((r) => r.discount_id)).toEqual(['D-A', 'D-C', 'H-1']);
      });

      it('is_flush replaces the whole discount set; a removed discount comes back when sent again', async () => {
        const response = await postDiscounts([discountInput('DH', 2.4, { discount_id: 'H-1' })], { is_flush: 'true' });
        expect(response.json().message).toBe('created 0, updated 1, unchanged 0, deleted 2');
        expect((await product('S1')).special_price).toBeUndefined();
        expect((await product('DH')).special_price).toBe(2.4);
        const back = await postDiscounts([discountInput('S1', 1.99, { discount_id: 'D-A' })]);
        expect(back.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
        expect((await product('S1')).special_price).toBe(1.99);
      });

      it('keys a discount by (discount_id, product_number, line_number); a delete matches every part it gives', async () => {
        const created = await postDiscounts([
          discountInput('E1', 2.1, { discount_id: 'CAMPAIGN', line_number: 1 }),
          discountInput('E2', 2.2, { discount_id: 'CAMPAIGN', line_number: 2 }),
          discountInput('E2', 2.0, { discount_id: 'CAMPAIGN', line_number: 3 }),
        ]);
        expect(created.json().message).toBe('created 3, updated 0, unchanged 0, deleted 0');
        expect((await product('E2')).special_price).toBe(2);
        const oneLine = await postDiscounts([
          { is_delete: true, discount_id: 'CAMPAIGN', product_number: 'E2', line_number: 3 },
        ]);
        expect(oneLine.json().message).toBe('created 0, updated 0, unchanged 0, deleted 1');
        expect((await product('E2')).special_price).toBe(2.2);
        const campaign = await postDiscounts([{ is_delete: true, discount_id: 'CAMPAIGN' }]);
        expect(campaign.json().message).toBe('created 0, updated 0, unchanged 0, deleted 2');
        expect((await product('E1')).special_price).toBeUndefined();
      });

      it('refuses a non-boolean header', async () => {
        const response = await postDiscounts([], { is_flush: 'maybe' });
        expect(response.statusCode).toBe(400);
        expect(response.json().errors[0].path).toContain('is_flush');
      });
    });

    describe('old_price (the master price before its last change)', () => {
      it('follows master price changes through POST /products', async () => {
        const send = (overrides: Record<string, unknown>) =>
          t.post(`${API}/products`, { products: [productInput('O1', overrides)] });
        expect((await product('O1')).old_price).toBeUndefined();
        await send({ price: 2.5 });
        expect((await product('O1')).old_price).toBe(3);
        expect((await send({ price: 2.5 })).json().message).toBe('created 0, updated 0, unchanged 1, deleted 0');
        await send({ price: 2.5, color: 'blue' });
        expect((await product('O1')).old_price).toBe(3);
        await send({ price: 2, color: 'blue' });
        expect(await product('O1')).toMatchObject({ price: 2, old_price: 2.5 });
      });
    });
  });
}
