import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Product lists: the scan lists store staff build on a handheld and the ERP pushes and
// reads (interface §2.1, §4.1; PRODUCT §8). A list belongs to one store; its lines name a
// product of the master (barcode, name, colli… are read from the master, never stored).
// List types and the handheld modules that choose a type are configuration, seeded here
// with defaults and changed with `store-ops productlists …` (docs/product-lists.md).

const DEFAULT_TYPES: Array<[number, string]> = [
  [1, 'Re-order list'],
  [2, 'Shelf-label list'],
  [3, 'Promotion check'],
  [4, 'Counting list'],
  [5, 'Price check'],
];

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('product_list_types')
    .addColumn('type', 'bigint', (col) => col.primaryKey())
    .addColumn('description', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('product_list_modules')
    .addColumn('module_id', 'bigint', (col) => col.primaryKey())
    .addColumn('type', 'bigint', (col) => col.notNull().references('product_list_types.type'))
    .execute();
  await db
    .insertInto('product_list_types')
    .values(DEFAULT_TYPES.map(([type, description]) => ({ type, description })))
    .execute();
  // Module n of the handheld app opens lists of type n by default.
  await db
    .insertInto('product_list_modules')
    .values(DEFAULT_TYPES.map(([type]) => ({ module_id: type, type })))
    .execute();

  await withId(dialect, db.schema.createTable('product_lists'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('type', 'bigint', (col) => col.notNull())
    .addColumn('module_id', 'bigint')
    .addColumn('app_username', 'text', (col) => col.notNull())
    .addColumn('allow_duplicates', 'integer', (col) => col.notNull())
    // JSON array of {key, value}, read back whole.
    .addColumn('free_fields', 'text', (col) => col.notNull())
    .addColumn('archived_on', 'bigint')
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('modified_by', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('product_lists_store').on('product_lists').columns(['store_id', 'id']).execute();

  // Lines are stored in list order under their (list, position) key and nothing else: a
  // list's lines are one contiguous range, read and appended without a secondary index
  // (on SQLite the key is the table itself: WITHOUT ROWID).
  const lines = db.schema
    .createTable('product_list_lines')
    .addColumn('list_id', 'bigint', (col) => col.notNull().references('product_lists.id'))
    // Position in the list, 1-based: lines read in the order they were added.
    .addColumn('line_no', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    // Thousandths, at least 1 (a quantity of 0 is stored as 1 unit).
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('stock_pool', 'integer')
    .addPrimaryKeyConstraint('product_list_lines_pk', ['list_id', 'line_no']);
  await (dialect === 'postgres' ? lines : lines.modifyEnd(sql`without rowid`)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('product_list_lines').execute();
  await db.schema.dropTable('product_lists').execute();
  await db.schema.dropTable('product_list_modules').execute();
  await db.schema.dropTable('product_list_types').execute();
}
