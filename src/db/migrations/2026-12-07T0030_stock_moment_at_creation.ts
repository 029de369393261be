import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// PRODUCT §3.1 (issue 41): "until its first stock change, a store product's stock moment is
// the moment it was created". A store product created without stock (by the ERP, or by a
// booking whose entries all await review) had no stock_modified_at and no entry, so the ERP's
// delta pull by last_stock_modified_datetime never listed it, not even in a first full pull.
// From now on a store product is stamped with its creation moment when it is inserted
// (modules/store-products/repository.ts, and the engine's own stamp replaces it at the first
// stock change); here the rows stored before get the same: every stamp still missing is the
// creation moment.
//
// The pull finds its never-booked members as the store products created at or after its
// moment (store-stock/repository.ts listedStoreProducts): the index on created_on makes that
// one range read, not a pass over store_products. created_on is never updated, so the index
// costs a booking's stamp nothing (PostgreSQL: the stamp stays a HOT update, migration 0019).
// The change-feed triggers fire on updated_on and deleted_on only (0027): the backfill writes
// no event.

export async function up(db: Kysely<any>, _dialect: MigrationDialect): Promise<void> {
  await sql`update store_products set stock_modified_at = created_on where stock_modified_at is null`.execute(db);
  await db.schema.createIndex('store_products_created_on').on('store_products').columns(['created_on']).execute();
}

export async function down(db: Kysely<any>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.dropIndex('store_products_created_on').execute();
  // Only the stamps that name no booking go back to null: a store product never stamped by the
  // engine (stock_version 0) carries its creation moment.
  await sql`update store_products set stock_modified_at = null where stock_version = 0 and stock_modified_at = created_on`.execute(
    db,
  );
}
