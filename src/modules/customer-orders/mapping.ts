import { formatOptionalDateTime, requireDateTime } from '../../domain/datetime.js';
import { fromMoney, fromQuantity, toMoney, toQuantity } from '../../domain/decimal.js';
import { contentHash } from '../../shared/bulk.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import type { OrderLineReadRow, OrderLineRow, OrderReadRow, StoreLocationRow } from './rows.js';
import {
  FINAL_STATUSES,
  STATUS,
  type CustomerOrder,
  type CustomerOrderLine,
  type OrderInput,
  type OrderLineInput,
} from './schema.js';
import { valuesOf } from '../../shared/column-access.js';

/** The header columns the ERP's upsert writes. */
export interface OrderHeader {
  order_type_code: string | null;
  description: string | null;
  customer_name: string | null;
  comment: string | null;
  reference: string | null;
  pickup_at: number | null;
  sales_order_id: string | null;
  stores_allowed: string | null;
}

export function headerOf(input: OrderInput): OrderHeader {
  return {
    order_type_code: orNull(input.order_type_code),
    description: orNull(input.description),
    customer_name: orNull(input.customer_name),
    comment: orNull(input.comment),
    reference: orNull(input.reference),
    pickup_at: input.pickup_date === undefined ? null : requireDateTime(input.pickup_date),
    sales_order_id: orNull(input.sales_order_id),
    stores_allowed: orNull(input.stores_allowed),
  };
}

export const headerHash = (header: OrderHeader): string => contentHash(header);

/** The columns of a line the ERP's upsert writes and compares, in one fixed order. */
export const LINE_COLUMNS = [
  'line_number',
  'product_id',
  'product_number',
  'quantity',
  'price',
  'stock_pool',
  'delivery_at',
  'barcode',
  'description',
  'preferred_location_code',
  'reference',
] as const;

/** A line's values in LINE_COLUMNS order, null where absent (its signature and its insert row). */
export const lineValues = valuesOf(LINE_COLUMNS);
export type LineRecord = { [C in (typeof LINE_COLUMNS)[number]]: OrderLineRow[C] };

export function lineRecord(input: OrderLineInput, product: { id: number; product_number: string }): LineRecord {
  return {
    line_number: input.line_number,
    product_id: product.id,
    product_number: product.product_number,
    quantity: toQuantity(input.quantity),
    price: input.price === undefined ? null : toMoney(input.price),
    stock_pool: input.stock_pool ?? 1,
    delivery_at: input.delivery_date === undefined ? null : requireDateTime(input.delivery_date),
    barcode: orNull(input.barcode),
    description: orNull(input.description),
    preferred_location_code: orNull(input.preferred_location_code),
    reference: orNull(input.reference),
  };
}

export function lineSignature(line: LineRecord | OrderLineRow): string {
  return JSON.stringify(lineValues(line));
}

function toStoreLocation(row: StoreLocationRow) {
  const location: Record<string, unknown> = {
    location_order: Number(row.location_order),
    quantity: fromQuantity(row.pools.reduce((sum, q) => sum + q, 0)),
    location_code: row.location_code,
    default_stock_pool: row.default_stock_pool === null ? undefined : String(row.default_stock_pool),
    tags: row.tags,
  };
  row.pools.forEach((quantity, index) => {
    if (quantity !== 0) location[`most_likely_pool_${index + 1}`] = fromQuantity(quantity);
  });
  return location as NonNullable<CustomerOrderLine['store_locations']>[number];
}

export function toCustomerOrderLine(
  row: OrderLineReadRow,
  order: OrderReadRow,
  locations: readonly StoreLocationRow[],
): CustomerOrderLine {
  return {
    id: row.id,
    explicit_order: false,
    is_picked: Number(row.picked_quantity) >= Number(row.quantity),
    is_template: false,
    line_number: Number(row.line_number),
    picked_quantity: fromQuantity(row.picked_quantity),
    price: row.price === null ? 0 : fromMoney(row.price),
    quantity: fromQuantity(row.quantity),
    stock_pool: row.stock_pool,
    store_walking_order: locations.length === 0 ? 0 : Math.min(...locations.map((l) => Number(l.location_order))),
    barcode: orUndefined(row.barcode ?? row.master_barcode),
    delivery_date: formatOptionalDateTime(row.delivery_at),
    description: orUndefined(row.description ?? row.product_name),
    // The picker who claimed the order until a pick of the line names its own.
    picked_username: orUndefined(row.picked_username ?? order.picked_username),
    pickup_date: formatOptionalDateTime(order.pickup_at),
    preferred_location_code: orUndefined(row.preferred_location_code),
    product_number: row.product_number,
    reference: orUndefined(row.reference),
    stock_location: orUndefined(row.stock_location),
    store_locations: locations.map(toStoreLocation),
  };
}

export function toCustomerOrder(
  row: OrderReadRow,
  lineRows: readonly OrderLineReadRow[],
  lines: CustomerOrderLine[],
): CustomerOrder {
  const sumOf = (column: 'quantity' | 'picked_quantity') =>
    fromQuantity(lineRows.reduce((sum, line) => sum + Number(line[column]), 0));
  return {
    is_active: !FINAL_STATUSES.has(row.status_id),
    is_claimed: row.is_claimed === 1,
    is_picked: row.status_id === STATUS.picked || row.status_id === STATUS.collected,
    is_rejected: row.status_id === STATUS.rejected,
    status_id: row.status_id,
    total_lines: lines.length,
    total_quantity: sumOf('quantity'),
    comment: orUndefined(row.comment),
    customer_name: orUndefined(row.customer_name),
    description: orUndefined(row.description),
    order_number: row.order_number,
    order_type_code: orUndefined(row.order_type_code),
    pickup_date: formatOptionalDateTime(row.pickup_at),
    reference: orUndefined(row.reference),
    rejection_reason_code: row.rejection_reason_code === null ? undefined : String(row.rejection_reason_code),
    rejection_reason_code_description: orUndefined(row.rejection_reason_code_description),
    sales_order_id: orUndefined(row.sales_order_id),
    store_number: row.store_number,
    stores_allowed: orUndefined(row.stores_allowed),
    total_delivery_quantity: sumOf('picked_quantity'),
    lines,
  };
}
