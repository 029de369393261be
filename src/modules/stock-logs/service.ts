import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { requireDateTime } from '../../domain/datetime.js';
import { toQuantity } from '../../domain/decimal.js';
import { POOLS, signPoolParts, splitIntoPools } from '../../domain/stock-rules.js';
import { listScope, type Principal } from '../../shared/access.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../shared/errors.js';
import { PagePositions } from '../../shared/page-positions.js';
import { pagedResponse, resolvePage, type PagedResult, type PageWindow } from '../../shared/paging.js';
import type { PageSlice } from '../../db/page.js';
import type { FieldError } from '../../shared/validation.js';
import { findBookingProducts } from '../products/repository.js';
import { findReasonCodes } from '../reason-codes/repository.js';
import { orderNumberErrors, reservedSourceErrors } from '../customer-orders/bound-stock.js';
import { finishReceiving, planReceiving, type ReceivingCandidate } from '../deliveries/receiving.js';
import { requireLiveStore } from '../stores/repository.js';
import { findLocationsByCodes } from '../locations/repository.js';
import { bookEntriesWithMoments, poolPartsFromJson, postingsOf, type EntryDraft } from '../../ledger/book.js';
import { applyEntries } from '../../ledger/postings.js';
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
  StockLogsQuery,
  type ReviewBody,
  type StockLog,
  type StockLogInput,
  type StockLogsBody,
  type StockLogsPostQuery,
} from './schema.js';

const path = (index: number, field: string) => `storeproductlog[${index}].${field}`;

interface CheckedLine {
  input: StockLogInput;
  at: number;
  quantityMilli: number;
  /** stock_pool_1..10 as sent (thousandths), undefined where not sent. */
  poolQuantitiesMilli: Array<number | undefined>;
}

/** `stock_pool_1` … `stock_pool_10`, named once rather than for every line of a 10,000-line post. */
const POOL_FIELDS = POOLS.map((n) => `stock_pool_${n}`);

/** Rules the request alone can break (PRODUCT §3: 400 naming the fields). */
function checkLines(lines: readonly StockLogInput[], isCount: boolean): CheckedLine[] {
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

/** Resolves products, reason codes and locations of the lines (422 naming each unknown one). */
async function draftEntries(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  lines: readonly CheckedLine[],
  query: StockLogsPostQuery,
): Promise<EntryDraft[]> {
  const isCount = query.is_counted_quantity === true;
  const products = await findBookingProducts(
    trx,
    lines.map((l) => l.input.product_number!),
  );
  const reasons = await findReasonCodes(
    trx,
    lines.flatMap((l) => (l.input.reason_code === undefined ? [] : [l.input.reason_code])),
  );
  const locations = await findLocationsByCodes(
    trx,
    storeId,
    lines.flatMap((l) => (l.input.location_code ? [l.input.location_code] : [])),
  );
  // Stock bound to a customer order of the store moves only by that order's operations (PRODUCT §5, customer-orders/bound-stock.ts).
  const errors: FieldError[] = [
    ...(await orderNumberErrors(
      trx,
      dialect,
      storeId,
      lines.map((l, index) => ({
        orderNumber: l.input.customer_order_number,
        path: path(index, 'customer_order_number'),
      })),
    )),
    ...reservedSourceErrors(lines.map((l, index) => ({ source: l.input.source, path: path(index, 'source') }))),
  ];
  const drafts = lines.map(({ input, at, quantityMilli, poolQuantitiesMilli }, index): EntryDraft | undefined => {
    const product = products.get(input.product_number!);
    const reason = input.reason_code === undefined ? undefined : reasons.get(input.reason_code);
    const location = input.location_code ? locations.get(input.location_code) : undefined;
    if (!product)
      errors.push({ path: path(index, 'product_number'), message: `unknown product '${input.product_number}'` });
    if (input.reason_code !== undefined && !reason)
      errors.push({ path: path(index, 'reason_code'), message: `unknown reason code ${input.reason_code}` });
    if (input.location_code && !location)
      errors.push({
        path: path(index, 'location_code'),
        message: `unknown location '${input.location_code}' in this store`,
      });
    if (!product || (input.reason_code !== undefined && !reason) || (input.location_code && !location))
      return undefined;
    const split = splitIntoPools({
      quantityMilli,
      poolLocation: input.pool_location,
      locationDefaultPool: location?.default_stock_pool ?? undefined,
      poolDeltasMilli: poolQuantitiesMilli,
    });
    const unsigned = split.ok ? split.parts : []; // checkLines refused the splits that do not add up
    // A count is a level, not a movement: reason-code signs apply to deltas only, and a
    // zero delta books nothing while a zero count is a fact.
    const signed = isCount
      ? unsigned
      : signPoolParts(
          unsigned,
          reason ? { isLoss: reason.is_loss === 1, isGain: reason.is_gain === 1 } : undefined,
        ).filter((p) => p.quantityMilli !== 0);
    return {
      product,
      location,
      reason,
      at,
      isCount,
      poolParts: signed,
      pending: reason?.default_review_status === 1,
      isFromReceipt: query.is_from_receipt === true,
      customerOrderNumber: input.customer_order_number || undefined,
      customerOrderLineNumber: input.customer_order_line_number,
      appUserName: input.app_user_name ?? query.appUserName,
      reference: input.reference,
      source: input.source,
      remarks: input.loss_comment,
      exceptionImage: input.loss_image,
      orderno: input.loss_order_number,
      path: path(index, 'quantity'),
      atPath: path(index, 'modification_datetime'),
      scannedAt: input.scanned_datetime ? requireDateTime(input.scanned_datetime) : undefined,
      orderAfterAt: input.order_after_date ? requireDateTime(input.order_after_date) : undefined,
    };
  });
  if (errors.length > 0) throw unprocessable('Some stock log entries refer to unknown data', errors);
  return drafts as EntryDraft[];
}

/** POST /stores/{s}/products/stock/storeproductlogs (interface §4.8, PRODUCT §5): atomic. */
export async function postStockLogs(
  ctx: AppContext,
  storeNumber: string,
  body: StockLogsBody,
  query: StockLogsPostQuery,
  by: Principal,
): Promise<{ ids: number[]; message: string }> {
  const lines = checkLines(body.storeproductlog, query.is_counted_quantity === true);
  const store = await requireLiveStore(ctx.db, storeNumber);
  return inTransaction(ctx.handle, async (trx) => {
    const now = Date.now();
    const drafts = await draftEntries(trx, ctx.dialect, store.id, lines, query);
    // Receipt entries whose reference is a delivery of the store receive on it (PRODUCT §7).
    const receiving =
      query.is_from_receipt === true
        ? await planReceiving(trx, ctx.dialect, store.id, drafts, receivingCandidates(lines))
        : undefined;
    const booked = await bookEntriesWithMoments(trx, ctx.ledger, store, drafts, by, now);
    const ids = booked.ids;
    if (receiving) await finishReceiving(trx, ctx.ledger, receiving, drafts, booked, [], by, now);
    const pending = drafts.filter((d) => d.pending).length;
    const received =
      receiving && receiving.items.length > 0 ? `; received on deliveries ${receiving.items.length}` : '';
    return {
      ids,
      message: `created ${ids.length}: applied ${ids.length - pending}, pending review ${pending}${received}`,
    };
  });
}

/** Entries naming a reference may receive on the delivery of that order number. */
function receivingCandidates(lines: readonly CheckedLine[]): ReceivingCandidate[] {
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

/** POST …/storeproductlogs/review (PRODUCT §5 Review): approve applies, reject never does. */
export async function reviewStockLogs(
  ctx: AppContext,
  storeNumber: string,
  body: ReviewBody,
  by: Principal,
): Promise<string> {
  const actor = by.name;
  const store = await requireLiveStore(ctx.db, storeNumber);
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
    if (body.approve) {
      // An entry naming a customer order imported since it was posted may no longer bind stock
      // to it (PRODUCT §5 never stranded; customer-orders/bound-stock.ts): reject it instead.
      const named = ids.map((id) => ({
        orderNumber: found.get(id)!.customer_order_number,
        path: `ids[${body.ids.indexOf(id)}]`,
      }));
      const refused = await orderNumberErrors(trx, ctx.dialect, store.id, named);
      if (refused.length > 0)
        throw unprocessable('Some entries name a customer order of this store: reject them instead', refused);
    }
    await logs.setReviewOutcome(trx, ids, body.approve, actor, now);
    if (body.approve) {
      // Applied in the order they happened, whatever order the ids were listed in.
      const rows = ids.map((id) => found.get(id)!).sort((a, b) => a.modification_at - b.modification_at || a.id - b.id);
      const entries = rows.map((row) => ({
        logId: row.id,
        postings: postingsOf(
          {
            storeId: row.store_id,
            productId: row.product_id,
            locationId: row.location_id,
            customerOrderNumber: row.customer_order_number,
            at: row.modification_at,
            isCount: row.is_count === 1,
            path: `ids[${body.ids.indexOf(row.id)}]`,
          },
          poolPartsFromJson(row.pool_quantities),
        ),
      }));
      const reasons = await findReasonCodes(
        trx,
        rows.flatMap((row) => (row.reason_code === null ? [] : [row.reason_code])),
      );
      const touches = rows.map((row) => ({
        storeId: store.id,
        productId: row.product_id,
        at: row.modification_at,
        isCount: row.is_count === 1,
        isLoss: row.reason_code !== null && reasons.get(row.reason_code)?.is_loss === 1,
        isFromReceipt: row.is_from_receipt === 1,
        by: row.app_user_name ?? actor,
      }));
      await applyEntries(trx, ctx.ledger, entries, new Map([[store.id, store.store_number]]), by, now, touches);
    }
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
