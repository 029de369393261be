import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { Violation } from '../../shared/verify-types.js';

const MAX_LISTED = 1000;

/**
 * The stock invariant (PRODUCT §5): every balance equals the sum of its applied ledger
 * deltas, every ledger group has its balance, and only applied entries have ledger rows.
 * One grouped pass over the ledger, joined to the balances both ways.
 */
export async function ledgerViolations(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{
    store_id: number;
    product_id: number;
    location_id: number;
    pool: number;
    order_key: string;
    balance: number | null;
    ledger: number | null;
  }>`
    with sums as (
      select store_id, product_id, location_id, pool, order_key, sum(delta) as total
      from stock_ledger
      group by store_id, product_id, location_id, pool, order_key
    )
    select b.store_id, b.product_id, b.location_id, b.pool, b.order_key, b.quantity as balance, s.total as ledger
    from stock_balances b
    left join sums s on s.store_id = b.store_id and s.product_id = b.product_id and s.location_id = b.location_id
      and s.pool = b.pool and s.order_key = b.order_key
    where b.quantity <> coalesce(s.total, 0)
    union all
    select s.store_id, s.product_id, s.location_id, s.pool, s.order_key, null, s.total
    from sums s
    where not exists (
      select 1 from stock_balances b where b.store_id = s.store_id and b.product_id = s.product_id
        and b.location_id = s.location_id and b.pool = s.pool and b.order_key = s.order_key
    )
    limit ${MAX_LISTED}
  `.execute(handle.db);
  const violations: Violation[] = rows.map((row) => ({
    check: 'stock ledger',
    detail:
      `balance store ${row.store_id} product ${row.product_id} location ${row.location_id} pool ${row.pool}` +
      `${row.order_key ? ` order ${row.order_key}` : ''}: balance ${row.balance === null ? 'missing' : Number(row.balance) / 1000}` +
      `, ledger sum ${Number(row.ledger ?? 0) / 1000}`,
  }));
  const { rows: unapplied } = await sql<{ id: number }>`
    select l.id from stock_logs l
    where l.is_applied = 0 and exists (select 1 from stock_ledger g where g.log_id = l.id)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  for (const row of unapplied) violations.push({ check: 'stock ledger', detail: `entry ${row.id} is not applied but has ledger rows` });
  return violations;
}
