import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { Violation } from '../../shared/verify-types.js';

const MAX_LISTED = 1000;

/**
 * The stock invariant (PRODUCT §5): every balance equals the sum of its applied ledger
 * deltas, every ledger group has its balance, and only applied entries have ledger rows.
 * The balance's clock too: `last_at` and `last_count_at` are the moments of its latest
 * entry and count, which decide whether a new entry is late (docs/stock.md "Cost"); a
 * wrong clock would book later entries wrongly while the sums still matched.
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
    last_at: number | null;
    ledger_last_at: number | null;
    last_count_at: number | null;
    ledger_last_count_at: number | null;
  }>`
    with sums as (
      select store_id, product_id, location_id, pool, order_key, sum(delta) as total, max(at) as last_at,
        max(case when is_count = 1 then at end) as last_count_at
      from stock_ledger
      group by store_id, product_id, location_id, pool, order_key
    )
    select b.store_id, b.product_id, b.location_id, b.pool, b.order_key, b.quantity as balance, s.total as ledger,
      b.last_at, s.last_at as ledger_last_at, b.last_count_at, s.last_count_at as ledger_last_count_at
    from stock_balances b
    left join sums s on s.store_id = b.store_id and s.product_id = b.product_id and s.location_id = b.location_id
      and s.pool = b.pool and s.order_key = b.order_key
    where b.quantity <> coalesce(s.total, 0)
      or coalesce(b.last_at, -1) <> coalesce(s.last_at, -1)
      or coalesce(b.last_count_at, -1) <> coalesce(s.last_count_at, -1)
    union all
    select s.store_id, s.product_id, s.location_id, s.pool, s.order_key, null, s.total, null, s.last_at, null, s.last_count_at
    from sums s
    where not exists (
      select 1 from stock_balances b where b.store_id = s.store_id and b.product_id = s.product_id
        and b.location_id = s.location_id and b.pool = s.pool and b.order_key = s.order_key
    )
    limit ${MAX_LISTED}
  `.execute(handle.db);
  const moment = (value: number | null) => (value === null ? 'none' : new Date(Number(value)).toISOString());
  const violations: Violation[] = rows.map((row) => {
    const key = `balance store ${row.store_id} product ${row.product_id} location ${row.location_id} pool ${row.pool}${row.order_key ? ` order ${row.order_key}` : ''}`;
    const problems: string[] = [];
    if (row.balance === null || Number(row.balance) !== Number(row.ledger ?? 0)) {
      problems.push(`balance ${row.balance === null ? 'missing' : Number(row.balance) / 1000}, ledger sum ${Number(row.ledger ?? 0) / 1000}`);
    }
    if (row.balance !== null && moment(row.last_at) !== moment(row.ledger_last_at)) problems.push(`last_at ${moment(row.last_at)}, latest ledger entry ${moment(row.ledger_last_at)}`);
    if (row.balance !== null && moment(row.last_count_at) !== moment(row.ledger_last_count_at)) {
      problems.push(`last_count_at ${moment(row.last_count_at)}, latest ledger count ${moment(row.ledger_last_count_at)}`);
    }
    return { check: 'stock ledger', detail: `${key}: ${problems.join('; ')}` };
  });
  const { rows: unapplied } = await sql<{ id: number }>`
    select l.id from stock_logs l
    where l.is_applied = 0 and exists (select 1 from stock_ledger g where g.log_id = l.id)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  for (const row of unapplied) violations.push({ check: 'stock ledger', detail: `entry ${row.id} is not applied but has ledger rows` });
  violations.push(...(await logHourViolations(handle)));
  return violations;
}

/**
 * The log pull's hour counts (migration 0020, stock-logs/log-pull.ts): each hour's entries
 * summed from stock_log_hours equal the entries whose updated_on falls in it, and its
 * smallest id is no larger than theirs — else a total_count would be wrong, or a page
 * would start after entries of its window.
 */
async function logHourViolations(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ hour: number; kept: number | null; kept_min: number | null; actual: number | null; actual_min: number | null }>`
    with kept as (select hour, sum(entries) as entries, min(min_id) as min_id from stock_log_hours group by hour),
    actual as (select updated_on / 3600000 as hour, count(*) as entries, min(id) as min_id from stock_logs group by updated_on / 3600000)
    select coalesce(k.hour, a.hour) as hour, k.entries as kept, k.min_id as kept_min, a.entries as actual, a.min_id as actual_min
    from kept k full outer join actual a on a.hour = k.hour
    where coalesce(k.entries, 0) <> coalesce(a.entries, 0) or (a.min_id is not null and (k.min_id is null or k.min_id > a.min_id))
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: 'stock ledger',
    detail: `stock log hour ${new Date(Number(row.hour) * 3_600_000).toISOString()}: counted ${Number(row.kept ?? 0)} entries from id ${row.kept_min ?? 'none'}, has ${Number(row.actual ?? 0)} from id ${row.actual_min ?? 'none'}`,
  }));
}
