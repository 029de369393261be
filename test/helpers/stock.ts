import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

const JSON_COLUMNS = [
  'attention_code', 'countries_allowed', 'countries_not_allowed', 'promo_stores_allowed', 'promo_stores_not_allowed',
  'stores_allowed', 'stores_not_allowed', 'barcodes_array', 'free_fields', 'set_products', 'shelf_labels', 'units',
];

/** A product row straight in the table, for engine-level tests that need only its id. */
export async function insertBareProduct(db: Kysely<Database>, productNumber: string): Promise<number> {
  const now = Date.now();
  const row = await (db as Kysely<any>)
    .insertInto('products')
    .values({
      product_number: productNumber,
      product_name: productNumber,
      carrier_item_quantity: 1000,
      is_counted: 1,
      price_compare_multiplier: 1,
      ...Object.fromEntries(JSON_COLUMNS.map((c) => [c, '[]'])),
      created_on: now,
      updated_on: now,
      created_by: 'test',
      modified_by: 'test',
      deleted_on: null,
      content_hash: '',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** A bare stock_logs row to hang ledger postings on. */
export async function insertBareLog(db: Kysely<Database>, storeId: number, productId: number, at: number): Promise<number> {
  const now = Date.now();
  const row = await db
    .insertInto('stock_logs')
    .values({
      store_id: storeId,
      store_number: 'S',
      product_id: productId,
      product_number: 'P',
      location_id: null,
      location_code: null,
      reason_code: null,
      reason_code_description: null,
      modification_at: at,
      is_count: 0,
      is_from_receipt: 0,
      quantity: 0,
      pool_quantities: '[]',
      counted_quantity: null,
      review_status: 0,
      is_applied: 1,
      reference_id: null,
      customer_order_number: null,
      customer_order_line_number: null,
      customer_order_shipment_number: null,
      customer_order_shipment_line_number: null,
      app_user_name: null,
      reference: null,
      source: null,
      remarks: null,
      exception_image: null,
      orderno: null,
      barcode: null,
      scanned_at: null,
      order_after_at: null,
      price: null,
      purchase_price: null,
      purchase_unit_quantity: null,
      created_on: now,
      updated_on: now,
      created_by: 'test',
      modified_by: 'test',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
