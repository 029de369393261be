import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { columnIn } from '../../db/in-list.js';
import type { Database, StoreProductTable } from '../../db/schema.js';

/**
 * The stock list's filters on a store product's stock (issue 43, docs/decisions.md "Stock list
 * filters and CSV export"). Each reads what the list item itself shows, so a listed product
 * always shows why it is listed: its pools (`most_likely_pool_N`), its location lines
 * (`store_locations`), its `last_counted_datetime` — free stock only where the item shows free
 * stock only (`exclude_customer_order_stock`). Stock changes with every booking and no version
 * says so, so no count of a list filtered by them is kept (count-cache.ts, delta-pull.ts).
 */
export interface StockStateFilters {
  /** Stock at the location of this code in the store product's store: some pool there is not zero. */
  locationCode?: string;
  /** true: some pool below zero; false: none. */
  belowZero?: boolean;
  /** No count at or after this moment: the store product's last_counted_at before it, or none. */
  notCountedSince?: number;
  /** The figures above of free stock only (exclude_customer_order_stock=true). */
  excludeOrderBound?: boolean;
}

export const hasStockStateFilter = (f: StockStateFilters): boolean =>
  f.locationCode !== undefined || f.belowZero !== undefined || f.notCountedSince !== undefined;

type Listed = ExpressionBuilder<Database & { sp: StoreProductTable }, 'sp'>;

/**
 * The conditions on `sp` (a store_products row of the listing, repository.ts
 * `listedStoreProducts`), all of them to hold.
 * - A pool's figure adds up every balance of the pool, at every location and order key, as
 *   `most_likely_pool_N` does: one probe of the balance key (store, product, …) per store
 *   product, grouped by pool. A pool total below zero needs no separate test of the sum: the
 *   sum of the pools is below zero only if one of them is.
 * - At a location: a semi-join through the balances at that location (`stock_balances_location`,
 *   store, location, product), since a location holds a few of a store's products — reading
 *   those beats probing every store product of the store; grouped by pool like the item's line.
 * - Not counted since: the stamp of the latest count on the row itself (ledger
 *   store-product-stamps.ts moves it forward with every applied count, approved or archived alike).
 */
export function stockStateConditions(
  eb: Listed,
  f: StockStateFilters,
  storeIds: readonly number[] | undefined,
): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  const code = f.locationCode;
  if (code !== undefined) {
    let atLocation = eb
      .selectFrom('locations as l')
      .innerJoin('stock_balances as lb', (join) =>
        join.onRef('lb.store_id', '=', 'l.store_id').onRef('lb.location_id', '=', 'l.id'),
      )
      .select(['lb.store_id', 'lb.product_id'])
      .where('l.location_code', '=', code)
      .groupBy(['lb.store_id', 'lb.product_id', 'lb.pool'])
      .having((inner) => inner.fn.sum('lb.quantity'), '<>', 0);
    if (storeIds !== undefined) atLocation = atLocation.where((inner) => columnIn(inner, 'l.store_id', storeIds));
    if (f.excludeOrderBound) atLocation = atLocation.where('lb.order_key', '=', '');
    conditions.push(
      eb(eb.refTuple('sp.store_id', 'sp.product_id'), 'in', atLocation.$asTuple('store_id', 'product_id')),
    );
  }
  if (f.belowZero !== undefined) {
    let poolsBelowZero = eb
      .selectFrom('stock_balances as zb')
      .select('zb.pool')
      .whereRef('zb.store_id', '=', 'sp.store_id')
      .whereRef('zb.product_id', '=', 'sp.product_id')
      .groupBy('zb.pool')
      .having((inner) => inner.fn.sum('zb.quantity'), '<', 0);
    if (f.excludeOrderBound) poolsBelowZero = poolsBelowZero.where('zb.order_key', '=', '');
    conditions.push(f.belowZero ? eb.exists(poolsBelowZero) : eb.not(eb.exists(poolsBelowZero)));
  }
  const since = f.notCountedSince;
  if (since !== undefined)
    conditions.push(eb.or([eb('sp.last_counted_at', 'is', null), eb('sp.last_counted_at', '<', since)]));
  return conditions;
}
