import { sql, type Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// A version of which store products exist (resource `store_products`): bumped by the
// database when a store product is inserted or deleted, or soft-deleted or restored —
// never by the stock bookkeeping updates every stock write makes, so writers do not queue
// on it. The exact total_count of GET /storeproducts/stock is kept while it holds
// (store-stock/count-cache.ts) instead of counting a store's products on every page.

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.insertInto('resource_versions').values({ resource: 'store_products', version: 0 }).execute();
  if (isPostgres(db)) {
    // Statement-level with the inserted rows at hand: an `insert … on conflict do nothing`
    // that inserts nothing (every stock post's ensureStoreProducts) writes no version.
    await sql`
      create or replace function bump_store_product_membership() returns trigger language plpgsql as $$
      begin
        update resource_versions set version = version + 1
        where resource = 'store_products' and exists (select 1 from changed_rows);
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger store_products_membership_insert after insert on store_products
      referencing new table as changed_rows
      for each statement execute function bump_store_product_membership()`.execute(db);
    await sql`
      create trigger store_products_membership_delete after delete on store_products
      referencing old table as changed_rows
      for each statement execute function bump_store_product_membership()`.execute(db);
    await sql`
      create or replace function bump_store_product_membership_row() returns trigger language plpgsql as $$
      begin
        update resource_versions set version = version + 1 where resource = 'store_products';
        return null;
      end
      $$`.execute(db);
    await sql`
      create trigger store_products_membership_soft_delete after update of deleted_on on store_products
      for each row when (old.deleted_on is distinct from new.deleted_on)
      execute function bump_store_product_membership_row()`.execute(db);
    return;
  }
  await sql`
    create trigger store_products_membership_insert after insert on store_products
    begin
      update resource_versions set version = version + 1 where resource = 'store_products';
    end`.execute(db);
  await sql`
    create trigger store_products_membership_delete after delete on store_products
    begin
      update resource_versions set version = version + 1 where resource = 'store_products';
    end`.execute(db);
  await sql`
    create trigger store_products_membership_soft_delete after update of deleted_on on store_products
    when old.deleted_on is not new.deleted_on
    begin
      update resource_versions set version = version + 1 where resource = 'store_products';
    end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['store_products_membership_insert', 'store_products_membership_delete', 'store_products_membership_soft_delete']) {
    if (isPostgres(db)) await sql`drop trigger if exists ${sql.id(name)} on store_products`.execute(db);
    else await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  }
  if (isPostgres(db)) {
    await sql`drop function if exists bump_store_product_membership()`.execute(db);
    await sql`drop function if exists bump_store_product_membership_row()`.execute(db);
  }
  await db.deleteFrom('resource_versions').where('resource', '=', 'store_products').execute();
}
