import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProductsByBarcodes, findProductsByNumbers } from '../../src/modules/products/repository.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, unchecked } from '../helpers/factories.js';

type Json = Record<string, any>;

for (const dialect of DIALECTS) {
  describe(`products (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const importProducts = (products: unknown[], query = '') => t.post(`${API}/products${query}`, { products });
    const getProducts = async (query: string) => {
      const response = await t.get(`${API}/products?${query}`);
      expect(response.statusCode).toBe(200);
      return response.json() as { page_number: number; page_size: number; total_record_count: number; records: Json[] };
    };
    const stored = (productNumber: string) =>
      t.app.ctx.db
        .selectFrom('products')
        .selectAll()
        .where('product_number', '=', productNumber)
        .executeTakeFirstOrThrow();
    const owners = async (...barcodes: string[]) =>
      Object.fromEntries(
        [...(await findProductsByBarcodes(t.app.ctx.db, barcodes))].map(([code, m]) => [
          code,
          [m.productNumber, m.kind, m.unitQuantityMilli],
        ]),
      );

    describe('validation (400, every path at once)', () => {
      it('lists every missing required field of every product', async () => {
        const response = await importProducts([{}, { product_number: 'X' }]);
        expect(response.statusCode).toBe(400);
        const paths = response.json().errors.map((e: Json) => e.path);
        for (const field of [
          'product_number',
          'product_name',
          'carrier_item_quantity',
          'is_counted',
          'price_compare_multiplier',
        ]) {
          expect(paths).toContain(`products[0].${field}`);
        }
        expect(paths).toContain('products[1].product_name');
        expect(paths).not.toContain('products[1].product_number');
      });

      it('refuses wrong types, over-long strings and excess decimals without storing anything', async () => {
        const response = await importProducts([
          productInput('V1', unchecked({ is_counted: 'yes', carrier_item_quantity: '1' })),
          productInput('V2', { product_name: 'x'.repeat(256), price: 1.23456, moq: 1.2345 }),
          productInput(
            'V3',
            unchecked({ units: [{ unit_barcode: 'U', unit_name: 'box', unit_quantity: 0 }], attention_code: 'A' }),
          ),
        ]);
        expect(response.statusCode).toBe(400);
        expect(response.json().code).toBe('VALIDATION_FAILED');
        const paths = response.json().errors.map((e: Json) => e.path);
        expect(paths).toEqual(
          expect.arrayContaining([
            'products[0].is_counted',
            'products[0].carrier_item_quantity',
            'products[1].product_name',
            'products[1].price',
            'products[1].moq',
            'products[2].units[0].unit_quantity',
            'products[2].attention_code',
          ]),
        );
        expect((await getProducts('product_number=V1&product_number=V2')).total_record_count).toBe(0);
      });

      it('accepts 4 decimals on money and 3 on quantities', async () => {
        const response = await importProducts([
          productInput('V4', { price: 1.2345, moq: 1.234, carrier_item_quantity: 0.125 }),
        ]);
        expect(response.statusCode).toBe(200);
        const [product] = (await getProducts('product_number=V4')).records;
        expect(product).toMatchObject({ price: 1.2345, moq: 1.234, carrier_item_quantity: 0.125 });
      });

      it('refuses a product_number twice in one request', async () => {
        const response = await importProducts([productInput('D1'), productInput('D1')]);
        expect(response.statusCode).toBe(400);
        expect(response.json().errors[0].path).toBe('products[1].product_number');
      });
    });

    describe('import and read', () => {
      const full = productInput('F1', {
        product_name: 'Full product',
        carrier_item_quantity: 12,
        price_compare_multiplier: 2.5,
        barcode: '8710000000011',
        barcodes_array: [{ barcode: '8710000000028' }, { barcode: '8710000000035' }, {}],
        attention_code: ['NEW', 'HOT'],
        referral_product_number: 'F0',
        supplier_number: 'SUP-9',
        supplier_name: 'Supplier Nine',
        promotion_text: '2 for 1',
        general_ledger_account_number: 8000,
        set_products: [{ set_item_quantity: '2', set_product_number: 'F2' }],
        is_reset_store_stock: true,
        is_active: true,
        allow_decimal: false,
        free_fields: [
          { sort_order: 2, key: 'b', value: 'second' },
          { sort_order: 1, key: 'a', value: 'first' },
        ],
        units: [{ unit_barcode: '8710000000042', unit_name: 'tray', unit_quantity: 6 }],
        shelf_labels: [{ shelflabel_1: 'line 1' }],
        stores_allowed: ['1001', '1002'],
        price: 3.99,
        purchase_price: 1.5,
        purchase_unit_quantity: 12,
        category_code: 'FRUIT',
        color: 'red',
        deprecation_date: '2030-01-01',
      });

      it('reads back every mapped field (PRODUCT §6)', async () => {
        expect((await importProducts([full])).json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
        const [product] = (await getProducts('product_number=F1')).records;
        expect(product).toEqual({
          barcode: '8710000000011',
          product_name: 'Full product',
          product_number: 'F1',
          carrier_item_quantity: 12,
          edit_min_max_percentage: 0,
          price_compare_multiplier: 2.5,
          shelf_label_quantity: 0,
          is_counted: true,
          is_active: true,
          allow_decimal: false,
          reset_store_stock: true,
          attention_code: 'NEW,HOT',
          barcodes_array: '8710000000028,8710000000035',
          category_code: 'FRUIT',
          color: 'red',
          country_code: 'NL',
          deprecation_date: '2030-01-01',
          general_ledger: '8000',
          promotion: '2 for 1',
          referral_product_id: 'F0',
          supplier_id: 'SUP-9',
          supplier_name: 'Supplier Nine',
          price: 3.99,
          purchase_price: 1.5,
          purchase_unit_quantity: 12,
          stores_allowed: ['1001', '1002'],
          free_fields: [
            { sort_order: 1, key: 'a', value: 'first' },
            { sort_order: 2, key: 'b', value: 'second' },
          ],
          set_product: [{ set_item_quantity: '2', set_product_number: 'F2' }],
          units: [{ unit_quantity: 6, unit_barcode: '8710000000042', unit_name: 'tray' }],
        });
      });

      it('resolves every barcode of a product to it, a unit barcode with its quantity', async () => {
        expect(await owners('8710000000011', '8710000000028', '8710000000042', 'nope')).toEqual({
          '8710000000011': ['F1', 'product', 1000],
          '8710000000028': ['F1', 'array', 1000],
          '8710000000042': ['F1', 'unit', 6000],
        });
        expect([...(await findProductsByNumbers(t.app.ctx.db, ['F1', 'nope'])).keys()]).toEqual(['F1']);
      });

      it('changes nothing on an identical re-send, not even updated_on', async () => {
        const before = await stored('F1');
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await importProducts([full])).json().message).toBe('created 0, updated 0, unchanged 1, deleted 0');
        const after = await stored('F1');
        expect(after.updated_on).toBe(before.updated_on);
        expect(after.content_hash).toBe(before.content_hash);
      });

      it('rewrites barcodes of a changed product', async () => {
        const changed = { ...full, barcodes_array: [{ barcode: '8710000000059' }], units: [] };
        expect((await importProducts([changed])).json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
        expect(await owners('8710000000011', '8710000000028', '8710000000042', '8710000000059')).toEqual({
          '8710000000011': ['F1', 'product', 1000],
          '8710000000059': ['F1', 'array', 1000],
        });
        expect((await getProducts('product_number=F1')).records[0]!.barcodes_array).toBe('8710000000059');
      });

      it('defaults the required read barcode to the first barcodes_array barcode, else ""', async () => {
        await importProducts([productInput('NB1', { barcodes_array: [{ barcode: 'NB1-A' }] }), productInput('NB2')]);
        const records = (await getProducts('product_number=NB1&product_number=NB2')).records;
        expect(records.map((r) => r.barcode)).toEqual(['NB1-A', '']);
        expect(records[1]).not.toHaveProperty('barcodes_array');
      });
    });

    describe('barcode ownership', () => {
      it('refuses the same barcode on two products of one request, naming both paths (400)', async () => {
        const response = await importProducts([
          productInput('B1', { barcode: 'DUP-1' }),
          productInput('B2', { units: [{ unit_barcode: 'DUP-1', unit_name: 'box', unit_quantity: 4 }] }),
        ]);
        expect(response.statusCode).toBe(400);
        expect(response.json().errors).toEqual([
          { path: 'products[1].units[0].unit_barcode', message: expect.stringContaining('products[0].barcode') },
        ]);
      });

      it('lets a product repeat its own barcode, but not with another quantity per scan', async () => {
        const repeated = productInput('B3', { barcode: 'OWN-1', barcodes_array: [{ barcode: 'OWN-1' }] });
        expect((await importProducts([repeated])).statusCode).toBe(200);
        const clash = productInput('B4', {
          barcode: 'OWN-2',
          units: [{ unit_barcode: 'OWN-2', unit_name: 'box', unit_quantity: 6 }],
        });
        const response = await importProducts([clash]);
        expect(response.statusCode).toBe(400);
        expect(response.json().errors[0].path).toBe('products[0].units[0].unit_barcode');
      });

      it('refuses a barcode held by another live product outside the request (422 naming line, barcode, owner)', async () => {
        expect((await importProducts([productInput('OWNER', { barcode: 'TAKEN-1' })])).statusCode).toBe(200);
        const response = await importProducts([
          productInput('OTHER'),
          productInput('THIEF', { barcodes_array: [{ barcode: 'TAKEN-1' }] }),
        ]);
        expect(response.statusCode).toBe(422);
        expect(response.json().code).toBe('UNPROCESSABLE');
        expect(response.json().errors).toEqual([
          { path: 'products[1].barcodes_array[0].barcode', message: expect.stringMatching(/'TAKEN-1'.*'OWNER'/) },
        ]);
        expect((await getProducts('product_number=OTHER')).total_record_count).toBe(0);
      });

      it('moves a barcode when both products come in one request', async () => {
        const response = await importProducts([
          productInput('OWNER', { barcode: 'TAKEN-2' }),
          productInput('THIEF', { barcode: 'TAKEN-1' }),
        ]);
        expect(response.statusCode).toBe(200);
        expect(await owners('TAKEN-1', 'TAKEN-2')).toEqual({
          'TAKEN-1': ['THIEF', 'product', 1000],
          'TAKEN-2': ['OWNER', 'product', 1000],
        });
      });

      it('lets a new product take the barcode of a deleted one; restoring that one then conflicts', async () => {
        await importProducts([productInput('GONE', { barcode: 'FREE-1' })]);
        expect((await t.del(`${API}/products`, { product_number: ['GONE'] })).statusCode).toBe(200);
        expect(await owners('FREE-1')).toEqual({});
        expect((await importProducts([productInput('HEIR', { barcode: 'FREE-1' })])).statusCode).toBe(200);
        expect(await owners('FREE-1')).toEqual({ 'FREE-1': ['HEIR', 'product', 1000] });
        const restore = await importProducts([productInput('GONE', { barcode: 'FREE-1' })]);
        expect(restore.statusCode).toBe(422);
        expect(restore.json().errors[0].message).toContain("'HEIR'");
      });
    });

    describe('flush, is_deleted and DELETE', () => {
      it('soft-deletes products absent from a flush and restores them when sent again', async () => {
        const fresh = await buildTestApp(dialect);
        try {
          const post = (products: unknown[], query = '') => fresh.post(`${API}/products${query}`, { products });
          await post([productInput('K1', { barcode: 'K1' }), productInput('K2', { barcode: 'K2' })]);
          expect((await post([productInput('K1', { barcode: 'K1' })], '?flush=true')).json().message).toBe(
            'created 0, updated 0, unchanged 1, deleted 1',
          );
          const listed = await fresh.get(`${API}/products`);
          expect(listed.json().records.map((r: Json) => r.product_number)).toEqual(['K1']);
          expect([...(await findProductsByBarcodes(fresh.app.ctx.db, ['K2'])).keys()]).toEqual([]);
          const row = await fresh.app.ctx.db
            .selectFrom('products')
            .select('deleted_on')
            .where('product_number', '=', 'K2')
            .executeTakeFirstOrThrow();
          expect(row.deleted_on).not.toBeNull();
          expect((await post([productInput('K2', { barcode: 'K2' })])).json().message).toBe(
            'created 0, updated 1, unchanged 0, deleted 0',
          );
          expect((await fresh.get(`${API}/products`)).json().total_record_count).toBe(2);
          expect([...(await findProductsByBarcodes(fresh.app.ctx.db, ['K2'])).keys()]).toEqual(['K2']);
        } finally {
          await fresh.close();
        }
      });

      it('soft-deletes a product sent with is_deleted=true, and leaves an unknown one alone', async () => {
        await importProducts([productInput('ISDEL', { barcode: 'ISDEL' })]);
        const response = await importProducts([
          productInput('ISDEL', { is_deleted: true }),
          productInput('NEVER', { is_deleted: true }),
        ]);
        expect(response.json().message).toBe('created 0, updated 0, unchanged 0, deleted 1');
        expect((await getProducts('product_number=ISDEL&product_number=NEVER')).total_record_count).toBe(0);
        expect(
          await t.app.ctx.db.selectFrom('products').select('id').where('product_number', '=', 'NEVER').execute(),
        ).toEqual([]);
      });

      it('DELETE soft-deletes and reports unknown numbers in the message', async () => {
        await importProducts([productInput('DEL1'), productInput('DEL2')]);
        const response = await t.del(`${API}/products`, { product_number: ['DEL1', 'DEL2', 'X-UNKNOWN', 'Y-UNKNOWN'] });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ success: true, message: 'deleted 2; unknown: X-UNKNOWN, Y-UNKNOWN' });
        expect((await getProducts('product_number=DEL1')).total_record_count).toBe(0);
        expect((await stored('DEL1')).deleted_on).not.toBeNull();
        expect((await t.del(`${API}/products`, { product_number: ['DEL1'] })).json().message).toBe(
          'deleted 0; unknown: DEL1',
        );
      });

      it('DELETE validates its body', async () => {
        const response = await t.del(`${API}/products`, { product_number: ['x'.repeat(65)] });
        expect(response.statusCode).toBe(400);
        expect(response.json().errors[0].path).toBe('product_number[0]');
      });
    });

    describe('GET /products paging and filters', () => {
      it('takes product_number repeated or single, and clamps paging (PRODUCT §3.1)', async () => {
        await importProducts(['P1', 'P2', 'P3'].map((n) => productInput(n)));
        const repeated = await getProducts('product_number=P1&product_number=P3');
        expect(repeated.records.map((r) => r.product_number)).toEqual(['P1', 'P3']);
        expect((await getProducts('Product_Number=P2')).records.map((r) => r.product_number)).toEqual(['P2']);
        const page = await getProducts(
          'product_number=P1&product_number=P2&product_number=P3&page_size=2&page_start=2',
        );
        expect(page).toMatchObject({ page_number: 2, page_size: 2, total_record_count: 3 });
        expect(page.records.map((r) => r.product_number)).toEqual(['P3']);
        expect(await getProducts('page_size=5000&page_start=0')).toMatchObject({ page_size: 1000, page_number: 1 });
        expect((await getProducts('page_size=0')).page_size).toBe(1);
        expect((await getProducts('product_number=P1&page_start=9')).records).toEqual([]);
      });

      it('filters on last_modified_date: products whose record changed at or after it (PRODUCT §9)', async () => {
        await importProducts(['LM1', 'LM2'].map((n) => productInput(n)));
        await new Promise((resolve) => setTimeout(resolve, 5));
        const since = new Date().toISOString();
        await importProducts([productInput('LM2', { product_name: 'renamed' }), productInput('LM3')]);
        const changed = await getProducts(
          `product_number=LM1&product_number=LM2&product_number=LM3&last_modified_date=${since}`,
        );
        expect(changed.records.map((r) => r.product_number)).toEqual(['LM2', 'LM3']);
        expect(changed.total_record_count).toBe(2);
        const bad = await t.get(`${API}/products?last_modified_date=yesterday`);
        expect(bad.statusCode).toBe(400);
        expect(bad.json().errors[0].path).toBe('query.last_modified_date');
      });

      it('refuses a malformed page_size and an unknown store_number', async () => {
        expect((await t.get(`${API}/products?page_size=abc`)).statusCode).toBe(400);
        expect((await t.get(`${API}/products?store_number=NOPE`)).statusCode).toBe(404);
      });
    });

    describe('roles (PRODUCT §4)', () => {
      it('lets a store token read and refuses its writes', async () => {
        const storeToken = await t.token('store', ['1001']);
        expect((await t.get(`${API}/products`, storeToken)).statusCode).toBe(200);
        expect((await t.post(`${API}/products`, { products: [productInput('R1')] }, storeToken)).statusCode).toBe(403);
        expect((await t.del(`${API}/products`, { product_number: ['P1'] }, storeToken)).statusCode).toBe(403);
        expect(
          (
            await t.put(
              `${API}/products/attributes`,
              { attribute: 'color', old_value: 'a', new_value: 'b' },
              storeToken,
            )
          ).statusCode,
        ).toBe(403);
        const readToken = await t.token('read');
        expect((await t.post(`${API}/products/prices`, { prices: [] }, readToken)).statusCode).toBe(403);
        expect((await t.get(`${API}/products`, null)).statusCode).toBe(401);
      });

      it('lets an integration token write', async () => {
        const integration = await t.token('integration');
        expect((await t.post(`${API}/products`, { products: [productInput('R2')] }, integration)).statusCode).toBe(200);
        expect((await stored('R2')).created_by).toMatch(/^integration-/);
      });
    });
  });
}
