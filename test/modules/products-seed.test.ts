import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProductsByBarcodes } from '../../src/modules/products/repository.js';
import { DEMO_PRODUCTS } from '../../src/modules/products/demo.js';
import { DELIVERY_STATUSES } from '../../src/modules/deliveries/schema.js';
import { STATUS } from '../../src/modules/customer-orders/schema.js';
import { DEMO_STORES, seedDemoData } from '../../src/seed.js';
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

    it('seeds deliveries and customer orders in every status and a review queue; a re-run changes nothing', async () => {
      const shops = DEMO_STORES.filter((s) => !s.is_warehouse).map((s) => s.store_number);
      const list = async (path: string): Promise<Json[]> => {
        const response = await t.get(`${API}${path}`);
        expect(response.statusCode, response.body).toBe(200);
        return response.json().list;
      };
      for (const store of shops) {
        const deliveries = await list(`/orders/deliveries?store_number=${store}&page_size=100`);
        expect(new Set(deliveries.map((d) => d.status))).toEqual(new Set(DELIVERY_STATUSES));
        const orders = await list(`/stores/${store}/orders/customerorders?page_size=100`);
        expect(new Set(orders.map((o) => o.status_id))).toEqual(new Set(Object.values(STATUS)));
      }
      const [store] = shops;
      const byNumber = new Map(
        (await list(`/orders/deliveries?store_number=${store}`)).map((d) => [d.order_number, d]),
      );
      // Received in part: one line in full, one half, one not yet.
      expect(byNumber.get(`D${store}-2`)!.order_lines.map((l: Json) => [l.quantity, l.received_quantity])).toEqual([
        [24, 24],
        [16, 8],
        [6, 0],
      ]);
      const collected = (await list(`/stores/${store}/orders/customerorders?status_id=${STATUS.collected}`))[0]!;
      expect(collected.lines.every((l: Json) => l.picked_quantity === l.quantity)).toBe(true);
      const pending = await list(`/products/stock/storeproductlogs?store_number=${store}&review_status=1`);
      expect(pending.map((e) => e.reference)).toEqual(
        expect.arrayContaining([1, 2, 3].map((n) => `REVIEW-${store}-${n}`)),
      );

      const snapshot = async () => {
        const db = t.app.ctx.db;
        const count = async (table: 'delivery_orders' | 'receipt_lines' | 'customer_orders' | 'stock_logs') =>
          Number((await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        return {
          deliveries: await count('delivery_orders'),
          receiptLines: await count('receipt_lines'),
          orders: await count('customer_orders'),
          entries: await count('stock_logs'),
          balances: await db
            .selectFrom('stock_balances')
            .select(['store_number', 'product_id', 'location_id', 'pool', 'order_key', 'quantity'])
            .orderBy('store_number')
            .orderBy('product_id')
            .orderBy('location_id')
            .orderBy('pool')
            .orderBy('order_key')
            .execute(),
        };
      };
      const before = await snapshot();
      const again = await seedDemoData(t.app.ctx);
      expect(again.filter((line) => /^(deliveries|customer orders|reviews) /.test(line))).toEqual([
        ...shops.map((s) => `deliveries ${s}: already seeded`),
        ...shops.map((s) => `customer orders ${s}: already seeded`),
        `reviews ${store}: already seeded`,
      ]);
      // What the seed suggests trying is there to be done: an open delivery and a new order.
      expect(again.at(-2)).toBe(
        `try a floor task in store ${store}: receive delivery D${store}-1, pick customer order C${store}-1`,
      );
      expect(byNumber.get(`D${store}-1`)!.status).toBe('open');
      const suggested = await list(`/stores/${store}/orders/customerorders?order_number=C${store}-1`);
      expect(suggested.map((o) => o.status_id)).toEqual([STATUS.new]);
      expect(await snapshot()).toEqual(before);
      // Every balance is still the sum of its ledger entries, and the rest of verify holds.
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
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
