import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Click-and-collect customer orders (interface §2.9, §4.12; PRODUCT §5 order-bound stock,
// §7 customer orders). Stock moves only through the ledger: picking books stock into the
// order's own balances (order_key = order number), clearance books it out, rejection books
// it back. A line's picked_quantity is what is bound for it now.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  let orders = withId(dialect, db.schema.createTable('customer_orders'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('order_number', 'text', (col) => col.notNull())
    // 1 new, 2 claimed, 3 picking, 4 picked, 5 collected, 6 rejected, 7 cancelled
    .addColumn('status_id', 'integer', (col) => col.notNull())
    .addColumn('is_claimed', 'integer', (col) => col.notNull())
    .addColumn('pickup_at', 'bigint')
    .addColumn('rejection_reason_code', 'bigint');
  for (const column of [
    'order_type_code',
    'description',
    'customer_name',
    'comment',
    'reference',
    'sales_order_id',
    'stores_allowed',
    'picked_username',
  ]) {
    orders = orders.addColumn(column, 'text');
  }
  await orders
    .addColumn('content_hash', 'text', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('modified_by', 'text', (col) => col.notNull())
    .addUniqueConstraint('customer_orders_order_number', ['order_number'])
    .execute();
  await db.schema.createIndex('customer_orders_store').on('customer_orders').columns(['store_id', 'id']).execute();

  let lines = withId(dialect, db.schema.createTable('customer_order_lines'))
    .addColumn('order_id', 'bigint', (col) => col.notNull().references('customer_orders.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('line_number', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    .addColumn('product_number', 'text', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('picked_quantity', 'bigint', (col) => col.notNull())
    .addColumn('stock_pool', 'integer', (col) => col.notNull())
    .addColumn('price', 'bigint')
    .addColumn('delivery_at', 'bigint');
  for (const column of [
    'barcode',
    'description',
    'preferred_location_code',
    'reference',
    'stock_location',
    'picked_username',
  ]) {
    lines = lines.addColumn(column, 'text');
  }
  await lines.addUniqueConstraint('customer_order_lines_line', ['order_id', 'line_number']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('customer_order_lines').execute();
  await db.schema.dropTable('customer_orders').execute();
}
