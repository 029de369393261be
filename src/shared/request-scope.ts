import { AsyncLocalStorage } from 'node:async_hooks';

/** What a request's database work needs to know about the request itself. */
export interface RequestScope {
  /** The Idempotency-Key reservation of this request, if it has one. */
  idempotency?: { scope: string; key: string };
  /** Set once the reservation has been marked "applied" inside a write transaction. */
  appliedMarked?: boolean;
}

/**
 * Carries the request scope from the route handler into the transactions it runs
 * (db/transaction.ts), without threading it through every service signature. Route
 * handlers run inside `requestScope.run` (plugins/idempotency.ts).
 */
export const requestScope = new AsyncLocalStorage<RequestScope>();
