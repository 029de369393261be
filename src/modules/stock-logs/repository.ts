import { sql, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Database, Executor } from '../../db/schema.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { inStores, newestUpdatedOn, pageOf, type PageSlice, type StoreScope } from '../../db/page.js';
import type { StockLogRow } from './rows.js';

export interface StockLogFilters {
  productNumber?: string;
  customerOrderNumber?: string;
  reference?: string;
  storeNumber?: string;
  updatedFrom?: number;
  updatedTo?: number;
  fromId?: number;
  toId?: number;
  reasonCode?: number;
  referenceId?: number;
  reviewStatus?: number;
  isApplied?: boolean;
  reviewed?: boolean;
  /** A lower bound of the ids the other filters can match (log-pull.ts windowLowerId): where the id index is read from. */
  idAtLeast?: number;
  /** The stores the list answers for (PRODUCT §4, shared/access.ts listScope). */
  scope: StoreScope;
}

export function applyFilters<O>(query: SelectQueryBuilder<Database, 'stock_logs', O>, f: StockLogFilters) {
  let q = inStores(query, 'store_number', f.scope);
  if (f.productNumber !== undefined) q = q.where('product_number', '=', f.productNumber);
  if (f.customerOrderNumber !== undefined) q = q.where('customer_order_number', '=', f.customerOrderNumber);
  if (f.reference !== undefined) q = q.where('reference', '=', f.reference);
  if (f.storeNumber !== undefined) q = q.where('store_number', '=', f.storeNumber);
  if (f.updatedFrom !== undefined) {
    // With the window's lower id bound (log-pull.ts) the id index serves the filter and the
    // order both: the page is the first rows from there. Given the plain column, PostgreSQL —
    // whose statistics lag behind the newest entries — estimated a day's window at 112 rows,
    // took the updated_on index and sorted the 94,000 it held (400 ms); `+ 0` keeps that index
    // out of the page's plan on both databases.
    q =
      f.idAtLeast !== undefined
        ? q.where(sql<number>`${sql.ref('updated_on')} + 0`, '>=', f.updatedFrom)
        : q.where('updated_on', '>=', f.updatedFrom);
  }
  if (f.updatedTo !== undefined) q = q.where('updated_on', '<=', f.updatedTo);
  if (f.fromId !== undefined) q = q.where('id', '>=', f.fromId);
  if (f.toId !== undefined) q = q.where('id', '<=', f.toId);
  if (f.idAtLeast !== undefined && f.idAtLeast > 0) q = q.where('id', '>=', f.idAtLeast);
  if (f.reasonCode !== undefined) q = q.where('reason_code', '=', f.reasonCode);
  if (f.referenceId !== undefined) q = q.where('reference_id', '=', f.referenceId);
  if (f.reviewStatus !== undefined) q = q.where('review_status', '=', f.reviewStatus);
  if (f.isApplied !== undefined) q = q.where('is_applied', '=', f.isApplied ? 1 : 0);
  if (f.reviewed !== undefined) q = q.where('review_status', f.reviewed ? 'in' : 'not in', [2, 3]);
  // The review index holds only entries that needed a review (migration 0023); this term,
  // implied by the filter, is how SQLite (which matches a partial index's terms literally)
  // and PostgreSQL both see that it may serve it.
  if ((f.reviewStatus !== undefined && f.reviewStatus !== 0) || f.reviewed === true)
    q = q.where('review_status', '<>', 0);
  return q;
}

export async function countStockLogs(db: Executor, filters: StockLogFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('stock_logs'), filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfStockLogs(db: Executor, filters: StockLogFilters, window: PageSlice): Promise<StockLogRow[]> {
  return pageOf(applyFilters(db.selectFrom('stock_logs').selectAll(), filters), 'id', window).execute();
}

/** Newest updated_on of any entry of the stores the list answers for (PRODUCT §3.1 project_last_modified_date). */
export function stockLogsLastModified(db: Executor, filters: StockLogFilters): Promise<number | null> {
  return newestUpdatedOn(inStores(db.selectFrom('stock_logs'), 'store_number', filters.scope), 'updated_on');
}

export interface AppliedPart {
  log_id: number;
  pool: number;
  delta: number;
  expected: number | null;
}

/**
 * The applied postings of a page's entries, with each balance's pool. An entry of one balance
 * carries its posting in its own row (migration 0022): only the pools of those balances are
 * read, by the balances' primary key. Only the entries without one — split over pools, or a
 * zero delta, or not applied — are looked up among the parts, by log id. (Reading every entry
 * through the ledger view by log id probed each month's primary key of stock_logs per entry
 * once the ledger was partitioned by month, migration 0025.)
 */
export async function appliedParts(db: Executor, rows: readonly StockLogRow[]): Promise<Map<number, AppliedPart[]>> {
  const parts = new Map<number, AppliedPart[]>();
  const add = (part: AppliedPart) => {
    const list = parts.get(part.log_id) ?? [];
    list.push(part);
    parts.set(part.log_id, list);
  };
  const inline = rows.filter((row) => row.balance_id !== null);
  const pools = new Map<number, number>();
  for (const ids of inListChunks([...new Set(inline.map((row) => Number(row.balance_id)))], KEYS_PER_QUERY)) {
    for (const balance of await db.selectFrom('stock_balances').select(['id', 'pool']).where('id', 'in', ids).execute())
      pools.set(Number(balance.id), balance.pool);
  }
  for (const row of inline) {
    const pool = pools.get(Number(row.balance_id));
    if (pool !== undefined)
      add({
        log_id: row.id,
        pool,
        delta: Number(row.delta),
        expected: row.expected === null ? null : Number(row.expected),
      });
  }
  const split = rows.filter((row) => row.balance_id === null && Number(row.is_applied) === 1).map((row) => row.id);
  for (const ids of inListChunks(split, KEYS_PER_QUERY)) {
    const found = await db
      .selectFrom('stock_log_parts as p')
      .innerJoin('stock_balances as b', 'b.id', 'p.balance_id')
      .select(['p.log_id', 'b.pool', 'p.delta', 'p.expected'])
      .where('p.log_id', 'in', ids)
      .orderBy('p.log_id')
      .orderBy('b.pool')
      .execute();
    for (const part of found)
      add({
        log_id: part.log_id,
        pool: part.pool,
        delta: Number(part.delta),
        expected: part.expected === null ? null : Number(part.expected),
      });
  }
  return parts;
}

/** Extra read facts of the page: the stores' cost centres and the locations' first tag. */
export async function listContext(
  db: Executor,
  rows: readonly StockLogRow[],
): Promise<{ costCenters: Map<number, string | null>; locationTags: Map<number, string[]> }> {
  const storeIds = [...new Set(rows.map((r) => r.store_id))];
  const locationIds = [...new Set(rows.map((r) => r.location_id).filter((id): id is number => id !== null))];
  const costCenters = new Map<number, string | null>();
  const locationTags = new Map<number, string[]>();
  if (storeIds.length > 0) {
    for (const row of await db.selectFrom('stores').select(['id', 'cost_center']).where('id', 'in', storeIds).execute())
      costCenters.set(row.id, row.cost_center);
  }
  if (locationIds.length > 0) {
    for (const row of await db
      .selectFrom('locations')
      .select(['id', 'tags'])
      .where('id', 'in', locationIds)
      .execute()) {
      locationTags.set(row.id, JSON.parse(row.tags) as string[]);
    }
  }
  return { costCenters, locationTags };
}

/** Entries of a store by id, locked for review. */
export async function lockStoreLogs(
  trx: Transaction<Database>,
  lock: <Q extends { forUpdate(): Q }>(q: Q) => Q,
  storeId: number,
  ids: readonly number[],
): Promise<Map<number, StockLogRow>> {
  const found = new Map<number, StockLogRow>();
  for (const idChunk of inListChunks(
    [...ids].sort((a, b) => a - b),
    KEYS_PER_QUERY,
  )) {
    const rows = await lock(
      trx.selectFrom('stock_logs').selectAll().where('store_id', '=', storeId).where('id', 'in', idChunk).orderBy('id'),
    ).execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

export async function setReviewOutcome(
  trx: Transaction<Database>,
  ids: readonly number[],
  approved: boolean,
  actor: string,
  now: number,
): Promise<void> {
  for (const idChunk of inListChunks(ids, KEYS_PER_QUERY)) {
    await trx
      .updateTable('stock_logs')
      .set({ review_status: approved ? 2 : 3, is_applied: approved ? 1 : 0, updated_on: now, modified_by: actor })
      .where('id', 'in', idChunk)
      .execute();
  }
}
