import { formatDateTime } from '../../domain/datetime.js';
import { fromQuantity } from '../../domain/decimal.js';
import { contentHash } from '../../shared/bulk.js';
import type { Location, LocationInput, LocationProduct, LocationStockEntry } from './schema.js';
import type { LocatedBalance, LocationProductRow, LocationRow, OrderDetails } from './rows.js';

/** Columns of a location as upsertByKey writes them (store_id is the key's scope). */
export type LocationRecord = {
  store_id: number;
  store_number: string;
  location_code: string;
  location_order: number;
  default_stock_pool: number | null;
  tags: string;
  content_hash: string;
};

/** Tags as a set in the order first sent: a repeat adds nothing (location_tags keys on the tag). */
export function normaliseTags(tags: readonly string[] | undefined): string[] {
  return [...new Set(tags ?? [])];
}

/**
 * Input → columns. The body carries the whole location (like every master-data upsert,
 * PRODUCT §3): a field left out is reset (order 0, no tags, no default pool).
 */
export function toLocationRecord(store: { id: number; store_number: string }, input: LocationInput): LocationRecord {
  const content = {
    location_code: input.location_code,
    location_order: input.location_order ?? 0,
    default_stock_pool: input.default_stock_pool ?? null,
    tags: JSON.stringify(normaliseTags(input.tags)),
  };
  return { store_id: store.id, store_number: store.store_number, ...content, content_hash: contentHash(content) };
}

/**
 * The name of a location's default pool (interface §2.2 "name of default stock pool"): the
 * store's `store_stock_pool_N` when it names pool N, else the number as text.
 */
export function poolName(pool: number | null, storePoolNames: ReadonlyArray<string | null>): string | undefined {
  if (pool === null) return undefined;
  return storePoolNames[pool - 1] ?? String(pool);
}

export const orderDetailsKey = (productId: number, orderKey: string, locationId?: number) =>
  `${productId}|${orderKey}|${locationId ?? ''}`;

function withOrderDetails<T extends object>(item: T, orderKey: string, details: OrderDetails | undefined): T {
  if (orderKey === '') return item;
  const out: Record<string, unknown> = { ...item, customer_order_number: orderKey };
  if (details?.customer_order_line_number != null) out.customer_order_line_number = details.customer_order_line_number;
  if (details?.customer_order_shipment_number != null)
    out.customer_order_shipment_number = details.customer_order_shipment_number;
  if (details?.customer_order_shipment_line_number != null) {
    out.customer_order_shipment_line_number = details.customer_order_shipment_line_number;
  }
  return out as T;
}

/**
 * Row + its balances → the read shape of interface §2.2. Stock entries are one per
 * (product, customer order or none), pools split out as mostlikelypoolN; entries whose
 * pools add up to zero are left out and do not count in `counter` or `customer_orders`.
 */
export function toLocation(
  row: LocationRow,
  balances: readonly LocatedBalance[],
  storePoolNames: ReadonlyArray<string | null>,
  details: ReadonlyMap<string, OrderDetails>,
): Location {
  const entries = new Map<string, { first: LocatedBalance; pools: number[]; total: number }>();
  for (const balance of balances) {
    const key = `${balance.product_id}|${balance.order_key}`;
    let entry = entries.get(key);
    if (!entry) {
      entry = { first: balance, pools: new Array<number>(10).fill(0), total: 0 };
      entries.set(key, entry);
    }
    entry.pools[balance.pool - 1]! += balance.quantity;
    entry.total += balance.quantity;
  }
  const stock: LocationStockEntry[] = [];
  const products = new Set<number>();
  const orders = new Set<string>();
  let total = 0;
  for (const { first, pools, total: entryTotal } of entries.values()) {
    if (entryTotal === 0) continue;
    products.add(first.product_id);
    if (first.order_key !== '') orders.add(first.order_key);
    total += entryTotal;
    const entry: Record<string, unknown> = {
      product_number: first.product_number,
      product_description: first.product_name,
      quantity: fromQuantity(entryTotal),
    };
    pools.forEach((quantity, index) => {
      entry[`mostlikelypool${index + 1}`] = fromQuantity(quantity);
    });
    stock.push(
      withOrderDetails(
        entry as LocationStockEntry,
        first.order_key,
        details.get(orderDetailsKey(first.product_id, first.order_key, row.id)),
      ),
    );
  }
  return {
    id: row.id,
    counter: products.size,
    created_on: formatDateTime(row.created_on),
    location_order: row.location_order,
    customer_orders: [...orders].sort(),
    default_stock_pool: poolName(row.default_stock_pool, storePoolNames),
    location_code: row.location_code,
    quantity: fromQuantity(total),
    stock,
    tags: JSON.parse(row.tags) as string[],
  };
}

export function toLocationProduct(
  row: LocationProductRow,
  details: ReadonlyMap<string, OrderDetails>,
): LocationProduct {
  const item: LocationProduct = {
    barcode: row.barcode ?? undefined,
    image_url: row.image_url ?? undefined,
    product_description: row.product_name,
    product_number: row.product_number,
    quantity: fromQuantity(Number(row.quantity)),
  };
  return withOrderDetails(item, row.order_key, details.get(orderDetailsKey(row.product_id, row.order_key)));
}
