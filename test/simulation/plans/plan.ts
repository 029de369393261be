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
  request: {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    url: string;
    body?: unknown;
    who: TokenName;
    headers?: Record<string, string>;
  };
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

/**
 * An order import (deliveries, customer orders) on the store's path, or on the cross-store path
 * with the store named in the body (interface §4.2, §4.3) — the body field is checked like a path.
 */
export function orderImportRequest(
  resource: 'deliveries' | 'customerorders',
  store: string,
  crossStore: boolean,
  body: Record<string, unknown>,
  who: TokenName,
): Plan['request'] {
  return crossStore
    ? { method: 'POST', url: `${API}/orders/${resource}`, body: { orders: [{ ...body, store_number: store }] }, who }
    : { method: 'POST', url: `${API}/stores/${store}/orders/${resource}`, body: { orders: [body] }, who };
}

/** The refusals every order import starts with: the route, the store named (path or body), an unknown store. */
export function orderImportRefusals(
  model: ChainModel,
  who: TokenName,
  store: string,
  crossStore: boolean,
): Array<number | null | false> {
  return [
    model.routeRefusal(who, true, crossStore ? undefined : store),
    crossStore && !model.covers(who, store) && 403,
  ];
}
