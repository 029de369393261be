import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 28: old months of the ledger can be archived on PostgreSQL (`store-ops ledger archive
// --before <month>`, ledger/archive.ts): their partitions are detached, to be dumped and
// dropped, and what they added up to stays behind as a snapshot per balance at the boundary.
// - `stock_ledger_snapshots`: per archive boundary and balance, the level at the boundary
//   (every posting before it), its latest moment and latest count's moment. Only the latest
//   boundary's rows count; older ones stay so each archived month can still be checked
//   against the snapshots on either side of it.
// - The view `stock_ledger` reads the latest snapshot as postings: the level as one delta at
//   the balance's last moment before the boundary, and its last count as a zero delta. So the
//   ledger still adds up to every balance and still gives each balance's latest moment and
//   count, and `verify`, the engine and every other reader go on reading one ledger. The
//   engine reads only moments after the boundary (an entry before it is refused), where no
//   snapshot row lies.
// - `ledger_archives`: one row per archive: the boundary, when, what it moved out.
// - `stock_stamps_archived`: per store product whose stock stamp (stock_modified_at) names an
//   entry the archive moved out, that stamp: the stamp check and the ERP's delta pull (which
//   find a stamp's store product through its entries) read it where the entry is gone.
// - `receipt_lines.log_at`: the moment of the line's entry. With the id it is the entry's
//   primary key on PostgreSQL since migration 0025 (so the join prunes to the entry's month),
//   and it tells a line whose entry was archived from a line whose entry is lost.
// Same schema on both databases; SQLite (one file) never archives, so its snapshots stay empty.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('stock_ledger_snapshots')
    .addColumn('boundary_at', 'bigint', (col) => col.notNull())
    .addColumn('balance_id', 'bigint', (col) => col.notNull())
    .addColumn('quantity', 'bigint', (col) => col.notNull())
    .addColumn('last_at', 'bigint', (col) => col.notNull())
    .addColumn('last_count_at', 'bigint')
    .addPrimaryKeyConstraint('stock_ledger_snapshots_pkey', ['boundary_at', 'balance_id'])
    .execute();
  await db.schema
    .createTable('ledger_archives')
    .addColumn('boundary_at', 'bigint', (col) => col.primaryKey())
    .addColumn('archived_on', 'bigint', (col) => col.notNull())
    .addColumn('archived_by', 'text', (col) => col.notNull())
    .addColumn('entries', 'bigint', (col) => col.notNull())
    .addColumn('parts', 'bigint', (col) => col.notNull())
    .addColumn('balances', 'bigint', (col) => col.notNull())
    .addColumn('tables', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('stock_stamps_archived')
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull())
    .addColumn('stamp', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('stock_stamps_archived_pkey', ['store_id', 'product_id'])
    .execute();
  await db.schema.createIndex('stock_stamps_archived_stamp').on('stock_stamps_archived').column('stamp').execute();
  await db.schema.alterTable('receipt_lines').addColumn('log_at', 'bigint').execute();
  await sql`update receipt_lines set log_at = (select s.modification_at from stock_logs s where s.id = receipt_lines.log_id)`.execute(db);

  await sql`drop view stock_ledger`.execute(db);
  await sql`create view stock_ledger as
  select id, log_id, balance_id, at, delta, is_count, counted, expected from (
    select id, id as log_id, balance_id, modification_at as at, delta, is_count, counted_quantity as counted, expected from stock_logs
    union all
    select seq as id, log_id, balance_id, at, delta, is_count, counted, expected from stock_log_parts
    union all
    select 0 as id, null as log_id, balance_id, last_at as at, quantity as delta, 0 as is_count, null as counted, null as expected
      from stock_ledger_snapshots where boundary_at = (select max(boundary_at) from ledger_archives)
    union all
    select 0 as id, null as log_id, balance_id, last_count_at as at, 0 as delta, 1 as is_count, null as counted, null as expected
      from stock_ledger_snapshots where boundary_at = (select max(boundary_at) from ledger_archives) and last_count_at is not null
  ) postings
  where balance_id is not null`.execute(db);
  if (dialect === 'postgres') await sql`analyze receipt_lines`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view stock_ledger`.execute(db);
  await sql`create view stock_ledger as
  select id, log_id, balance_id, at, delta, is_count, counted, expected from (
    select id, id as log_id, balance_id, modification_at as at, delta, is_count, counted_quantity as counted, expected from stock_logs
    union all
    select seq as id, log_id, balance_id, at, delta, is_count, counted, expected from stock_log_parts
  ) postings
  where balance_id is not null`.execute(db);
  await db.schema.alterTable('receipt_lines').dropColumn('log_at').execute();
  await db.schema.dropTable('stock_stamps_archived').execute();
  await db.schema.dropTable('ledger_archives').execute();
  await db.schema.dropTable('stock_ledger_snapshots').execute();
}
