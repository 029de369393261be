import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';

const MAX_LISTED = 1000;
const CHECK = 'deliveries';

/** A line's received quantity is the sum of its receipt lines: receiving is the only way it moves. */
async function receivedTotals(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ order_number: string; line_number: number; received: number; receipts: number }>`
    select d.order_number, l.line_number, l.received_quantity as received, coalesce(sum(r.received_quantity), 0) as receipts
    from delivery_order_lines l
    join delivery_orders d on d.id = l.delivery_id
    left join receipt_lines r on r.delivery_line_id = l.id
    group by d.order_number, l.id, l.line_number, l.received_quantity
    having l.received_quantity <> coalesce(sum(r.received_quantity), 0)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: CHECK,
    detail: `delivery ${row.order_number} line ${row.line_number}: received ${Number(row.received) / 1000}, receipt lines sum to ${Number(row.receipts) / 1000}`,
  }));
}

/**
 * Each receipt line is exactly its receiving entry: an applied receipt entry of the same store,
 * product and quantity, referring to the delivery, on a line of the receipt's own delivery.
 * The entry is found by its key (id and moment, migration 0026); a line whose entry lies
 * before the archive boundary (`store-ops ledger archive`) has nothing left to compare.
 */
async function receiptLinesMatchEntries(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ id: number; log_id: number; order_number: string }>`
    select r.id, r.log_id, o.order_number
    from receipt_lines r
    join receipt_orders o on o.id = r.receipt_id
    join delivery_order_lines dl on dl.id = r.delivery_line_id
    left join stock_logs s on s.id = r.log_id and s.modification_at = r.log_at
    where (s.id is null and coalesce(r.log_at >= (select max(a.boundary_at) from ledger_archives a), true))
      or s.is_from_receipt <> 1 or s.is_applied <> 1 or s.store_id <> r.store_id or s.store_id <> o.store_id
      or s.product_id <> r.product_id or dl.product_id <> r.product_id or s.quantity <> r.received_quantity
      or coalesce(s.reference, '') <> o.order_number or dl.delivery_id <> o.delivery_id
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: CHECK,
    detail: `receipt line ${row.id} of ${row.order_number} does not match its stock log entry ${row.log_id}`,
  }));
}

/**
 * Status and receipt agree (PRODUCT §7): open and cancelled deliveries have no receipt, the
 * others have one, submitted exactly when the delivery is received; the receipt repeats the
 * delivery's store, number and type; lines live in their delivery's store.
 */
async function statusesMatchReceipts(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{
    order_number: string;
    status: string;
    receipt_id: number | null;
    is_submitted: number | null;
  }>`
    select d.order_number, d.status, o.id as receipt_id, o.is_submitted
    from delivery_orders d
    left join receipt_orders o on o.delivery_id = d.id
    where d.status not in ('open', 'receiving', 'received', 'cancelled')
      or (o.id is null and d.status not in ('open', 'cancelled'))
      or (o.id is not null and d.status in ('open', 'cancelled'))
      or (o.id is not null and o.is_submitted = 1 and d.status <> 'received')
      or (o.id is not null and o.is_submitted = 0 and d.status = 'received')
      or (o.id is not null and (o.store_id <> d.store_id or o.order_number <> d.order_number or o.order_type_id <> d.order_type))
      or exists (select 1 from delivery_order_lines l where l.delivery_id = d.id and l.store_id <> d.store_id)
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: CHECK,
    detail: `delivery ${row.order_number} (${row.status}) and its receipt ${row.receipt_id ?? 'none'} (submitted ${row.is_submitted ?? '-'}) disagree`,
  }));
}

export const DELIVERY_CHECKS: VerifyCheck[] = [
  { name: 'delivery received totals', run: receivedTotals },
  { name: 'receipt lines = receiving entries', run: receiptLinesMatchEntries },
  { name: 'delivery statuses', run: statusesMatchReceipts },
];
