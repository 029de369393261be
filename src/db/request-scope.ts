import type { ControlledTransaction } from 'kysely';
import type { Database } from './schema.js';

/** What a request's database work needs to know about the request itself. */
export interface RequestScope {
  /**
   * The request's own transaction (a write with an `Idempotency-Key`, plugins/idempotency.ts):
   * it holds the key's reservation, every write of the request, and finally its answer, and
   * commits only when the answer is stored — so a request either left nothing, or left its
   * effects and the answer a retry replays. `inTransaction` runs inside it, in a savepoint.
   */
  transaction?: ControlledTransaction<Database>;
}
