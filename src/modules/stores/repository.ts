import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { inStores, newestUpdatedOn, pageOf, type PageSlice, type StoreScope } from '../../db/page.js';
import type { Database, Executor } from '../../db/schema.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { StoreRow } from './rows.js';

export interface StoreFilters {
  isWarehouse?: boolean;
  searchText?: string;
  secondaryKey?: string;
  /** The stores the list answers for (PRODUCT §4, shared/access.ts listScope). */
  scope: StoreScope;
}

function applyFilters<O>(query: SelectQueryBuilder<Database, 'stores', O>, dialect: Dialect, filters: StoreFilters) {
  let filtered = inStores(query, 'store_number', filters.scope).where('deleted_on', 'is', null);
  if (filters.isWarehouse !== undefined) filtered = filtered.where('is_warehouse', '=', filters.isWarehouse ? 1 : 0);
  if (filters.secondaryKey !== undefined) filtered = filtered.where('secondary_key', '=', filters.secondaryKey);
  if (filters.searchText !== undefined && filters.searchText !== '') {
    const text = filters.searchText;
    filtered = filtered.where((eb) =>
      eb.or([
        dialect.containsInsensitive(eb.ref('store_number'), text),
        dialect.containsInsensitive(eb.ref('store_name'), text),
        dialect.containsInsensitive(eb.ref('city'), text),
      ]),
    );
  }
  return filtered;
}

export async function countStores(db: Kysely<Database>, dialect: Dialect, filters: StoreFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('stores'), dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfStores(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: StoreFilters,
  window: PageSlice,
): Promise<StoreRow[]> {
  return pageOf(applyFilters(db.selectFrom('stores').selectAll(), dialect, filters), 'id', window).execute();
}

/** Newest updated_on of any store the list answers for, deleted ones included (PRODUCT §3.1 project_last_modified_date). */
export function storesLastModified(db: Kysely<Database>, filters: StoreFilters): Promise<number | null> {
  return newestUpdatedOn(inStores(db.selectFrom('stores'), 'store_number', filters.scope), 'updated_on');
}

/**
 * A store of this service, live or soft-deleted by a flush: its stock stays on its books, so
 * stock that leaves it (a transfer's origin) is still booked there (docs/deliveries.md).
 */
export function findStoreKeepingBooks(db: Kysely<Database>, storeNumber: string): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').selectAll().where('store_number', '=', storeNumber).executeTakeFirst();
}

export function findLiveStore(db: Kysely<Database>, storeNumber: string): Promise<StoreRow | undefined> {
  return db
    .selectFrom('stores')
    .selectAll()
    .where('store_number', '=', storeNumber)
    .where('deleted_on', 'is', null)
    .executeTakeFirst();
}

/**
 * How the 404 of a missing store reads: `Unknown store 'S1'` on the stock, delivery, order,
 * counting and list paths; `Store 'S1' does not exist` on the master-data paths of
 * locations, store products and product pricing (and the stock reads, store-stock/service.ts).
 */
export type MissingStoreWording = 'unknown store' | 'does not exist';

/** The live store a path or body names; a 404 when it is unknown or deleted. */
export async function requireLiveStore(
  db: Kysely<Database>,
  storeNumber: string,
  wording: MissingStoreWording = 'unknown store',
): Promise<StoreRow> {
  const store = await findLiveStore(db, storeNumber);
  if (!store)
    throw notFound(
      wording === 'unknown store' ? `Unknown store '${storeNumber}'` : `Store '${storeNumber}' does not exist`,
    );
  return store;
}

/** Live stores by store number; unknown and deleted numbers are absent. */
export async function findLiveStores(db: Executor, storeNumbers: readonly string[]): Promise<Map<string, StoreRow>> {
  const found = new Map<string, StoreRow>();
  for (const part of inListChunks([...new Set(storeNumbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('stores')
      .selectAll()
      .where('store_number', 'in', part)
      .where('deleted_on', 'is', null)
      .execute();
    for (const row of rows) found.set(row.store_number, row);
  }
  return found;
}

/** Store numbers by store id, deleted stores included; unknown ids are absent (verify's batches). */
export async function storeNumbersById(
  db: Kysely<Database>,
  storeIds: readonly number[],
): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (const part of inListChunks([...new Set(storeIds)], KEYS_PER_QUERY)) {
    const rows = await db.selectFrom('stores').select(['id', 'store_number']).where('id', 'in', part).execute();
    for (const row of rows) found.set(row.id, row.store_number);
  }
  return found;
}

/**
 * The live store each order of a bulk write names (deliveries, customer orders): 404 when
 * one is unknown — naming `orders[i].store_number` on the cross-store path, the store of the
 * path otherwise. Store access is checked by the caller before.
 */
export async function storesOfOrders(
  db: Kysely<Database>,
  orders: ReadonlyArray<{ store_number?: string }>,
  what: string,
  storeFromPath?: string,
): Promise<Map<string, StoreRow>> {
  const stores = await findLiveStores(
    db,
    orders.map((o) => o.store_number!),
  );
  const unknown = orders.flatMap((order, index) =>
    stores.has(order.store_number!)
      ? []
      : [{ path: `orders[${index}].store_number`, message: `unknown store '${order.store_number}'` }],
  );
  if (unknown.length > 0) {
    throw storeFromPath === undefined
      ? new AppError('NOT_FOUND', `Some ${what} name unknown stores`, unknown)
      : new AppError('NOT_FOUND', `Unknown store '${storeFromPath}'`);
  }
  return stores;
}
