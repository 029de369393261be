import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.

// External counting lines whose barcode matched no product (PRODUCT §5): kept so an
// operator can see and fix them; they never fail the batch.
export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await withId(dialect, db.schema.createTable('unresolved_counting_lines'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('barcode', 'text', (col) => col.notNull())
    .addColumn('counted_quantity', 'bigint', (col) => col.notNull())
    .addColumn('counting_at', 'bigint', (col) => col.notNull())
    .addColumn('received_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('unresolved_counting_lines_store')
    .on('unresolved_counting_lines')
    .columns(['store_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('unresolved_counting_lines').execute();
}
