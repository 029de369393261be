import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/** A SQLite file opened with the production pragmas (src/db/dialect/sqlite.ts): WAL, synchronous NORMAL. */
export function openRawSqlite(dir: string, name: string): SqliteDatabase.Database {
  const database = new SqliteDatabase(path.join(dir, `${name}.sqlite`));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  return database;
}

/**
 * The CREATE TABLE and CREATE INDEX statements of `table` as the migrations left them in
 * a migrated database, so a raw baseline writes into exactly the same table shape
 * (columns, NOT NULL, UNIQUE, indexes) as the application. Triggers are left out: they
 * are machinery the application chose (e.g. version counters), and what they cost shows
 * on the application's side of the ratio.
 */
export function tableDdl(migratedFile: string, table: string): string[] {
  const source = new SqliteDatabase(migratedFile, { readonly: true });
  try {
    const rows = source
      .prepare(`select sql from sqlite_master where tbl_name = ? and type in ('table', 'index') and sql is not null order by type = 'table' desc, name`)
      .all(table) as Array<{ sql: string }>;
    if (rows.length === 0) throw new Error(`table ${table} not found in ${migratedFile}`);
    return rows.map((row) => row.sql);
  } finally {
    source.close();
  }
}

export function columnsOf(database: SqliteDatabase.Database, table: string): string[] {
  return (database.pragma(`table_info(${table})`) as Array<{ name: string }>).map((column) => column.name);
}
