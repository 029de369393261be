/**
 * The stock log's own record: what an entry says about itself beyond the stock it moves —
 * who recorded it, what it refers to, the loss's comment and image, the scan's moment. The
 * kernel (src/ledger/) stores it with the entry and returns it untouched; only the module that
 * takes it from a request and the one that reads it back know what it means. A new log field
 * is a column declared here (and added by a migration), never a change to the kernel: the
 * stock_logs table type takes these columns from here (schema.ts StockLogTable).
 */
export interface LogRecordColumns {
  reference_id: number | null;
  customer_order_line_number: number | null;
  customer_order_shipment_number: string | null;
  customer_order_shipment_line_number: number | null;
  app_user_name: string | null;
  reference: string | null;
  source: string | null;
  remarks: string | null;
  exception_image: string | null;
  orderno: string | null;
  scanned_at: number | null;
  order_after_at: number | null;
  /** The counting assignment that booked the entry (PRODUCT §10). */
  counting_assignment_id: number | null;
  /** The assignment's lines not yet booked once this entry is (PRODUCT §10, docs/counting.md). */
  counting_lines_remaining: number | null;
}

export type LogRecordColumn = keyof LogRecordColumns;

/** Every record column, null where the entry says nothing. */
export type LogRecord = LogRecordColumns;

/**
 * The columns in the order they are written: every row of a booking has all of them (null
 * where the entry says nothing), so one multi-row insert carries them all. A column missing
 * here fails to compile.
 */
const EMPTY_LOG_RECORD: { [Column in LogRecordColumn]: null } = {
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
  counting_assignment_id: null,
  counting_lines_remaining: null,
};

/** The record's columns, in the order they are written. */
export const LOG_RECORD_COLUMNS = Object.keys(EMPTY_LOG_RECORD) as readonly LogRecordColumn[];

/** The record of an entry from what it says (undefined and null alike: nothing said). */
export function logRecord(fields: { [Column in LogRecordColumn]?: LogRecord[Column] | undefined }): LogRecord {
  const record: LogRecord = { ...EMPTY_LOG_RECORD };
  for (const column of LOG_RECORD_COLUMNS) {
    const value = fields[column];
    if (value !== undefined) (record as Record<LogRecordColumn, unknown>)[column] = value;
  }
  return record;
}
