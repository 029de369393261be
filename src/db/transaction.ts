import type { Transaction } from 'kysely';
import type { DbHandle } from './dialect/types.js';
import type { Database } from './schema.js';

const MAX_ATTEMPTS = 8;

/**
 * Runs `work` in one transaction, retrying it whole when the database reports a
 * serialization failure, a deadlock or a busy SQLite file, so concurrent writers on
 * the same rows see a retry inside the service, never a 500. `work` must only await
 * the database (ENGINEERING.md), so re-running it is safe.
 */
export async function inTransaction<T>(handle: DbHandle, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.db.transaction().execute(work);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || handle.dialect.classifyError(error) !== 'retryable') throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
    }
  }
}
