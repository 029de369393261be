import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { chunk } from '../shared/bulk.js';

/**
 * Located, free pool-1 stock of each product at a moment (every applied entry at or
 * before it). An external count is a store total: it keeps located stock as it is and
 * books the difference on the unlocated pool-1 balance (docs/decisions.md).
 */
export async function locatedLevelsAt(
  trx: Transaction<Database>,
  storeId: number,
  productIds: readonly number[],
  at: number,
): Promise<Map<number, number>> {
  const levels = new Map<number, number>();
  for (const ids of chunk(productIds, 10_000)) {
    const rows = await trx
      .selectFrom('stock_balances as b')
      .innerJoin('stock_ledger as g', 'g.balance_id', 'b.id')
      .select(['b.product_id', sql<number>`sum(g.delta)`.as('level')])
      .where('b.store_id', '=', storeId)
      .where('b.product_id', 'in', ids)
      .where('b.pool', '=', 1)
      .where('b.order_key', '=', '')
      .where('b.location_id', '<>', 0)
      .where('g.at', '<=', at)
      .groupBy('b.product_id')
      .execute();
    for (const row of rows) levels.set(row.product_id, Number(row.level));
  }
  return levels;
}
