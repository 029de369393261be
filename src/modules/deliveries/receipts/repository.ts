import type { Kysely, SelectQueryBuilder } from 'kysely';
import { inListChunks, KEYS_PER_QUERY } from '../../../db/in-list.js';
import { inStores, newestUpdatedOn, pageOf, type PageSlice, type StoreScope } from '../../../db/page.js';
import type { Database } from '../../../db/schema.js';
import type { ReceiptLineReadRow, ReceiptReadRow } from './rows.js';

export interface ReceiptFilters {
  receiptType: number;
  /** The path's store, by id: its rows are found on the (store_id, id) index. */
  storeId?: number;
  storeNumber?: string;
  /** The stores the list answers for: the path's store, else a store token's (PRODUCT §4, shared/access.ts listScope). */
  scope: StoreScope;
  fromId?: number;
  toId?: number;
  isSubmitted?: boolean;
  updatedFrom?: number;
  /** updated_on before this: the pull's moment (exclusive). */
  updatedBefore: number;
  orderNumber?: string;
}

/** What the list shows at all: receipts of its stores changed before the pull's moment. */
function scoped<O>(query: SelectQueryBuilder<Database, 'receipt_orders', O>, filters: ReceiptFilters) {
  return inStores(query, 'receipt_orders.store_number', filters.scope).where(
    'receipt_orders.updated_on',
    '<',
    filters.updatedBefore,
  );
}

function applyFilters<O>(query: SelectQueryBuilder<Database, 'receipt_orders', O>, filters: ReceiptFilters) {
  let filtered = scoped(query, filters).where('receipt_orders.order_type_id', '=', filters.receiptType);
  if (filters.storeId !== undefined) filtered = filtered.where('receipt_orders.store_id', '=', filters.storeId);
  if (filters.storeNumber !== undefined)
    filtered = filtered.where('receipt_orders.store_number', '=', filters.storeNumber);
  if (filters.fromId !== undefined) filtered = filtered.where('receipt_orders.id', '>=', filters.fromId);
  if (filters.toId !== undefined) filtered = filtered.where('receipt_orders.id', '<=', filters.toId);
  if (filters.isSubmitted !== undefined)
    filtered = filtered.where('receipt_orders.is_submitted', '=', filters.isSubmitted ? 1 : 0);
  if (filters.updatedFrom !== undefined)
    filtered = filtered.where('receipt_orders.updated_on', '>=', filters.updatedFrom);
  if (filters.orderNumber !== undefined)
    filtered = filtered.where('receipt_orders.order_number', '=', filters.orderNumber);
  return filtered;
}

export function pageOfReceipts(
  db: Kysely<Database>,
  filters: ReceiptFilters,
  window: PageSlice,
): Promise<ReceiptReadRow[]> {
  const query = db
    .selectFrom('receipt_orders')
    .innerJoin('delivery_orders as d', 'd.id', 'receipt_orders.delivery_id')
    .innerJoin('stores as s', 's.id', 'receipt_orders.store_id')
    .selectAll('receipt_orders')
    .select(['s.store_gln', 'd.datetime_expected_at', 'd.supplier_code', 'd.supplier_name']);
  return pageOf(applyFilters(query, filters), 'receipt_orders.id', window).execute();
}

export async function countReceipts(db: Kysely<Database>, filters: ReceiptFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('receipt_orders'), filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Newest updated_on of the receipts the list may show, before the pull's moment (PRODUCT §3.1 project_last_modified_date). */
export function receiptsLastModified(db: Kysely<Database>, filters: ReceiptFilters): Promise<number | null> {
  return newestUpdatedOn(scoped(db.selectFrom('receipt_orders'), filters), 'receipt_orders.updated_on');
}

/**
 * The lines of the listed receipts as of the pull's moment: the receipts were read by
 * another statement, and a receiving entry may have committed in between (its lines are
 * stamped at or after the moment, and come with the next pull).
 */
export async function linesOfReceipts(
  db: Kysely<Database>,
  receiptIds: readonly number[],
  asOf: number,
): Promise<Map<number, ReceiptLineReadRow[]>> {
  const byReceipt = new Map<number, ReceiptLineReadRow[]>();
  for (const part of inListChunks([...new Set(receiptIds)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('receipt_lines as r')
      .innerJoin('products as p', 'p.id', 'r.product_id')
      .leftJoin('store_products as sp', (join) =>
        join.onRef('sp.store_id', '=', 'r.store_id').onRef('sp.product_id', '=', 'r.product_id'),
      )
      .selectAll('r')
      .select(['p.category_code', 'sp.group_code'])
      .where('r.receipt_id', 'in', part)
      .where('r.updated_on', '<', asOf)
      .orderBy('r.id')
      .execute();
    for (const row of rows) {
      const list = byReceipt.get(row.receipt_id);
      if (list) list.push(row);
      else byReceipt.set(row.receipt_id, [row]);
    }
  }
  return byReceipt;
}
