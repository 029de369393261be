import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026-11-22T0001_foundation.js';

/**
 * The explicit, ordered list of migrations. Names sort in time order; Kysely applies
 * the ones a database has not seen yet, in this order.
 */
const migrations: Record<string, Migration> = {
  '2026-11-22T0001_foundation': foundation,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
