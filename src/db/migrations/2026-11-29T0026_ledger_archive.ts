import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 28: old months of the ledger can be archived on PostgreSQL (`store-ops ledger archive
// --before <month>`, ledger/archive.ts): their partitions are detached, to be dumped and
// dropped, and what they added up to stays behind as a snapshot per balance at the boundary.
// - `stock_ledger_snapshots`: per balance, every posting before the latest archive boundary
//   summed into postings of its own: the level as one delta at the balance's last moment before
//   the boundary, and its last count as a zero-delta count at its moment. An archive moves the
//   snapshot it replaces to `stock_ledger_snapshot_history`, where it stays so each archived
//   month can still be checked against the snapshots on either side of it.
// - The view `stock_ledger` reads the snapshot's rows as postings (id 0, no entry). So the
//   ledger still adds up to every balance, still gives each balance's latest moment and count,
//   and an external count still sums a balance up to a moment; verify, the engine and every
//   other reader go on reading one ledger. The engine reads only moments after the boundary (an
//   entry before it is refused), where no snapshot row lies. The snapshot's rows come out of
//   its primary key (balance, moment, seq, kind) in (at, id) order, and its branch of the view
//   selects plain columns with no condition, so PostgreSQL still merges the branches in that
//   order without a sort (a branch with constants or a subquery is not flattened).
// - `ledger_archives`: one row per archive: the boundary, when, what it moved out.
// - `stock_stamps_archived`: per store product whose stock stamp (stock_modified_at) names an
//   entry the archive moved out, that stamp: the stamp check and the ERP's delta pull (which
//   find a stamp's store product through its entries) read it where the entry is gone.
// - `receipt_lines.log_at`: the moment of the line's entry. With the id it is the entry's
//   primary key on PostgreSQL since migration 0025 (so the join prunes to the entry's month),
//   and it tells a line whose entry was archived from a line whose entry is lost.
// Same schema on both databases; SQLite (one file) never archives, so its snapshots stay empty.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  // The columns the view's other branches read, as plain columns (seq always 0, log_id, counted
  // and expected always null: nulls take no space).
  for (const table of ['stock_ledger_snapshots', 'stock_ledger_snapshot_history']) {
    await db.schema
      .createTable(table)
      .addColumn('boundary_at', 'bigint', (col) => col.notNull())
      .addColumn('balance_id', 'bigint', (col) => col.notNull())
      .addColumn('at', 'bigint', (col) => col.notNull())
      .addColumn('seq', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('is_count', 'integer', (col) => col.notNull())
      .addColumn('log_id', 'bigint')
      .addColumn('delta', 'bigint', (col) => col.notNull())
      .addColumn('counted', 'bigint')
      .addColumn('expected', 'bigint')
      .addPrimaryKeyConstraint(
        `${table}_pkey`,
        table === 'stock_ledger_snapshots'
          ? ['balance_id', 'at', 'seq', 'is_count']
          : ['boundary_at', 'balance_id', 'at', 'seq', 'is_count'],
      )
      .execute();
  }
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
  await sql`update receipt_lines set log_at = (select s.modification_at from stock_logs s where s.id = receipt_lines.log_id)`.execute(
    db,
  );

  await sql`drop view stock_ledger`.execute(db);
  await sql`create view stock_ledger as
  select id, log_id, balance_id, at, delta, is_count, counted, expected from (
    select id, id as log_id, balance_id, modification_at as at, delta, is_count, counted_quantity as counted, expected from stock_logs
    union all
    select seq as id, log_id, balance_id, at, delta, is_count, counted, expected from stock_log_parts
    union all
    select seq as id, log_id, balance_id, at, delta, is_count, counted, expected from stock_ledger_snapshots
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
  await db.schema.dropTable('stock_ledger_snapshot_history').execute();
  await db.schema.dropTable('stock_ledger_snapshots').execute();
}
