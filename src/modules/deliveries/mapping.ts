import { contentHash } from '../../shared/bulk.js';
import { valuesOf } from '../../shared/column-access.js';
import { recordWriter, reader, type RecordOf } from '../../shared/fields.js';
import {
  LINE_FIELDS,
  ORDER_FIELDS,
  type DeliveryOrder,
  type DeliveryReadContext,
  type HeaderContext,
  type LineContext,
} from './fields.js';
import {
  DELIVERY_LINE_COLUMNS,
  DELIVERY_ORDER_COLUMNS,
  type DeliveryLineReadRow,
  type DeliveryLineRow,
  type DeliveryReadRow,
} from './rows.js';
import type { DeliveryInput, DeliveryLineInput } from './schema.js';

/** The header columns an import writes from an order (status, audit and id are the service's). */
export type DeliveryHeader = RecordOf<typeof ORDER_FIELDS>;

/** The line columns an import writes: everything but ids and what receiving keeps. */
export type LineRecord = RecordOf<typeof LINE_FIELDS>;

/** Columns of a line an import compares and writes, in the table's order. */
export const LINE_COLUMNS = DELIVERY_LINE_COLUMNS.filter((column) =>
  Object.values(LINE_FIELDS).some((field) => field.column === column),
) as ReadonlyArray<keyof LineRecord>;

const writeLine = recordWriter<typeof LINE_FIELDS, LineContext>(LINE_FIELDS, DELIVERY_LINE_COLUMNS);

export function lineRecord(input: DeliveryLineInput, product: { id: number; product_number: string }): LineRecord {
  return writeLine(input, { product });
}

/** A line's values in LINE_COLUMNS order, null where absent (its signature). */
const lineValues = valuesOf(LINE_COLUMNS);

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

const writeHeader = recordWriter<typeof ORDER_FIELDS, HeaderContext>(ORDER_FIELDS, DELIVERY_ORDER_COLUMNS);

/** The header's columns in the table's order: the content hash of deliveries stored before is computed the same. */
export function headerOf(input: DeliveryInput, noOfContainers: number, createdAtDefault: number): DeliveryHeader {
  return writeHeader(input, { noOfContainers, createdAtDefault });
}

/**
 * The stored header's hash, over what is stored: a `datetime_created` left out keeps the
 * stored moment, so a re-send without it is unchanged.
 */
export function headerHash(header: DeliveryHeader): string {
  return contentHash(header);
}

const readDelivery = reader<typeof ORDER_FIELDS, DeliveryReadRow, DeliveryReadContext, DeliveryOrder>(ORDER_FIELDS);

export function toDeliveryOrder(row: DeliveryReadRow, lines: readonly DeliveryLineReadRow[]): DeliveryOrder {
  return readDelivery(row, { lines });
}
