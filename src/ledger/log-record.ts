import type { Insertable } from 'kysely';
import type { StockLogTable } from '../db/schema.js';

/**
 * The stock log's own record: what an entry says about itself beyond the stock it moves —
 * who recorded it, what it refers to, the loss's comment and image, the scan's moment. The
 * kernel stores it with the entry and returns it untouched; only the module that takes it
 * from a request and the one that reads it back know what it means. A new log field is a
 * column here (and in the migration and db/schema.ts), never a change to the kernel.
 *
 * The columns are listed once, in the order they are written: every row of a booking has all
 * of them (null where the entry says nothing), so one multi-row insert carries them all.
 */
const EMPTY_LOG_RECORD = {
  reference_id: null,
  customer_order_line_number: null,
  customer_order_shipment_number: null,
  customer_order_shipment_line_number: null,
  app_user_name: null,
  reference: null,
  source: null,
  remarks: null,
  exception_image: null,
  orderno: null,
  scanned_at: null,
  order_after_at: null,
};

export type LogRecordColumn = keyof typeof EMPTY_LOG_RECORD;

/** Every record column, null where the entry says nothing. */
export type LogRecord = { [Column in LogRecordColumn]: NonNullable<Insertable<StockLogTable>[Column]> | null };

/** The record's columns, in the order they are written. */
export const LOG_RECORD_COLUMNS = Object.keys(EMPTY_LOG_RECORD) as readonly LogRecordColumn[];

/** The record of an entry from what it says (undefined and null alike: nothing said). */
export function logRecord(fields: { [Column in LogRecordColumn]?: LogRecord[Column] | undefined }): LogRecord {
  const record = { ...EMPTY_LOG_RECORD } as Record<LogRecordColumn, unknown>;
  for (const column of LOG_RECORD_COLUMNS) {
    const value = fields[column];
    if (value !== undefined) record[column] = value;
  }
  return record as LogRecord;
}
