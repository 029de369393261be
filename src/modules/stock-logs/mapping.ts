import { formatDateTime } from '../../domain/datetime.js';
import { fromMoney, fromQuantity } from '../../domain/decimal.js';
import { POOLS } from '../../domain/stock-rules.js';
import type { AppliedPart } from './repository.js';
import type { StockLog } from './schema.js';
import { orUndefined } from '../../shared/nullable.js';
import type { StockLogRow } from './rows.js';

/**
 * Row → §2.8. An applied entry shows what it did to stock (its ledger deltas, which a
 * later late entry may have re-based); an entry not applied shows what was sent, except
 * that a pending count changes nothing yet (quantity 0, the level in counted_quantity).
 */
export function toStockLog(
  row: StockLogRow,
  applied: readonly AppliedPart[] | undefined,
  context: { costCenter: string | null | undefined; locationTags: readonly string[] | undefined },
): StockLog {
  const perPool = new Array<number>(10).fill(0);
  let expected: number | undefined;
  if (row.is_applied === 1) {
    for (const part of applied ?? []) {
      perPool[part.pool - 1]! += part.delta;
      if (part.expected !== null) expected = (expected ?? 0) + part.expected;
    }
  } else if (row.is_count === 0) {
    (JSON.parse(row.pool_quantities) as Array<number | null>).forEach((q, i) => (perPool[i] = q ?? 0));
  }
  const total = perPool.reduce((sum, q) => sum + q, 0);
  const touched = POOLS.filter((n) => perPool[n - 1] !== 0);
  const log: StockLog = {
    id: row.id,
    created_on: formatDateTime(row.created_on),
    price: row.price === null ? 0 : fromMoney(row.price),
    purchase_unit_quantity: row.purchase_unit_quantity === null ? 0 : fromQuantity(row.purchase_unit_quantity),
    purged_to_most_likely: row.is_applied === 1,
    quantity: fromQuantity(total),
    updated_on: formatDateTime(row.updated_on),
    app_user_name: orUndefined(row.app_user_name),
    barcode: orUndefined(row.barcode),
    cost_center: orUndefined(context.costCenter ?? null),
    customer_order_number: orUndefined(row.customer_order_number),
    customer_order_shipment_number: orUndefined(row.customer_order_shipment_number),
    exception_image: orUndefined(row.exception_image),
    location_code: orUndefined(row.location_code),
    location_tag: context.locationTags?.[0],
    moved_on: row.reference_id !== null ? formatDateTime(row.modification_at) : undefined,
    orderno: orUndefined(row.orderno),
    product_number: row.product_number,
    reason_code_description: orUndefined(row.reason_code_description),
    reference: orUndefined(row.reference),
    remarks: orUndefined(row.remarks),
    review_status: String(row.review_status),
    source: orUndefined(row.source),
    stock_pool: touched.length === 1 ? String(touched[0]) : undefined,
    store_number: row.store_number,
    updated_by: row.modified_by,
    counted_quantity: row.counted_quantity === null ? undefined : fromQuantity(row.counted_quantity),
    counting_assignment_id: orUndefined(row.counting_assignment_id),
    counting_lines_remaining: orUndefined(row.counting_lines_remaining),
    customer_order_line_number: orUndefined(row.customer_order_line_number),
    customer_order_shipment_number_line_number: orUndefined(row.customer_order_shipment_line_number),
    expected_quantity: expected === undefined ? undefined : fromQuantity(expected),
    location: orUndefined(row.location_id),
    purchase_price: row.purchase_price === null ? undefined : fromMoney(row.purchase_price),
    reason_code: orUndefined(row.reason_code),
    reference_id: orUndefined(row.reference_id),
    store_products_price: row.price === null ? undefined : fromMoney(row.price),
  };
  for (const n of POOLS) log[`stock_pool_${n}`] = fromQuantity(perPool[n - 1]!);
  return log;
}
