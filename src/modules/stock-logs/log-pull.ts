import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { applyFilters, type StockLogFilters } from './repository.js';

/**
 * What makes the ERP's log pull cost O(rows pulled) at any depth (docs/decisions.md "Pulls at
 * chain scale"): tap-colleqtive
 * pages `GET /products/stock/storeproductlogs?last_modified_date=…` by Page_Start and
 * Page_Size only, over windows of millions of entries.
 * - **Where the window starts.** stock_log_hours (migration 0020) holds the smallest id of
 *   each hour of updated_on: the smallest over the window's hours bounds its ids from below,
 *   so a page reads the id index from there instead of from the first entry ever written.
 * - **total_count** of a window of updated_on over every store is the window's whole hours
 *   summed from stock_log_hours, plus its edge hours counted from the updated_on index:
 *   exact, and a few thousand index entries however wide the window is.
 * - **Deep pages.** A pull walks its pages in order; each page's last id is remembered
 *   (PagePositions), and the next page continues after it (keyset) instead of skipping
 *   `(n − 1) × size` entries — as long as that gives exactly what OFFSET would: no entry at
 *   or below the remembered id entered or left the window since (see `stillHolds`).
 */

export const HOUR_MS = 3_600_000;

/** Filters the hour counts answer: a window of updated_on over every store, and nothing else. */
export function countsByHour(f: StockLogFilters): f is StockLogFilters & { updatedFrom: number } {
  return (
    f.updatedFrom !== undefined &&
    f.scope === undefined &&
    f.productNumber === undefined &&
    f.customerOrderNumber === undefined &&
    f.reference === undefined &&
    f.storeNumber === undefined &&
    f.fromId === undefined &&
    f.toId === undefined &&
    f.reasonCode === undefined &&
    f.referenceId === undefined &&
    f.reviewStatus === undefined &&
    f.isApplied === undefined &&
    f.reviewed === undefined
  );
}

/**
 * The smallest id an entry with updated_on ≥ `from` can have. With no hour counted from
 * there on, no entry is in the window: a bound above every id, so the page reads nothing.
 */
export async function windowLowerId(db: Kysely<Database>, from: number): Promise<number> {
  return lowerIdOf((await lowestIdQuery(db, from).executeTakeFirst())?.min_id);
}

/** The query of windowLowerId, for a statement that reads it with other facts (store-stock/delta-pull.ts). */
export const lowestIdQuery = (db: Kysely<Database>, from: number) =>
  db
    .selectFrom('stock_log_hours')
    .select((eb) => eb.fn.min<number>('min_id').as('min_id'))
    .where('hour', '>=', Math.floor(from / HOUR_MS));

export const lowerIdOf = (minId: number | null | undefined) =>
  minId === null || minId === undefined ? Number.MAX_SAFE_INTEGER : Number(minId);

/** Entries with updated_on in [from, to) counted from the updated_on index. */
async function countUpdatedBetween(db: Kysely<Database>, from: number, toExclusive: number): Promise<number> {
  if (toExclusive <= from) return 0;
  const row = await db
    .selectFrom('stock_logs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('updated_on', '>=', from)
    .where('updated_on', '<', toExclusive)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Entries of the whole hours from `fromHour` on, from stock_log_hours. */
export const wholeHoursQuery = (db: Kysely<Database>, fromHour: number) =>
  db
    .selectFrom('stock_log_hours')
    .select((eb) => eb.fn.sum<number>('entries').as('n'))
    .where('hour', '>=', fromHour);

/** Entries of the whole hours [fromHour, toHour) from stock_log_hours. */
async function countWholeHours(
  db: Kysely<Database>,
  fromHour: number,
  toHourExclusive: number | undefined,
): Promise<number> {
  let query = wholeHoursQuery(db, fromHour);
  if (toHourExclusive !== undefined) {
    if (toHourExclusive <= fromHour) return 0;
    query = query.where('hour', '<', toHourExclusive);
  }
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Exact count of entries with updated_on in [from, to] (to inclusive, as the filter is). */
export async function countWindowByHours(db: Kysely<Database>, from: number, to: number | undefined): Promise<number> {
  const firstWholeHour = Math.ceil(from / HOUR_MS);
  const end = to === undefined ? undefined : to + 1;
  if (end !== undefined && end <= from) return 0;
  const lastWholeHourEnd = end === undefined ? undefined : Math.floor(end / HOUR_MS);
  if (lastWholeHourEnd !== undefined && lastWholeHourEnd <= firstWholeHour) return countUpdatedBetween(db, from, end!);
  const [head, whole, tail] = await Promise.all([
    countUpdatedBetween(db, from, Math.min(firstWholeHour * HOUR_MS, end ?? Number.MAX_SAFE_INTEGER)),
    countWholeHours(db, firstWholeHour, lastWholeHourEnd),
    lastWholeHourEnd === undefined ? 0 : countUpdatedBetween(db, lastWholeHourEnd * HOUR_MS, end!),
  ]);
  return head + whole + tail;
}

/** The facts a remembered page position is checked against, read on the page's own snapshot. */
export interface PullFacts {
  total: number;
  /** Largest id of any entry (filtered or not). */
  maxId: number;
  /** stock_log_moves version: bumped whenever an entry's updated_on changes or an entry is deleted. */
  moves: number;
}

export async function pullFacts(db: Kysely<Database>, count: () => Promise<number>): Promise<PullFacts> {
  const [total, max, moves] = await Promise.all([
    count(),
    largestIdQuery(db).executeTakeFirst(),
    movesQuery(db).executeTakeFirst(),
  ]);
  return { total, maxId: Number(max?.id ?? 0), moves: Number(moves?.version ?? 0) };
}

/** The queries of pullFacts' largest id and moves version, for a statement that reads them with other facts (store-stock/delta-pull.ts). */
export const largestIdQuery = (db: Kysely<Database>) =>
  db.selectFrom('stock_logs').select((eb) => eb.fn.max<number>('id').as('id'));
export const movesQuery = (db: Kysely<Database>) =>
  db.selectFrom('resource_versions').select('version').where('resource', '=', 'stock_log_moves');

/** Entries of the filtered window with an id above `afterId`. */
export async function countAfter(db: Kysely<Database>, f: StockLogFilters, afterId: number): Promise<number> {
  const row = await applyFilters(db.selectFrom('stock_logs'), f)
    .where('id', '>', afterId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Where a served page ended, and what the window was when it was served (shared/page-positions.ts keeps them). */
export interface PagePosition {
  page: number;
  lastId: number;
  facts: PullFacts;
}

/**
 * A remembered position still gives what OFFSET would: the window's entries with ids up to
 * `then.maxId` are the same now as when it was served — none moved or was deleted (the
 * moves version), and none committed since with an id at or below maxId (possible on
 * PostgreSQL, whose commits may land out of id order): the entries counted now are those
 * counted then plus those above maxId.
 */
export function stillHolds(then: PullFacts, now: PullFacts, countedAboveMaxId: number): boolean {
  return then.moves === now.moves && now.total === then.total + countedAboveMaxId;
}

/** One key per pull: its filters (scope included) and page size. */
export const pullKey = (f: StockLogFilters, pageSize: number) => JSON.stringify([f, pageSize]);
