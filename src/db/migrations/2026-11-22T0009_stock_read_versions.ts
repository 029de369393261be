import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Versions that let a process keep what it read of a product's stock and answer from
// memory while nothing it depends on changed (issue 5, single-product stock read):
// - store_products.stock_version: bumped by the database itself (triggers on
//   stock_balances) with every change to the balances of that store product;
// - the `locations` resource version (as in 0007): bumped by the database itself on every
//   insert, update or delete of a location or its tags.
// Triggers rather than application code, so no write path — nor a process still running
// an older build during an upgrade — can change what a cached answer shows unseen.

const LOCATION_TABLES = ['locations', 'location_tags'];

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('store_products')
    .addColumn('stock_version', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.insertInto('resource_versions').values({ resource: 'locations', version: 0 }).execute();
  if (dialect === 'postgres') {
    // bump_resource_version() was created by 0007.
    for (const table of LOCATION_TABLES) {
      await sql`
        create trigger ${sql.id(`${table}_bump_version`)}
        after insert or update or delete on ${sql.id(table)}
        for each statement execute function bump_resource_version('locations')`.execute(db);
    }
    // Once per statement over the balances it changed (a transition table allows one event
    // per trigger, hence three). Balance keys never change, so new rows name them all.
    await sql`
      create or replace function bump_stock_versions() returns trigger language plpgsql as $$
      begin
        update store_products sp set stock_version = sp.stock_version + 1
        from (select distinct store_id, product_id from changed_balances) c
        where sp.store_id = c.store_id and sp.product_id = c.product_id;
        return null;
      end
      $$`.execute(db);
    for (const [event, rows] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql`
        create trigger ${sql.id(`stock_balances_bump_stock_version_${event}`)}
        after ${sql.raw(event)} on stock_balances
        referencing ${sql.raw(rows)} table as changed_balances
        for each statement execute function bump_stock_versions()`.execute(db);
    }
    return;
  }
  // Per row on SQLite; an update that leaves the level as it was (a balance locked for
  // update) changes nothing a reader sees and bumps nothing.
  await sql`
    create trigger stock_balances_bump_stock_version_insert after insert on stock_balances
    begin
      update store_products set stock_version = stock_version + 1 where store_id = new.store_id and product_id = new.product_id;
    end`.execute(db);
  await sql`
    create trigger stock_balances_bump_stock_version_update after update on stock_balances
    when old.quantity is not new.quantity or old.store_id is not new.store_id or old.product_id is not new.product_id
      or old.location_id is not new.location_id or old.pool is not new.pool or old.order_key is not new.order_key
    begin
      update store_products set stock_version = stock_version + 1 where store_id = new.store_id and product_id = new.product_id;
      update store_products set stock_version = stock_version + 1
        where store_id = old.store_id and product_id = old.product_id and (old.store_id is not new.store_id or old.product_id is not new.product_id);
    end`.execute(db);
  await sql`
    create trigger stock_balances_bump_stock_version_delete after delete on stock_balances
    begin
      update store_products set stock_version = stock_version + 1 where store_id = old.store_id and product_id = old.product_id;
    end`.execute(db);
  for (const table of LOCATION_TABLES) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql`
        create trigger ${sql.id(`${table}_bump_version_${event}`)}
        after ${sql.raw(event)} on ${sql.id(table)}
        begin
          update resource_versions set version = version + 1 where resource = 'locations';
        end`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) {
    const name = `stock_balances_bump_stock_version_${event}`;
    if (dialect === 'postgres') await sql`drop trigger if exists ${sql.id(name)} on stock_balances`.execute(db);
    else await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  }
  if (dialect === 'postgres') await sql`drop function if exists bump_stock_versions()`.execute(db);
  for (const table of LOCATION_TABLES) {
    if (dialect === 'postgres')
      await sql`drop trigger if exists ${sql.id(`${table}_bump_version`)} on ${sql.id(table)}`.execute(db);
    else
      for (const event of ['insert', 'update', 'delete'])
        await sql`drop trigger if exists ${sql.id(`${table}_bump_version_${event}`)}`.execute(db);
  }
  await db.deleteFrom('resource_versions').where('resource', '=', 'locations').execute();
  await db.schema.alterTable('store_products').dropColumn('stock_version').execute();
}
