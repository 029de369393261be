import type { Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database } from '../../db/schema.js';
import type { PoolNumber } from '../../domain/stock-rules.js';
import type { FieldError } from '../../shared/validation.js';
import { lockBalanceKeys } from '../../ledger/postings.js';
import type { BookingLocation } from '../../ledger/types.js';
import { managedOrderNumbers } from './repository.js';
import type { OrderLineRow } from './rows.js';

/**
 * Order-bound stock is never stranded (PRODUCT §5; docs/customer-orders.md "Bound stock").
 * One rule decides who may move stock bound under an order number in a store:
 *
 * - Stock is bound under the order NUMBER (the balance's order_key), whatever books it.
 * - While the store has no customer order of that number, stock log entries and movements
 *   bind and release it freely (an ERP may reserve stock before it sends the order).
 * - Once the order exists, only its own operations move that stock — picking, lowering a
 *   pick, rejection, cancel, clearance; an entry, movement or review approval naming it is a
 *   422 (orderNumberErrors). The check and the order's creation take the same turn on the
 *   number, so an entry cannot slip in between a check and an import.
 * - Closing the order settles every balance bound under its number in its store, whatever
 *   booked it (takeBoundBalances, boundBeyondPicks): clearance books it all out, rejection
 *   and cancel release it all to free stock. A closed order therefore has nothing bound, and
 *   nothing can bind to it again — verify checks exactly that, plus that the lines' picks
 *   are what picking booked (verify-checks.ts).
 */

/** `source` of the entries the order's own operations book; the verify check counts picks by it. */
export const SOURCE_PICKING = 'customer_order_picking';
export const SOURCE_CLEARANCE = 'customer_order_clearance';
export const SOURCE_RELEASE = 'customer_order_release';
/** Not for other posts (422, ledger/intake.ts): verify tells picks by them. */
export const ORDER_SOURCES: ReadonlySet<string> = new Set([SOURCE_PICKING, SOURCE_CLEARANCE, SOURCE_RELEASE]);

const orderTurnKey = (orderNumber: string) => `customer-order|${orderNumber}`;

/**
 * Takes the turn of each order number until the transaction ends (dialect lockInTurn): an
 * order import and a stock post naming the same number run one after the other, so the post
 * either sees the order (422) or commits its bound stock before the order exists.
 */
export async function lockOrderNumbers(
  trx: Transaction<Database>,
  dialect: Dialect,
  orderNumbers: readonly string[],
): Promise<void> {
  if (orderNumbers.length === 0) return;
  await dialect.lockInTurn(trx, [...new Set(orderNumbers)].map(orderTurnKey));
}

/**
 * A stock post (entry, movement side, review approval) naming a customer order of the store:
 * 422 naming it — that order's stock moves only by its own operations. Numbers with no order
 * in the store bind stock under that number, released by the same means (PRODUCT §5).
 */
export async function orderNumberErrors(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  refs: ReadonlyArray<{ orderNumber: string | null | undefined; path: string }>,
): Promise<FieldError[]> {
  const named = refs.filter((ref): ref is { orderNumber: string; path: string } => !!ref.orderNumber);
  if (named.length === 0) return [];
  await lockOrderNumbers(
    trx,
    dialect,
    named.map((ref) => ref.orderNumber),
  );
  const managed = await managedOrderNumbers(
    trx,
    storeId,
    named.map((ref) => ref.orderNumber),
  );
  return named
    .filter((ref) => managed.has(ref.orderNumber))
    .map((ref) => ({
      path: ref.path,
      message: `'${ref.orderNumber}' is a customer order of this store: its stock moves only by picking, rejection, cancel and clearance`,
    }));
}

/** A non-zero balance bound under an order number in a store. */
export interface BoundBalance {
  productId: number;
  /** 0 = unlocated (where picks are bound). */
  locationId: number;
  location: BookingLocation | undefined;
  pool: PoolNumber;
  quantityMilli: number;
}

/**
 * Every non-zero balance bound under the order's number in its store, whatever booked it,
 * taken in turn and then read: nobody changes them before this transaction books them.
 * Found through the entries naming the number (the partial index on
 * stock_logs.customer_order_number), then by the balance key's (store, product) prefix.
 */
export async function takeBoundBalances(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  orderNumber: string,
): Promise<BoundBalance[]> {
  const read = () =>
    trx
      .selectFrom('stock_balances as b')
      .leftJoin('locations as l', 'l.id', 'b.location_id')
      .select(['b.product_id', 'b.location_id', 'l.location_code', 'l.default_stock_pool', 'b.pool', 'b.quantity'])
      .where('b.store_id', '=', storeId)
      .where('b.order_key', '=', orderNumber)
      .where('b.quantity', '<>', 0)
      .where('b.product_id', 'in', (eb) =>
        eb
          .selectFrom('stock_logs as s')
          .select('s.product_id')
          .where('s.customer_order_number', '=', orderNumber)
          .where('s.store_id', '=', storeId),
      )
      .orderBy('b.product_id')
      .orderBy('b.location_id')
      .orderBy('b.pool')
      .execute();
  const seen = await read();
  if (seen.length === 0) return [];
  await lockBalanceKeys(
    trx,
    dialect,
    seen.map((row) => ({
      storeId,
      productId: Number(row.product_id),
      locationId: Number(row.location_id),
      pool: row.pool,
      orderKey: orderNumber,
    })),
  );
  // Read again in turn: a concurrent writer (a stock reset) may have moved them meanwhile.
  return (await read()).map((row) => ({
    productId: Number(row.product_id),
    locationId: Number(row.location_id),
    location:
      Number(row.location_id) === 0 || row.location_code === null
        ? undefined
        : { id: Number(row.location_id), location_code: row.location_code, default_stock_pool: row.default_stock_pool },
    pool: row.pool as PoolNumber,
    quantityMilli: Number(row.quantity),
  }));
}

/** Bound stock that the lines' picks do not account for, per balance (signed thousandths). */
export interface BoundRemainder {
  productId: number;
  location: BookingLocation | undefined;
  pool: PoolNumber;
  quantityMilli: number;
}

/**
 * What closing an order books besides its lines' picks (pure): each bound balance's level
 * minus the picks bound there (picks are bound unlocated, in the line's pool). Stock bound by
 * entries before the order was imported, or a pick balance a stock reset moved, shows here;
 * settling picks and remainders leaves every balance under the number at zero.
 */
export function boundBeyondPicks(lines: readonly OrderLineRow[], bound: readonly BoundBalance[]): BoundRemainder[] {
  const keyOf = (productId: number, locationId: number, pool: number) => `${productId}|${locationId}|${pool}`;
  const rest = new Map<string, BoundRemainder>();
  for (const balance of bound) {
    rest.set(keyOf(balance.productId, balance.locationId, balance.pool), {
      productId: balance.productId,
      location: balance.location,
      pool: balance.pool,
      quantityMilli: balance.quantityMilli,
    });
  }
  for (const line of lines) {
    const picked = Number(line.picked_quantity);
    if (picked === 0) continue;
    const key = keyOf(line.product_id, 0, line.stock_pool);
    const remainder = rest.get(key) ?? {
      productId: line.product_id,
      location: undefined,
      pool: line.stock_pool as PoolNumber,
      quantityMilli: 0,
    };
    remainder.quantityMilli -= picked;
    rest.set(key, remainder);
  }
  return [...rest.values()].filter((remainder) => remainder.quantityMilli !== 0);
}
