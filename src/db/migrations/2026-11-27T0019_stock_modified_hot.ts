import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// PostgreSQL only. Every stock booking stamps `stock_modified_at` on each store product it
// touches (ledger/store-product-stamps.ts). With that column indexed (store_id,
// stock_modified_at) no stamp could be a HOT update, so each wrote a new entry into all
// six indexes of store_products: ~9 of the ~80 ms of database time of a 1,000-entry post,
// and ~12 % of the entries/s of 8 concurrent writers (issue 15, bench stock.spread.pg).
// Without the index the stamp is HOT wherever its page has room; fillfactor 85 keeps that
// room on pages filled from now on. The one read that used the index, the
// `last_stock_modified_datetime` filter of GET /storeproducts/stock, walks the store's
// products in id order instead (docs/stock.md "Indexes of the write path").
//
// SQLite keeps the index: it has no HOT updates to lose, a stamp there only moves one index
// entry (no measurable part of a post), and without it that filtered pull read ~3 × slower.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema.dropIndex('store_products_stock_modified').execute();
  await sql`alter table store_products set (fillfactor = 85)`.execute(db);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table store_products reset (fillfactor)`.execute(db);
  await db.schema
    .createIndex('store_products_stock_modified')
    .on('store_products')
    .columns(['store_id', 'stock_modified_at'])
    .execute();
}
