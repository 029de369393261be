import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { AppContext } from '../../app-context.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { inStores, newestUpdatedOn, pageOf, type PageSlice, type StoreScope } from '../../db/page.js';
import type { Database } from '../../db/schema.js';
import { formatDateTime, requireDateTime } from '../../domain/datetime.js';
import { fromMoney, fromQuantity } from '../../domain/decimal.js';
import { listScope, type Principal } from '../../shared/access.js';
import { orUndefined } from '../../shared/nullable.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import { requireLiveStore } from '../stores/repository.js';
import { receiptsWatermark } from './receipt-writes.js';
import type { ReceiptLineRow, ReceiptReadRow } from './rows.js';
import { ReceiptsQuery, StoreReceiptsQuery, type ReceiptLine, type ReceiptOrder } from './receipt-schema.js';

interface ReceiptFilters {
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

function pageOfReceipts(db: Kysely<Database>, filters: ReceiptFilters, window: PageSlice): Promise<ReceiptReadRow[]> {
  const query = db
    .selectFrom('receipt_orders')
    .innerJoin('delivery_orders as d', 'd.id', 'receipt_orders.delivery_id')
    .innerJoin('stores as s', 's.id', 'receipt_orders.store_id')
    .selectAll('receipt_orders')
    .select(['s.store_gln', 'd.datetime_expected_at', 'd.supplier_code', 'd.supplier_name']);
  return pageOf(applyFilters(query, filters), 'receipt_orders.id', window).execute();
}

async function countReceipts(db: Kysely<Database>, filters: ReceiptFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('receipt_orders'), filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Newest updated_on of the receipts the list may show, before the pull's moment (PRODUCT §3.1 project_last_modified_date). */
function receiptsLastModified(db: Kysely<Database>, filters: ReceiptFilters): Promise<number | null> {
  return newestUpdatedOn(scoped(db.selectFrom('receipt_orders'), filters), 'receipt_orders.updated_on');
}

type ReceiptLineReadRow = ReceiptLineRow & { category_code: string | null; group_code: string | null };

/**
 * The lines of the listed receipts as of the pull's moment: the receipts were read by
 * another statement, and a receiving entry may have committed in between (its lines are
 * stamped at or after the moment, and come with the next pull).
 */
async function linesOfReceipts(
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

function toReceiptLine(row: ReceiptLineReadRow): ReceiptLine {
  return {
    id: row.id,
    purchase_price: fromMoney(row.purchase_price),
    received_quantity: fromQuantity(row.received_quantity),
    shipped_quantity: fromQuantity(row.shipped_quantity),
    store_products_price: fromMoney(row.store_products_price),
    updated_on: formatDateTime(row.updated_on),
    barcode: orUndefined(row.barcode),
    category_code: orUndefined(row.category_code),
    container_barcode: orUndefined(row.container_barcode),
    description: orUndefined(row.description),
    group_code: orUndefined(row.group_code),
    line_number: Number(row.line_number),
    product_number: orUndefined(row.product_number),
  };
}

function toReceiptOrder(row: ReceiptReadRow, lines: readonly ReceiptLineReadRow[]): ReceiptOrder {
  return {
    datetime_created: formatDateTime(row.datetime_created_at),
    datetime_expected: formatDateTime(row.datetime_expected_at),
    import_id: row.id,
    order_type_id: Number(row.order_type_id),
    updated_on: formatDateTime(row.updated_on),
    order_number: row.order_number,
    status: row.is_submitted === 1 ? 'received' : 'receiving',
    store_gln: orUndefined(row.store_gln),
    store_number: row.store_number,
    supplier_code: orUndefined(row.supplier_code),
    supplier_name: orUndefined(row.supplier_name),
    receipt_lines: lines.map(toReceiptLine),
  };
}

/**
 * GET /orders/receipts and GET /stores/{s}/orders/receipts (interface §4.6, PRODUCT §7).
 * A pull is read as of its first page's moment (receipt-writes.ts receiptsWatermark): every
 * page shows receipts changed before it and hands it out as server_time, and a scroll_id
 * carries it to the next page. A receipt that changes during the pull is left to the next
 * pull (last_modified_date = this server_time), so an ERP sees each change exactly once.
 */
export async function listReceipts(
  ctx: AppContext,
  query: ReceiptsQuery | StoreReceiptsQuery,
  principal: Principal,
  storeNumber?: string,
): Promise<PagedResult<ReceiptOrder>> {
  const store = storeNumber === undefined ? undefined : await requireLiveStore(ctx.db, storeNumber);
  const window =
    storeNumber === undefined
      ? resolvePage(query as ReceiptsQuery, ReceiptsQuery, 'receipts', ctx.cursors)
      : resolvePage(query as StoreReceiptsQuery, StoreReceiptsQuery, `receipts:${store!.id}`, ctx.cursors);
  const asOf = window.asOf ?? (await receiptsWatermark(ctx.handle));
  const filters: ReceiptFilters = {
    receiptType: query.receipt_type,
    storeId: store?.id,
    storeNumber: 'store_number' in query ? query.store_number : undefined,
    scope: listScope(principal, store?.store_number),
    fromId: query.from_id,
    toId: query.to_id,
    isSubmitted: query.is_submitted,
    updatedFrom: query.last_modified_date ? requireDateTime(query.last_modified_date) : undefined,
    updatedBefore: asOf,
    orderNumber: query.order_number,
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    pageOfReceipts(ctx.db, filters, window),
    countReceipts(ctx.db, filters),
    receiptsLastModified(ctx.db, filters),
  ]);
  const lines = await linesOfReceipts(
    ctx.db,
    rows.slice(0, window.pageSize).map((row) => row.id),
    asOf,
  );
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => toReceiptOrder(row, lines.get(row.id) ?? []),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
    asOf,
  });
}
