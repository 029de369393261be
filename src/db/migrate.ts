import { Migrator, sql } from 'kysely';
import type { DbHandle } from './dialect/types.js';
import { migrationProvider } from './migrations/index.js';

/** Applies every pending migration; safe to call from several processes at once. */
export async function migrateToLatest(handle: DbHandle): Promise<string[]> {
  if (handle.schema) await sql`create schema if not exists ${sql.id(handle.schema)}`.execute(handle.db);
  const migrator = new Migrator({
    db: handle.db,
    provider: migrationProvider,
    migrationTableSchema: handle.schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the database has every migration this build knows (for /readyz). */
export async function isMigrated(handle: DbHandle): Promise<boolean> {
  const migrator = new Migrator({ db: handle.db, provider: migrationProvider, migrationTableSchema: handle.schema });
  const migrations = await migrator.getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
