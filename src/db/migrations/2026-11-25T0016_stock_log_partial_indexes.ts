import { sql, type Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Most stock log entries carry no reference, reference id or customer order number, yet
// each entry wrote a (null) key into the three indexes on them. Every query on these
// columns is an equality or IN test (stock log filters `reference`, `reference_id`,
// `customer_order_number`; the location products' order lines), which implies the value is
// not null, so both databases use partial indexes over the entries that have one — and an
// entry without one writes nothing to them.

const COLUMNS: Array<[string, string]> = [
  ['stock_logs_reference_id', 'reference_id'],
  ['stock_logs_reference', 'reference'],
  ['stock_logs_customer_order', 'customer_order_number'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [index, column] of COLUMNS) {
    await db.schema.dropIndex(index).execute();
    await db.schema.createIndex(index).on('stock_logs').column(column).where(sql.ref(column), 'is not', null).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [index, column] of COLUMNS) {
    await db.schema.dropIndex(index).execute();
    await db.schema.createIndex(index).on('stock_logs').column(column).execute();
  }
}
