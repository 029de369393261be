import type { Bool, StoreProductTable } from '../../db/schema.js';
import { formatDateTime, requireDateTime } from '../../domain/datetime.js';
import { toMoney, toQuantity } from '../../domain/decimal.js';
import { contentHash } from '../../shared/bulk.js';
import type { FieldError } from '../../shared/validation.js';
import type { StoreProductInput } from './schema.js';
import type { StoreProductRow } from './rows.js';

/**
 * The columns a POST/PUT of interface §4.4 owns. Everything else on the row is bookkeeping
 * (original_min/max, last_*_at/by, stock_modified_at) and stays out of the content hash.
 */
export type StoreProductProperties = Pick<
  StoreProductTable,
  | 'min'
  | 'max'
  | 'order_level'
  | 'demand_until_delivery'
  | 'forecast'
  | 'adjustment_level_decrease'
  | 'adjustment_level_increase'
  | 'price'
  | 'discount_price'
  | 'expiry_at'
  | 'validate_expiry_at'
  | 'next_delivery_at'
  | 'next_ordering_at'
  | 'default_salesorder_type'
  | 'counting_assignment_code'
  | 'group_code'
  | 'replenishment_action'
  | 'is_promotion'
  | 'is_replenishment'
  | 'attention_codes'
  | 'average_keys'
  | 'average_array'
  | 'forecast_keys'
  | 'forecast_array'
  | 'history_keys'
  | 'history_array'
  | 'delivery_datetimes'
  | 'ordering_datetimes'
>;

type Column = keyof StoreProductProperties;
type InputField = Exclude<keyof StoreProductInput, 'product_number'>;

const json = (value: unknown) => JSON.stringify(value);
/** Date lists are stored in the emitted form, so equal instants hash equal and read back as-is. */
const dateList = (value: unknown) => JSON.stringify((value as string[]).map((d) => formatDateTime(requireDateTime(d))));
const bool = (value: unknown): Bool => (value ? 1 : 0);

/** Input field → column and its codec (exact scaled integers, epoch ms, JSON text). */
const FIELDS: ReadonlyArray<{ field: InputField; column: Column; encode: (value: unknown) => number | string }> = [
  { field: 'min', column: 'min', encode: (v) => toQuantity(v as number) },
  { field: 'max', column: 'max', encode: (v) => toQuantity(v as number) },
  { field: 'order_level', column: 'order_level', encode: (v) => toQuantity(v as number) },
  { field: 'demand_until_delivery', column: 'demand_until_delivery', encode: (v) => toQuantity(v as number) },
  { field: 'forecast', column: 'forecast', encode: (v) => toQuantity(v as number) },
  { field: 'adjustment_level_decrease', column: 'adjustment_level_decrease', encode: (v) => toQuantity(v as number) },
  { field: 'adjustment_level_increase', column: 'adjustment_level_increase', encode: (v) => toQuantity(v as number) },
  { field: 'price', column: 'price', encode: (v) => toMoney(v as number) },
  { field: 'discount_price', column: 'discount_price', encode: (v) => toMoney(v as number) },
  { field: 'expiry_date_time', column: 'expiry_at', encode: (v) => requireDateTime(v as string) },
  { field: 'validate_expiry_date_time', column: 'validate_expiry_at', encode: (v) => requireDateTime(v as string) },
  { field: 'next_delivery_date', column: 'next_delivery_at', encode: (v) => requireDateTime(v as string) },
  { field: 'next_ordering_date', column: 'next_ordering_at', encode: (v) => requireDateTime(v as string) },
  { field: 'default_salesorder_type', column: 'default_salesorder_type', encode: (v) => v as string },
  { field: 'counting_assignment_code', column: 'counting_assignment_code', encode: (v) => v as string },
  { field: 'group_code', column: 'group_code', encode: (v) => v as string },
  { field: 'replenishment_action', column: 'replenishment_action', encode: (v) => v as string },
  { field: 'is_promotion', column: 'is_promotion', encode: bool },
  { field: 'is_replenishment', column: 'is_replenishment', encode: bool },
  { field: 'attention_codes', column: 'attention_codes', encode: json },
  { field: 'average_keys', column: 'average_keys', encode: json },
  { field: 'average_array', column: 'average_array', encode: json },
  { field: 'forecast_keys', column: 'forecast_keys', encode: json },
  { field: 'forecast_array', column: 'forecast_array', encode: json },
  { field: 'history_keys', column: 'history_keys', encode: json },
  { field: 'history_array', column: 'history_array', encode: json },
  { field: 'delivery_datetimes', column: 'delivery_datetimes', encode: dateList },
  { field: 'ordering_datetimes', column: 'ordering_datetimes', encode: dateList },
];

const COLUMNS: readonly Column[] = FIELDS.map((f) => f.column);

/** Fields of interface §4.4 only PUT takes; a POST leaves them as stored. */
export const PUT_ONLY_FIELDS: ReadonlySet<InputField> = new Set([
  'adjustment_level_decrease',
  'adjustment_level_increase',
  'forecast',
  'counting_assignment_code',
  'group_code',
  'replenishment_action',
]);

/** A store product that has never been given any property (created by the ledger or an empty POST). */
export function emptyProperties(): StoreProductProperties {
  return Object.fromEntries(COLUMNS.map((c) => [c, null])) as unknown as StoreProductProperties;
}

export function propertiesOf(row: StoreProductRow): StoreProductProperties {
  return Object.fromEntries(
    COLUMNS.map((c) => [c, row[c] === null ? null : row[c]]),
  ) as unknown as StoreProductProperties;
}

/**
 * Merges a request item into the stored properties (PRODUCT §5 upsert): a field sent
 * replaces the stored value, null clears it, a field left out keeps it. `allowed` tells
 * which fields the method takes (POST ignores the PUT-only ones).
 */
export function mergeProperties(
  stored: StoreProductProperties,
  input: StoreProductInput,
  allowed: (field: InputField) => boolean,
): StoreProductProperties {
  const merged = { ...stored } as Record<Column, number | string | null>;
  for (const { field, column, encode } of FIELDS) {
    if (!allowed(field)) continue;
    const value = input[field];
    if (value === undefined) continue;
    merged[column] = value === null ? null : encode(value);
  }
  return merged as unknown as StoreProductProperties;
}

/** Hash of the properties in a fixed column order (identical re-send → unchanged). */
export function propertiesHash(properties: StoreProductProperties): string {
  return contentHash(COLUMNS.map((c) => properties[c]));
}

/** Keyed arrays of interface §4.4: values aligned with their keys. */
const KEYED_PAIRS = [
  ['average_keys', 'average_array'],
  ['forecast_keys', 'forecast_array'],
  ['history_keys', 'history_array'],
] as const;

/**
 * A keyed array and its keys travel together and have equal lengths (PRODUCT §5: 400).
 * Sending one of a pair without the other would pair new values with old keys, so the pair
 * is checked as a unit within the request.
 */
export function keyedArrayErrors(
  items: readonly StoreProductInput[],
  allowed: (field: InputField) => boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  items.forEach((item, index) => {
    for (const [keysField, valuesField] of KEYED_PAIRS) {
      if (!allowed(keysField)) continue;
      const keys = item[keysField];
      const values = item[valuesField];
      if (keys === undefined && values === undefined) continue;
      const keyCount = keys?.length ?? 0;
      const valueCount = values?.length ?? 0;
      if (keys === undefined || values === undefined || keyCount !== valueCount) {
        const path = `products[${index}]`;
        errors.push({
          path: `${path}.${valuesField}`,
          message: `${valuesField} (${values === undefined ? 'absent' : `${valueCount} values`}) and ${keysField} (${keys === undefined ? 'absent' : `${keyCount} keys`}) must be sent together with equal lengths`,
        });
      }
    }
  });
  return errors;
}
