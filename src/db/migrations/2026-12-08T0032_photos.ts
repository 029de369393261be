import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 43, loss photos (docs/photos.md): a photo taken with a loss or damage entry, named by
// the SHA-256 of its bytes within its store. A stock log entry's `loss_image` holds the
// photo's path; the photo itself lives here.
// - Primary key (store_number, sha256): the key the path names, led by the store, so the
//   table can be distributed by store like every store-scoped table. No foreign key to
//   `stores`: the service checks the store on upload, and a photo stays readable as long as
//   the entries that name it, whatever becomes of the store record.
// - `bytes`: the image as sent, a BLOB on SQLite and bytea on PostgreSQL (both drivers read
//   and write a Node Buffer, so nothing else differs). `byte_size` is kept beside it, so the
//   daily quota sums sizes without reading a single image.
// - Immutable: no updated_on / modified_by; `created_on` (epoch ms) and `created_by` (the
//   token's name) are its audit columns (PRODUCT §3 Audit).
// - Index (store_number, created_on): the quota's sum of one store's photos of one day.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('photos')
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (col) => col.notNull())
    .addColumn('byte_size', 'integer', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('photos_pkey', ['store_number', 'sha256'])
    .execute();
  await db.schema.createIndex('photos_store_created').on('photos').columns(['store_number', 'created_on']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('photos').execute();
}
