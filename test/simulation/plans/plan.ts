import type { Kysely } from 'kysely';
import type { Database } from '../../../src/db/schema.js';
import type { ChainModel } from '../model.js';
import { MAX_EXACT } from '../model.js';
import { PRODUCTS, STORES, type StoreNo, type TokenName } from '../chain.js';

/**
 * What every planner returns (issue 26): the request a client sends for an action, the
 * answer the model predicts, and the change the accepted request makes to the model.
 */
/**
 * Turns an action into the request a client sends and what the model says must follow
 * (issue 26). `expect` lists the statuses the rules allow (more than one only where PRODUCT.md
 * leaves the order of two refusals open); `commit` changes the model as the accepted request
 * must have changed the service, given its answer.
 */
export interface Plan {
  label: string;
  request: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; body?: unknown; who: TokenName; headers?: Record<string, string> };
  expect: number[];
  commit?: (model: ChainModel, answer: { status: number; json: unknown }) => void;
  /** A read whose answer the model checks. */
  check?: (model: ChainModel, answer: { status: number; json: unknown }) => string | undefined;
  /** A read whose figures are checked against the stored records themselves (not the model). */
  audit?: (db: Kysely<Database>, answer: { status: number; json: unknown }) => Promise<string | undefined>;
}

export const API = '/api/v2/public';

/** What a sequence remembers between steps that is not the chain's state. */
export interface SequenceContext {
  deliveries: number;
  orders: number;
  step: number;
  /** The last write sent with an Idempotency-Key whose answer the service keeps. */
  lastKeyed?: { plan: Plan; status: number; body: string };
}

export const productName = (index: number) => (index < PRODUCTS.length ? PRODUCTS[index]! : 'P9');

/** Refusals in the order the service makes them: the route's guard, then validation, then the rest. */
export function firstOf(...checks: Array<number | null | false | undefined>): number | null {
  for (const check of checks) if (typeof check === 'number') return check;
  return null;
}

/**
 * The request's effects applied to a copy, in arrival order: every balance must stay in range
 * after each booking (with the levels its counts expected), and each touched store product's
 * balances added up by size at the end (docs/stock.md "Exact sums").
 */
export function rangeRefusal(model: ChainModel, effects: (m: ChainModel) => string[]): number | null {
  const copy = model.clone();
  let broken = false;
  copy.onBook = (key) => {
    if (!copy.balanceInRange(key)) broken = true;
  };
  const touched = effects(copy);
  return broken || copy.magnitudeOutOfRange(touched).length > 0 ? 422 : null;
}

/** PRODUCT §3: a stored sum stays where it is exact. */
export const inExactRange = (milli: bigint) => milli <= MAX_EXACT && milli >= -MAX_EXACT;

export function pickOther(store: string, index: number): StoreNo {
  const others = STORES.filter((s) => s !== store);
  return others[index % others.length]!;
}
