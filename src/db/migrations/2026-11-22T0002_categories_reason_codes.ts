import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withAudit, withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  // Parents are referenced by code, not by a foreign key: a batch may name a parent that
  // comes later in the same request, and soft-deleted parents keep their rows.
  const categories = withId(dialect, db.schema.createTable('categories'))
    .addColumn('category_code', 'text', (col) => col.notNull().unique())
    .addColumn('category_name', 'text', (col) => col.notNull())
    .addColumn('friendly_category_name', 'text')
    .addColumn('parent_category_code', 'text', (col) => col.notNull())
    .addColumn('is_adjust_min_max', 'integer', (col) => col.notNull())
    .addColumn('is_markdown', 'integer', (col) => col.notNull())
    .addColumn('markdown_percentages', 'text')
    .addColumn('expiration_offset', 'integer')
    .addColumn('receipt_offset', 'integer');
  await withAudit(categories).execute();
  await db.schema
    .createIndex('categories_parent_category_code')
    .on('categories')
    .column('parent_category_code')
    .execute();
  await db.schema.createIndex('categories_updated_on').on('categories').column('updated_on').execute();

  let reasonCodes = withId(dialect, db.schema.createTable('reason_codes'))
    .addColumn('reason_code', 'bigint', (col) => col.notNull().unique())
    .addColumn('reason_code_description', 'text', (col) => col.notNull())
    .addColumn('code_description', 'text')
    .addColumn('reason_code_type', 'integer', (col) => col.notNull())
    .addColumn('default_review_status', 'integer', (col) => col.notNull());
  for (const column of [
    'is_comment_mandatory',
    'is_gain',
    'is_image_mandatory',
    'is_loss',
    'is_order_number_mandatory',
    'is_picking_list',
    'is_rollback_allowed',
    'is_sales_order_discount',
    'is_store',
  ]) {
    reasonCodes = reasonCodes.addColumn(column, 'integer', (col) => col.notNull());
  }
  reasonCodes = reasonCodes.addColumn('function_key', 'text').addColumn('store_type', 'text');
  await withAudit(reasonCodes).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['reason_codes', 'categories']) {
    await db.schema.dropTable(table).execute();
  }
}
