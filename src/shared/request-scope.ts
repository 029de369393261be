/** What a request's database work needs to know about the request itself. */
export interface RequestScope {
  /** The Idempotency-Key reservation of this request, if it has one. */
  idempotency?: { scope: string; key: string };
  /** Set once the reservation has been marked "applied" inside a write transaction. */
  appliedMarked?: boolean;
}
