import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withAudit, withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// The stock model of PRODUCT §5: the ledger (stock_logs as sent and listed, stock_ledger
// as the applied per-balance deltas) and the balances projected from it in the same
// transaction. Every store-scoped table carries store_id and store_number so the data
// can be distributed by store without a schema change.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await withAudit(
    withId(dialect, db.schema.createTable('locations'))
      .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
      .addColumn('store_number', 'text', (col) => col.notNull())
      .addColumn('location_code', 'text', (col) => col.notNull())
      .addColumn('location_order', 'bigint', (col) => col.notNull())
      .addColumn('default_stock_pool', 'integer')
      .addColumn('tags', 'text', (col) => col.notNull())
      .addUniqueConstraint('locations_store_code', ['store_id', 'location_code']),
  ).execute();

  await db.schema
    .createTable('location_tags')
    .addColumn('location_id', 'bigint', (col) => col.notNull().references('locations.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('tag', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('location_tags_pk', ['location_id', 'tag'])
    .execute();
  await db.schema.createIndex('location_tags_store_tag').on('location_tags').columns(['store_id', 'tag']).execute();

  let storeProducts = withId(dialect, db.schema.createTable('store_products'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    .addColumn('product_number', 'text', (col) => col.notNull());
  // Quantities in thousandths, money in ten-thousandths, date-times in epoch ms.
  for (const column of [
    'min',
    'max',
    'original_min',
    'original_max',
    'order_level',
    'adjusted_order_level',
    'forecast',
    'demand_until_delivery',
    'adjustment_level_decrease',
    'adjustment_level_increase',
    'price',
    'discount_price',
    'expiry_at',
    'validate_expiry_at',
    'next_delivery_at',
    'next_ordering_at',
    'last_counted_at',
    'last_loss_at',
    'last_receipt_at',
    'last_minmax_at',
    'last_expiry_at',
    'stock_modified_at',
  ]) {
    storeProducts = storeProducts.addColumn(column, 'bigint');
  }
  for (const column of [
    'counting_assignment_code',
    'default_salesorder_type',
    'group_code',
    'replenishment_action',
    'promotion_week',
    'last_counted_by',
    'last_loss_by',
    'last_receipt_by',
    'last_minmax_by',
    'last_expiry_by',
  ]) {
    storeProducts = storeProducts.addColumn(column, 'text');
  }
  storeProducts = storeProducts.addColumn('is_promotion', 'integer').addColumn('is_replenishment', 'integer');
  // Keyed arrays and date lists, read back whole (JSON text).
  for (const column of [
    'attention_codes',
    'average_keys',
    'average_array',
    'forecast_keys',
    'forecast_array',
    'history_keys',
    'history_array',
    'delivery_datetimes',
    'ordering_datetimes',
  ]) {
    storeProducts = storeProducts.addColumn(column, 'text');
  }
  await withAudit(
    storeProducts.addUniqueConstraint('store_products_store_product', ['store_id', 'product_id']),
  ).execute();
  await db.schema
    .createIndex('store_products_stock_modified')
    .on('store_products')
    .columns(['store_id', 'stock_modified_at'])
    .execute();
  await db.schema.createIndex('store_products_updated_on').on('store_products').column('updated_on').execute();
  await db.schema.createIndex('store_products_product').on('store_products').column('product_id').execute();

  let logs = withId(dialect, db.schema.createTable('stock_logs'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    .addColumn('product_number', 'text', (col) => col.notNull())
    .addColumn('location_id', 'bigint')
    .addColumn('reason_code', 'bigint')
    .addColumn('modification_at', 'bigint', (col) => col.notNull())
    .addColumn('is_count', 'integer', (col) => col.notNull())
    .addColumn('is_from_receipt', 'integer', (col) => col.notNull())
    // What was sent, signed by the reason code: the quantity and its split over pools
    // (JSON array of ten numbers, thousandths). What was applied lives in stock_ledger.
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('pool_quantities', 'text', (col) => col.notNull())
    .addColumn('counted_quantity', 'bigint')
    .addColumn('review_status', 'integer', (col) => col.notNull())
    .addColumn('is_applied', 'integer', (col) => col.notNull())
    .addColumn('reference_id', 'bigint')
    .addColumn('customer_order_line_number', 'bigint')
    .addColumn('customer_order_shipment_line_number', 'bigint')
    .addColumn('scanned_at', 'bigint')
    .addColumn('order_after_at', 'bigint')
    .addColumn('price', 'bigint')
    .addColumn('purchase_price', 'bigint')
    .addColumn('purchase_unit_quantity', 'bigint');
  for (const column of [
    'location_code',
    'reason_code_description',
    'customer_order_number',
    'customer_order_shipment_number',
    'app_user_name',
    'reference',
    'source',
    'remarks',
    'exception_image',
    'orderno',
    'barcode',
  ]) {
    logs = logs.addColumn(column, 'text');
  }
  await logs
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('modified_by', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('stock_logs_store').on('stock_logs').columns(['store_id', 'id']).execute();
  await db.schema.createIndex('stock_logs_product').on('stock_logs').columns(['product_id', 'id']).execute();
  await db.schema.createIndex('stock_logs_updated_on').on('stock_logs').column('updated_on').execute();
  await db.schema.createIndex('stock_logs_reference_id').on('stock_logs').column('reference_id').execute();
  await db.schema.createIndex('stock_logs_reference').on('stock_logs').column('reference').execute();
  await db.schema.createIndex('stock_logs_customer_order').on('stock_logs').column('customer_order_number').execute();
  await db.schema.createIndex('stock_logs_review').on('stock_logs').columns(['review_status', 'id']).execute();

  // Applied deltas, one per (log line, balance). location_id 0 = no location and
  // order_key '' = not bound to a customer order, so the balance key is a plain unique key.
  await withId(dialect, db.schema.createTable('stock_ledger'))
    .addColumn('log_id', 'bigint', (col) => col.notNull().references('stock_logs.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull())
    .addColumn('location_id', 'bigint', (col) => col.notNull())
    .addColumn('pool', 'integer', (col) => col.notNull())
    .addColumn('order_key', 'text', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('is_count', 'integer', (col) => col.notNull())
    .addColumn('counted', 'bigint')
    .addColumn('expected', 'bigint')
    .execute();
  await db.schema
    .createIndex('stock_ledger_balance_time')
    .on('stock_ledger')
    .columns(['store_id', 'product_id', 'location_id', 'pool', 'order_key', 'at', 'id'])
    .execute();
  await db.schema.createIndex('stock_ledger_log').on('stock_ledger').column('log_id').execute();

  await withId(dialect, db.schema.createTable('stock_balances'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    .addColumn('location_id', 'bigint', (col) => col.notNull())
    .addColumn('pool', 'integer', (col) => col.notNull())
    .addColumn('order_key', 'text', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    // Latest entry and latest count timestamps: an entry at or after last_at is not late,
    // so the common case needs no look at the ledger.
    .addColumn('last_at', 'bigint')
    .addColumn('last_count_at', 'bigint')
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('stock_balances_key', ['store_id', 'product_id', 'location_id', 'pool', 'order_key'])
    .execute();
  await db.schema
    .createIndex('stock_balances_location')
    .on('stock_balances')
    .columns(['store_id', 'location_id'])
    .execute();
  await db.schema
    .createIndex('stock_balances_product')
    .on('stock_balances')
    .columns(['product_id', 'store_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'stock_balances',
    'stock_ledger',
    'stock_logs',
    'store_products',
    'location_tags',
    'locations',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
