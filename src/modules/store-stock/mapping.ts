import { formatOptionalDateTime } from '../../domain/datetime.js';
import { fromMoney, fromQuantity } from '../../domain/decimal.js';
import { POOL_COUNT } from '../../domain/stock-rules.js';
import { poolName } from '../locations/mapping.js';
import type { SingleProductStock, StoreLocationStock, StoreProductStock, SurroundingStock } from './schema.js';
import { orUndefined } from '../../shared/nullable.js';

import type { BalanceLine, LocationInfo } from './rows.js';
import type { StockListRow, SurroundingRow } from './repository.js';

/** What a location line shows of its location (interface §2.5 store location stock entry). */
interface PoolTotals {
  /** Index 0 = pool 1, thousandths. */
  pools: number[];
  total: number;
}

interface LocationLine extends PoolTotals {
  locationId: number;
  location?: LocationInfo;
  /** The location's tags, parsed once per summary. */
  tags?: string[];
}

/**
 * A product's stock in one store: totals per pool and per location (PRODUCT §5 Pools),
 * located lines in display order (location_order, then code), the unlocated line last.
 * Never changed once made, so the balance cache can hand the same summary to many answers.
 */
export interface StockSummary extends PoolTotals {
  lines: LocationLine[];
}

const emptyPools = () => new Array<number>(POOL_COUNT).fill(0);

/** Adds the balances up exactly (scaled integers) per pool, in total and per location. */
export function summarise(balances: readonly BalanceLine[]): StockSummary {
  const summary: StockSummary = { pools: emptyPools(), total: 0, lines: [] };
  const lines = new Map<number, LocationLine>();
  for (const balance of balances) {
    summary.pools[balance.pool - 1]! += balance.quantity;
    summary.total += balance.quantity;
    let line = lines.get(balance.location_id);
    if (!line) {
      const location = balance.location;
      line = {
        locationId: balance.location_id,
        location,
        tags: location && (JSON.parse(location.tags) as string[]),
        pools: emptyPools(),
        total: 0,
      };
      lines.set(balance.location_id, line);
    }
    line.pools[balance.pool - 1]! += balance.quantity;
    line.total += balance.quantity;
  }
  summary.lines = [...lines.values()].sort(compareLines);
  return summary;
}

/** Field names per prefix and pool index, so no answer builds them again. */
const POOL_KEYS = new Map<string, readonly string[]>();
function poolKeys(prefix: string): readonly string[] {
  let keys = POOL_KEYS.get(prefix);
  if (keys === undefined)
    POOL_KEYS.set(prefix, (keys = Array.from({ length: POOL_COUNT }, (_, index) => `${prefix}${index + 1}`)));
  return keys;
}

/**
 * Sets `<prefix>1` … `<prefix>10` on `target`; with `allPools` false, pools holding zero
 * are left out (include_zero_lines=false). Assigned in place: the hot single-product read
 * builds several of these per answer.
 */
function setPoolFields<T extends object>(target: T, prefix: string, pools: readonly number[], allPools: boolean): T {
  const keys = poolKeys(prefix);
  const fields = target as Record<string, number>;
  for (let index = 0; index < pools.length; index++) {
    const quantity = pools[index]!;
    if (allPools || quantity !== 0) fields[keys[index]!] = fromQuantity(quantity);
  }
  return target;
}

const isZero = (line: PoolTotals) => line.pools.every((quantity) => quantity === 0);

/** Located lines by location_order then code; the line of stock without a location last. */
function compareLines(a: LocationLine, b: LocationLine): number {
  if (a.location === undefined || b.location === undefined)
    return (a.location === undefined ? 1 : 0) - (b.location === undefined ? 1 : 0);
  if (a.location.location_order !== b.location.location_order)
    return a.location.location_order - b.location.location_order;
  return a.location.location_code < b.location.location_code
    ? -1
    : a.location.location_code > b.location.location_code
      ? 1
      : 0;
}

/**
 * store_locations (interface §2.5): one entry per location the product has balances at,
 * plus one without store_location_code for stock booked without a location. A line whose
 * every pool is zero is left out unless `includeZeroLines`.
 */
export function storeLocations(
  summary: StockSummary,
  storePoolNames: ReadonlyArray<string | null>,
  options: { includeZeroLines: boolean; allPools: boolean },
): StoreLocationStock[] {
  const entries: StoreLocationStock[] = [];
  for (const line of summary.lines) {
    if (!options.includeZeroLines && isZero(line)) continue;
    const location = line.location;
    const entry: StoreLocationStock = {
      quantity: fromQuantity(line.total),
      default_stock_pool: location === undefined ? undefined : poolName(location.default_stock_pool, storePoolNames),
      store_location_code: location?.location_code,
      tags: line.tags,
    };
    entries.push(setPoolFields(entry, 'stock_pool_', line.pools, options.allPools));
  }
  return entries;
}

const quantity = (value: number | null) => (value === null ? undefined : fromQuantity(value));

/** A JSON array (codes, numbers) as one string joined by "," (interface §2.5 string fields); empty → absent. */
function joinedList(json: string | null): string | undefined {
  if (json === null) return undefined;
  const values = JSON.parse(json) as Array<string | number>;
  return values.length === 0 ? undefined : values.join(',');
}

function dateList(json: string | null): string[] | undefined {
  return json === null ? undefined : (JSON.parse(json) as string[]);
}

export const parsePoolNames = (json: string) => JSON.parse(json) as Array<string | null>;

/**
 * Row → store product with stock (interface §2.5). `priceMoney` is the PRODUCT §6 stock
 * read price already resolved; `summary` holds the balances the flags let through.
 */
export function toStoreProductStock(
  row: StockListRow,
  summary: StockSummary,
  priceMoney: number | null,
  includeLocations: boolean,
): StoreProductStock {
  // One literal, pools set on it afterwards (no spread): a page maps 100 of these.
  const entry: StoreProductStock = {
    id: row.id,
    is_replenishment: row.is_replenishment === 1,
    // A product is stock-kept unless the master says otherwise.
    is_stock: row.is_stock !== 0,
    most_likely_quantity: fromQuantity(summary.total),
    adjusted_order_level: quantity(row.adjusted_order_level),
    demand_until_delivery: quantity(row.demand_until_delivery),
    forecast: quantity(row.forecast),
    max: quantity(row.max),
    min: quantity(row.min),
    order_level: quantity(row.order_level),
    original_max: quantity(row.original_max),
    original_min: quantity(row.original_min),
    price: priceMoney === null ? undefined : fromMoney(priceMoney),
    purchase_unit_quantity: quantity(row.purchase_unit_quantity),
    smallest_item_quantity: quantity(row.smallest_quantity),
    attention_codes: joinedList(row.attention_code),
    average_array: joinedList(row.average_array),
    barcode: row.barcode ?? (JSON.parse(row.barcodes_array) as string[])[0],
    category_code: orUndefined(row.category_code),
    category_name: orUndefined(row.category_name),
    forecast_array: joinedList(row.forecast_array),
    group_code: orUndefined(row.group_code),
    history_array: joinedList(row.history_array),
    last_counted_datetime: formatOptionalDateTime(row.last_counted_at),
    last_expiry_datetime: formatOptionalDateTime(row.last_expiry_at),
    last_expiry_updatedby: orUndefined(row.last_expiry_by),
    last_loss_updatedby: orUndefined(row.last_loss_by),
    last_minmax_updatedby: orUndefined(row.last_minmax_by),
    last_receipt_updatedby: orUndefined(row.last_receipt_by),
    most_likely_datetime: formatOptionalDateTime(row.stock_modified_at),
    next_delivery_datetime: formatOptionalDateTime(row.next_delivery_at),
    next_ordering_datetime: formatOptionalDateTime(row.next_ordering_at),
    product_description: row.product_name,
    product_number: row.product_number,
    promotion_week: orUndefined(row.promotion_week ?? row.product_promotion_week),
    purchase_unit_name: orUndefined(row.purchase_unit_name),
    referral_product: orUndefined(row.referral_product_number),
    smallest_product_number: orUndefined(row.smallest_product_number),
    store_number: row.store_number,
    storeproduct_attention_codes: joinedList(row.attention_codes),
    validate_expiry_datetime: formatOptionalDateTime(row.validate_expiry_at),
    delivery_datetimes: dateList(row.delivery_datetimes),
    ordering_datetimes: dateList(row.ordering_datetimes),
    store_locations: includeLocations
      ? storeLocations(summary, parsePoolNames(row.stock_pool_names), { includeZeroLines: false, allPools: true })
      : undefined,
  };
  return setPoolFields(entry, 'most_likely_pool_', summary.pools, true);
}

export interface StoreProductSchedule {
  next_delivery_at: number | null;
  next_ordering_at: number | null;
  delivery_datetimes: string | null;
  ordering_datetimes: string | null;
}

/** Single-product stock entry (interface §2.5, PRODUCT §5 include_zero_lines). */
export function toSingleProductStock(args: {
  storeNumber: string;
  productNumber: string;
  summary: StockSummary;
  schedule: StoreProductSchedule | undefined;
  storePoolNames: ReadonlyArray<string | null>;
  includeLocations: boolean;
  includeZeroLines: boolean;
}): SingleProductStock {
  const { summary, schedule, includeZeroLines } = args;
  const entry: SingleProductStock = {
    most_likely_stock: fromQuantity(summary.total),
    product_number: args.productNumber,
    store_number: args.storeNumber,
    next_delivery_datetime: formatOptionalDateTime(schedule?.next_delivery_at),
    next_ordering_datetime: formatOptionalDateTime(schedule?.next_ordering_at),
    delivery_datetimes: dateList(schedule?.delivery_datetimes ?? null),
    ordering_datetimes: dateList(schedule?.ordering_datetimes ?? null),
    store_locations: args.includeLocations
      ? storeLocations(summary, args.storePoolNames, { includeZeroLines, allPools: includeZeroLines })
      : undefined,
  };
  return setPoolFields(entry, 'stock_pool_', summary.pools, includeZeroLines);
}

/** Rows of surroundingBalances (one per store and balance) → one entry per store, in row order. */
export function toSurroundingStock(rows: readonly SurroundingRow[]): SurroundingStock[] {
  const stores = new Map<number, { row: SurroundingRow; totals: PoolTotals }>();
  for (const row of rows) {
    let store = stores.get(row.id);
    if (!store) {
      store = { row, totals: { pools: emptyPools(), total: 0 } };
      stores.set(row.id, store);
    }
    if (row.pool === null || row.quantity === null) continue;
    store.totals.pools[row.pool - 1]! += Number(row.quantity);
    store.totals.total += Number(row.quantity);
  }
  return [...stores.values()].map(({ row, totals }) => ({
    is_warehouse: row.is_warehouse === 1,
    most_likely_quantity: fromQuantity(totals.total),
    ...setPoolFields({}, 'most_likely_pool_', totals.pools, true),
    area_description: orUndefined(row.area_description),
    area_id: orUndefined(row.area_id),
    store_name: row.store_name,
    store_number: row.store_number,
  }));
}
