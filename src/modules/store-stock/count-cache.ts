import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../../db/schema.js';
import { readVersions } from '../../db/versions.js';
import type { StockListFilters } from './repository.js';
import { hasStockStateFilter } from './stock-state-filters.js';

/**
 * The exact total_count of a stock listing (PRODUCT §3.1), kept per filter set while the
 * versions it depends on hold — which store products its stores have (per store, migration
 * 0015), the products with their barcodes, the stores and the categories, all bumped by
 * database triggers from any process and read fresh on every request — so paging through a
 * store's 50,000 products does not count them again for every page (that count was half of
 * a page's SQL time). Filters on modification times (`last_modified_date`,
 * `last_stock_modified_datetime`) change with every stock write and are not kept here: the
 * ERP's delta pull carries its count from page to page itself (delta-pull.ts). Nor are the
 * filters on stock itself (a location's stock, below zero, not counted since:
 * stock-state-filters.ts), for the same reason.
 *
 * A count is stored only if the versions read before counting are still the versions after
 * it: a count taken across a change must never be kept under either side's versions.
 */

/** Filter sets kept per app: the least recently used one is forgotten beyond this (issue 40). */
export const MAX_COUNT_ENTRIES = 1_000;
/** The limit a new cache gets (tests lower it to see the eviction). */
export const countCacheLimit = { max: MAX_COUNT_ENTRIES };

interface Entry {
  versions: string;
  count: number;
}

const caches = new WeakMap<object, LRUCache<string, Entry>>();

const cacheable = (filters: StockListFilters) =>
  filters.modifiedSince === undefined && filters.stockModifiedSince === undefined && !hasStockStateFilter(filters);

/**
 * The membership versions of the stores (all stores when undefined) as one number: the sum
 * of per-store versions, which only grow (a store's first bump creates its row at 1).
 */
async function membershipVersion(db: Kysely<Database>, storeIds: readonly number[] | undefined): Promise<string> {
  const row = await membershipVersionQuery(db, storeIds).executeTakeFirst();
  return String(row?.total ?? 0);
}

/** The query of membershipVersion, for a statement that reads it with other facts (delta-pull.ts). */
export function membershipVersionQuery(db: Kysely<Database>, storeIds: readonly number[] | undefined) {
  const query = db.selectFrom('store_product_versions').select((eb) => eb.fn.sum<number>('version').as('total'));
  return storeIds === undefined ? query : query.where('store_id', 'in', storeIds.length === 0 ? [-1] : [...storeIds]);
}

/** The master data a listing's count depends on besides its stores' store products. */
export const MASTER_VERSIONS = ['products', 'stores', 'categories'] as const;

async function versionsOf(db: Kysely<Database>, filters: StockListFilters): Promise<string> {
  const [membership, master] = await Promise.all([
    membershipVersion(db, filters.storeIds),
    readVersions(db, MASTER_VERSIONS),
  ]);
  return `${membership}:${master}`;
}

/** How many filter sets an app keeps counts of (tests). */
export const keptCountsOf = (owner: object): number => caches.get(owner)?.size ?? 0;

export async function cachedStockListCount(
  db: Kysely<Database>,
  owner: object,
  filters: StockListFilters,
  count: () => Promise<number>,
): Promise<number> {
  if (!cacheable(filters)) return count();
  const versions = await versionsOf(db, filters);
  let cache = caches.get(owner);
  if (!cache) {
    cache = new LRUCache<string, Entry>({ max: countCacheLimit.max });
    caches.set(owner, cache);
  }
  const key = JSON.stringify([
    filters.storeIds === undefined ? null : [...filters.storeIds].sort((a, b) => a - b),
    filters.productNumbers,
    filters.barcode,
    filters.categoryCode,
    filters.parentCategoryCode,
    filters.searchText,
    filters.fromId,
    filters.toId,
  ]);
  const hit = cache.get(key);
  if (hit && hit.versions === versions) return hit.count;
  const counted = await count();
  if ((await versionsOf(db, filters)) === versions) cache.set(key, { versions, count: counted });
  return counted;
}
