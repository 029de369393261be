import type { Insertable, SelectQueryBuilder, Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { insertMany } from '../../db/insert-many.js';
import { newestUpdatedOn, pageOf, type PageSlice } from '../../db/page.js';
import type { CustomerOrderLineTable, CustomerOrderTable, Database, Executor } from '../../db/schema.js';
import { POOL_COUNT } from '../../domain/stock-rules.js';
import { LINE_COLUMNS, lineValues, type LineRecord, type OrderHeader } from './mapping.js';
import { STATUS } from './schema.js';
import type { OrderLineReadRow, OrderLineRow, OrderReadRow, OrderRow, StoreLocationRow } from './rows.js';

/**
 * Stored orders by number, locked until the transaction ends (PostgreSQL; SQLite's write
 * transaction excludes other writers), in id order: every change of an order — upsert,
 * picking, rejection, clearance — runs after the one before, so of a clearance and a
 * rejection racing on one order exactly one finds it still open (PRODUCT §7).
 */
export async function lockOrders(
  trx: Transaction<Database>,
  dialect: Dialect,
  orderNumbers: readonly string[],
): Promise<Map<string, OrderRow>> {
  const found = new Map<string, OrderRow>();
  for (const part of inListChunks([...new Set(orderNumbers)], KEYS_PER_QUERY)) {
    const rows = await dialect
      .lockForUpdate(trx.selectFrom('customer_orders').selectAll().where('order_number', 'in', part).orderBy('id'))
      .execute();
    for (const row of rows) found.set(row.order_number, row);
  }
  return found;
}

export async function linesOf(db: Executor, orderIds: readonly number[]): Promise<OrderLineRow[]> {
  const lines: OrderLineRow[] = [];
  for (const part of inListChunks([...new Set(orderIds)], KEYS_PER_QUERY)) {
    lines.push(
      ...(await db
        .selectFrom('customer_order_lines')
        .selectAll()
        .where('order_id', 'in', part)
        .orderBy('order_id')
        .orderBy('line_number')
        .execute()),
    );
  }
  return lines;
}

/** An order the ERP sent for the first time: status new, nothing claimed or picked. */
export interface NewOrder {
  storeId: number;
  storeNumber: string;
  orderNumber: string;
  header: OrderHeader;
  contentHash: string;
  lines: readonly LineRecord[];
}

const ORDER_INSERT_COLUMNS = [
  'store_id',
  'store_number',
  'order_number',
  'status_id',
  'is_claimed',
  'pickup_at',
  'order_type_code',
  'description',
  'customer_name',
  'comment',
  'reference',
  'sales_order_id',
  'stores_allowed',
  'content_hash',
  'created_on',
  'updated_on',
  'created_by',
  'modified_by',
] as const satisfies ReadonlyArray<keyof Insertable<CustomerOrderTable>>;

/** New orders and their lines; values go straight into statement rows (a 1,000-order import builds no row objects). */
export async function insertOrders(
  trx: Transaction<Database>,
  dialect: Dialect,
  created: readonly NewOrder[],
  actor: string,
  now: number,
): Promise<void> {
  const values = created.map((order) => {
    const h = order.header;
    return [
      order.storeId,
      order.storeNumber,
      order.orderNumber,
      STATUS.new,
      0,
      h.pickup_at,
      h.order_type_code,
      h.description,
      h.customer_name,
      h.comment,
      h.reference,
      h.sales_order_id,
      h.stores_allowed,
      order.contentHash,
      now,
      now,
      actor,
      actor,
    ];
  });
  const inserted = await insertMany<{ id: number; order_number: string }>(
    trx,
    dialect,
    'customer_orders',
    ORDER_INSERT_COLUMNS,
    values,
    'returning id, order_number',
  );
  const ids = new Map(inserted.map((row) => [row.order_number, Number(row.id)]));
  await insertLines(
    trx,
    dialect,
    created.map((order) => ({ orderId: ids.get(order.orderNumber)!, storeId: order.storeId, lines: order.lines })),
  );
}

export async function updateOrder(
  trx: Transaction<Database>,
  id: number,
  changes: Partial<Insertable<CustomerOrderTable>>,
): Promise<void> {
  await trx.updateTable('customer_orders').set(changes).where('id', '=', id).execute();
}

export interface NewLines {
  orderId: number;
  storeId: number;
  lines: readonly LineRecord[];
}

const LINE_INSERT_COLUMNS = ['order_id', 'store_id', 'picked_quantity', ...LINE_COLUMNS] as const;

/** New lines start with nothing picked. */
export async function insertLines(
  trx: Transaction<Database>,
  dialect: Dialect,
  batches: readonly NewLines[],
): Promise<void> {
  const rows: unknown[][] = [];
  for (const batch of batches) {
    for (const line of batch.lines) rows.push([batch.orderId, batch.storeId, 0, ...lineValues(line)]);
  }
  await insertMany(trx, dialect, 'customer_order_lines', LINE_INSERT_COLUMNS, rows);
}

export async function updateLine(
  trx: Transaction<Database>,
  id: number,
  changes: Partial<Insertable<CustomerOrderLineTable>>,
): Promise<void> {
  await trx.updateTable('customer_order_lines').set(changes).where('id', '=', id).execute();
}

export async function deleteLines(trx: Transaction<Database>, ids: readonly number[]): Promise<void> {
  for (const part of inListChunks([...new Set(ids)], KEYS_PER_QUERY))
    await trx.deleteFrom('customer_order_lines').where('id', 'in', part).execute();
}

export interface OrderFilters {
  storeId: number;
  statusId?: number;
  orderNumber?: string;
  isActive?: boolean;
  updatedFrom?: number;
  pickupBetween?: { from: number; to: number };
}

function applyFilters<O>(query: SelectQueryBuilder<Database, 'customer_orders', O>, filters: OrderFilters) {
  let filtered = query.where('customer_orders.store_id', '=', filters.storeId);
  if (filters.statusId !== undefined) filtered = filtered.where('customer_orders.status_id', '=', filters.statusId);
  if (filters.orderNumber !== undefined)
    filtered = filtered.where('customer_orders.order_number', '=', filters.orderNumber);
  if (filters.isActive !== undefined)
    filtered = filtered.where('customer_orders.status_id', filters.isActive ? '<' : '>=', 5);
  if (filters.updatedFrom !== undefined)
    filtered = filtered.where('customer_orders.updated_on', '>=', filters.updatedFrom);
  const between = filters.pickupBetween;
  if (between !== undefined)
    filtered = filtered
      .where('customer_orders.pickup_at', '>=', between.from)
      .where('customer_orders.pickup_at', '<', between.to);
  return filtered;
}

export async function countOrders(db: Executor, filters: OrderFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('customer_orders'), filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfOrders(db: Executor, filters: OrderFilters, window: PageSlice): Promise<OrderReadRow[]> {
  const query = db
    .selectFrom('customer_orders')
    .leftJoin('reason_codes as r', 'r.reason_code', 'customer_orders.rejection_reason_code')
    .selectAll('customer_orders')
    .select('r.reason_code_description as rejection_reason_code_description');
  return pageOf(applyFilters(query, filters), 'customer_orders.id', window).execute();
}

/** Newest updated_on of the store's orders (PRODUCT §3.1 project_last_modified_date; the path names the store). */
export function ordersLastModified(db: Executor, storeId: number): Promise<number | null> {
  return newestUpdatedOn(db.selectFrom('customer_orders').where('store_id', '=', storeId), 'updated_on');
}

export async function readLines(db: Executor, orderIds: readonly number[]): Promise<Map<number, OrderLineReadRow[]>> {
  const byOrder = new Map<number, OrderLineReadRow[]>();
  for (const part of inListChunks([...new Set(orderIds)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('customer_order_lines as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .selectAll('l')
      .select(['p.barcode as master_barcode', 'p.product_name'])
      .where('l.order_id', 'in', part)
      .orderBy('l.order_id')
      .orderBy('l.line_number')
      .execute();
    for (const row of rows) {
      const list = byOrder.get(row.order_id);
      if (list) list.push(row);
      else byOrder.set(row.order_id, [row]);
    }
  }
  return byOrder;
}

/** Free (not order-bound) stock of the products at the store's locations, per pool: where to pick. */
export async function storeLocationsOf(
  db: Executor,
  storeId: number,
  productIds: readonly number[],
): Promise<Map<number, StoreLocationRow[]>> {
  const byProduct = new Map<number, StoreLocationRow[]>();
  for (const part of inListChunks([...new Set(productIds)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('stock_balances as b')
      .innerJoin('locations as l', 'l.id', 'b.location_id')
      .select([
        'b.product_id',
        'b.pool',
        'b.quantity',
        'l.location_code',
        'l.location_order',
        'l.default_stock_pool',
        'l.tags',
      ])
      .where('b.store_id', '=', storeId)
      .where('b.order_key', '=', '')
      .where('b.location_id', '<>', 0)
      .where('b.product_id', 'in', part)
      .where('l.deleted_on', 'is', null)
      .orderBy('l.location_order')
      .orderBy('l.location_code')
      .execute();
    for (const row of rows) {
      const list = byProduct.get(row.product_id) ?? [];
      let location = list.find((l) => l.location_code === row.location_code);
      if (!location) {
        location = {
          product_id: row.product_id,
          location_code: row.location_code,
          location_order: Number(row.location_order),
          default_stock_pool: row.default_stock_pool,
          tags: JSON.parse(row.tags) as string[],
          pools: new Array<number>(POOL_COUNT).fill(0),
        };
        list.push(location);
      }
      location.pools[row.pool - 1]! += Number(row.quantity);
      byProduct.set(row.product_id, list);
    }
  }
  // Where the free stock is: a location whose balances are all zero is not a place to pick from.
  for (const [productId, list] of byProduct)
    byProduct.set(
      productId,
      list.filter((location) => location.pools.some((q) => q !== 0)),
    );
  return byProduct;
}

/** Orders of the store by number (not locked): stock posts naming an order's number (bound-stock.ts orderNumberErrors). */
export async function managedOrderNumbers(
  db: Executor,
  storeId: number,
  orderNumbers: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of inListChunks([...new Set(orderNumbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('customer_orders')
      .select('order_number')
      .where('store_id', '=', storeId)
      .where('order_number', 'in', part)
      .execute();
    for (const row of rows) found.add(row.order_number);
  }
  return found;
}
