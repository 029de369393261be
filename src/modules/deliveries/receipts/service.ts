import type { AppContext } from '../../../app-context.js';
import { requireDateTime } from '../../../domain/datetime.js';
import { listScope, type Principal } from '../../../shared/access.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../../shared/paging.js';
import { requireLiveStore } from '../../stores/repository.js';
import { toReceiptOrder } from './mapping.js';
import {
  countReceipts,
  linesOfReceipts,
  pageOfReceipts,
  receiptsLastModified,
  type ReceiptFilters,
} from './repository.js';
import { ReceiptsQuery, StoreReceiptsQuery, type ReceiptOrder } from './schema.js';
import { receiptsWatermark } from './writes.js';

/**
 * GET /orders/receipts and GET /stores/{s}/orders/receipts (interface §4.6, PRODUCT §7).
 * A pull is read as of its first page's moment (writes.ts receiptsWatermark): every
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
