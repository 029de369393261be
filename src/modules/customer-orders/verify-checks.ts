import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';
import { SOURCE_PICKING } from './bound-stock.js';
import { STATUS } from './schema.js';

const MAX_LISTED = 1000;
const CHECK = 'customer orders';

/**
 * PRODUCT §7: what each line picked is what picking bound for it, per order, product and pool
 * — the ledger deltas of the order's picking entries on its bound balances (their `source` is
 * the order's own, which no other post may use). Stock bound under the number by anything
 * else (entries before the order was imported) is not a pick and is left out; closing the
 * order settles it (closedOrdersHoldNothing). Reads only entries naming an order (the partial
 * index on stock_logs.customer_order_number), not the whole ledger.
 */
async function picksAreBound(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ order_number: string; product_id: number; pool: number; picked: number; bound: number }>`
    select order_number, product_id, pool, sum(picked) as picked, sum(bound) as bound from (
      select o.store_id, o.order_number, l.product_id, l.stock_pool as pool, l.picked_quantity as picked, 0 as bound
      from customer_orders o join customer_order_lines l on l.order_id = o.id
      union all
      select b.store_id, b.order_key, b.product_id, b.pool, 0, g.delta
      from stock_logs s join stock_ledger g on g.log_id = s.id join stock_balances b on b.id = g.balance_id and b.order_key = s.customer_order_number
      where s.customer_order_number is not null and s.source = ${SOURCE_PICKING}
    ) x
    group by store_id, order_number, product_id, pool
    having sum(picked) <> sum(bound)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: CHECK,
    detail: `order ${row.order_number} product ${row.product_id} pool ${row.pool}: picked ${Number(row.picked) / 1000}, bound by picking ${Number(row.bound) / 1000}`,
  }));
}

/**
 * PRODUCT §5 "bound stock is never stranded": a collected, rejected or cancelled order has
 * nothing bound under its number in its store — whatever booked it, closing settled it, and
 * nothing binds to a closed order again. (An open order's bound stock is released by its
 * rejection, cancel or clearance; a number with no order in the store, by stock entries.)
 */
async function closedOrdersHoldNothing(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{
    order_number: string;
    status_id: number;
    product_id: number;
    location_id: number;
    pool: number;
    quantity: number;
  }>`
    select o.order_number, o.status_id, b.product_id, b.location_id, b.pool, b.quantity
    from customer_orders o join stock_balances b on b.store_id = o.store_id and b.order_key = o.order_number
    where o.status_id >= ${STATUS.collected} and b.quantity <> 0
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: CHECK,
    detail: `order ${row.order_number} is closed (status ${row.status_id}) but product ${row.product_id} location ${row.location_id} pool ${row.pool} still has ${Number(row.quantity) / 1000} bound`,
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
  return rows.map((row) => ({
    check: CHECK,
    detail: `order ${row.order_number} (status ${row.status_id}) is in an impossible state`,
  }));
}

export const CUSTOMER_ORDER_CHECKS: VerifyCheck[] = [
  { name: 'customer order picks = bound by picking', run: picksAreBound },
  { name: 'closed customer orders hold no bound stock', run: closedOrdersHoldNothing },
  { name: 'customer order states', run: orderStates },
];
