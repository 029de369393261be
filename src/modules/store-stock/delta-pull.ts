import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { columnIn } from '../../db/in-list.js';
import { pageOf, type PageSlice } from '../../db/page.js';
import type { Database, StoreProductTable } from '../../db/schema.js';
import { PagePositions, RecentPulls } from '../../shared/page-positions.js';
import type { PageWindow } from '../../shared/paging.js';
import {
  largestIdQuery,
  lowerIdOf,
  lowestIdQuery,
  movesQuery,
  stillHolds,
  wholeHoursQuery,
  type PullFacts,
} from '../stock-logs/log-pull.js';
import { MASTER_VERSIONS, membershipVersionQuery } from './count-cache.js';
import { listedStoreProducts, stockListRows, type StockListFilters, type StockListRow } from './repository.js';
import { hasStockStateFilter } from './stock-state-filters.js';

/**
 * What makes the ERP's stock delta pull cost O(rows pulled) at any depth (docs/decisions.md
 * "Pulls at chain scale"): tap-colleqtive pages `GET /storeproducts/stock?last_stock_modified_datetime=T`
 * by Page_Start and Page_Size only. The pull's members are the live store products (with the
 * list's other filters) that have an applied entry updated at or after T, or were created at
 * or after T (PRODUCT §3.1: until its first stock change the stock moment is the creation;
 * repository.ts `listedStoreProducts`). The ideas are the log pull's (stock-logs/log-pull.ts), whose facts
 * about the entries this reuses:
 * - **total_count** is counted once per pull, then carried from page to page: the members now
 *   are the members then plus the store products whose first applied entry of the window
 *   came after the largest id seen then — found through the few entries written since, each
 *   store product checked with one index probe for an applied entry of the window at or
 *   below that id. Members never leave while the guard holds (`advance`): no store product,
 *   store, product or category changed (the versions count-cache.ts reads), no entry moved
 *   or was deleted (the moves version), none committed below the largest id seen (the hour
 *   counts of every entry grew by exactly the entries above it; an archive takes its entries
 *   out of them), none of those awaiting review was approved (their number). Otherwise the
 *   pull is counted again, once.
 * - **Deep pages.** A page continues from where a remembered page of the same pull ended,
 *   not by skipping `(n − 1) × size` members: it knows how many members now lie at or below
 *   that page's last id (the page's end, plus those that entered below it), so it gives what
 *   OFFSET would at this moment (`seekPlan`), reading back below the position when members
 *   entered there.
 * - **The walk in id order** reads only the store products stamped since T (stock_modified_at
 *   is on the row, no probe) plus the few members whose stamp is older (`unstamped`, kept with
 *   the count), and probes only those for their entries, instead of probing every store product.
 */

/** The facts a remembered count is checked against, read on the page's own snapshot. */
export interface DeltaFacts {
  /** Every entry (from the hour counts), the largest id and the moves version (log-pull.ts). */
  entries: PullFacts;
  /** Entries awaiting review: approving one makes it applied, possibly in the millisecond it was booked (no move). */
  pending: number;
  /** What the members' liveness and the product filters depend on (count-cache.ts versionsOf). */
  versions: string;
  /** The window's lowest possible entry id (log-pull.ts windowLowerId). */
  lowerId: number;
}

/** A pull's count and what it was counted at. */
export interface DeltaState {
  facts: DeltaFacts;
  count: number;
  /**
   * The members whose stamp lies before T (a booking that began before a later one on the
   * same store product committed after it leaves the older moment): the walk reads them by
   * id. Undefined when there were more than MAX_UNSTAMPED: the pages are read by OFFSET over the members.
   */
  unstamped: readonly number[] | undefined;
}

/** Where a served page of a pull ended, with the pull's state then. */
export interface DeltaPosition extends DeltaState {
  page: number;
  lastId: number;
}

/** Beyond this many entries written since a remembered count, counting again is cheaper than probing each. */
const MAX_ENTRIES_BETWEEN = 10_000;
const MAX_UNSTAMPED = 100;
/** A page read while another process committed (SQLite reads statement by statement) is read again. */
const MAX_ATTEMPTS = 3;

/** The counts (per filters) and page positions (per filters and page size) of the delta pulls a process served. */
export class DeltaPulls {
  readonly counts = new RecentPulls<DeltaState>(200);
  readonly positions = new PagePositions<DeltaPosition>();
  /** At or below this many members a page's candidates come from the window's entries (SPARSE_MEMBERS; tests set 0 to walk by stamp). */
  sparseMembers = SPARSE_MEMBERS;
}

/**
 * The facts in one statement: one snapshot on either database (SQLite reads statement by
 * statement), and one round trip instead of nine. The same queries as the log pull's facts
 * (log-pull.ts) and the listing's count cache (count-cache.ts).
 */
export async function readDeltaFacts(
  db: Kysely<Database>,
  f: StockListFilters & { stockModifiedSince: number },
): Promise<DeltaFacts> {
  const version = (resource: string) =>
    db.selectFrom('resource_versions').select('version').where('resource', '=', resource);
  const row = await db
    .selectNoFrom([
      // Every entry, not only the window's: a booking that committed below the largest id
      // seen may have stamped a member with a moment before the window (`unstamped`).
      wholeHoursQuery(db, 0).as('entries'),
      largestIdQuery(db).as('max_id'),
      movesQuery(db).as('moves'),
      db
        .selectFrom('stock_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        // review_status <> 0 lets SQLite see the partial review index (migration 0023).
        .where('review_status', '<>', 0)
        .where('review_status', '=', 1)
        .as('pending'),
      membershipVersionQuery(db, f.storeIds).as('membership'),
      ...MASTER_VERSIONS.map((resource) => version(resource).as(resource)),
      lowestIdQuery(db, f.stockModifiedSince).as('lower_id'),
    ])
    .executeTakeFirstOrThrow();
  return {
    entries: { total: Number(row.entries ?? 0), maxId: Number(row.max_id ?? 0), moves: Number(row.moves ?? 0) },
    pending: Number(row.pending),
    versions: [row.membership ?? 0, ...MASTER_VERSIONS.map((resource) => row[resource])].join(':'),
    lowerId: lowerIdOf(row.lower_id),
  };
}

const sameFacts = (a: DeltaFacts, b: DeltaFacts) =>
  a.entries.total === b.entries.total &&
  a.entries.maxId === b.entries.maxId &&
  a.entries.moves === b.entries.moves &&
  a.pending === b.pending &&
  a.versions === b.versions &&
  a.lowerId === b.lowerId;

/** Entries with an id above `maxId`, and how many of them await review. */
async function entriesAbove(db: Kysely<Database>, maxId: number): Promise<{ entries: number; pending: number }> {
  const row = await db
    .selectFrom('stock_logs')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>(eb.case().when('review_status', '=', 1).then(1).else(0).end()).as('pending'),
    ])
    .where('id', '>', maxId)
    .executeTakeFirstOrThrow();
  return { entries: Number(row.n), pending: Number(row.pending ?? 0) };
}

type Window = StockListFilters & { stockModifiedSince: number; changedIdAtLeast: number };
type ListedBuilder = ExpressionBuilder<Database & { sp: StoreProductTable }, 'sp'>;

/**
 * 1 when the store product is a member (with an entry id up to `upToId`), else 0: created at
 * or after T (no probe: the column is on the row), else one probe
 * of its product's entries from the window's lowest id (repository.ts `listedStoreProducts`
 * says what a member is), and one of the stamps an archive kept. `limit 1 offset 0` keeps it
 * one probe per row: without an offset PostgreSQL may turn it into a hash of every entry of
 * the window, built again for every page (an offset bars that rewrite; SQLite probes per row
 * anyway).
 */
function hasAppliedEntry(eb: ListedBuilder, f: Window, upToId?: number) {
  let entries = eb
    .selectFrom('stock_logs as o')
    .select(sql.lit(1).as('one'))
    .whereRef('o.store_id', '=', 'sp.store_id')
    .whereRef('o.product_id', '=', 'sp.product_id')
    .where('o.is_applied', '=', 1)
    .where('o.updated_on', '>=', f.stockModifiedSince)
    .where('o.id', '>=', f.changedIdAtLeast);
  if (upToId !== undefined) entries = entries.where('o.id', '<=', upToId);
  const archived = eb
    .selectFrom('stock_stamps_archived as a')
    .select(sql.lit(1).as('one'))
    .whereRef('a.store_id', '=', 'sp.store_id')
    .whereRef('a.product_id', '=', 'sp.product_id')
    .where('a.stamp', '>=', f.stockModifiedSince);
  // Created at or after T: a member (PRODUCT §3.1, repository.ts). Such a store product was
  // one at any count too: it existed then (its insert moves the membership version, so a count
  // from before it is never advanced).
  return eb
    .case()
    .when(
      eb.or([
        eb('sp.created_on', '>=', f.stockModifiedSince),
        eb.exists(entries.limit(1).offset(0)),
        eb.exists(archived),
      ]),
    )
    .then(1)
    .else(0)
    .end();
}

/**
 * The listed store products (every filter but the stock one) named by an entry with an id
 * above `maxId` — the only ones whose membership or stamp can have changed since the count
 * that saw `maxId`, while the guard holds — each with its stamp's side of T, whether it is a
 * member now, and whether it was one then (an applied entry of the window at or below maxId).
 */
function changedStoreProducts(db: Kysely<Database>, dialect: Dialect, f: Window, maxId: number) {
  return listedStoreProducts(db, dialect, { ...f, stockModifiedSince: undefined })
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('sp.store_id', 'sp.product_id'),
        'in',
        selectFrom('stock_logs as n')
          .select(['n.store_id', 'n.product_id'])
          .where('n.id', '>', maxId)
          .$asTuple('store_id', 'product_id'),
      ),
    )
    .select((eb) => [
      'sp.id',
      eb.case().when('sp.stock_modified_at', '>=', f.stockModifiedSince).then(1).else(0).end().as('stamped'),
      hasAppliedEntry(eb, f).as('member'),
      hasAppliedEntry(eb, f, maxId).as('was_member'),
    ])
    .execute();
}

const stampedBefore = (eb: ListedBuilder, since: number) =>
  eb.or([eb('sp.stock_modified_at', 'is', null), eb('sp.stock_modified_at', '<', since)]);

/** The members counted from the entries of the window (once per pull), those stamped before it, and those at or below `atOrBelowId`. */
async function countMembers(db: Kysely<Database>, dialect: Dialect, f: Window, atOrBelowId: number) {
  const row = await listedStoreProducts(db, dialect, f)
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>(eb.case().when(stampedBefore(eb, f.stockModifiedSince)).then(1).else(0).end()).as('unstamped'),
      eb.fn.sum<number>(eb.case().when('sp.id', '<=', atOrBelowId).then(1).else(0).end()).as('below'),
    ])
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), unstamped: Number(row.unstamped ?? 0), below: Number(row.below ?? 0) };
}

async function unstampedMembers(db: Kysely<Database>, dialect: Dialect, f: Window): Promise<number[] | undefined> {
  const rows = await listedStoreProducts(db, dialect, f)
    .where((eb) => stampedBefore(eb, f.stockModifiedSince))
    .select('sp.id')
    .orderBy('sp.id')
    .limit(MAX_UNSTAMPED + 1)
    .execute();
  return rows.length > MAX_UNSTAMPED ? undefined : rows.map((row) => Number(row.id));
}

/** A remembered page's end: its last id, and how many members were at or below it when it was served. */
interface SeekFrom {
  lastId: number;
  served: number;
}

interface Counted {
  count: number;
  unstamped: readonly number[] | undefined;
  /** With a SeekFrom: the members now at or below its last id. */
  below?: number;
}

/**
 * The count now from a remembered one, when the guard holds (see the file's comment), else
 * undefined: the members then, plus the store products that became members since. None can
 * have left: entries at or below maxId are what they were, and the liveness of the rest is
 * what it was.
 */
async function advance(
  db: Kysely<Database>,
  dialect: Dialect,
  f: Window,
  now: DeltaFacts,
  from: DeltaState,
  seek: SeekFrom | undefined,
): Promise<Counted | undefined> {
  const then = from.facts;
  if (then.versions !== now.versions) return undefined;
  const above = await entriesAbove(db, then.entries.maxId);
  if (
    above.entries > MAX_ENTRIES_BETWEEN ||
    !stillHolds(then.entries, now.entries, above.entries) ||
    now.pending - above.pending !== then.pending
  )
    return undefined;
  const changes = above.entries === 0 ? [] : await changedStoreProducts(db, dialect, f, then.entries.maxId);
  const entered = changes.filter((c) => Number(c.member) === 1 && Number(c.was_member) === 0).map((c) => Number(c.id));
  const changedIds = new Set(changes.map((c) => Number(c.id)));
  const nowUnstamped = changes
    .filter((c) => Number(c.member) === 1 && Number(c.stamped) === 0)
    .map((c) => Number(c.id));
  let unstamped = from.unstamped;
  if (unstamped !== undefined && (nowUnstamped.length > 0 || unstamped.some((id) => changedIds.has(id)))) {
    const kept = [...unstamped.filter((id) => !changedIds.has(id)), ...nowUnstamped].sort((a, b) => a - b);
    unstamped = kept.length > MAX_UNSTAMPED ? undefined : kept;
  }
  return {
    count: from.count + entered.length,
    unstamped,
    below: seek && seek.served + entered.filter((id) => id <= seek.lastId).length,
  };
}

async function countPull(
  db: Kysely<Database>,
  dialect: Dialect,
  f: Window,
  now: DeltaFacts,
  from: DeltaState | undefined,
  seek: SeekFrom | undefined,
): Promise<Counted> {
  const advanced = from && (await advance(db, dialect, f, now, from, seek));
  if (advanced) return advanced;
  const counted = await countMembers(db, dialect, f, seek?.lastId ?? 0);
  return {
    count: counted.count,
    unstamped: counted.unstamped === 0 ? [] : await unstampedMembers(db, dialect, f),
    below: seek && counted.below,
  };
}

/**
 * How to read the page OFFSET gives from a remembered page's end, `below` members lying at
 * or below its last id now: after it (skipping what lies between), or — when members entered
 * below it — the last of those at or below it first, read backwards. Undefined when reading
 * from the start skips fewer members than reading back from the position.
 */
export function seekPlan(
  window: PageSlice,
  lastId: number,
  below: number,
): { back?: { offset: number; limit: number }; forward: PageSlice } | undefined {
  const offset = window.offset;
  if (offset >= below) return { forward: { afterId: lastId, offset: offset - below, fetchLimit: window.fetchLimit } };
  if (below - offset > offset) return undefined;
  const backEnd = Math.min(below, offset + window.fetchLimit);
  return {
    back: { offset: below - backEnd, limit: backEnd - offset },
    forward: { afterId: lastId, offset: 0, fetchLimit: window.fetchLimit - (backEnd - offset) },
  };
}

/** Where a walk starts: after an id (up, in id order) or at or below one (down). */
type WalkFrom = { afterId: number } | { atOrBelowId: number };

/**
 * At or below this many members, a pull's candidates come from the window's own entries (the
 * updated_on index of stock_logs) instead of a walk of store_products by id that filters on
 * the stamp: PostgreSQL keeps no index on stock_modified_at (migration 0019), so that walk reads
 * store products until it has found a page of members — the whole table, for the last page of a
 * sparse window (500 changes among 2M store products: 2 s a pull). From the entries a page costs
 * the window's entries; past a few thousand members the walk finds a page within a few hundred
 * thousand rows and is the cheaper one.
 */
export const SPARSE_MEMBERS = 5_000;

/**
 * A sparse pull's members, in id order: the listing's own definition (repository.ts
 * `listedStoreProducts`: an applied entry of the window, or a stamp an archive kept), read
 * through the window's entries. The walk still probes each one, as on the other path: a
 * member may have left between this read and the probe's.
 */
async function sparseCandidates(db: Kysely<Database>, dialect: Dialect, f: Window): Promise<number[]> {
  const rows = await listedStoreProducts(db, dialect, f).select('sp.id').orderBy('sp.id').execute();
  return rows.map((row) => Number(row.id));
}

/**
 * `take` members after skipping `skip`, walking the store products stamped since T (the
 * stamp is on the row) or among `unstamped` from `from`, each candidate probed for its
 * entries in the select list — so PostgreSQL's estimate of the walk is the rows it returns,
 * not a guess at how many pass a probe (which made it expect to walk the whole table, and
 * compile the plan, JIT, for every page). A stamp names an applied entry of its moment, or
 * the creation of a store product never booked (ledger/stamp-invariants.ts), so candidates are
 * members, but the probe decides.
 */
async function walkMembers(
  db: Kysely<Database>,
  dialect: Dialect,
  f: Window,
  unstamped: readonly number[],
  sparse: readonly number[] | undefined,
  from: WalkFrom,
  skip: number,
  take: number,
): Promise<number[]> {
  const members: number[] = [];
  let toSkip = skip;
  let cursor = from;
  for (;;) {
    const limit = toSkip + take - members.length;
    let candidates = listedStoreProducts(db, dialect, { ...f, stockModifiedSince: undefined }).select((eb) => [
      'sp.id',
      hasAppliedEntry(eb, f).as('member'),
    ]);
    let asked: number[] = [];
    if (sparse) {
      // The next `limit` candidates from the cursor, by id (a sparse pull's candidates, sparseCandidates).
      const at = cursor;
      asked =
        'afterId' in at
          ? sparse.filter((id) => id > at.afterId).slice(0, limit)
          : sparse.filter((id) => id <= at.atOrBelowId).slice(-limit);
      if (asked.length === 0) return members;
      candidates = candidates.where((eb) => columnIn(eb, 'sp.id', asked));
    } else {
      candidates = candidates.where((eb) =>
        eb.or([eb('sp.stock_modified_at', '>=', f.stockModifiedSince), columnIn(eb, 'sp.id', unstamped)]),
      );
    }
    candidates =
      'afterId' in cursor
        ? candidates.where('sp.id', '>', cursor.afterId).orderBy('sp.id')
        : candidates.where('sp.id', '<=', cursor.atOrBelowId).orderBy('sp.id', 'desc');
    const rows = await candidates.limit(limit).execute();
    for (const row of rows) {
      if (Number(row.member) !== 1) continue;
      if (toSkip > 0) toSkip--;
      else members.push(Number(row.id));
    }
    if (members.length === take) return members;
    // The last id looked at: of the candidates asked (sparse), else of the rows read.
    let last: number;
    if (sparse) {
      if (asked.length < limit) return members;
      last = 'afterId' in cursor ? asked[asked.length - 1]! : asked[0]!;
    } else {
      if (rows.length < limit) return members;
      last = Number(rows[rows.length - 1]!.id);
    }
    cursor = 'afterId' in cursor ? { afterId: last } : { atOrBelowId: last - 1 };
  }
}

/**
 * The page's members, then their rows. From a remembered position (or from the start, or
 * after a scroll_id's id) it walks from there; a deep page with no position is read by
 * OFFSET over the members, as is any page while too many members have stamps before T.
 */
async function readRows(
  db: Kysely<Database>,
  dialect: Dialect,
  f: Window,
  counted: Pick<Counted, 'count' | 'unstamped'>,
  sparseMembers: number,
  window: PageSlice,
  seek: SeekFrom | undefined,
  below: number | undefined,
): Promise<StockListRow[]> {
  const unstamped = counted.unstamped;
  const plan =
    seek && below !== undefined
      ? seekPlan(window, seek.lastId, below)
      : window.offset === 0
        ? { forward: window }
        : undefined;
  if (!plan || unstamped === undefined) {
    const ids = await pageOf(listedStoreProducts(db, dialect, f).select('sp.id'), 'sp.id', window).execute();
    return stockListRows(
      db,
      ids.map((row) => Number(row.id)),
    );
  }
  const sparse = counted.count <= sparseMembers ? await sparseCandidates(db, dialect, f) : undefined;
  const back = plan.back
    ? (
        await walkMembers(
          db,
          dialect,
          f,
          unstamped,
          sparse,
          { atOrBelowId: seek!.lastId },
          plan.back.offset,
          plan.back.limit,
        )
      ).reverse()
    : [];
  const forward =
    plan.forward.fetchLimit === 0
      ? []
      : await walkMembers(
          db,
          dialect,
          f,
          unstamped,
          sparse,
          { afterId: plan.forward.afterId ?? 0 },
          plan.forward.offset,
          plan.forward.fetchLimit,
        );
  return stockListRows(db, [...back, ...forward]);
}

/** One key per pull's filters (the stores in id order), and one per filters and page size. */
const countKey = (f: StockListFilters) =>
  JSON.stringify({ ...f, storeIds: f.storeIds && [...f.storeIds].sort((a, b) => a - b) });

/**
 * One page of the delta pull and its exact total_count, read on one snapshot (`db` is a
 * dialect.consistentRead reader): counted once per pull and carried from page to page, each
 * page read from where the previous one ended (see the file's comment). A store product's
 * updated_on moves with no version to see it, so a pull that also filters on
 * last_modified_date is counted and read by OFFSET every time.
 */
export async function deltaPullPage(
  db: Kysely<Database>,
  dialect: Dialect,
  pulls: DeltaPulls,
  filters: StockListFilters & { stockModifiedSince: number },
  window: PageWindow,
): Promise<{ rows: StockListRow[]; totalCount: number }> {
  // Members of a pull filtered on stock itself (stock-state-filters.ts) may also leave it with a
  // booking, which the carried count cannot see: such a pull is counted every time too.
  const remembered = filters.modifiedSince === undefined && !hasStockStateFilter(filters);
  const key = countKey(filters);
  const pull = JSON.stringify([key, window.pageSize]);
  const byOffset = window.afterId === undefined;
  for (let attempt = 1; ; attempt++) {
    const now = await readDeltaFacts(db, filters);
    const f: Window = { ...filters, changedIdAtLeast: now.lowerId };
    const position =
      remembered && byOffset && window.offset > 0 ? pulls.positions.before(pull, window.pageStart) : undefined;
    const seek = position && { lastId: position.lastId, served: position.page * window.pageSize };
    const counted = await countPull(
      db,
      dialect,
      f,
      now,
      position ?? (remembered ? pulls.counts.peek(key) : undefined),
      seek,
    );
    const rows = await readRows(db, dialect, f, counted, pulls.sparseMembers, window, seek, counted.below);
    // On PostgreSQL one snapshot; SQLite reads statement by statement, and a commit between
    // them would make a count of no one moment: such a page is read again, and never remembered.
    const settled = sameFacts(now, await readDeltaFacts(db, filters));
    if (settled && remembered) {
      const state: DeltaState = { facts: now, count: counted.count, unstamped: counted.unstamped };
      pulls.counts.set(key, state);
      if (byOffset && rows.length >= window.pageSize)
        pulls.positions.remember(pull, { ...state, page: window.pageStart, lastId: rows[window.pageSize - 1]!.id });
    }
    if (settled || attempt === MAX_ATTEMPTS) return { rows, totalCount: counted.count };
  }
}
