import type { Insertable } from 'kysely';
import type { DeliveryOrderLineTable } from '../../db/schema.js';
import { formatDateTime, requireDateTime } from '../../domain/datetime.js';
import { fromQuantity, toMoney, toQuantity } from '../../domain/decimal.js';
import { contentHash } from '../../shared/bulk.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import type { DeliveryLineReadRow, DeliveryLineRow, DeliveryReadRow } from './rows.js';
import type { DeliveryInput, DeliveryLine, DeliveryLineInput, DeliveryOrder } from './schema.js';
import { valuesOf } from '../../shared/column-access.js';

/** The header columns an import writes (status, audit and id are the service's). */
export interface DeliveryHeader {
  order_type: number;
  datetime_created_at: number;
  datetime_expected_at: number;
  no_of_containers: number;
  reason_code: number | null;
  description: string | null;
  reference: string | null;
  store_origin: string | null;
  supplier_code: string | null;
  supplier_name: string | null;
  tracing_url: string | null;
}

/** The line columns an import writes: everything but ids and what receiving keeps. */
export type LineRecord = Omit<
  Insertable<DeliveryOrderLineTable>,
  'id' | 'delivery_id' | 'store_id' | 'received_quantity'
>;

export function lineRecord(input: DeliveryLineInput, product: { id: number; product_number: string }): LineRecord {
  return {
    line_number: input.line_number,
    product_id: product.id,
    product_number: product.product_number,
    quantity: toQuantity(input.quantity),
    ordered_quantity: input.ordered_quantity === undefined ? null : toQuantity(input.ordered_quantity),
    target_stock_pool: input.target_stock_pool,
    customer_order_line_number: orNull(input.customer_order_line_number),
    customer_order_shipment_line_number: orNull(input.customer_order_shipment_number_line_number),
    secondary_order_line_number: orNull(input.secondary_order_line_number),
    purchase_price: input.purchase_price === undefined ? null : toMoney(input.purchase_price),
    barcode: orNull(input.barcode),
    container_barcode: orNull(input.container_barcode),
    customer_order_number: orNull(input.customer_order_number),
    customer_order_shipment_number: orNull(input.customer_order_shipment_number),
    description: orNull(input.description),
    product_description: orNull(input.product_description),
    reference: orNull(input.reference),
    secondary_order_number: orNull(input.secondary_order_number),
  };
}

/** Columns of a line an import compares and writes, in one fixed order. */
export const LINE_COLUMNS = [
  'line_number',
  'product_id',
  'product_number',
  'quantity',
  'ordered_quantity',
  'target_stock_pool',
  'customer_order_line_number',
  'customer_order_shipment_line_number',
  'secondary_order_line_number',
  'purchase_price',
  'barcode',
  'container_barcode',
  'customer_order_number',
  'customer_order_shipment_number',
  'description',
  'product_description',
  'reference',
  'secondary_order_number',
] as const satisfies ReadonlyArray<keyof LineRecord>;

/** A line's values in LINE_COLUMNS order, null where absent (its signature and its insert row). */
export const lineValues = valuesOf(LINE_COLUMNS);

/** Equal for a stored line and a sent one exactly when the import would not change it. */
export function lineSignature(line: LineRecord | DeliveryLineRow): string {
  return JSON.stringify(lineValues(line));
}

/**
 * No. of containers (PRODUCT §7): as sent with `container_override: true` or when no line
 * carries a container barcode, else the number of distinct container barcodes.
 */
export function containerCount(
  sent: number,
  lines: ReadonlyArray<{ container_barcode?: string | null }>,
  override: boolean,
): number {
  if (override) return sent;
  const containers = new Set(lines.flatMap((line) => (line.container_barcode ? [line.container_barcode] : [])));
  return containers.size === 0 ? sent : containers.size;
}

export function headerOf(input: DeliveryInput, noOfContainers: number, createdAtDefault: number): DeliveryHeader {
  return {
    order_type: input.order_type,
    datetime_created_at:
      input.datetime_created === undefined ? createdAtDefault : requireDateTime(input.datetime_created),
    datetime_expected_at: requireDateTime(input.datetime_expected),
    no_of_containers: noOfContainers,
    reason_code: orNull(input.reason_code),
    description: orNull(input.description),
    reference: orNull(input.reference),
    store_origin: orNull(input.store_origin),
    supplier_code: orNull(input.supplier_code),
    supplier_name: orNull(input.supplier_name),
    tracing_url: orNull(input.tracing_url),
  };
}

/**
 * The stored header's hash, over what is stored: a `datetime_created` left out keeps the
 * stored moment, so a re-send without it is unchanged.
 */
export function headerHash(header: DeliveryHeader): string {
  return contentHash(header);
}

export function toDeliveryLine(row: DeliveryLineReadRow): DeliveryLine {
  return {
    line_number: Number(row.line_number),
    quantity: fromQuantity(row.quantity),
    received_quantity: fromQuantity(row.received_quantity),
    target_stock_pool: row.target_stock_pool,
    barcode: orUndefined(row.barcode ?? row.master_barcode),
    base_unit: orUndefined(row.base_unit_name),
    category_code: orUndefined(row.category_code),
    container_barcode: orUndefined(row.container_barcode),
    customer_order_number: orUndefined(row.customer_order_number),
    customer_order_shipment_number: orUndefined(row.customer_order_shipment_number),
    customer_order_shipment_number_line_number:
      row.customer_order_shipment_line_number === null ? undefined : Number(row.customer_order_shipment_line_number),
    description: orUndefined(row.description ?? row.product_description),
    group_code: orUndefined(row.group_code),
    product_number: row.product_number,
    purchase_unit_quantity: row.purchase_unit_quantity === null ? undefined : fromQuantity(row.purchase_unit_quantity),
    rounded_quantity: fromQuantity(row.quantity),
    secondary_order_number: orUndefined(row.secondary_order_number),
  };
}

export function toDeliveryOrder(row: DeliveryReadRow, lines: readonly DeliveryLineReadRow[]): DeliveryOrder {
  return {
    datetime_created: formatDateTime(row.datetime_created_at),
    datetime_expected: formatDateTime(row.datetime_expected_at),
    import_id: row.id,
    is_downloaded: row.status !== 'open' && row.status !== 'cancelled',
    updated_on: formatDateTime(row.updated_on),
    external_reference_number: orUndefined(row.reference),
    no_of_containers: Number(row.no_of_containers),
    order_lines: lines.map(toDeliveryLine),
    order_number: row.order_number,
    order_type: String(row.order_type),
    status: row.status,
    store_gln: orUndefined(row.store_gln),
    store_number: row.store_number,
    store_origin: orUndefined(row.store_origin),
    supplier_code: orUndefined(row.supplier_code),
    supplier_name: orUndefined(row.supplier_name),
    tracing_url: orUndefined(row.tracing_url),
  };
}
