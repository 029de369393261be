import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { columnIn, inListChunks } from '../../db/in-list.js';
import { pageOf, type PageSlice } from '../../db/page.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { StoreRow } from './rows.js';

export interface StoreFilters {
  isWarehouse?: boolean;
  searchText?: string;
  secondaryKey?: string;
  /** Store-role tokens see only these (PRODUCT §4); undefined = all. */
  onlyStoreNumbers?: readonly string[];
}

function applyFilters<O>(query: SelectQueryBuilder<Database, 'stores', O>, dialect: Dialect, filters: StoreFilters) {
  let filtered = query.where('deleted_on', 'is', null);
  if (filters.isWarehouse !== undefined) filtered = filtered.where('is_warehouse', '=', filters.isWarehouse ? 1 : 0);
  if (filters.secondaryKey !== undefined) filtered = filtered.where('secondary_key', '=', filters.secondaryKey);
  const onlyStoreNumbers = filters.onlyStoreNumbers;
  if (onlyStoreNumbers !== undefined) filtered = filtered.where((eb) => columnIn(eb, 'store_number', onlyStoreNumbers));
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

/** Newest updated_on of any store (PRODUCT §3.1 project_last_modified_date). */
export async function storesLastModified(db: Kysely<Database>): Promise<number | null> {
  const row = await db.selectFrom('stores').select((eb) => eb.fn.max('updated_on').as('last')).executeTakeFirst();
  return row?.last === null || row?.last === undefined ? null : Number(row.last);
}

export function findLiveStore(db: Kysely<Database>, storeNumber: string): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').selectAll().where('store_number', '=', storeNumber).where('deleted_on', 'is', null).executeTakeFirst();
}

/** Live stores by store number; unknown and deleted numbers are absent. */
export async function findLiveStores(db: Kysely<Database> | Transaction<Database>, storeNumbers: readonly string[]): Promise<Map<string, StoreRow>> {
  const found = new Map<string, StoreRow>();
  for (const part of inListChunks([...new Set(storeNumbers)], 2_000)) {
    const rows = await db.selectFrom('stores').selectAll().where('store_number', 'in', part).where('deleted_on', 'is', null).execute();
    for (const row of rows) found.set(row.store_number, row);
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
  const stores = await findLiveStores(db, orders.map((o) => o.store_number!));
  const unknown = orders.flatMap((order, index) => (stores.has(order.store_number!) ? [] : [{ path: `orders[${index}].store_number`, message: `unknown store '${order.store_number}'` }]));
  if (unknown.length > 0) {
    throw storeFromPath === undefined ? new AppError('NOT_FOUND', `Some ${what} name unknown stores`, unknown) : new AppError('NOT_FOUND', `Unknown store '${storeFromPath}'`);
  }
  return stores;
}
