import { sql, type Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// GET /storeproducts/stock pages a store's products by id (keyset, PRODUCT §3.1). With
// (store_id, id, product_id, deleted_on) the page after any scroll_id is one index range,
// and the count of a store's products reads that index alone, at page 500 as at page 1.
// The few soft-deleted products (hidden from reads) are found through a partial index,
// so the count needs no join with products.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('store_products_store_id')
    .on('store_products')
    .columns(['store_id', 'id', 'product_id', 'deleted_on'])
    .execute();
  await db.schema
    .createIndex('products_deleted')
    .on('products')
    .column('id')
    .where(sql<boolean>`deleted_on is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('products_deleted').execute();
  await db.schema.dropIndex('store_products_store_id').execute();
}
