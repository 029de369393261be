import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';

const MAX_LISTED = 1000;
const CHECK = 'counting assignments';

const violations = (rows: ReadonlyArray<{ detail: string }>): Violation[] =>
  rows.map((row) => ({ check: CHECK, detail: row.detail }));

/**
 * Each booked line is its entry (PRODUCT §10): a count of the line's store and product, carrying
 * the assignment's id, found by its key (id and moment); an entry before the archive boundary
 * has nothing left to compare. And no entry names an assignment that booked nothing.
 */
async function linesMatchEntries(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ id: number; assignment_id: number; log_id: number }>`
    select l.id, l.assignment_id, l.log_id
    from counting_lines l
    left join stock_logs s on s.id = l.log_id and s.modification_at = l.log_at
    where l.log_id is not null and (
      (s.id is null and coalesce(l.log_at >= (select max(a.boundary_at) from ledger_archives a), true))
      or s.counting_assignment_id <> l.assignment_id or s.store_id <> l.store_id
      or s.product_id <> l.product_id or s.is_count <> 1 or coalesce(s.location_id, 0) <> l.location_id)
    limit ${MAX_LISTED}`.execute(handle.db);
  const { rows: orphans } = await sql<{ id: number; counting_assignment_id: number }>`
    select s.id, s.counting_assignment_id from stock_logs s
    where s.counting_assignment_id is not null
      and not exists (select 1 from counting_lines l where l.log_id = s.id and l.assignment_id = s.counting_assignment_id)
    limit ${MAX_LISTED}`.execute(handle.db);
  return violations([
    ...rows.map((r) => ({
      detail: `line ${r.id} of counting assignment ${r.assignment_id} does not match its stock log entry ${r.log_id}`,
    })),
    ...orphans.map((r) => ({
      detail: `stock log entry ${r.id} names counting assignment ${r.counting_assignment_id}, whose lines do not book it`,
    })),
  ]);
}

/**
 * A product is in at most one counting assignment at a time: the claims' key says so; here,
 * every claim is a counting assignment's own product, and every product of a counting
 * assignment's lines is claimed by it.
 */
async function claimsMatchLines(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ detail: string }>`
    select 'claim of product ' || c.product_id || ' by counting assignment ' || c.assignment_id
      || ' is not of a counting assignment line of that product' as detail
    from counting_claims c
    join counting_assignments a on a.id = c.assignment_id
    where a.status <> 'counting' or a.store_id <> c.store_id
      or not exists (select 1 from counting_lines l where l.assignment_id = c.assignment_id and l.product_id = c.product_id)
    union all
    select 'product ' || l.product_id || ' of counting assignment ' || l.assignment_id || ' is not claimed by it' as detail
    from counting_lines l
    join counting_assignments a on a.id = l.assignment_id
    where a.status = 'counting'
      and not exists (select 1 from counting_claims c where c.store_id = l.store_id and c.product_id = l.product_id
        and c.assignment_id = l.assignment_id)
    limit ${MAX_LISTED}`.execute(handle.db);
  return violations(rows);
}

/**
 * Status and entries agree (PRODUCT §10): only a submitted or closed assignment booked entries;
 * closed ⇒ none pending; submitted ⇒ some pending; the progress counters are its lines'.
 */
async function statusesMatchEntries(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{
    id: number;
    status: string;
    lines_total: number;
    lines_counted: number;
    lines_pending: number;
    lines: number;
    counted: number;
    booked: number;
    pending: number;
    variance_quantity: number;
    variance: number | null;
  }>`
    select a.id, a.status, a.lines_total, a.lines_counted, a.lines_pending, a.variance_quantity,
      (select sum(l.counted - l.expected) from counting_lines l where l.assignment_id = a.id) as variance,
      (select count(*) from counting_lines l where l.assignment_id = a.id) as lines,
      (select count(*) from counting_lines l where l.assignment_id = a.id and l.counted is not null) as counted,
      (select count(*) from counting_lines l where l.assignment_id = a.id and l.log_id is not null) as booked,
      (select count(*) from stock_logs s where s.counting_assignment_id = a.id and s.review_status = 1) as pending
    from counting_assignments a`.execute(handle.db);
  const found: Array<{ detail: string }> = [];
  for (const row of rows) {
    const [lines, counted, booked, pending] = [row.lines, row.counted, row.booked, row.pending].map(Number);
    const name = `counting assignment ${row.id} (${row.status})`;
    const isBooked = row.status === 'submitted' || row.status === 'closed';
    if (!['open', 'counting', 'submitted', 'closed', 'cancelled'].includes(row.status))
      found.push({ detail: `${name} has an unknown status` });
    if (!isBooked && booked > 0) found.push({ detail: `${name} has ${booked} booked lines` });
    if (row.status === 'closed' && pending > 0) found.push({ detail: `${name} has ${pending} entries pending review` });
    if (row.status === 'submitted' && pending === 0) found.push({ detail: `${name} has no entry pending review` });
    if (Number(row.lines_total) !== lines || Number(row.lines_counted) !== counted)
      found.push({
        detail: `${name} says ${row.lines_total} lines, ${row.lines_counted} counted; its lines are ${lines}, ${counted} counted`,
      });
    if (Number(row.variance_quantity) !== Number(row.variance ?? 0))
      found.push({ detail: `${name} says a variance of ${row.variance_quantity}; its lines' is ${row.variance ?? 0}` });
    if (isBooked && Number(row.lines_pending) !== pending)
      found.push({ detail: `${name} says ${row.lines_pending} pending; ${pending} entries are` });
    if (found.length >= MAX_LISTED) break;
  }
  return violations(found);
}

export const COUNTING_ASSIGNMENT_CHECKS: VerifyCheck[] = [
  { name: 'counting lines = booked entries', run: linesMatchEntries },
  { name: 'counting claims = counting lines', run: claimsMatchLines },
  { name: 'counting statuses', run: statusesMatchEntries },
];
