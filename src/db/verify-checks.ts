import type { VerifyCheck } from './verify-types.js';
import { isMigrated } from './migrate.js';

/** The database is migrated to this build's version (every other check assumes its tables). */
export const MIGRATION_CHECKS: VerifyCheck[] = [
  {
    name: 'migrations',
    async run(handle) {
      return (await isMigrated(handle))
        ? []
        : [{ check: 'migrations', detail: 'the database is not migrated to this version' }];
    },
  },
];
