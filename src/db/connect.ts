import { openPostgres } from './dialect/postgres.js';
import { openSqlite } from './dialect/sqlite.js';
import type { DbHandle } from './dialect/types.js';
import type { SqliteSynchronous } from '../config.js';

export type { DbHandle } from './dialect/types.js';

/** Opens the database a DATABASE_URL names (PRODUCT §2 forms). */
export function createDb(
  url: string,
  options: { sqliteSynchronous?: SqliteSynchronous; readUrl?: string; readMaxLagSeconds?: number } = {},
): DbHandle {
  if (options.readUrl && !(url.startsWith('postgres://') || url.startsWith('postgresql://'))) {
    throw new Error('DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (standbys of its primary)');
  }
  if (url.startsWith('sqlite:')) return openSqlite(url, options.sqliteSynchronous ?? 'FULL');
  if (url.startsWith('postgres://') || url.startsWith('postgresql://'))
    return openPostgres(url, { readUrl: options.readUrl, maxLagSeconds: options.readMaxLagSeconds });
  throw new Error(`Unsupported DATABASE_URL (expected sqlite:<path>, sqlite::memory: or postgres://…): ${url}`);
}
