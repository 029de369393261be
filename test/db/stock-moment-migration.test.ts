import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProviderFor } from '../../src/db/migrations/index.js';
import { stampViolations } from '../../src/ledger/stamp-invariants.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { bringUpLaterThan, takeDownLaterThan } from '../helpers/migrations.js';

const MIGRATION = '2026-12-07T0030_stock_moment_at_creation';

/**
 * Migration 0030 (issue 41, PRODUCT §3.1): a store product stored before it, created without
 * stock, has no stock_modified_at; the migration gives it its creation moment, so the ERP's
 * delta pull lists it from a moment at or before its creation and verify stays clean. Its down
 * takes back only the stamps that name no booking.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0030: a store product's stock moment is its creation until its first stock change (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('M1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: [productInput('MP1'), productInput('MP2')] })).statusCode,
      ).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const rowOf = (product: string) =>
      t.app.ctx.db
        .selectFrom('store_products')
        .select(['created_on', 'stock_modified_at', 'stock_version'])
        .where('product_number', '=', product)
        .executeTakeFirstOrThrow();

    it('fills in the missing stamps with the creation moment, and leaves booked ones', async () => {
      const before = Date.now() - 1;
      expect(
        (await t.post(`${API}/stores/M1/storeproducts`, { products: [{ product_number: 'MP1', min: 1 }] })).statusCode,
      ).toBe(200);
      const booked = await t.post(`${API}/stores/M1/products/stock/storeproductlogs`, {
        storeproductlog: [
          {
            product_number: 'MP2',
            quantity: 3,
            customer_order_line_number: 0,
            modification_datetime: new Date().toISOString(),
          },
        ],
      });
      expect(booked.statusCode, booked.body).toBe(200);
      const bookedStamp = (await rowOf('MP2')).stock_modified_at;

      await takeDownLaterThan(t.app.ctx.handle, MIGRATION);
      const migrations = await migrationProviderFor(t.app.ctx.handle.dialect.name).getMigrations();
      await migrations[MIGRATION]!.down!(t.app.ctx.db);
      // As a store product created before 0030 was: no stamp.
      expect((await rowOf('MP1')).stock_modified_at).toBeNull();
      expect((await rowOf('MP2')).stock_modified_at).toBe(bookedStamp);
      expect((await stampViolations(t.app.ctx.handle)).map((v) => v.detail)).toEqual([
        expect.stringMatching(/'MP1' of store 'M1' has no stock_modified_at/),
      ]);

      await migrations[MIGRATION]!.up(t.app.ctx.db);
      await bringUpLaterThan(t.app.ctx.handle, MIGRATION);
      const created = await rowOf('MP1');
      expect(created.stock_modified_at).toBe(created.created_on);
      expect((await rowOf('MP2')).stock_modified_at).toBe(bookedStamp);
      expect(await stampViolations(t.app.ctx.handle)).toEqual([]);
      const pulled = (
        await t.get(`${API}/storeproducts/stock?last_stock_modified_datetime=${new Date(before).toISOString()}`)
      ).json();
      expect(pulled.list.map((item: { product_number: string }) => item.product_number).sort()).toEqual(['MP1', 'MP2']);
    });
  });
}
