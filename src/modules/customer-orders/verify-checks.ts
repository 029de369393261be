import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../shared/verify-types.js';

const MAX_LISTED = 1000;
const CHECK = 'customer orders';

/**
 * PRODUCT §5, §7: what is bound to an open customer order is exactly what its lines picked,
 * per product and pool; a collected, rejected or cancelled order has nothing bound.
 */
async function boundEqualsPicked(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ order_number: string; product_id: number; pool: number; picked: number; bound: number }>`
    select order_number, product_id, pool, sum(picked) as picked, sum(bound) as bound from (
      select o.store_id, o.order_number, l.product_id, l.stock_pool as pool,
        case when o.status_id >= 5 then 0 else l.picked_quantity end as picked, 0 as bound
      from customer_orders o join customer_order_lines l on l.order_id = o.id
      union all
      select b.store_id, b.order_key, b.product_id, b.pool, 0, b.quantity
      from stock_balances b join customer_orders o on o.order_number = b.order_key and o.store_id = b.store_id
    ) x
    group by store_id, order_number, product_id, pool
    having sum(picked) <> sum(bound)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: CHECK,
    detail: `order ${row.order_number} product ${row.product_id} pool ${row.pool}: picked ${Number(row.picked) / 1000}, bound ${Number(row.bound) / 1000}`,
  }));
}

/** Statuses are 1-7, a rejected order names its reason, and nothing is picked below zero. */
async function orderStates(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ order_number: string; status_id: number }>`
    select o.order_number, o.status_id from customer_orders o
    where o.status_id not between 1 and 7
      or (o.status_id = 6 and o.rejection_reason_code is null)
      or exists (select 1 from customer_order_lines l where l.order_id = o.id and (l.picked_quantity < 0 or l.store_id <> o.store_id))
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({ check: CHECK, detail: `order ${row.order_number} (status ${row.status_id}) is in an impossible state` }));
}

export const CUSTOMER_ORDER_CHECKS: VerifyCheck[] = [
  { name: 'customer order bound stock = picked', run: boundEqualsPicked },
  { name: 'customer order states', run: orderStates },
];
