import type { AppContext } from '../../app-context.js';
import type { PageSlice } from '../../db/page.js';
import { inTransaction } from '../../db/transaction.js';
import { requireDateTime } from '../../domain/datetime.js';
import { bookReceiving, requireStore, resolveLines } from '../../ledger/intake.js';
import { applyApproved, refuseOrderBoundApprovals } from '../../ledger/review.js';
import { listScope, type Principal } from '../../shared/access.js';
import { conflict, notFound, unprocessable } from '../../shared/errors.js';
import { PagePositions } from '../../shared/page-positions.js';
import { type PagedResult, type PageWindow, pagedResponse, resolvePage } from '../../shared/paging.js';
import { checkLines, draftEntries, intakeLines, receivingCandidates } from './intents.js';
import { toStockLog } from './mapping.js';
import {
  countAfter,
  countsByHour,
  countWindowByHours,
  pullFacts,
  pullKey,
  stillHolds,
  windowLowerId,
  type PagePosition,
} from './log-pull.js';
import * as logs from './repository.js';
import type { StockLogRow } from './rows.js';
import {
  type ReviewBody,
  type StockLog,
  type StockLogsBody,
  StockLogsQuery,
  type StockLogsPostQuery,
} from './schema.js';

/** POST /stores/{s}/products/stock/storeproductlogs (interface §4.8, PRODUCT §5): atomic. */
export async function postStockLogs(
  ctx: AppContext,
  storeNumber: string,
  body: StockLogsBody,
  query: StockLogsPostQuery,
  by: Principal,
): Promise<{ ids: number[]; message: string }> {
  const lines = checkLines(body.storeproductlog, query.is_counted_quantity === true);
  const receiving = receivingCandidates(lines, query);
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inTransaction(ctx.handle, async (trx) => {
    const now = Date.now();
    const resolution = await resolveLines(trx, ctx.ledger, store.id, intakeLines(lines));
    if (resolution.errors.length > 0)
      throw unprocessable('Some stock log entries refer to unknown data', resolution.errors);
    const drafts = draftEntries(lines, resolution, query);
    const { booked, received } = await bookReceiving(trx, ctx.ledger, store, drafts, receiving, by, now);
    const { ids } = booked;
    const pending = drafts.filter((d) => d.pending).length;
    const onDeliveries = received > 0 ? `; received on deliveries ${received}` : '';
    return {
      ids,
      message: `created ${ids.length}: applied ${ids.length - pending}, pending review ${pending}${onDeliveries}`,
    };
  });
}

/** POST …/storeproductlogs/review (PRODUCT §5 Review): approve applies, reject never does. */
export async function reviewStockLogs(
  ctx: AppContext,
  storeNumber: string,
  body: ReviewBody,
  by: Principal,
): Promise<string> {
  const actor = by.name;
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  const ids = [...new Set(body.ids)];
  return inTransaction(ctx.handle, async (trx) => {
    const now = Date.now();
    const found = await logs.lockStoreLogs(trx, (q) => ctx.dialect.lockForUpdate(q), store.id, ids);
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw notFound(`No stock log entries ${missing.join(', ')} in store '${storeNumber}'`);
    const notPending = ids.filter((id) => found.get(id)!.review_status !== 1);
    if (notPending.length > 0) {
      throw conflict(
        `Stock log entries ${notPending.join(', ')} are not pending review (already reviewed or never needed it)`,
      );
    }
    const pathOf = (row: { id: number }) => `ids[${body.ids.indexOf(row.id)}]`;
    const rows = ids.map((id) => found.get(id)!);
    if (body.approve)
      await refuseOrderBoundApprovals(
        trx,
        ctx.ledger,
        store.id,
        rows.map((row) => ({ row, path: pathOf(row) })),
      );
    await logs.setReviewOutcome(trx, ids, body.approve, actor, now);
    if (body.approve) await applyApproved(trx, ctx.ledger, store, rows, pathOf, by, now);
    return `${body.approve ? 'approved' : 'rejected'} ${ids.length}`;
  });
}

const pagePositions = new WeakMap<object, PagePositions<PagePosition>>();

/**
 * One page of the log list and its exact total_count, read on one snapshot (log-pull.ts):
 * from the window's lower id bound, counted by hours where that answers, and — for the
 * next page of a pull this process served — after the previous page's last id, when that
 * still gives exactly what OFFSET would.
 */
async function logPage(
  ctx: AppContext,
  filters: logs.StockLogFilters,
  window: PageWindow,
): Promise<{ rows: StockLogRow[]; totalCount: number }> {
  let positions = pagePositions.get(ctx.handle);
  if (!positions) pagePositions.set(ctx.handle, (positions = new PagePositions<PagePosition>()));
  const pull = pullKey(filters, window.pageSize);
  const byOffset = window.afterId === undefined;
  return ctx.dialect.consistentRead(ctx.db, async (db) => {
    const f =
      filters.updatedFrom === undefined
        ? filters
        : { ...filters, idAtLeast: await windowLowerId(db, filters.updatedFrom) };
    const facts = await pullFacts(db, () =>
      countsByHour(f) ? countWindowByHours(db, f.updatedFrom, f.updatedTo) : logs.countStockLogs(db, f),
    );
    let slice: PageSlice = window;
    const from = byOffset && window.offset > 0 ? positions.before(pull, window.pageStart) : undefined;
    if (from && stillHolds(from.facts, facts, await countAfter(db, f, from.facts.maxId))) {
      slice = {
        afterId: from.lastId,
        offset: (window.pageStart - 1 - from.page) * window.pageSize,
        fetchLimit: window.fetchLimit,
      };
    }
    const rows = await logs.pageOfStockLogs(db, f, slice);
    if (byOffset && rows.length >= window.pageSize)
      positions.remember(pull, { page: window.pageStart, lastId: rows[window.pageSize - 1]!.id, facts });
    return { rows, totalCount: facts.total };
  });
}

/** GET /products/stock/storeproductlogs (interface §4.8). */
export async function listStockLogs(
  ctx: AppContext,
  query: StockLogsQuery,
  principal: Principal,
): Promise<PagedResult<StockLog>> {
  const window = resolvePage(query, StockLogsQuery, 'stock_logs', ctx.cursors);
  const logFilters: logs.StockLogFilters = {
    productNumber: query.article_number,
    customerOrderNumber: query.customer_order_number,
    reference: query.reference,
    storeNumber: query.store_number,
    updatedFrom: query.last_modified_date ? requireDateTime(query.last_modified_date) : undefined,
    updatedTo: query.to_modified_date ? requireDateTime(query.to_modified_date) : undefined,
    fromId: query.from_id,
    toId: query.to_id,
    reasonCode: query.reason_code,
    referenceId: query.reference_id,
    reviewStatus: query.review_status,
    isApplied: query.is_historic,
    reviewed: query.is_reviewed,
    scope: listScope(principal),
  };
  const [{ rows, totalCount }, lastModified] = await Promise.all([
    logPage(ctx, logFilters, window),
    logs.stockLogsLastModified(ctx.db, logFilters),
  ]);
  const pageRows = rows.slice(0, window.pageSize);
  const [parts, context] = await Promise.all([logs.appliedParts(ctx.db, pageRows), logs.listContext(ctx.db, pageRows)]);
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) =>
      toStockLog(row, parts.get(row.id), {
        costCenter: context.costCenters.get(row.store_id),
        locationTags: row.location_id === null ? undefined : context.locationTags.get(row.location_id),
      }),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
