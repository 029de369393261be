import type { CreateTableBuilder, Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Deliveries announced by the ERP, what the store received of them, and the receipt
// orders the ERP pulls back (interface §2.3, §2.4, §4.3, §4.6; PRODUCT §7). Stock itself
// moves only through the ledger (stock_logs / stock_ledger): a receipt line points at the
// log entry that booked it. Quantities in thousandths, money in ten-thousandths, moments
// in epoch ms, as everywhere.

// Not support.ts's withAudit: these tables have no deleted_on (and content_hash only where added below).
function withAudit<T extends string>(table: CreateTableBuilder<T, any>) {
  return table
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('modified_by', 'text', (col) => col.notNull());
}

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  let orders = withId(dialect, db.schema.createTable('delivery_orders'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('order_number', 'text', (col) => col.notNull())
    .addColumn('order_type', 'bigint', (col) => col.notNull())
    // open | receiving | received | cancelled
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('datetime_created_at', 'bigint', (col) => col.notNull())
    .addColumn('datetime_expected_at', 'bigint', (col) => col.notNull())
    .addColumn('no_of_containers', 'bigint', (col) => col.notNull())
    .addColumn('reason_code', 'bigint');
  for (const column of ['description', 'reference', 'store_origin', 'supplier_code', 'supplier_name', 'tracing_url']) {
    orders = orders.addColumn(column, 'text');
  }
  // content_hash: the order as last sent (header and lines); an identical re-send writes nothing.
  await withAudit(orders.addColumn('content_hash', 'text', (col) => col.notNull()))
    .addUniqueConstraint('delivery_orders_order_number', ['order_number'])
    .execute();
  await db.schema.createIndex('delivery_orders_store').on('delivery_orders').columns(['store_id', 'id']).execute();
  await db.schema.createIndex('delivery_orders_updated_on').on('delivery_orders').column('updated_on').execute();

  let lines = withId(dialect, db.schema.createTable('delivery_order_lines'))
    .addColumn('delivery_id', 'bigint', (col) => col.notNull().references('delivery_orders.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('line_number', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    .addColumn('product_number', 'text', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('ordered_quantity', 'bigint')
    .addColumn('received_quantity', 'bigint', (col) => col.notNull())
    .addColumn('target_stock_pool', 'integer', (col) => col.notNull())
    .addColumn('customer_order_line_number', 'bigint')
    .addColumn('customer_order_shipment_line_number', 'bigint')
    .addColumn('secondary_order_line_number', 'bigint')
    .addColumn('purchase_price', 'bigint');
  for (const column of [
    'barcode',
    'container_barcode',
    'customer_order_number',
    'customer_order_shipment_number',
    'description',
    'product_description',
    'reference',
    'secondary_order_number',
  ]) {
    lines = lines.addColumn(column, 'text');
  }
  await lines.addUniqueConstraint('delivery_order_lines_line', ['delivery_id', 'line_number']).execute();

  await withAudit(
    withId(dialect, db.schema.createTable('receipt_orders'))
      .addColumn('delivery_id', 'bigint', (col) => col.notNull().references('delivery_orders.id'))
      .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
      .addColumn('store_number', 'text', (col) => col.notNull())
      .addColumn('order_number', 'text', (col) => col.notNull())
      .addColumn('order_type_id', 'bigint', (col) => col.notNull())
      .addColumn('is_submitted', 'integer', (col) => col.notNull())
      .addColumn('datetime_created_at', 'bigint', (col) => col.notNull())
      .addUniqueConstraint('receipt_orders_delivery', ['delivery_id']),
  ).execute();
  await db.schema.createIndex('receipt_orders_store').on('receipt_orders').columns(['store_id', 'id']).execute();
  await db.schema.createIndex('receipt_orders_updated_on').on('receipt_orders').column('updated_on').execute();

  let receiptLines = withId(dialect, db.schema.createTable('receipt_lines'))
    .addColumn('receipt_id', 'bigint', (col) => col.notNull().references('receipt_orders.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('delivery_line_id', 'bigint', (col) => col.notNull().references('delivery_order_lines.id'))
    .addColumn('log_id', 'bigint', (col) => col.notNull().references('stock_logs.id'))
    .addColumn('line_number', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull())
    .addColumn('received_quantity', 'bigint', (col) => col.notNull())
    .addColumn('shipped_quantity', 'bigint', (col) => col.notNull())
    .addColumn('purchase_price', 'bigint', (col) => col.notNull())
    .addColumn('store_products_price', 'bigint', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull());
  for (const column of ['product_number', 'barcode', 'container_barcode', 'description']) {
    receiptLines = receiptLines.addColumn(column, 'text');
  }
  await receiptLines.addUniqueConstraint('receipt_lines_log', ['log_id']).execute();
  await db.schema.createIndex('receipt_lines_receipt').on('receipt_lines').columns(['receipt_id', 'id']).execute();
  await db.schema.createIndex('receipt_lines_delivery_line').on('receipt_lines').column('delivery_line_id').execute();

  // The receipts clock: every receipt write bumps this row (and so holds it until commit),
  // and a receipt listing takes it before reading its server_time, so no receipt can
  // commit later with an updated_on older than a server_time already handed out.
  await db.insertInto('resource_versions').values({ resource: 'receipts', version: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('resource_versions').where('resource', '=', 'receipts').execute();
  for (const table of ['receipt_lines', 'receipt_orders', 'delivery_order_lines', 'delivery_orders']) {
    await db.schema.dropTable(table).execute();
  }
}
