import type { Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// GET /storeproducts/stock pages a store's products by id (keyset, PRODUCT §3.1): with
// (store_id, id) the page after any scroll_id is one index range, and the count of a
// store's products reads one index range too, at page 500 as at page 1.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('store_products_store_id').on('store_products').columns(['store_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('store_products_store_id').execute();
}
