import { expect } from 'vitest';
import type { TestApp } from '../helpers/build.js';
import { API } from '../helpers/build.js';
import { discountInput, locationInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

/**
 * A store floor the console tests look at, written through the API like any client would:
 * a product with a barcode, a price and a special price; stock at two locations and
 * unlocated in two pools; stock bound to a customer order; an entry waiting for review; a
 * delivery received in part; and a counted barcode nobody knows.
 */
export const FLOOR = {
  store: '1001',
  otherStore: '2001',
  product: '100200',
  barcode: '8712345678906',
  otherProduct: '100300',
  unknownBarcode: '4000000000017',
  reviewReason: 30,
  delivery: 'PO-7001',
  pickedOrder: 'CO-501',
  newOrder: 'CO-502',
} as const;

async function ok(answer: Promise<{ statusCode: number; body: string }>): Promise<void> {
  const response = await answer;
  expect(response.statusCode, response.body).toBe(200);
}

export async function seedFloor(t: TestApp): Promise<{ pendingEntryId: number }> {
  const { store, otherStore, product, barcode, otherProduct } = FLOOR;
  await ok(
    t.post(`${API}/stores`, {
      stores: [
        storeInput(store, {
          store_name: 'Amsterdam Centrum',
          city: 'Amsterdam',
          store_stock_pool_1: 'Sales floor',
          store_stock_pool_2: 'Backroom',
        }),
        storeInput(otherStore, { store_name: 'Utrecht Centraal', city: 'Utrecht' }),
      ],
    }),
  );
  await ok(
    t.post(`${API}/reasoncodes`, {
      reason_codes: [
        reasonCodeInput(10, { reason_code_description: 'Sold', is_loss: true }),
        reasonCodeInput(20, { reason_code_description: 'Delivery', is_gain: true }),
        reasonCodeInput(FLOOR.reviewReason, {
          reason_code_description: 'Found in backroom',
          is_gain: true,
          default_review_status: 1,
        }),
      ],
    }),
  );
  await ok(
    t.post(`${API}/products`, {
      products: [
        productInput(product, { product_name: 'Whole milk 1 L', barcode, price: 1.29 }),
        productInput(otherProduct, { product_name: 'Butter 250 g', barcode: '8712345678913', price: 2.49 }),
      ],
    }),
  );
  await ok(
    t.post(`${API}/products/discountprices`, { discounts: [discountInput(product, 0.99, { discount_id: 'WEEK-12' })] }),
  );
  await ok(
    t.post(`${API}/stores/${store}/locations`, {
      locations: [
        locationInput('A-01', { location_order: 1, tags: ['dairy', 'chilled'], default_stock_pool: 1 }),
        locationInput('BR-1', { location_order: 9, tags: ['backroom'], default_stock_pool: 2 }),
      ],
    }),
  );

  // One request per entry: each gets its own moment, so the history has a shape.
  const post = (entry: Record<string, unknown>) =>
    ok(
      t.post(`${API}/stores/${store}/products/stock/storeproductlogs`, {
        storeproductlog: [
          {
            customer_order_line_number: 0,
            modification_datetime: new Date().toISOString(),
            product_number: product,
            app_user_name: 'sam',
            ...entry,
          },
        ],
      }),
    );
  await post({ quantity: 24, location_code: 'A-01', reason_code: 20 });
  await post({ quantity: 12, location_code: 'BR-1', reason_code: 20 });
  await post({ quantity: 3, location_code: 'A-01', reason_code: 10 });
  await post({ quantity: 6, pool_location: 1 });

  const pending = await t.post(`${API}/stores/${store}/products/stock/storeproductlogs`, {
    storeproductlog: [
      {
        customer_order_line_number: 0,
        modification_datetime: new Date().toISOString(),
        product_number: product,
        quantity: 5,
        location_code: 'A-01',
        reason_code: FLOOR.reviewReason,
        app_user_name: 'kim',
      },
    ],
  });
  expect(pending.statusCode, pending.body).toBe(200);
  const pendingEntryId = (pending.json() as { data: number[] }).data[0]!;

  await ok(
    t.post(`${API}/stores/${store}/orders/customerorders`, {
      orders: [
        {
          order_number: FLOOR.pickedOrder,
          customer_name: 'J. de Vries',
          pickup_date: '2030-05-01T10:00:00Z',
          lines: [{ line_number: 1, product_number: product, quantity: 2, description: 'Whole milk 1 L' }],
        },
        {
          order_number: FLOOR.newOrder,
          customer_name: 'A. Jansen',
          lines: [{ line_number: 1, product_number: otherProduct, quantity: 1 }],
        },
      ],
    }),
  );
  await ok(
    t.put(`${API}/stores/${store}/orders/customerorder`, {
      order_number: FLOOR.pickedOrder,
      lines: [{ line_number: 1, picked_quantity: 2, stock_location: 'A-01' }],
    }),
  );

  await ok(
    t.post(`${API}/stores/${store}/orders/deliveries`, {
      orders: [
        {
          order_number: FLOOR.delivery,
          datetime_expected: '2030-04-30T06:00:00Z',
          no_of_containers: 1,
          order_type: 1,
          supplier_name: 'Dairy Co',
          order_lines: [
            {
              line_number: 1,
              product_number: product,
              quantity: 24,
              target_stock_pool: 2,
              description: 'Whole milk 1 L',
            },
            {
              line_number: 2,
              product_number: otherProduct,
              quantity: 10,
              target_stock_pool: 2,
              description: 'Butter 250 g',
            },
          ],
        },
      ],
    }),
  );
  await ok(
    t.post(`${API}/stores/${store}/orders/deliveries/${FLOOR.delivery}/receive`, {
      lines: [{ line_number: 2, received_quantity: 7 }],
    }),
  );

  await ok(
    t.post(`${API}/externalcountinglines`, {
      CountingDateTime: new Date().toISOString(),
      StoreNo: store,
      Lines: [{ product_barcode: FLOOR.unknownBarcode, counted_quantity: 4 }],
    }),
  );
  return { pendingEntryId };
}
