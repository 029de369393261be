import type { ControlledTransaction, Transaction } from 'kysely';
import type { DbHandle, Dialect } from './dialect/types.js';
import type { Database } from './schema.js';

const MAX_ATTEMPTS = 8;
/**
 * Attempts of a transaction that hit a unique violation. Writers of one resource take turns
 * (`serialise`), so a violation left is a writer outside that rule racing this one: a second
 * run reads what it committed. One that stays is the request's own (then 409).
 */
const MAX_UNIQUE_ATTEMPTS = 3;

/** What writers take turns on: a table, or a table and the owner its keys are unique within (`locations:12`). */
export type WriterResource = (keyof Database & string) | `${keyof Database & string}:${number}`;

export interface TransactionOptions {
  /**
   * Resources the transaction writes, as `serialiseWriters` names them: their writers take
   * turns from the first statement on, so what this transaction reads of them is still what
   * it writes over (PRODUCT §3 Upserts: overlapping ERP jobs are normal, issue 26).
   */
  serialise?: readonly WriterResource[];
}

/** Resources each open transaction holds the turn of (a repeat request for one costs nothing). */
const turns = new WeakMap<Transaction<Database>, Set<WriterResource>>();

/**
 * Waits for the turn of `resources` and holds it until the transaction ends: writers of the
 * same resource run one after the other, first come, first served (dialect `lockInTurn`:
 * a PostgreSQL transaction-scoped advisory lock per resource, one statement; SQLite's write
 * transaction already excludes every other writer). A resource is a table (`products`), or a
 * table and the owner its keys are unique within (`locations:12`, store id 12). Called at the
 * start of a transaction, before anything of the resource is read (inTransaction
 * `serialise`); upsertByKey calls it for its own table, so no bulk upsert runs unserialised.
 */
export async function serialiseWriters(
  trx: Transaction<Database>,
  dialect: Dialect,
  resources: readonly WriterResource[],
): Promise<void> {
  const held = turns.get(trx);
  const missing = held === undefined ? resources : resources.filter((resource) => !held.has(resource));
  if (missing.length === 0) return;
  await dialect.lockInTurn(
    trx,
    missing.map((resource) => `writers:${resource}`),
  );
  const taken = held ?? new Set<WriterResource>();
  for (const resource of missing) taken.add(resource);
  turns.set(trx, taken);
}

/**
 * Runs `work` in one transaction, retrying it whole when the database reports a
 * serialization failure, a deadlock or a busy SQLite file, so concurrent writers on
 * the same rows see a retry inside the service, never a 500; a unique violation is
 * retried too (a few times), as under PostgreSQL's read committed it is a concurrent
 * writer's commit this attempt did not read. `work` must only await the database
 * (ENGINEERING.md), so re-running it is safe.
 */
export async function inTransaction<T>(
  handle: DbHandle,
  work: (trx: Transaction<Database>) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const requestTransaction = handle.requestScope?.transaction;
  if (requestTransaction) return inSavepoint(requestTransaction, handle.dialect, work, options);
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.db.transaction().execute(async (trx) => {
        if (options.serialise !== undefined) await serialiseWriters(trx, handle.dialect, options.serialise);
        return work(trx);
      });
    } catch (error) {
      if (!(await retryAfter(handle.dialect, error, attempt))) throw error;
    }
  }
}

/** Whether a failed attempt is run again (after a short random wait): see inTransaction. */
async function retryAfter(dialect: Dialect, error: unknown, attempt: number): Promise<boolean> {
  const kind = dialect.classifyError(error);
  const retry = kind === 'retryable' ? attempt < MAX_ATTEMPTS : kind === 'unique' && attempt < MAX_UNIQUE_ATTEMPTS;
  if (retry) await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
  return retry;
}

let savepoints = 0;

/**
 * The same inside a request's own transaction (RequestScope): the work runs in a savepoint,
 * so a failed attempt is undone alone and run again, and an error leaves the request's
 * transaction as it was before the work (the request then stores its error answer or rolls
 * back whole: plugins/idempotency.ts). Nothing commits here: the request does, with its answer.
 */
async function inSavepoint<T>(
  requestTransaction: ControlledTransaction<Database>,
  dialect: Dialect,
  work: (trx: Transaction<Database>) => Promise<T>,
  options: TransactionOptions,
): Promise<T> {
  const name = `work_${++savepoints}`;
  for (let attempt = 1; ; attempt++) {
    const trx = await requestTransaction.savepoint(name).execute();
    try {
      if (options.serialise !== undefined) await serialiseWriters(trx, dialect, options.serialise);
      const result = await work(trx);
      await trx.releaseSavepoint(name).execute();
      return result;
    } catch (error) {
      // A connection that died cannot roll back: the request's transaction is gone with it.
      await trx
        .rollbackToSavepoint(name)
        .execute()
        .catch(() => undefined);
      if (!(await retryAfter(dialect, error, attempt))) throw error;
    }
  }
}
