import { Type } from '@sinclair/typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INTEGER_AS_TEXT, TextId } from '../../src/shared/schemas.js';
import { createValidatorCompiler } from '../../src/shared/validation.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

// Wire values the static input types refuse on purpose are spread over the factories.

/**
 * Ids and codes the interface types as strings take a JSON integer and keep its text
 * (PRODUCT §3 coercion applied to bodies; TextId in shared/schemas.ts); a number field
 * never takes a string. The movement's `reason_code` was refused as "must be integer"
 * although §4.11 types it as a string: the first regression here.
 */

const MOVE = (store: string) => `${API}/stores/${store}/storeproductlocation/movement`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;

for (const dialect of DIALECTS) {
  describe(`integers as text in id and code fields (${dialect.name})`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('S1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/reasoncodes`, { reason_codes: [reasonCodeInput(3001, { reason_code_type: 3 })] }))
          .statusCode,
      ).toBe(200);
      expect((await t.post(`${API}/products`, { products: [productInput('P1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/stores/S1/locations`, { locations: [{ location_code: 'A' }, { location_code: 'B' }] }))
          .statusCode,
      ).toBe(200);
      const stocked = await t.post(LOGS('S1'), {
        storeproductlog: [
          {
            product_number: 'P1',
            customer_order_line_number: 0,
            modification_datetime: '2026-01-01T00:00:00Z',
            quantity: 10,
            location_code: 'A',
          },
        ],
      });
      expect(stocked.statusCode).toBe(200);
    });

    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const movedLogs = async () => {
      const page = (await t.get(`${API}/products/stock/storeproductlogs?article_number=P1&page_size=1000`)).json();
      return (page.list as Array<{ reason_code?: number; reference_id?: number }>).filter(
        (entry) => entry.reference_id !== undefined,
      );
    };

    it('moves stock with reason_code "3001" as §4.11 writes it, and with 3001 as a JSON number', async () => {
      const asText = await t.post(MOVE('S1'), {
        body: [
          {
            product_number: 'P1',
            quantity: 1,
            reason_code: '3001',
            from_location: { location_code: 'A' },
            to_location: { location_code: 'B' },
          },
        ],
      });
      expect(asText.statusCode, asText.body).toBe(200);
      const asNumber = await t.post(MOVE('S1'), {
        body: [
          {
            product_number: 'P1',
            quantity: 1,
            reason_code: 3001,
            from_location: { location_code: 'A' },
            to_location: { location_code: 'B' },
          },
        ],
      });
      expect(asNumber.statusCode, asNumber.body).toBe(200);
      const legs = await movedLogs();
      expect(legs).toHaveLength(4);
      expect(legs.every((leg) => leg.reason_code === 3001)).toBe(true);
    });

    it('refuses a movement reason_code that is not digits (400), and digits naming no code (422, also beyond the largest code)', async () => {
      const letters = await t.post(MOVE('S1'), {
        body: [{ product_number: 'P1', quantity: 1, reason_code: 'abc', to_location: { location_code: 'B' } }],
      });
      expect(letters.statusCode).toBe(400);
      expect(letters.json().errors.map((e: { path: string }) => e.path)).toContain('body[0].reason_code');
      const unknown = await t.post(MOVE('S1'), {
        body: [{ product_number: 'P1', quantity: 1, reason_code: 9999999999, to_location: { location_code: 'B' } }],
      });
      expect(unknown.statusCode).toBe(422);
      expect(unknown.json().errors[0].path).toBe('body[0].reason_code');
    });

    it('stores a store_number sent as a number as its text, and a re-send as text is the same store', async () => {
      expect(
        (
          await t.post(`${API}/stores`, {
            stores: [{ ...storeInput('7001'), store_number: 7001, store_gln: 8712345678906 }],
          })
        ).statusCode,
      ).toBe(200);
      const page = (await t.get(`${API}/stores?search_text=7001`)).json();
      expect(page.list).toHaveLength(1);
      expect(page.list[0].store_number).toBe('7001');
      expect(page.list[0].store_gln).toBe('8712345678906');
      const again = await t.post(`${API}/stores`, { stores: [storeInput('7001', { store_gln: '8712345678906' })] });
      expect(again.json().message).toContain('unchanged 1');
    });

    it('echoes product numbers, barcodes and store lists sent as numbers as text', async () => {
      const product = {
        ...productInput('900123'),
        product_number: 900123,
        barcode: 8712345678913,
        stores_allowed: [12, '13'],
        barcodes_array: [{ barcode: 4006381333931 }],
      };
      const posted = await t.post(`${API}/products`, { products: [product] });
      expect(posted.statusCode, posted.body).toBe(200);
      const record = (await t.get(`${API}/products?product_number=900123`)).json().records[0];
      expect(record.product_number).toBe('900123');
      expect(record.barcode).toBe('8712345678913');
      expect(record.stores_allowed).toEqual(['12', '13']);
      expect(record.barcodes_array).toBe('4006381333931');
    });

    it('refuses decimals, negatives and integers beyond 2^53 in a text field: they have no faithful text', async () => {
      for (const value of [12.5, -1, 2 ** 53, 1e400]) {
        const response = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          headers: { 'content-type': 'application/json' },
          payload: `{"stores":[${JSON.stringify(storeInput('x')).replace('"store_number":"x"', `"store_number":${value === 1e400 ? '1e400' : String(value)}`)}]}`,
        });
        expect(response.statusCode, `${value}`).toBe(400);
        expect(response.json().errors).toContainEqual({ path: 'stores[0].store_number', message: 'must be string' });
      }
    });

    it('takes an integer written with a fraction or exponent (7002.0, 7e3) as the integer: JSON.parse cannot tell it from 7002', async () => {
      for (const [written, text] of [
        ['7002.0', '7002'],
        ['7e3', '7000'],
      ] as const) {
        const response = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          headers: { 'content-type': 'application/json' },
          payload: `{"stores":[${JSON.stringify(storeInput('x')).replace('"store_number":"x"', `"store_number":${written}`)}]}`,
        });
        expect(response.statusCode, `${written}: ${response.body}`).toBe(200);
        expect(
          (await t.get(`${API}/stores?search_text=${text}`))
            .json()
            .list.map((s: { store_number: string }) => s.store_number),
        ).toContain(text);
      }
    });

    it('never takes a string for a number field', async () => {
      const product = await t.post(`${API}/products`, {
        products: [{ ...productInput('P2'), carrier_item_quantity: '5' }],
      });
      expect(product.statusCode).toBe(400);
      expect(product.json().errors).toContainEqual({
        path: 'products[0].carrier_item_quantity',
        message: 'must be number',
      });
      const move = await t.post(MOVE('S1'), {
        body: [{ product_number: 'P1', quantity: '1', to_location: { location_code: 'B' } }],
      });
      expect(move.statusCode).toBe(400);
      expect(move.json().errors).toContainEqual({ path: 'body[0].quantity', message: 'must be number' });
    });
  });
}

describe('the integers-as-text keyword is derived from the field marker alone', () => {
  const Line = Type.Object({ code: TextId(8), quantity: Type.Number() });
  const Body = Type.Object({
    lines: Type.Array(Line),
    codes: Type.Array(TextId(8)),
    cleared: Type.Optional(Type.Union([TextId(8), Type.Null()])),
    note: Type.Optional(Type.String()),
  });

  it('converts marked fields at any depth (objects, array items, nullable unions) and nothing else', () => {
    const validate = createValidatorCompiler()({ schema: Body, httpPart: 'body' });
    const data: Record<string, unknown> = {
      lines: [{ code: 12, quantity: 3 }],
      codes: [7, 'A'],
      cleared: 0,
      note: 'n',
    };
    expect(validate(data)).toBe(true);
    expect(data).toEqual({ lines: [{ code: '12', quantity: 3 }], codes: ['7', 'A'], cleared: '0', note: 'n' });
    expect(validate({ lines: [], codes: [], note: 5 })).toBe(false);
    expect(validate({ lines: [{ code: 'x', quantity: '3' }], codes: [] })).toBe(false);
  });

  it('leaves the route schema (and so the OpenAPI document) as declared: type string with its marker', () => {
    const before = JSON.stringify(Body);
    createValidatorCompiler()({ schema: Body, httpPart: 'body' });
    expect(JSON.stringify(Body)).toBe(before);
    expect(Body.properties.codes.items).toMatchObject({ type: 'string', maxLength: 8, [INTEGER_AS_TEXT]: true });
  });

  it('does not touch query strings, which are text already', () => {
    const validate = createValidatorCompiler()({ schema: Type.Object({ code: TextId(8) }), httpPart: 'querystring' });
    const query = { code: '12' };
    expect(validate(query)).toBe(true);
    expect(query.code).toBe('12');
  });
});
