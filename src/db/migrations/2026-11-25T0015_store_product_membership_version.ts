import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// A version per store of which store products it has (`store_product_versions`): bumped by
// the database when a store product is inserted or deleted, or soft-deleted or restored —
// never by the stock bookkeeping updates every stock write makes. Per store, so writers
// creating store products in different stores never queue on one row (a single global
// version row serialised them: found by the stock.spread.pg bench). The exact total_count of
// GET /storeproducts/stock is kept while the versions of its stores hold
// (store-stock/count-cache.ts) instead of counting a store's products on every page.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('store_product_versions')
    .addColumn('store_id', 'bigint', (col) => col.primaryKey())
    .addColumn('version', 'bigint', (col) => col.notNull())
    .execute();
  if (dialect === 'postgres') {
    // Statement-level with the changed rows at hand: an `insert … on conflict do nothing` that
    // inserts nothing (every stock post's ensureStoreProducts) writes no version; stores in
    // key order, so two statements bumping the same stores cannot deadlock.
    await sql`
      create or replace function bump_store_product_versions() returns trigger language plpgsql as $$
      begin
        insert into store_product_versions (store_id, version)
        select distinct store_id, 1 from changed_rows order by store_id
        on conflict (store_id) do update set version = store_product_versions.version + 1;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger store_products_membership_insert after insert on store_products
      referencing new table as changed_rows
      for each statement execute function bump_store_product_versions()`.execute(db);
    await sql`
      create trigger store_products_membership_delete after delete on store_products
      referencing old table as changed_rows
      for each statement execute function bump_store_product_versions()`.execute(db);
    await sql`
      create or replace function bump_store_product_version_row() returns trigger language plpgsql as $$
      begin
        insert into store_product_versions (store_id, version) values (new.store_id, 1)
        on conflict (store_id) do update set version = store_product_versions.version + 1;
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger store_products_membership_soft_delete after update of deleted_on on store_products
      for each row when (old.deleted_on is distinct from new.deleted_on)
      execute function bump_store_product_version_row()`.execute(db);
    return;
  }
  const bump = (store: string) => sql`
      insert or ignore into store_product_versions (store_id, version) values (${sql.raw(store)}, 0);
      update store_product_versions set version = version + 1 where store_id = ${sql.raw(store)};`;
  await sql`create trigger store_products_membership_insert after insert on store_products begin ${bump('new.store_id')} end`.execute(
    db,
  );
  await sql`create trigger store_products_membership_delete after delete on store_products begin ${bump('old.store_id')} end`.execute(
    db,
  );
  await sql`
    create trigger store_products_membership_soft_delete after update of deleted_on on store_products
    when old.deleted_on is not new.deleted_on
    begin ${bump('new.store_id')} end`.execute(db);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  for (const name of [
    'store_products_membership_insert',
    'store_products_membership_delete',
    'store_products_membership_soft_delete',
  ]) {
    if (dialect === 'postgres') await sql`drop trigger if exists ${sql.id(name)} on store_products`.execute(db);
    else await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  }
  if (dialect === 'postgres') {
    await sql`drop function if exists bump_store_product_versions()`.execute(db);
    await sql`drop function if exists bump_store_product_version_row()`.execute(db);
  }
  await db.schema.dropTable('store_product_versions').execute();
}
