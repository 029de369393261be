import { type Insertable, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { insertRows, type InsertRow } from '../../db/insert-many.js';
import { inStores, newestUpdatedOn, pageOf, type PageSlice, type StoreScope } from '../../db/page.js';
import type { Database, DeliveryOrderLineTable, DeliveryOrderTable, Executor } from '../../db/schema.js';
import type { DeliveryHeader, LineRecord } from './mapping.js';
import {
  DELIVERY_LINE_COLUMNS,
  DELIVERY_ORDER_COLUMNS,
  type DeliveryLineReadRow,
  type DeliveryLineRow,
  type DeliveryReadRow,
  type DeliveryRow,
} from './rows.js';
import type { DeliveryStatus } from './schema.js';

/**
 * Stored deliveries by order number, locked until the transaction ends (PostgreSQL; SQLite's
 * write transaction already excludes other writers): imports and receiving of one delivery
 * run one after the other, in id order so two requests never wait on each other crosswise.
 */
export async function lockDeliveries(
  trx: Transaction<Database>,
  dialect: Dialect,
  orderNumbers: readonly string[],
): Promise<Map<string, DeliveryRow>> {
  const found = new Map<string, DeliveryRow>();
  for (const part of inListChunks([...new Set(orderNumbers)], KEYS_PER_QUERY)) {
    const rows = await dialect
      .lockForUpdate(trx.selectFrom('delivery_orders').selectAll().where('order_number', 'in', part).orderBy('id'))
      .execute();
    for (const row of rows) found.set(row.order_number, row);
  }
  return found;
}

export async function linesOf(db: Executor, deliveryIds: readonly number[]): Promise<DeliveryLineRow[]> {
  const lines: DeliveryLineRow[] = [];
  for (const part of inListChunks([...new Set(deliveryIds)], KEYS_PER_QUERY)) {
    lines.push(...(await db.selectFrom('delivery_order_lines').selectAll().where('delivery_id', 'in', part).execute()));
  }
  return lines;
}

/** Lines that something was received on: they keep their product and cannot be removed (PRODUCT §7). */
export async function linesWithReceipts(db: Executor, lineIds: readonly number[]): Promise<Set<number>> {
  const received = new Set<number>();
  for (const part of inListChunks([...new Set(lineIds)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('receipt_lines')
      .select('delivery_line_id')
      .distinct()
      .where('delivery_line_id', 'in', part)
      .execute();
    for (const row of rows) received.add(row.delivery_line_id);
  }
  return received;
}

/** A delivery the ERP sent for the first time, with its lines. */
export interface NewDelivery {
  storeId: number;
  storeNumber: string;
  orderNumber: string;
  status: 'open' | 'cancelled';
  header: DeliveryHeader;
  contentHash: string;
  lines: readonly LineRecord[];
}

/** New deliveries and their lines. */
export async function insertDeliveries(
  trx: Transaction<Database>,
  dialect: Dialect,
  created: readonly NewDelivery[],
  actor: string,
  now: number,
): Promise<void> {
  const inserted = await insertRows<'delivery_orders', { id: number; order_number: string }>(
    trx,
    dialect,
    'delivery_orders',
    DELIVERY_ORDER_COLUMNS,
    created.map((d) => ({
      store_id: d.storeId,
      store_number: d.storeNumber,
      order_number: d.orderNumber,
      status: d.status,
      ...d.header,
      content_hash: d.contentHash,
      created_on: now,
      updated_on: now,
      created_by: actor,
      modified_by: actor,
    })),
    'returning id, order_number',
  );
  const ids = new Map(inserted.map((row) => [row.order_number, Number(row.id)]));
  await insertLines(
    trx,
    dialect,
    created.map((d) => ({ deliveryId: ids.get(d.orderNumber)!, storeId: d.storeId, lines: d.lines })),
  );
}

export async function updateDelivery(
  trx: Transaction<Database>,
  id: number,
  changes: Partial<Insertable<DeliveryOrderTable>>,
): Promise<void> {
  await trx.updateTable('delivery_orders').set(changes).where('id', '=', id).execute();
}

/** New lines of a delivery: received_quantity starts at 0 (only receiving moves it). */
export interface NewLines {
  deliveryId: number;
  storeId: number;
  lines: readonly LineRecord[];
}

/** New lines of deliveries; 20,000 lines of an import go out in a few multi-row statements. */
export async function insertLines(
  trx: Transaction<Database>,
  dialect: Dialect,
  batches: readonly NewLines[],
): Promise<void> {
  const rows: InsertRow<'delivery_order_lines'>[] = [];
  for (const batch of batches) {
    for (const line of batch.lines)
      rows.push({ delivery_id: batch.deliveryId, store_id: batch.storeId, received_quantity: 0, ...line });
  }
  await insertRows(trx, dialect, 'delivery_order_lines', DELIVERY_LINE_COLUMNS, rows);
}

export async function updateLine(
  trx: Transaction<Database>,
  id: number,
  changes: Partial<Insertable<DeliveryOrderLineTable>>,
): Promise<void> {
  await trx.updateTable('delivery_order_lines').set(changes).where('id', '=', id).execute();
}

export async function deleteLines(trx: Transaction<Database>, ids: readonly number[]): Promise<void> {
  for (const part of inListChunks([...new Set(ids)], KEYS_PER_QUERY))
    await trx.deleteFrom('delivery_order_lines').where('id', 'in', part).execute();
}

export interface DeliveryFilters {
  storeNumber?: string;
  /** The stores the list answers for (PRODUCT §4, shared/access.ts listScope). */
  scope: StoreScope;
  status?: DeliveryStatus;
  isSubmitted?: boolean;
  updatedFrom?: number;
  orderNumber?: string;
  supplierCode?: string;
  supplierName?: string;
  /** datetime_expected within [from, to). */
  expectedBetween?: { from: number; to: number };
  groupCode?: string;
  secondaryOrderNumber?: string;
}

function applyFilters<O>(
  query: SelectQueryBuilder<Database, 'delivery_orders', O>,
  dialect: Dialect,
  filters: DeliveryFilters,
) {
  let filtered = inStores(query, 'delivery_orders.store_number', filters.scope);
  if (filters.storeNumber !== undefined)
    filtered = filtered.where('delivery_orders.store_number', '=', filters.storeNumber);
  if (filters.status !== undefined) filtered = filtered.where('delivery_orders.status', '=', filters.status);
  if (filters.isSubmitted !== undefined)
    filtered = filtered.where('delivery_orders.status', filters.isSubmitted ? '=' : '<>', 'received');
  if (filters.updatedFrom !== undefined)
    filtered = filtered.where('delivery_orders.updated_on', '>=', filters.updatedFrom);
  if (filters.orderNumber !== undefined)
    filtered = filtered.where('delivery_orders.order_number', '=', filters.orderNumber);
  if (filters.supplierCode !== undefined)
    filtered = filtered.where('delivery_orders.supplier_code', '=', filters.supplierCode);
  const supplierName = filters.supplierName;
  if (supplierName !== undefined && supplierName !== '') {
    filtered = filtered.where((eb) =>
      dialect.containsInsensitive(eb.ref('delivery_orders.supplier_name'), supplierName),
    );
  }
  const between = filters.expectedBetween;
  if (between !== undefined) {
    filtered = filtered
      .where('delivery_orders.datetime_expected_at', '>=', between.from)
      .where('delivery_orders.datetime_expected_at', '<', between.to);
  }
  const secondary = filters.secondaryOrderNumber;
  if (secondary !== undefined) {
    filtered = filtered.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('delivery_order_lines as l')
          .select('l.id')
          .whereRef('l.delivery_id', '=', 'delivery_orders.id')
          .where('l.secondary_order_number', '=', secondary),
      ),
    );
  }
  const groupCode = filters.groupCode;
  if (groupCode !== undefined) {
    filtered = filtered.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('delivery_order_lines as l')
          .innerJoin('store_products as sp', (join) =>
            join.onRef('sp.store_id', '=', 'l.store_id').onRef('sp.product_id', '=', 'l.product_id'),
          )
          .select('l.id')
          .whereRef('l.delivery_id', '=', 'delivery_orders.id')
          .where('sp.group_code', '=', groupCode),
      ),
    );
  }
  return filtered;
}

export async function countDeliveries(db: Executor, dialect: Dialect, filters: DeliveryFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('delivery_orders'), dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfDeliveries(
  db: Executor,
  dialect: Dialect,
  filters: DeliveryFilters,
  window: PageSlice,
): Promise<DeliveryReadRow[]> {
  const query = applyFilters(
    db
      .selectFrom('delivery_orders')
      .innerJoin('stores', 'stores.id', 'delivery_orders.store_id')
      .selectAll('delivery_orders')
      .select('stores.store_gln'),
    dialect,
    filters,
  );
  return pageOf(query, 'delivery_orders.id', window).execute();
}

/** Newest updated_on of any delivery of the stores the list answers for (PRODUCT §3.1 project_last_modified_date). */
export function deliveriesLastModified(db: Executor, filters: DeliveryFilters): Promise<number | null> {
  return newestUpdatedOn(
    inStores(db.selectFrom('delivery_orders'), 'delivery_orders.store_number', filters.scope),
    'delivery_orders.updated_on',
  );
}

/** The lines of the listed deliveries, enriched from the product master and the store product, in line order. */
export async function readLines(
  db: Executor,
  deliveryIds: readonly number[],
): Promise<Map<number, DeliveryLineReadRow[]>> {
  const byDelivery = new Map<number, DeliveryLineReadRow[]>();
  for (const part of inListChunks([...new Set(deliveryIds)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('delivery_order_lines as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .leftJoin('store_products as sp', (join) =>
        join.onRef('sp.store_id', '=', 'l.store_id').onRef('sp.product_id', '=', 'l.product_id'),
      )
      .selectAll('l')
      .select([
        'p.barcode as master_barcode',
        'p.category_code',
        'p.base_unit_name',
        'p.purchase_unit_quantity',
        'sp.group_code',
      ])
      .where('l.delivery_id', 'in', part)
      .orderBy('l.delivery_id')
      .orderBy('l.line_number')
      .execute();
    for (const row of rows) {
      const list = byDelivery.get(row.delivery_id) ?? [];
      list.push(row);
      byDelivery.set(row.delivery_id, list);
    }
  }
  return byDelivery;
}
