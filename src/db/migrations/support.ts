import type { CreateTableBuilder } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time, like the migrations that use these helpers: released migrations build
// their tables with them, so what they add must never change. A migration that needs
// something else writes it itself (or a new helper is added next to these).

/** The surrogate key `id`: an identity bigint on PostgreSQL, an autoincrement integer (the rowid) on SQLite. */
export function withId<T extends string>(dialect: MigrationDialect, table: CreateTableBuilder<T, never>) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement());
}

/**
 * The audit columns of master-data tables (migrations 0001–0004): created/updated moments
 * and users, the soft-delete moment and the content hash. (0011 adds its own, shorter set.)
 */
export function withAudit<T extends string>(table: CreateTableBuilder<T, any>) {
  return table
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('modified_by', 'text', (col) => col.notNull())
    .addColumn('deleted_on', 'bigint')
    .addColumn('content_hash', 'text', (col) => col.notNull());
}
