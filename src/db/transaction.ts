import type { Transaction } from 'kysely';
import type { DbHandle } from './dialect/types.js';
import type { Database } from './schema.js';

const MAX_ATTEMPTS = 8;

/** status_code of an idempotency key whose request committed but whose response is not stored yet. */
export const APPLIED_WITHOUT_RESPONSE = 0;

/**
 * Runs `work` in one transaction, retrying it whole when the database reports a
 * serialization failure, a deadlock or a busy SQLite file, so concurrent writers on
 * the same rows see a retry inside the service, never a 500. `work` must only await
 * the database (ENGINEERING.md), so re-running it is safe.
 */
export async function inTransaction<T>(handle: DbHandle, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const scope = handle.requestScope;
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await handle.db.transaction().execute(async (trx) => {
        // The request's Idempotency-Key is marked "applied" in the same transaction as
        // its writes: if the process dies before the response is stored, a retry can
        // never apply the request a second time (plugins/idempotency.ts).
        if (scope?.idempotency && !scope.appliedMarked) {
          await trx
            .updateTable('idempotency_keys')
            .set({ status_code: APPLIED_WITHOUT_RESPONSE })
            .where('scope', '=', scope.idempotency.scope)
            .where('idempotency_key', '=', scope.idempotency.key)
            .execute();
        }
        return work(trx);
      });
      // Only a committed transaction counts: a commit that failed and is retried must mark again.
      if (scope?.idempotency) scope.appliedMarked = true;
      return result;
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || handle.dialect.classifyError(error) !== 'retryable') throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
    }
  }
}
