import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// store_products.stock_version was bumped by triggers on stock_balances (0009): on
// PostgreSQL once per balance statement, on SQLite once per balance row — each an update of
// the store product on top of the posting engine's own stamp of stock_modified_at and the
// latest count/loss/receipt, so a touched store product was written several times per
// request (issue 15). The posting engine now bumps the version in its one update per store
// product and request (ledger/store-product-stamps.ts) and says so to the triggers, which
// then leave it alone; any other writer of balances — an older build still running during an
// upgrade, a repair by hand — does not say so, and its changes still bump the version:
// - PostgreSQL: the transaction-local setting `store_ops.engine_balance_writes` = 'on';
// - SQLite (no session settings): a row in `engine_balance_writes`, inserted and deleted
//   inside the engine's own write transaction — SQLite has one writer at a time, so no other
//   writer ever sees it, and a rolled-back transaction leaves none.

const EVENTS = ['insert', 'update', 'delete'] as const;

async function bumpFunction(db: Kysely<any>, skipForEngine: boolean): Promise<void> {
  await sql`
    create or replace function bump_stock_versions() returns trigger language plpgsql as $$
    begin
      ${sql.raw(skipForEngine ? "if current_setting('store_ops.engine_balance_writes', true) = 'on' then return null; end if;" : '')}
      update store_products sp set stock_version = sp.stock_version + 1
      from (select distinct store_id, product_id from changed_balances) c
      where sp.store_id = c.store_id and sp.product_id = c.product_id;
      return null;
    end
    $$`.execute(db);
}

async function sqliteTriggers(db: Kysely<any>, skipForEngine: boolean): Promise<void> {
  for (const event of EVENTS)
    await sql`drop trigger if exists ${sql.id(`stock_balances_bump_stock_version_${event}`)}`.execute(db);
  const notEngine = skipForEngine ? sql`not exists (select 1 from engine_balance_writes)` : sql`1`;
  await sql`
    create trigger stock_balances_bump_stock_version_insert after insert on stock_balances
    when ${notEngine}
    begin
      update store_products set stock_version = stock_version + 1 where store_id = new.store_id and product_id = new.product_id;
    end`.execute(db);
  await sql`
    create trigger stock_balances_bump_stock_version_update after update on stock_balances
    when ${notEngine} and (old.quantity is not new.quantity or old.store_id is not new.store_id or old.product_id is not new.product_id
      or old.location_id is not new.location_id or old.pool is not new.pool or old.order_key is not new.order_key)
    begin
      update store_products set stock_version = stock_version + 1 where store_id = new.store_id and product_id = new.product_id;
      update store_products set stock_version = stock_version + 1
        where store_id = old.store_id and product_id = old.product_id and (old.store_id is not new.store_id or old.product_id is not new.product_id);
    end`.execute(db);
  await sql`
    create trigger stock_balances_bump_stock_version_delete after delete on stock_balances
    when ${notEngine}
    begin
      update store_products set stock_version = stock_version + 1 where store_id = old.store_id and product_id = old.product_id;
    end`.execute(db);
}

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') return bumpFunction(db, true);
  await db.schema
    .createTable('engine_balance_writes')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .execute();
  await sqliteTriggers(db, true);
}

/** The triggers as 0009 made them. */
export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') return bumpFunction(db, false);
  await sqliteTriggers(db, false);
  await db.schema.dropTable('engine_balance_writes').execute();
}
