import type { Command } from 'commander';
import type { DbHandle } from '../db/connect.js';
import { out, withDatabase } from './common.js';

const migrateToLatestNamed = async (handle: DbHandle) => (await import('../db/migrate.js')).migrateToLatest(handle);

/** `store-ops migrate`. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      // Not migrated beforehand, so the migrations this run applies are the ones it reports.
      const applied = await withDatabase(migrateToLatestNamed, false);
      out(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
    });
}
