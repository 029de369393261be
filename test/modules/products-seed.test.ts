import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProductsByBarcodes } from '../../src/modules/products/repository.js';
import { DEMO_PRODUCTS } from '../../src/modules/products/demo.js';
import { seedDemoData } from '../../src/seed.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

type Json = Record<string, any>;

for (const dialect of DIALECTS) {
  describe(`products demo data and verify (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('seeds the demo assortment idempotently, with a store price and a discount', async () => {
      const first = await seedDemoData(t.app.ctx);
      expect(first).toContain(`products: created ${DEMO_PRODUCTS.length}, updated 0, unchanged 0, deleted 0`);
      const second = await seedDemoData(t.app.ctx);
      expect(second.filter((line) => /^(products|prices|discounts):/.test(line))).toEqual([
        `products: created 0, updated 0, unchanged ${DEMO_PRODUCTS.length}, deleted 0`,
        'prices: created 0, updated 0, unchanged 3, deleted 0',
        'discounts: created 0, updated 0, unchanged 1, deleted 0',
      ]);
      const read = async (query: string): Promise<Json[]> => (await t.get(`${API}/products?${query}`)).json().records;
      expect((await read('product_number=100011'))[0]!.price).toBe(1.89);
      expect((await read('product_number=100011&store_number=1001'))[0]!.price).toBe(1.79);
      expect((await read('product_number=100022'))[0]!.special_price).toBe(9.99);
      const tray = DEMO_PRODUCTS[0]!.units![0]!;
      expect(
        (await findProductsByBarcodes(t.app.ctx.db, [tray.unit_barcode])).get(tray.unit_barcode)?.unitQuantityMilli,
      ).toBe(12_000);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      // The demo stock is what a store could hold: nothing below zero (the console shows it first).
      const negative = await t.app.ctx.db
        .selectFrom('stock_balances')
        .select(['store_number', 'product_id', 'location_id', 'pool', 'quantity'])
        .where('quantity', '<', 0)
        .execute();
      expect(negative).toEqual([]);
    });

    it('verify finds a stale hash and read document, an unresolved barcode and an empty price window', async () => {
      const db = t.app.ctx.db;
      await db
        .updateTable('products')
        .set({ color: 'edited behind the service' })
        .where('product_number', '=', '100001')
        .execute();
      await db.deleteFrom('product_barcodes').where('barcode', '=', DEMO_PRODUCTS[1]!.barcode!).execute();
      await db.updateTable('product_prices').set({ valid_to: 0 }).where('price_id', '=', 'DEMO-CHAIN-100001').execute();
      const details = (await verifyAll(t.app.ctx.handle))
        .filter((v) => v.check.startsWith('product'))
        .map((v) => v.detail);
      expect(details).toEqual([
        "product '100001' has a content_hash that does not match its content",
        "product '100001' has a read_document that does not match its content",
        `barcode '${DEMO_PRODUCTS[1]!.barcode}' of product '100002' does not resolve to it`,
        expect.stringContaining("price 'DEMO-CHAIN-100001'"),
      ]);
    });

    it('verify finds a barcode carried by two live products (the look-up names one of them)', async () => {
      const [owner, other] = [DEMO_PRODUCTS[2]!, DEMO_PRODUCTS[3]!];
      const shared = owner.barcode!;
      await t.app.ctx.db
        .updateTable('products')
        .set({ barcode: shared })
        .where('product_number', '=', other.product_number)
        .execute();
      const details = (await verifyAll(t.app.ctx.handle))
        .map((v) => v.detail)
        .filter((detail) => detail.includes(`'${shared}'`));
      expect(details).toEqual([
        `barcode '${shared}' is on live products '${owner.product_number}' and '${other.product_number}'`,
        `barcode '${shared}' of product '${other.product_number}' does not resolve to it`,
      ]);
    });
  });
}
