import { sql, type Selectable, type Transaction } from 'kysely';
import type { Dialect, RowsSourceColumn } from '../db/dialect/types.js';
import { insertMany, insertManyReturningIds } from '../db/insert-many.js';
import type { Database, StockBalanceTable } from '../db/schema.js';
import type { TimelineEntry } from '../domain/ledger.js';
import { historyRange, historyWindow, planBatch, type HistoryRange, type HistoryWindow, type PlannedArrival } from '../domain/ledger-batch.js';
import { inListChunks, KEYS_PER_QUERY } from '../db/in-list.js';
import { stampStoreProducts, type StockTouch } from './store-product-stamps.js';
import { checkStoreProductMagnitudes, type MagnitudeChange } from './store-product-magnitude.js';
import { assertStoreAccess, visibleStores, type Principal } from '../shared/access.js';

/**
 * The posting engine: the only code that changes stock (PRODUCT §5 "Ledger first").
 * Each posting appends a stock_ledger row and moves its balance in the same transaction;
 * a late entry re-bases the next count of its balance (domain/ledger.ts). Balances are
 * taken (dialect lockInTurn: first come, first served, in key order) before they are read,
 * so concurrent writers on the same balance queue instead of losing updates; the work that
 * does not depend on the balance is done before, so the queue moves fast (docs/stock.md
 * "Hot balance"). Each touched balance and store product is written once per request.
 */

/** Identifies one balance: (store, product, location or 0, pool, customer order or ''). */
export interface BalanceKey {
  storeId: number;
  productId: number;
  locationId: number;
  pool: number;
  orderKey: string;
}

export interface Posting extends BalanceKey {
  logId: number;
  /** Epoch ms of the entry (its modification_datetime). */
  at: number;
  /** Signed delta, or for counts the counted level (thousandths). */
  quantityMilli: number;
  isCount: boolean;
  /**
   * Refuse the posting when it leaves its balance below zero (a movement's source without
   * allow_overage). Checked under the balance lock, so concurrent moves cannot together
   * overdraw it.
   */
  guard?: { lineIndex: number };
  /** The request field of its quantity (`storeproductlog[3].quantity`): named when a figure it makes would leave the exact range. */
  path?: string;
}

/** A guarded posting would take its balance below zero. */
export class InsufficientStockError extends Error {
  constructor(
    readonly lineIndex: number,
    readonly availableMilli: number,
  ) {
    super(`line ${lineIndex} would take its source below zero`);
  }
}

export interface PostingResult {
  logId: number;
  deltaMilli: number;
  expectedMilli?: number;
}

interface BalanceState {
  /** Its row's id: what its ledger rows name it by (null until a new balance is created under its turn, createBalances). */
  id: number | null;
  /** Created by this request, with its final figures: writeBalances has nothing left to write. */
  created: boolean;
  key: BalanceKey;
  storeNumber: string;
  quantity: number;
  lastAt: number | null;
  lastCountAt: number | null;
  touched: boolean;
}

const LEDGER_COLUMNS = ['log_id', 'balance_id', 'at', 'delta', 'is_count', 'counted', 'expected'];

type BalanceRow = Omit<Selectable<StockBalanceTable>, 'updated_on'>;

const keyOf = (k: BalanceKey) => `${k.storeId}|${k.productId}|${k.locationId}|${k.pool}|${k.orderKey}`;
const keyOfRow = (row: BalanceRow) =>
  keyOf({ storeId: Number(row.store_id), productId: Number(row.product_id), locationId: Number(row.location_id), pool: row.pool, orderKey: row.order_key });

/**
 * Takes these balances' turns now (the same turns the engine takes before it reads them), for
 * a caller that must read their levels before it drafts the entries that book them — e.g.
 * settling what is bound to a customer order (customer-orders/bound-stock.ts): a concurrent
 * writer cannot change them between that read and the booking. Taking a turn twice in one
 * transaction is harmless.
 */
export async function lockBalanceKeys(trx: Transaction<Database>, dialect: Dialect, keys: readonly BalanceKey[]): Promise<void> {
  await dialect.lockInTurn(trx, keys.map(keyOf));
}

/**
 * PRODUCT §4: a balance moves only in a store the request's principal holds. Checked here,
 * where every stock change passes, so no path — a body field, a transfer's origin, an
 * approval — can book outside the token's stores; before the first write.
 */
function assertAuthority(by: Principal, postings: readonly Posting[], storeNumbers: ReadonlyMap<number, string>): void {
  if (visibleStores(by) === null) return;
  for (const storeId of new Set(postings.map((posting) => posting.storeId))) {
    const storeNumber = storeNumbers.get(storeId);
    if (storeNumber === undefined) throw new Error(`posting into store id ${storeId}, which the booking did not name`);
    assertStoreAccess(by, storeNumber);
  }
}

export async function applyPostings(
  trx: Transaction<Database>,
  dialect: Dialect,
  postings: readonly Posting[],
  storeNumbers: ReadonlyMap<number, string>,
  by: Principal,
  now: number,
  touches: readonly StockTouch[] = [],
): Promise<PostingResult[]> {
  if (postings.length === 0) return [];
  assertAuthority(by, postings, storeNumbers);
  // A delta's ledger row is the same whatever the balance holds (a later count absorbing it
  // is re-based, not the delta), so a request of deltas only writes its ledger rows before
  // it queues for its balances: what writers of one balance do one at a time is only the
  // balance itself — all but the rows of balances that do not exist yet, which are written
  // under the lock once created. Counts depend on the level, so a request with any count
  // writes its rows under the lock, as the arrival order of its own entries at one moment
  // must stay its id order. `early[i]`: the id of posting i's row when written before the lock.
  let early = postings.every((posting) => !posting.isCount) ? await insertEarlyRows(trx, dialect, postings) : undefined;
  const balances = await lockBalances(trx, dialect, postings, storeNumbers);

  // One plan per balance for all of its postings of this request (docs/stock.md "Cost"): only
  // a balance with late entries that a count can see reads its history, and only the stretch
  // they need.
  const postingsByBalance = new Map<string, number[]>();
  postings.forEach((posting, index) => {
    const key = keyOf(posting);
    const indices = postingsByBalance.get(key);
    if (indices) indices.push(index);
    else postingsByBalance.set(key, [index]);
  });
  const ownRows = new Set(early?.filter((id): id is number => id !== undefined));
  const plans = new Array<PlannedArrival>(postings.length);
  const rebased: Array<{ id: number; deltaMilli: number; expectedMilli: number }> = [];
  for (const [key, indices] of postingsByBalance) {
    const balance = balances.get(key)!;
    const arrivals = indices.map((index) => postings[index]!);
    const range = historyRange(balance, arrivals);
    const window = range ? await readHistory(trx, balance, range, ownRows) : { levelBeforeMilli: balance.quantity, entries: [], tailMilli: 0 };
    const plan = planBatch(window, arrivals);
    plan.arrivals.forEach((planned, at) => (plans[indices[at]!] = planned));
    rebased.push(...plan.rebased);
    const written = early === undefined ? [] : indices.filter((index) => early![index] !== undefined);
    if (written.length > 0 && (await countRecordedAfterOwnRow(trx, balance, written.map((index) => ({ id: early![index]!, at: postings[index]!.at }))))) {
      // A concurrent count was recorded at the very moment of one of these deltas after the
      // delta's row got its id: (at, id) would place the delta before the count, the plan
      // after it. Rare (the same millisecond on the same balance); write the rows again
      // under the lock, so their ids follow everything recorded.
      await deleteLedgerRows(trx, [...ownRows]);
      early = undefined;
    }
  }

  // The balances move in arrival order, so a guarded posting sees exactly what came before it.
  const magnitudes: MagnitudeChange[] = [];
  for (const [index, posting] of postings.entries()) {
    const balance = balances.get(keyOf(posting))!;
    const planned = plans[index]!;
    const before = balance.quantity;
    // In the kept range: planBatch checked each arrival's balance in this order (PRODUCT §3 "Exact numbers").
    balance.quantity += planned.balanceChangeMilli;
    // A posting absorbed by a later count changes nothing now, so it cannot overdraw.
    if (posting.guard && !planned.absorbed && balance.quantity < 0) throw new InsufficientStockError(posting.guard.lineIndex, before);
    const grown = Math.abs(balance.quantity) - Math.abs(before);
    if (grown !== 0) magnitudes.push({ storeId: posting.storeId, productId: posting.productId, changeMilli: grown, path: posting.path });
    balance.lastAt = balance.lastAt === null ? posting.at : Math.max(balance.lastAt, posting.at);
    if (posting.isCount) balance.lastCountAt = balance.lastCountAt === null ? posting.at : Math.max(balance.lastCountAt, posting.at);
    balance.touched = true;
  }

  if (early) {
    // What was written before the lock is what the plan books (deltas are never re-based).
    postings.forEach((posting, index) => {
      const planned = plans[index]!;
      if (early![index] !== undefined && (planned.deltaMilli !== posting.quantityMilli || planned.expectedMilli !== undefined)) {
        throw new Error(`ledger plan changed the delta of log ${posting.logId}`);
      }
    });
  }
  // New balances now, with the figures this request leaves them at: their ledger rows name them.
  await dialect.engineBalanceWrites(trx, () => createBalances(trx, dialect, balances, now));
  // The rest in arrival order: their ids order entries of the same moment from now on.
  const unwritten = postings.map((_, index) => index).filter((index) => early?.[index] === undefined);
  if (unwritten.length > 0) {
    await insertLedgerRows(
      trx,
      dialect,
      unwritten.map((index) => postings[index]!),
      unwritten.map((index) => balances.get(keyOf(postings[index]!))!.id!),
      unwritten.map((index) => ({ deltaMilli: plans[index]!.deltaMilli, expectedMilli: plans[index]!.expectedMilli })),
    );
  }
  // A re-based count's row is the ledger's one update in place (docs/stock.md).
  for (const count of rebased) {
    await trx.updateTable('stock_ledger').set({ delta: count.deltaMilli, expected: count.expectedMilli }).where('id', '=', count.id).execute();
  }
  const touched = [...balances.values()].filter((b) => b.touched);
  const moved = touched.filter((b) => !b.created);
  // The versions of the store products whose balances change are bumped by the stamp
  // below, once per product, not by the triggers once per balance (migration 0017).
  if (moved.length > 0) await dialect.engineBalanceWrites(trx, () => writeBalances(trx, dialect, moved, now));
  await stampStoreProducts(trx, dialect, touched.map((balance) => balance.key), touches, now);
  // After the stamp, which holds the store products to the commit (store-product-magnitude.ts).
  await checkStoreProductMagnitudes(trx, magnitudes);
  return postings.map((posting, index) => ({ logId: posting.logId, deltaMilli: plans[index]!.deltaMilli, expectedMilli: plans[index]!.expectedMilli }));
}

const deltaRow = (posting: Posting) => ({ deltaMilli: posting.quantityMilli, expectedMilli: undefined });

/**
 * A deltas-only request's ledger rows on balances that exist already, written before it
 * queues for them: a row names its balance by id, and a balance is created only under its
 * turn (createMissingBalances), so a posting on a new balance is written after. Balances are
 * never deleted and their ids never change, so ids read before the turn still hold under it.
 * Returns each posting's row id, undefined where its balance is new.
 */
async function insertEarlyRows(trx: Transaction<Database>, dialect: Dialect, postings: readonly Posting[]): Promise<Array<number | undefined>> {
  const distinct = new Map(postings.map((posting) => [keyOf(posting), posting as BalanceKey]));
  const balanceIds = new Map<string, number>();
  for (const row of await readBalanceRows(trx, dialect, [...distinct.values()])) balanceIds.set(keyOfRow(row), Number(row.id));
  const known = postings.map((_, index) => index).filter((index) => balanceIds.has(keyOf(postings[index]!)));
  const early = new Array<number | undefined>(postings.length).fill(undefined);
  if (known.length === 0) return early;
  const ids = await insertLedgerRows(
    trx,
    dialect,
    known.map((index) => postings[index]!),
    known.map((index) => balanceIds.get(keyOf(postings[index]!))!),
    known.map((index) => deltaRow(postings[index]!)),
  );
  known.forEach((index, at) => (early[index] = ids[at]));
  return early;
}

/** The postings' ledger rows, in posting order, on the balances of `balanceIds` (same order); returns their ids in that order. */
async function insertLedgerRows(
  trx: Transaction<Database>,
  dialect: Dialect,
  postings: readonly Posting[],
  balanceIds: readonly number[],
  figures: ReadonlyArray<{ deltaMilli: number; expectedMilli: number | undefined }>,
): Promise<number[]> {
  const rows = postings.map((posting, index) => [
    posting.logId,
    balanceIds[index]!,
    posting.at,
    figures[index]!.deltaMilli,
    posting.isCount ? 1 : 0,
    posting.isCount ? posting.quantityMilli : null,
    figures[index]!.expectedMilli ?? null,
  ]);
  return insertManyReturningIds(trx, dialect, 'stock_ledger', LEDGER_COLUMNS, rows);
}

async function deleteLedgerRows(trx: Transaction<Database>, ids: readonly number[]): Promise<void> {
  for (const part of inListChunks(ids, KEYS_PER_QUERY)) await trx.deleteFrom('stock_ledger').where('id', 'in', part).execute();
}

/**
 * Whether a count recorded on the balance (committed, so visible now that the balance is
 * locked) sits at the same moment as one of this request's rows written before the lock,
 * with a greater id. Only a count can tell the order of entries at one moment apart, and
 * only one recorded at or after the earliest of the rows; the balance's latest count moment
 * says when none can be.
 */
async function countRecordedAfterOwnRow(trx: Transaction<Database>, balance: BalanceState, own: ReadonlyArray<{ id: number; at: number }>): Promise<boolean> {
  if (balance.lastCountAt === null) return false;
  let fromAt = Infinity;
  let firstId = Infinity;
  const firstIdAt = new Map<number, number>();
  for (const row of own) {
    fromAt = Math.min(fromAt, row.at);
    firstId = Math.min(firstId, row.id);
    firstIdAt.set(row.at, Math.min(firstIdAt.get(row.at) ?? Infinity, row.id));
  }
  if (balance.lastCountAt < fromAt) return false;
  if (balance.id === null) return false;
  const counts = await trx
    .selectFrom('stock_ledger')
    .select(['id', 'at'])
    .where('balance_id', '=', balance.id)
    .where('is_count', '=', 1)
    .where('at', '>=', fromAt)
    .where('at', '<=', balance.lastCountAt)
    .where('id', '>', firstId)
    .execute();
  return counts.some((count) => (firstIdAt.get(Number(count.at)) ?? Infinity) < Number(count.id));
}

const BALANCE_COLUMNS = ['store_id', 'store_number', 'product_id', 'location_id', 'pool', 'order_key', 'quantity', 'last_at', 'last_count_at', 'updated_on'];
const BALANCE_SELECTED = 'b.id, b.store_id, b.store_number, b.product_id, b.location_id, b.pool, b.order_key, b.quantity, b.last_at, b.last_count_at';
const KEY_COLUMNS: readonly RowsSourceColumn[] = [
  { name: 'store_id', type: 'bigint' },
  { name: 'product_id', type: 'bigint' },
  { name: 'location_id', type: 'bigint' },
  { name: 'pool', type: 'bigint' },
  { name: 'order_key', type: 'text' },
];

/**
 * Takes the balances the postings touch for this transaction and reads them. Exclusion is
 * the dialect's `lockInTurn` on every balance key (PostgreSQL: transaction advisory locks,
 * granted first come, first served; SQLite: the write transaction's database lock), which
 * every writer of balances takes — this is the only one. So the rows need no row lock
 * of their own: they are read by their keys, and each touched balance is written once: a new
 * one when its figures are known (createBalances), an existing one at the end (writeBalances;
 * docs/decisions.md "balance writes"). Keys go in one global order, so two transactions
 * wanting overlapping balances queue in the same order and cannot deadlock.
 */
async function lockBalances(
  trx: Transaction<Database>,
  dialect: Dialect,
  postings: readonly Posting[],
  storeNumbers: ReadonlyMap<number, string>,
): Promise<Map<string, BalanceState>> {
  const distinct = new Map<string, BalanceKey>();
  for (const p of postings) distinct.set(keyOf(p), { storeId: p.storeId, productId: p.productId, locationId: p.locationId, pool: p.pool, orderKey: p.orderKey });
  const keys = [...distinct.values()].sort(
    (a, b) =>
      a.storeId - b.storeId || a.productId - b.productId || a.locationId - b.locationId || a.pool - b.pool || (a.orderKey < b.orderKey ? -1 : a.orderKey > b.orderKey ? 1 : 0),
  );
  await dialect.lockInTurn(trx, keys.map(keyOf));
  const balances = new Map<string, BalanceState>();
  for (const row of await readBalanceRows(trx, dialect, keys)) {
    const key = keyOfRow(row);
    const balanceKey = distinct.get(key);
    if (!balanceKey || balances.has(key)) continue;
    balances.set(key, {
      id: Number(row.id),
      created: false,
      key: balanceKey,
      storeNumber: row.store_number,
      quantity: Number(row.quantity),
      lastAt: row.last_at === null ? null : Number(row.last_at),
      lastCountAt: row.last_count_at === null ? null : Number(row.last_count_at),
      touched: false,
    });
  }
  for (const [key, balanceKey] of distinct) {
    if (!balances.has(key)) {
      balances.set(key, { id: null, created: false, key: balanceKey, storeNumber: storeNumbers.get(balanceKey.storeId) ?? '', quantity: 0, lastAt: null, lastCountAt: null, touched: false });
    }
  }
  return balances;
}

/**
 * The stored balances of these keys (missing ones are simply absent). The exact keys joined
 * as rows sent with the statement: one probe of the key's unique index each (reading every
 * balance of the products instead cost more).
 */
async function readBalanceRows(trx: Transaction<Database>, dialect: Dialect, keys: readonly BalanceKey[]): Promise<BalanceRow[]> {
  if (keys.length === 0) return [];
  const keyRows = keys.map((k) => [k.storeId, k.productId, k.locationId, k.pool, k.orderKey]);
  const { rows } = await sql<BalanceRow>`
    select ${sql.raw(BALANCE_SELECTED)} from ${dialect.rowsSource('k', KEY_COLUMNS, keyRows)}
    join stock_balances b on b.store_id = k.store_id and b.product_id = k.product_id and b.location_id = k.location_id
      and b.pool = k.pool and b.order_key = k.order_key`.execute(trx);
  return rows;
}

/**
 * The moment an entry the service stamps itself (a pick, a movement, a receipt through the
 * receive endpoint, a settlement, a reset) is booked at: `now`, or the latest entry already
 * recorded on any of its balances when that is later — a client may stamp an entry up to
 * 5 minutes ahead (PRODUCT §3). Booked before a count stamped ahead, the entry would be
 * absorbed by it: the count's level would stand although the stock had moved since, and the
 * free-stock guard would let a pick or move take units the location does not hold. Booked
 * in arrival order it never can. Takes the balances' turns first (so nothing is recorded on
 * them between this read and the booking; the engine taking them again is harmless).
 */
export async function arrivalMoment(trx: Transaction<Database>, dialect: Dialect, keys: readonly BalanceKey[], now: number): Promise<number> {
  const distinct = new Map(keys.map((key) => [keyOf(key), key]));
  await dialect.lockInTurn(trx, [...distinct.keys()]);
  let moment = now;
  for (const row of await readBalanceRows(trx, dialect, [...distinct.values()])) {
    if (row.last_at !== null) moment = Math.max(moment, Number(row.last_at));
  }
  return moment;
}

/**
 * The recorded stretch of a balance that its late entries need (domain/ledger-batch.ts):
 * from the earliest such moment through the first count after the latest one, or to the
 * end when none follows (this request's own rows written before the lock left out). Two
 * index range reads, whatever the length of the balance's
 * history before that stretch (the first count after a moment comes from a partial index
 * of counts: migration 0010).
 */
async function readHistory(trx: Transaction<Database>, balance: BalanceState, range: HistoryRange, ownRows: ReadonlySet<number>): Promise<HistoryWindow> {
  if (balance.id === null) return historyWindow([], false, balance.quantity);
  const sameBalance = trx.selectFrom('stock_ledger').where('balance_id', '=', balance.id);
  const closing = await sameBalance
    .select(['id', 'at'])
    .where('is_count', '=', 1)
    .where('at', '>', range.toAt)
    .orderBy('at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  let stretch = sameBalance.select(['id', 'at', 'delta', 'is_count', 'counted', 'expected']).where('at', '>=', range.fromAt);
  if (closing) {
    const closingAt = Number(closing.at);
    const closingId = Number(closing.id);
    // `at <= closingAt` is implied by the OR, but PostgreSQL's planner only makes a plain
    // condition an index bound: without it the scan ran on to the end of the history.
    stretch = stretch
      .where('at', '<=', closingAt)
      .where((eb) => eb.or([eb('at', '<', closingAt), eb.and([eb('at', '=', closingAt), eb('id', '<=', closingId)])]));
  }
  const rows = await stretch.orderBy('at').orderBy('id').execute();
  // This request's own rows written before the lock are arrivals, not history.
  const entries: TimelineEntry[] = rows.filter((row) => !ownRows.has(Number(row.id))).map((row) => ({
    id: Number(row.id),
    at: Number(row.at),
    deltaMilli: Number(row.delta),
    count: row.is_count === 1 ? { countedMilli: Number(row.counted), expectedMilli: Number(row.expected) } : undefined,
  }));
  return historyWindow(entries, closing !== undefined, balance.quantity);
}

/**
 * Creates the balances among `balances` that have no row yet, at the figures this request
 * leaves them at (under their turns: nobody else writes them before the commit), and learns
 * their ids, which their ledger rows name. The engine's own write, so the stock version
 * triggers stay out of it (the caller says so to the dialect).
 */
async function createBalances(trx: Transaction<Database>, dialect: Dialect, balances: ReadonlyMap<string, BalanceState>, now: number): Promise<void> {
  const missing = [...balances.values()].filter((balance) => balance.id === null);
  if (missing.length === 0) return;
  const created = await insertMany<BalanceRow>(
    trx,
    dialect,
    'stock_balances',
    BALANCE_COLUMNS,
    missing.map((b) => [b.key.storeId, b.storeNumber, b.key.productId, b.key.locationId, b.key.pool, b.key.orderKey, b.quantity, b.lastAt, b.lastCountAt, now]),
    'returning id, store_id, product_id, location_id, pool, order_key',
  );
  const byKey = new Map(missing.map((balance) => [keyOf(balance.key), balance]));
  for (const row of created) {
    const balance = byKey.get(keyOfRow(row))!;
    balance.id = Number(row.id);
    balance.created = true;
  }
  const left = missing.filter((balance) => balance.id === null);
  if (left.length > 0) throw new Error(`${left.length} new balances were not created (first: ${keyOf(left[0]!.key)})`);
}

async function writeBalances(trx: Transaction<Database>, dialect: Dialect, touched: BalanceState[], now: number): Promise<void> {
  // Absolute values, one multi-row upsert on the balance key: nobody else writes these
  // balances until this transaction ends (lockBalances). All of them exist (createBalances
  // made the new ones); the upsert's conflict path is the update.
  await insertMany(
    trx,
    dialect,
    'stock_balances',
    BALANCE_COLUMNS,
    touched.map((b) => [b.key.storeId, b.storeNumber, b.key.productId, b.key.locationId, b.key.pool, b.key.orderKey, b.quantity, b.lastAt, b.lastCountAt, now]),
    `on conflict (store_id, product_id, location_id, pool, order_key) do update set quantity = excluded.quantity, last_at = excluded.last_at,
     last_count_at = excluded.last_count_at, updated_on = excluded.updated_on`,
  );
}
