import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DbHandle } from '../db/dialect/types.js';
import type { Database } from '../db/schema.js';
import type { Violation } from '../db/verify-types.js';
import { HOUR_MS } from './log-hours.js';

/** At most this many violations of one kind are listed: enough to act on, bounded in memory. */
export const MAX_LISTED = 1000;

/**
 * The stock invariant (PRODUCT §5): every balance equals the sum of its applied ledger
 * deltas, every ledger row's balance exists, and an entry has ledger rows exactly when it is
 * applied: an applied entry without any has lost its stock. Since migration 0022 the ledger
 * (`stock_ledger`) is a view: the posting of a one-balance entry lives in its own stock_logs
 * row (balance_id, delta, expected), the parts of an entry split over pools in
 * stock_log_parts. SQLite keeps no foreign key on stock_logs.balance_id, so the balance's
 * existence is checked here, on both databases.
 * The balance's clock too: `last_at` and `last_count_at` are the moments of its latest
 * entry and count, which decide whether a new entry is late (docs/stock.md "Cost"); a
 * wrong clock would book later entries wrongly while the sums still matched.
 * The rule is written once here and read by both forms of the check: the full one below,
 * and the one over the balances touched since a moment (invariants-since.ts).
 */

/** A balance beside what its ledger rows add up to. */
export interface BalanceAgainstLedger {
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
}

const BALANCE_KEY = ['store_id', 'product_id', 'location_id', 'pool', 'order_key'] as const;

/** Where each figure of a BalanceAgainstLedger is, in a query that compares them. */
export type FigureColumns = Record<Exclude<keyof BalanceAgainstLedger, (typeof BALANCE_KEY)[number]>, string>;

/**
 * The rule: a present balance disagrees with its ledger rows when its quantity is not their
 * sum or a clock is not their latest moment or count. Compared in SQL, where the sum is
 * exact on both databases (docs/stock.md "Exact sums"); each form of the check names where
 * its figures are.
 */
export function disagrees(c: FigureColumns): RawBuilder<SqlBool> {
  const ref = (column: keyof FigureColumns) => sql.ref(c[column]);
  return sql<SqlBool>`(${ref('balance')} <> coalesce(${ref('ledger')}, 0)
    or coalesce(${ref('last_at')}, -1) <> coalesce(${ref('ledger_last_at')}, -1)
    or coalesce(${ref('last_count_at')}, -1) <> coalesce(${ref('ledger_last_count_at')}, -1))`;
}

const moment = (value: number | null) => (value === null ? 'none' : new Date(Number(value)).toISOString());

/** How an operator reads a row of either check: the balance's key and what disagrees. */
export function balanceViolation(row: BalanceAgainstLedger): Violation {
  const key = `balance store ${row.store_id} product ${row.product_id} location ${row.location_id} pool ${row.pool}${row.order_key ? ` order ${row.order_key}` : ''}`;
  const problems: string[] = [];
  if (row.balance === null || Number(row.balance) !== Number(row.ledger ?? 0)) {
    problems.push(
      `balance ${row.balance === null ? 'missing' : Number(row.balance) / 1000}, ledger sum ${Number(row.ledger ?? 0) / 1000}`,
    );
  }
  if (row.balance !== null && moment(row.last_at) !== moment(row.ledger_last_at))
    problems.push(`last_at ${moment(row.last_at)}, latest ledger entry ${moment(row.ledger_last_at)}`);
  if (row.balance !== null && moment(row.last_count_at) !== moment(row.ledger_last_count_at)) {
    problems.push(
      `last_count_at ${moment(row.last_count_at)}, latest ledger count ${moment(row.ledger_last_count_at)}`,
    );
  }
  return { check: 'stock ledger', detail: `${key}: ${problems.join('; ')}` };
}

/** Entries named per missing balance: enough to find them, read by the balance's history index. */
const ENTRIES_NAMED = 5;

/**
 * Ledger rows whose balance does not exist (SQLite has no foreign key on
 * stock_logs.balance_id): the balance's id, what its rows add up to and its first entries.
 * Both forms of the check find them in the pass they make anyway and say them alike.
 */
export async function missingBalanceViolations(
  db: Kysely<Database>,
  missing: ReadonlyArray<{ balance_id: number; ledger: number | null }>,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const row of missing.slice(0, MAX_LISTED)) {
    const entries = await db
      .selectFrom('stock_ledger')
      .select('log_id')
      .where('balance_id', '=', row.balance_id)
      .orderBy('at')
      .orderBy('id')
      .limit(ENTRIES_NAMED + 1)
      .execute();
    const named = entries
      .slice(0, ENTRIES_NAMED)
      .map((e) => e.log_id)
      .join(', ');
    violations.push({
      check: 'stock ledger',
      detail: `balance ${row.balance_id} does not exist, but entries ${named}${entries.length > ENTRIES_NAMED ? ' and more' : ''} post to it (ledger sum ${Number(row.ledger ?? 0) / 1000})`,
    });
  }
  return violations;
}

/**
 * The whole ledger in one grouped pass, against the balances both ways: a balance without
 * ledger rows must be empty, and a group of ledger rows without its balance (no foreign key
 * stops it on SQLite) is stock booked into nothing. The groups are materialized once and read
 * twice — joined to the balances, then probing the balances' primary key for the groups left
 * over — rather than by a full join, which SQLite runs as a scan of every group per balance.
 */
export async function ledgerViolations(handle: DbHandle): Promise<Violation[]> {
  const figures = disagrees({
    balance: 'b.quantity',
    ledger: 's.total',
    last_at: 'b.last_at',
    ledger_last_at: 's.last_at',
    last_count_at: 'b.last_count_at',
    ledger_last_count_at: 's.last_count_at',
  });
  const { rows } = await sql<BalanceAgainstLedger & { id: number | null; posted_balance_id: number | null }>`
    with sums as materialized (
      select balance_id, sum(delta) as total, max(at) as last_at, max(case when is_count = 1 then at end) as last_count_at
      from stock_ledger
      group by balance_id
    )
    select b.id, s.balance_id as posted_balance_id, b.store_id, b.product_id, b.location_id, b.pool, b.order_key, b.quantity as balance, s.total as ledger,
      b.last_at, s.last_at as ledger_last_at, b.last_count_at, s.last_count_at as ledger_last_count_at
    from stock_balances b
    left join sums s on s.balance_id = b.id
    where ${figures}
    union all
    select null, s.balance_id, null, null, null, null, null, null, s.total, null, s.last_at, null, s.last_count_at
    from sums s
    where not exists (select 1 from stock_balances b where b.id = s.balance_id)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  const missing = rows
    .filter((row) => row.id === null)
    .map((row) => ({ balance_id: Number(row.posted_balance_id), ledger: row.ledger }));
  return [
    ...rows.filter((row) => row.id !== null).map(balanceViolation),
    ...(await missingBalanceViolations(handle.db, missing)),
    ...(await postingViolations(handle)),
    ...(await partsWithoutEntry(handle)),
    ...(await logHourViolations(handle)),
  ];
}

/**
 * Parts whose entry does not exist: no foreign key can name stock_logs(id) since PostgreSQL
 * partitions it by month (migration 0025), so the relation is checked here, on both databases.
 */
async function partsWithoutEntry(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ log_id: number; balance_id: number }>`
    select p.log_id, p.balance_id from stock_log_parts p
    where not exists (select 1 from stock_logs l where l.id = p.log_id)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: 'stock ledger',
    detail: `entry ${row.log_id} does not exist, but a part of it posts to balance ${row.balance_id}`,
  }));
}

/**
 * An entry has ledger rows — its posting in its own row (balance_id) or its parts
 * (stock_log_parts) — only when it is applied, and an applied entry that moves stock has
 * them: a posting of an entry not applied is stock nobody booked, an applied entry without
 * one is stock lost. An applied delta of zero books nothing (stock-logs service: a zero delta
 * is no movement, a zero count is a fact), so "moves stock" is a count or a non-zero
 * quantity; a split delta whose parts net to zero is not told from a zero delta here. With
 * `since`, among the entries updated since then (the updated_on index); without, one pass
 * over stock_logs, the parts looked up by their log_id index only for the rows without an
 * inline posting (pending, rejected, zero or split entries).
 */
export async function postingViolations(handle: DbHandle, since?: number): Promise<Violation[]> {
  const { rows } = await sql<{ id: number; is_applied: number }>`
    select id, is_applied from (
      select l.id, l.is_applied, l.is_count, l.quantity,
        case when l.balance_id is not null or exists (select 1 from stock_log_parts p where p.log_id = l.id) then 1 else 0 end as posted
      from stock_logs l
      ${since === undefined ? sql`` : sql`where l.updated_on >= ${since}`}
    ) e
    where (e.is_applied = 0 and e.posted = 1) or (e.is_applied = 1 and e.posted = 0 and (e.is_count = 1 or e.quantity <> 0))
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: 'stock ledger',
    detail:
      Number(row.is_applied) === 1
        ? `entry ${row.id} is applied but has no ledger rows (its stock is lost)`
        : `entry ${row.id} is not applied but has ledger rows`,
  }));
}

/**
 * The log pull's hour counts (migration 0020, stock-logs/log-pull.ts): each hour's entries
 * summed from stock_log_hours equal the entries whose updated_on falls in it, and its
 * smallest id is no larger than theirs — else a total_count would be wrong, or a page
 * would start after entries of its window. With `since`, the hours from the one holding it
 * on, read through the hour and updated_on indexes. (An hour is `updated_on / 3600000`
 * truncated, as the triggers write it: before 1970 that is not the floor, so a moment there
 * checks every hour rather than risk comparing the two halves of an hour.)
 */
export async function logHourViolations(handle: DbHandle, since?: number): Promise<Violation[]> {
  const fromHour = since === undefined || since < HOUR_MS ? undefined : Math.floor(since / HOUR_MS);
  const { rows } = await sql<{
    hour: number;
    kept: number | null;
    kept_min: number | null;
    actual: number | null;
    actual_min: number | null;
  }>`
    with kept as (
      select hour, sum(entries) as entries, min(min_id) as min_id from stock_log_hours
      ${fromHour === undefined ? sql`` : sql`where hour >= ${fromHour}`}
      group by hour
    ),
    actual as (
      select updated_on / ${sql.lit(HOUR_MS)} as hour, count(*) as entries, min(id) as min_id from stock_logs
      ${fromHour === undefined ? sql`` : sql`where updated_on >= ${fromHour * HOUR_MS}`}
      group by updated_on / ${sql.lit(HOUR_MS)}
    )
    select coalesce(k.hour, a.hour) as hour, k.entries as kept, k.min_id as kept_min, a.entries as actual, a.min_id as actual_min
    from kept k full outer join actual a on a.hour = k.hour
    where coalesce(k.entries, 0) <> coalesce(a.entries, 0) or (a.min_id is not null and (k.min_id is null or k.min_id > a.min_id))
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: 'stock ledger',
    detail: `stock log hour ${new Date(Number(row.hour) * HOUR_MS).toISOString()}: counted ${Number(row.kept ?? 0)} entries from id ${row.kept_min ?? 'none'}, has ${Number(row.actual ?? 0)} from id ${row.actual_min ?? 'none'}`,
  }));
}
