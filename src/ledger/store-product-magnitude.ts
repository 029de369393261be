import { sql, type Transaction } from 'kysely';
import { inListChunks, KEYS_PER_QUERY } from '../db/in-list.js';
import type { Database } from '../db/schema.js';
import { MAX_QUANTITY_MILLI, QuantityRangeError } from '../domain/decimal.js';

/**
 * The bound that keeps every stock total a read computes exact (PRODUCT §3 "Exact numbers",
 * §5; docs/stock.md "Exact sums"). A read adds up some of one store product's balances:
 * most_likely_quantity (all of them), a pool, a location line, the free stock without bound
 * stock, a store's figure in surrounding stock, a location's product line. Whichever subset,
 * its sum lies within ± the sum of the balances' magnitudes (Σ|balance|), and so does every
 * partial sum on the way. So the posting engine keeps Σ|balance| of each store product
 * within the kept range: every figure a read shows is then exact and within it, and no read
 * needs a check of its own.
 *
 * Checked after the balances are written and the store products stamped (postings.ts
 * applyPostings). The stamp's update holds each store product's row to the commit on
 * PostgreSQL (SQLite has one writer), so of two writers of one store product the later
 * one reads the other's committed balances here. Only store products whose Σ|balance| this
 * request grows are read: one that shrinks or stays cannot leave a range it was in.
 */

/** What one posting did to the magnitude of its store product: |balance after| − |balance before|. */
export interface MagnitudeChange {
  storeId: number;
  productId: number;
  changeMilli: number;
  /** The request field of the posting's quantity. */
  path?: string;
}

const WHAT = "the product's stock in this store, its balances (locations, pools, orders) added up by size";

export async function checkStoreProductMagnitudes(
  trx: Transaction<Database>,
  changes: readonly MagnitudeChange[],
): Promise<void> {
  const growthByStore = new Map<number, Map<number, number>>();
  for (const change of changes) {
    let growth = growthByStore.get(change.storeId);
    if (!growth) growthByStore.set(change.storeId, (growth = new Map()));
    growth.set(change.productId, (growth.get(change.productId) ?? 0) + change.changeMilli);
  }
  for (const [storeId, growth] of growthByStore) {
    const grown = [...growth].filter(([, changeMilli]) => changeMilli > 0).map(([productId]) => productId);
    for (const productIds of inListChunks(grown, KEYS_PER_QUERY)) {
      const rows = await trx
        .selectFrom('stock_balances')
        .select(['product_id', sql<number | string>`sum(abs(quantity))`.as('magnitude')])
        .where('store_id', '=', storeId)
        .where('product_id', 'in', productIds)
        .groupBy('product_id')
        .execute();
      for (const row of rows) {
        // PostgreSQL sums bigints as numeric (text to pg): past 2^53 Number() is approximate, but far beyond the range.
        const magnitude = Number(row.magnitude);
        if (magnitude > MAX_QUANTITY_MILLI)
          throw overflowAt(changes, storeId, Number(row.product_id), magnitude - growth.get(Number(row.product_id))!);
      }
    }
  }
}

/** The refusal named at the first posting (in arrival order) that grew the magnitude past the range. */
function overflowAt(
  changes: readonly MagnitudeChange[],
  storeId: number,
  productId: number,
  beforeMilli: number,
): QuantityRangeError {
  let magnitude = beforeMilli;
  let last: MagnitudeChange | undefined;
  for (const change of changes) {
    if (change.storeId !== storeId || change.productId !== productId) continue;
    magnitude += change.changeMilli;
    last = change;
    if (change.changeMilli > 0 && magnitude > MAX_QUANTITY_MILLI) break;
  }
  return new QuantityRangeError(magnitude, { path: last?.path, what: WHAT });
}
