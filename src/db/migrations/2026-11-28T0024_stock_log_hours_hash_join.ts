import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// The statement trigger that keeps stock_log_hours (migration 0020) pairs an update's old
// and new rows by id to see whether any entry moved to another hour (`exists`). PostgreSQL
// plans an `exists` for its first match, as a nested loop over the transition tables (which
// have no index): when no entry moved — a repair, a column filled in, migration 0022 — it
// compared every pair. Quadratic in the rows one statement updates: 10,000 rows 19.4 s,
// 20,000 112 s, 40,000 451 s, so a large update would hold its locks for hours. The function
// now runs with nested loops off, so the pairing is a hash join: 10,000 rows in 0.26 s.
// SQLite's triggers are per row and unaffected.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await sql`alter function count_stock_log_hours() set enable_nestloop = off`.execute(db);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await sql`alter function count_stock_log_hours() reset enable_nestloop`.execute(db);
}
