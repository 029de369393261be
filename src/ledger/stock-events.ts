import type { Transaction } from 'kysely';
import { insertMany } from '../db/insert-many.js';
import type { Dialect } from '../db/dialect/types.js';
import type { Database } from '../db/schema.js';
import { fromScaled } from '../domain/decimal.js';

/** What names a balance in its event (postings.ts BalanceKey has these and the store). */
export interface ChangedBalance {
  productId: number;
  /** 0: no location. */
  locationId: number;
  pool: number;
  /** '': not bound to a customer order. */
  orderKey: string;
}

/** One balance a booking moved: its key, the level it leaves, the entries that moved it (in booking order). */
export interface BalanceChange {
  key: ChangedBalance;
  storeNumber: string;
  quantityMilli: number;
  logIds: readonly number[];
}

/** Natural keys of the products and locations the changes name, as the booking's own rows carry them. */
export interface ChangeNames {
  productNumbers: Map<number, string>;
  locationCodes: Map<number, string>;
}

const EVENT_COLUMNS = ['type', 'store_number', 'occurred_at', 'data'];

/**
 * `stock.changed`, one per balance the booking moved (PRODUCT §9), written in the booking's
 * transaction after its balances' turns are taken, so that two bookings of one balance write
 * their events in their commit order (dialect/postgres-events.ts). Natural keys come from the
 * booking's own rows; an approval, which has none, reads the few it lacks.
 */
export async function writeStockEvents(
  trx: Transaction<Database>,
  dialect: Dialect,
  changes: readonly BalanceChange[],
  names: ChangeNames,
): Promise<void> {
  if (changes.length === 0) return;
  await readMissingNames(trx, changes, names);
  // The clock now, not the request's start: the end of the booking, next to its commit, as the
  // triggers' events of the same transaction are stamped (PostgreSQL's sequencer stamps it again).
  const occurredAt = Date.now();
  const rows = changes.map((change) => [
    'stock.changed',
    change.storeNumber,
    occurredAt,
    JSON.stringify({
      product_number: names.productNumbers.get(change.key.productId)!,
      location_code: change.key.locationId === 0 ? null : names.locationCodes.get(change.key.locationId)!,
      pool: change.key.pool,
      customer_order_number: change.key.orderKey === '' ? null : change.key.orderKey,
      quantity: fromScaled(change.quantityMilli, 3),
      log_entry_ids: change.logIds,
    }),
  ]);
  await insertMany(trx, dialect, 'events', EVENT_COLUMNS, rows);
}

async function readMissingNames(
  trx: Transaction<Database>,
  changes: readonly BalanceChange[],
  names: ChangeNames,
): Promise<void> {
  const products = [...new Set(changes.map((c) => c.key.productId).filter((id) => !names.productNumbers.has(id)))];
  const locations = [
    ...new Set(changes.map((c) => c.key.locationId).filter((id) => id !== 0 && !names.locationCodes.has(id))),
  ];
  if (products.length > 0) {
    for (const row of await trx
      .selectFrom('products')
      .select(['id', 'product_number'])
      .where('id', 'in', products)
      .execute()) {
      names.productNumbers.set(Number(row.id), row.product_number);
    }
  }
  if (locations.length > 0) {
    for (const row of await trx
      .selectFrom('locations')
      .select(['id', 'location_code'])
      .where('id', 'in', locations)
      .execute()) {
      names.locationCodes.set(Number(row.id), row.location_code);
    }
  }
}
