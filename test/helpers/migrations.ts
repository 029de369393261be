import type { Kysely } from 'kysely';
import type { DbHandle } from '../../src/db/dialect/types.js';
import { migrationProviderFor } from '../../src/db/migrations/index.js';

/**
 * Takes down, newest first, every migration after `name`: a test of one migration's `down`
 * and `up` runs them on the schema that migration left, whatever came after it.
 */
export async function takeDownLaterThan(handle: DbHandle, name: string, db: Kysely<any> = handle.db): Promise<void> {
  const migrations = await migrationProviderFor(handle.dialect.name).getMigrations();
  const later = Object.keys(migrations)
    .filter((candidate) => candidate > name)
    .sort()
    .reverse();
  for (const candidate of later) await migrations[candidate]!.down!(db);
}

/** Brings up again, oldest first, every migration after `name` (the inverse of takeDownLaterThan). */
export async function bringUpLaterThan(handle: DbHandle, name: string, db: Kysely<any> = handle.db): Promise<void> {
  const migrations = await migrationProviderFor(handle.dialect.name).getMigrations();
  const later = Object.keys(migrations)
    .filter((candidate) => candidate > name)
    .sort();
  for (const candidate of later) await migrations[candidate]!.up(db);
}
