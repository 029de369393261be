import type { DbHandle } from '../db/connect.js';

/**
 * What every command of `store-ops` (PRODUCT §2) shares: results on stdout, diagnostics on
 * stderr, exit 0 on success, 1 when the work failed (or verify found violations), 2 for bad
 * arguments (a UsageError; src/cli.ts runCli maps errors to exit codes).
 */

/** Bad arguments that commander's own parsing cannot see (exit 2). */
export class UsageError extends Error {}

export const log = (message: string) => process.stderr.write(`${message}\n`);
export const out = (message: string) => process.stdout.write(`${message}\n`);

// The database, config and command modules are imported when a command runs: a usage
// error or --help answers at once instead of first loading every driver and module.
export async function withDatabase<T>(work: (handle: DbHandle) => Promise<T>, migrateFirst = true): Promise<T> {
  const [{ loadConfig }, { createDb }, { migrateToLatest }] = await Promise.all([
    import('../config.js'),
    import('../db/connect.js'),
    import('../db/migrate.js'),
  ]);
  const config = loadConfig();
  const handle = createDb(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  try {
    if (migrateFirst) await migrateToLatest(handle);
    return await work(handle);
  } finally {
    await handle.close();
  }
}
