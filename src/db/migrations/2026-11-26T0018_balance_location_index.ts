import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// stock_balances_location was (store_id, location_id): two of the five columns of the
// balance key. The posting engine reads balances by their exact key, and on PostgreSQL with
// statistics from when the table was small (the first minutes of a new store, before
// autovacuum analyses it again) the planner took this narrower index for those probes, as
// it looked cheaper, and then filtered every balance of the location per key: a 1,000-entry
// post read the balances in ~2 s instead of ~5 ms, and `verify`'s anti-join took 40 s
// (bench stock.spread.pg, first run after warm-up). With product_id as its third column a
// probe through this index is as exact as through the key, whichever one the planner takes;
// the location reads it serves (a store's balances at a location) still use its prefix.
//
// PostgreSQL only: balances are updated in place by every booking (quantity, last_at), and
// none of those columns is indexed, so an update that finds room on its page is a HOT update
// (no index entries written). fillfactor 80 leaves that room on newly filled pages.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema.dropIndex('stock_balances_location').execute();
  await db.schema
    .createIndex('stock_balances_location')
    .on('stock_balances')
    .columns(['store_id', 'location_id', 'product_id'])
    .execute();
  if (dialect === 'postgres') await sql`alter table stock_balances set (fillfactor = 80)`.execute(db);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await sql`alter table stock_balances reset (fillfactor)`.execute(db);
  await db.schema.dropIndex('stock_balances_location').execute();
  await db.schema
    .createIndex('stock_balances_location')
    .on('stock_balances')
    .columns(['store_id', 'location_id'])
    .execute();
}
