import { requireDateTime } from '../../domain/datetime.js';
import { toQuantity } from '../../domain/decimal.js';
import { POOLS, splitIntoPools } from '../../domain/stock-rules.js';
import { type IntakeLine, loggedStock, type Resolution } from '../../ledger/intake.js';
import { logRecord } from '../../db/log-record.js';
import type { EntryDraft, ReceivingCandidate } from '../../ledger/types.js';
import { validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import type { StockLogInput, StockLogsPostQuery } from './schema.js';

/**
 * A stock log post's lines as the ledger takes them (interface §4.8, PRODUCT §5): checked
 * against what the request alone can break, named by natural key for the ledger's intake,
 * then drafted from what it resolved — the stock they move, and the log's own record.
 */

const path = (index: number, field: string) => `storeproductlog[${index}].${field}`;

export interface CheckedLine {
  input: StockLogInput;
  at: number;
  quantityMilli: number;
  /** stock_pool_1..10 as sent (thousandths), undefined where not sent. */
  poolQuantitiesMilli: Array<number | undefined>;
}

/** `stock_pool_1` … `stock_pool_10`, named once rather than for every line of a 10,000-line post. */
const POOL_FIELDS = POOLS.map((n) => `stock_pool_${n}`);

/** Rules the request alone can break (PRODUCT §3: 400 naming the fields). */
export function checkLines(lines: readonly StockLogInput[], isCount: boolean): CheckedLine[] {
  const errors: FieldError[] = [];
  const checked = lines.map((input, index) => {
    if (input.product_number === undefined || input.product_number === '') {
      errors.push({ path: path(index, 'product_number'), message: 'is required: the entry must name its product' });
    }
    const quantityMilli = toQuantity(input.quantity);
    if (isCount && quantityMilli < 0)
      errors.push({ path: path(index, 'quantity'), message: 'a counted level cannot be negative' });
    const fields = input as unknown as Record<string, number | undefined>;
    const poolQuantitiesMilli = POOL_FIELDS.map((field) => {
      const value = fields[field];
      if (value === undefined) return undefined;
      const milli = toQuantity(value);
      if (isCount && milli < 0)
        errors.push({ path: path(index, field), message: 'a counted level cannot be negative' });
      return milli;
    });
    const split = splitIntoPools({ quantityMilli, poolDeltasMilli: poolQuantitiesMilli });
    if (!split.ok) errors.push({ path: path(index, 'quantity'), message: split.reason });
    return { input, at: requireDateTime(input.modification_datetime), quantityMilli, poolQuantitiesMilli };
  });
  if (errors.length > 0) throw validationFailed('Some stock log entries are invalid', errors);
  return checked;
}

/** What each line names, for the ledger's intake. */
export const intakeLines = (lines: readonly CheckedLine[]): IntakeLine[] =>
  lines.map(({ input }, index) => ({
    product: { key: input.product_number!, path: path(index, 'product_number') },
    reason: input.reason_code === undefined ? undefined : { key: input.reason_code, path: path(index, 'reason_code') },
    locations: input.location_code ? [{ key: input.location_code, path: path(index, 'location_code') }] : undefined,
    // Stock bound to a customer order of the store moves only by that order's operations (PRODUCT §5).
    orderNumbers: [{ orderNumber: input.customer_order_number, path: path(index, 'customer_order_number') }],
    source: { key: input.source, path: path(index, 'source') },
  }));

/** The lines' drafts, from what the intake resolved (it found every one: its errors were thrown). */
export function draftEntries(
  lines: readonly CheckedLine[],
  resolution: Resolution,
  query: StockLogsPostQuery,
): EntryDraft[] {
  const isCount = query.is_counted_quantity === true;
  return lines.map(({ input, at, quantityMilli, poolQuantitiesMilli }, index): EntryDraft => {
    const { product, reason, locations } = resolution.lines[index]!;
    const location = locations[0];
    const stock = loggedStock(
      { quantityMilli, isCount, poolLocation: input.pool_location, poolQuantitiesMilli },
      reason,
      location,
    );
    return {
      product: product!,
      location,
      reason,
      at,
      isCount,
      poolParts: stock.poolParts,
      pending: stock.pending,
      isFromReceipt: query.is_from_receipt === true,
      customerOrderNumber: input.customer_order_number || undefined,
      path: path(index, 'quantity'),
      atPath: path(index, 'modification_datetime'),
      record: logRecord({
        customer_order_line_number: input.customer_order_line_number,
        app_user_name: input.app_user_name ?? query.appUserName,
        reference: input.reference,
        source: input.source,
        remarks: input.loss_comment,
        exception_image: input.loss_image,
        orderno: input.loss_order_number,
        scanned_at: input.scanned_datetime ? requireDateTime(input.scanned_datetime) : undefined,
        order_after_at: input.order_after_date ? requireDateTime(input.order_after_date) : undefined,
      }),
    };
  });
}

/** Entries naming a reference may receive on the delivery of that order number (PRODUCT §7). */
export function receivingCandidates(lines: readonly CheckedLine[], query: StockLogsPostQuery): ReceivingCandidate[] {
  if (query.is_from_receipt !== true) return [];
  return lines.flatMap(({ input, poolQuantitiesMilli }, index) =>
    input.reference
      ? [
          {
            draftIndex: index,
            path: `storeproductlog[${index}]`,
            quantityField: 'quantity',
            orderNumber: input.reference,
            poolChosen: input.pool_location !== undefined || poolQuantitiesMilli.some((q) => q !== undefined),
          },
        ]
      : [],
  );
}
