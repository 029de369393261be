import { sql, type Selectable, type Transaction } from 'kysely';
import type { Ledger } from './ledger.js';
import { writeStockEvents, type BalanceChange, type ChangeNames } from './stock-events.js';
import type { Dialect, RowsSourceColumn } from '../db/dialect/types.js';
import { insertMany } from '../db/insert-many.js';
import type { Database, StockBalanceTable } from '../db/schema.js';
import type { TimelineEntry } from '../domain/ledger.js';
import {
  historyRange,
  historyWindow,
  planBatch,
  type HistoryRange,
  type HistoryWindow,
  type PlannedArrival,
} from '../domain/ledger-batch.js';
import { fillApproved, type Rebased, rebaseCounts, writeEntries } from './entry-rows.js';
import type { BalanceKey, EntryBooking, Figures, Placed, Posting } from './posting-types.js';
import { stampStoreProducts, type StockTouch } from './store-product-stamps.js';
import { checkStoreProductMagnitudes, type MagnitudeChange } from './store-product-magnitude.js';
import { assertStoreAccess, visibleStores, type Principal } from '../shared/access.js';

/**
 * The posting engine: the only code that changes stock (PRODUCT §5 "Ledger first").
 * An entry is one stock_logs row, which carries its posting when it moves one balance
 * (`balance_id`, `delta`, `expected`); an entry split over pools has a stock_log_parts row
 * per pool instead (migration 0022; the view `stock_ledger` reads both). Each entry's row and
 * its balances' moves are written in the same transaction; a late entry re-bases the next
 * count of its balance (domain/ledger.ts). Balances are taken (dialect lockInTurn: first
 * come, first served, in key order) before they are read, so concurrent writers on the same
 * balance queue instead of losing updates; the work that does not depend on the balance is
 * done before, so the queue moves fast (docs/stock.md "Hot balance"). Each touched balance
 * and store product is written once per request.
 */

export type { BalanceKey, EntryBooking, NewLogRow, Posting } from './posting-types.js';

/** A guarded posting would take its balance below zero. */
export class InsufficientStockError extends Error {
  constructor(
    readonly lineIndex: number,
    readonly availableMilli: number,
  ) {
    super(`line ${lineIndex} would take its source below zero`);
  }
}

interface BalanceState {
  /** Its row's id: what its postings name it by (null until a new balance is created under its turn, createBalances). */
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

type BalanceRow = Omit<Selectable<StockBalanceTable>, 'updated_on'>;

const keyOf = (k: BalanceKey) => `${k.storeId}|${k.productId}|${k.locationId}|${k.pool}|${k.orderKey}`;
const keyOfRow = (row: BalanceRow) =>
  keyOf({
    storeId: Number(row.store_id),
    productId: Number(row.product_id),
    locationId: Number(row.location_id),
    pool: row.pool,
    orderKey: row.order_key,
  });

/**
 * Takes these balances' turns now (the same turns the engine takes before it reads them), for
 * a caller that must read their levels before it drafts the entries that book them — e.g.
 * settling what is bound to a customer order (customer-orders/bound-stock.ts): a concurrent
 * writer cannot change them between that read and the booking. Taking a turn twice in one
 * transaction is harmless.
 */
export async function lockBalanceKeys(
  trx: Transaction<Database>,
  dialect: Dialect,
  keys: readonly BalanceKey[],
): Promise<void> {
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

/**
 * Books the entries, in order: writes the new ones' rows with their postings, fills in the
 * postings of approved ones, moves their balances. Returns every entry's log id, in order.
 */
export async function applyEntries(
  trx: Transaction<Database>,
  ledger: Ledger,
  entries: readonly EntryBooking[],
  storeNumbers: ReadonlyMap<number, string>,
  by: Principal,
  now: number,
  touches: readonly StockTouch[] = [],
): Promise<number[]> {
  const { dialect } = ledger;
  const placed = placePostings(entries);
  assertAuthority(
    by,
    placed.map((p) => p.posting),
    storeNumbers,
  );
  if (placed.length === 0) return writeEntries(trx, dialect, entries, []);
  // An entry's id orders it among its balances' entries of one moment. A delta's row is the
  // same whatever the balance holds (a later count absorbing it is re-based, not the delta),
  // so a request of deltas on balances that exist writes its rows before it queues for them,
  // and its entries keep the places their ids give them (planBatch's fixed places): what
  // writers of one balance do one at a time is only the balance itself. Counts depend on the
  // level, and a new balance's id exists only once it is created under its turn, so any
  // other request writes its rows under the turns, after everything recorded.
  const early = await writeEarly(trx, dialect, entries, placed);
  const logIds: Array<number | undefined> = early ?? entries.map((entry) => entry.logId);
  const balances = await lockBalances(trx, dialect, placed, storeNumbers);
  const { plans, rebased } = await planBalances(trx, placed, balances, logIds, new Set(early));
  const magnitudes = moveBalances(placed, balances, plans);

  // New balances now, with the figures this request leaves them at: their postings name them.
  await dialect.engineBalanceWrites(trx, () => createBalances(trx, dialect, balances, now));
  const figures = placed.map(
    ({ key }, index): Figures => ({
      balanceId: balances.get(key)!.id!,
      deltaMilli: plans[index]!.deltaMilli,
      expectedMilli: plans[index]!.expectedMilli,
    }),
  );
  if (early) {
    // What was written before the turns is what the plan books (deltas are never re-based).
    placed.forEach(({ posting, entry }, index) => {
      if (figures[index]!.deltaMilli !== posting.quantityMilli || figures[index]!.expectedMilli !== undefined)
        throw new Error(`ledger plan changed the delta of log ${early[entry]}`);
    });
  } else {
    // In arrival order: their ids order entries of the same moment from now on.
    const written = await writeEntries(trx, dialect, entries, figures);
    entries.forEach((entry, index) => (logIds[index] = entry.logId ?? written[index]));
    await fillApproved(trx, dialect, entries, placed, figures);
  }
  await rebaseCounts(trx, rebased);
  const ids = logIds.map((id) => id!);
  await settleBalances(trx, ledger, { balances, placed, entries, ids, touches, magnitudes }, now);
  return ids;
}

/** The entries' postings in one flat list, in entry order; each balance key built once (a request may carry thousands). */
function placePostings(entries: readonly EntryBooking[]): Placed[] {
  const placed: Placed[] = [];
  entries.forEach((entry, index) => {
    for (const posting of entry.postings) placed.push({ posting, entry: index, key: keyOf(posting) });
  });
  return placed;
}

/**
 * One plan per balance for all of its postings of this request (docs/stock.md "Cost"): only a
 * balance with late entries that a count can see reads its history, and only the stretch
 * they need. Returns each posting's planned arrival, in the flat order, and the counts it re-bases.
 */
async function planBalances(
  trx: Transaction<Database>,
  placed: readonly Placed[],
  balances: ReadonlyMap<string, BalanceState>,
  logIds: ReadonlyArray<number | undefined>,
  own: ReadonlySet<number>,
): Promise<{ plans: PlannedArrival[]; rebased: Rebased[] }> {
  const postingsByBalance = new Map<string, number[]>();
  placed.forEach(({ key }, index) => {
    const indices = postingsByBalance.get(key);
    if (indices) indices.push(index);
    else postingsByBalance.set(key, [index]);
  });
  const plans = new Array<PlannedArrival>(placed.length);
  const rebased: Rebased[] = [];
  for (const [key, indices] of postingsByBalance) {
    const balance = balances.get(key)!;
    const arrivals = indices.map((index) => {
      const { posting, entry } = placed[index]!;
      return {
        at: posting.at,
        quantityMilli: posting.quantityMilli,
        isCount: posting.isCount,
        path: posting.path,
        id: logIds[entry],
      };
    });
    const range = historyRange(balance, arrivals);
    const window = range
      ? await readHistory(trx, balance, range, own)
      : { history: { levelBeforeMilli: balance.quantity, entries: [], tailMilli: 0 }, rows: new Map() };
    const plan = planBatch(window.history, arrivals);
    plan.arrivals.forEach((planned, at) => (plans[indices[at]!] = planned));
    for (const count of plan.rebased)
      rebased.push({ ...count, balanceId: balance.id!, row: window.rows.get(count.id)! });
  }
  return { plans, rebased };
}

/**
 * Moves the balances in arrival order, so a guarded posting sees exactly what came before it
 * (InsufficientStockError). Returns how much each posting grew its store product's magnitude.
 */
function moveBalances(
  placed: readonly Placed[],
  balances: ReadonlyMap<string, BalanceState>,
  plans: readonly PlannedArrival[],
): MagnitudeChange[] {
  const magnitudes: MagnitudeChange[] = [];
  for (const [index, { posting, key }] of placed.entries()) {
    const balance = balances.get(key)!;
    const planned = plans[index]!;
    const before = balance.quantity;
    // In the kept range: planBatch checked each arrival's balance in this order (PRODUCT §3 "Exact numbers").
    balance.quantity += planned.balanceChangeMilli;
    // A posting absorbed by a later count changes nothing now, so it cannot overdraw.
    if (posting.guard && !planned.absorbed && balance.quantity < 0)
      throw new InsufficientStockError(posting.guard.lineIndex, before);
    const grown = Math.abs(balance.quantity) - Math.abs(before);
    if (grown !== 0)
      magnitudes.push({
        storeId: posting.storeId,
        productId: posting.productId,
        changeMilli: grown,
        path: posting.path,
      });
    balance.lastAt = balance.lastAt === null ? posting.at : Math.max(balance.lastAt, posting.at);
    if (posting.isCount)
      balance.lastCountAt = balance.lastCountAt === null ? posting.at : Math.max(balance.lastCountAt, posting.at);
    balance.touched = true;
  }
  return magnitudes;
}

/**
 * What follows the entries' rows: the moved balances' figures, their store products' stamps
 * and magnitudes, and the `stock.changed` events.
 */
async function settleBalances(
  trx: Transaction<Database>,
  ledger: Ledger,
  booking: {
    balances: ReadonlyMap<string, BalanceState>;
    placed: readonly Placed[];
    entries: readonly EntryBooking[];
    ids: readonly number[];
    touches: readonly StockTouch[];
    magnitudes: readonly MagnitudeChange[];
  },
  now: number,
): Promise<void> {
  const { dialect } = ledger;
  const touched = [...booking.balances.values()].filter((b) => b.touched);
  const moved = touched.filter((b) => !b.created);
  // The versions of the store products whose balances change are bumped by the stamp
  // below, once per product, not by the triggers once per balance (migration 0017).
  if (moved.length > 0) await dialect.engineBalanceWrites(trx, () => writeBalances(trx, dialect, moved, now));
  await stampStoreProducts(
    trx,
    dialect,
    touched.map((balance) => balance.key),
    booking.touches,
    now,
  );
  // After the stamp, which holds the store products to the commit (store-product-magnitude.ts).
  await checkStoreProductMagnitudes(trx, booking.magnitudes);
  if (ledger.writesStockEvents)
    await writeStockEvents(
      trx,
      dialect,
      balanceChanges(touched, booking.placed, booking.ids),
      namesOf(booking.entries),
    );
}

/** Each moved balance with the level it is left at and the entries that moved it (stock-events.ts). */
function balanceChanges(
  touched: readonly BalanceState[],
  placed: readonly Placed[],
  logIds: readonly number[],
): BalanceChange[] {
  const entriesByKey = new Map<string, number[]>();
  for (const { key, entry } of placed) {
    const ids = entriesByKey.get(key);
    const id = logIds[entry]!;
    if (!ids) entriesByKey.set(key, [id]);
    else if (ids[ids.length - 1] !== id) ids.push(id);
  }
  return touched.map((balance) => ({
    key: balance.key,
    storeNumber: balance.storeNumber,
    quantityMilli: balance.quantity,
    logIds: entriesByKey.get(keyOf(balance.key)) ?? [],
  }));
}

/** The natural keys the new entries' rows carry (an approved entry has none here: stock-events.ts reads them). */
function namesOf(entries: readonly EntryBooking[]): ChangeNames {
  const names: ChangeNames = { productNumbers: new Map(), locationCodes: new Map() };
  for (const { row } of entries) {
    if (row === undefined) continue;
    names.productNumbers.set(row.product_id, row.product_number);
    if (row.location_id != null && row.location_code != null)
      names.locationCodes.set(row.location_id, row.location_code);
  }
  return names;
}

/**
 * A request of new delta entries on balances that all exist writes its rows now, before it
 * queues for them (applyEntries), with the balance ids read now: balances are never deleted
 * and their ids never change, so they still hold under the turns. Returns the entries' ids,
 * or undefined when the request must write under its turns.
 */
async function writeEarly(
  trx: Transaction<Database>,
  dialect: Dialect,
  entries: readonly EntryBooking[],
  placed: readonly Placed[],
): Promise<number[] | undefined> {
  if (entries.some((entry) => entry.row === undefined) || placed.some(({ posting }) => posting.isCount))
    return undefined;
  const distinct = new Map(placed.map(({ key, posting }) => [key, posting as BalanceKey]));
  const balanceIds = new Map<string, number>();
  for (const row of await readBalanceRows(trx, dialect, [...distinct.values()]))
    balanceIds.set(keyOfRow(row), Number(row.id));
  if (balanceIds.size < distinct.size) return undefined;
  return writeEntries(
    trx,
    dialect,
    entries,
    placed.map(({ key, posting }) => ({
      balanceId: balanceIds.get(key)!,
      deltaMilli: posting.quantityMilli,
      expectedMilli: undefined,
    })),
  );
}

const BALANCE_COLUMNS = [
  'store_id',
  'store_number',
  'product_id',
  'location_id',
  'pool',
  'order_key',
  'quantity',
  'last_at',
  'last_count_at',
  'updated_on',
];
const BALANCE_SELECTED =
  'b.id, b.store_id, b.store_number, b.product_id, b.location_id, b.pool, b.order_key, b.quantity, b.last_at, b.last_count_at';
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
  placed: readonly Placed[],
  storeNumbers: ReadonlyMap<number, string>,
): Promise<Map<string, BalanceState>> {
  const distinct = new Map<string, BalanceKey>();
  for (const { key, posting: p } of placed) {
    if (!distinct.has(key))
      distinct.set(key, {
        storeId: p.storeId,
        productId: p.productId,
        locationId: p.locationId,
        pool: p.pool,
        orderKey: p.orderKey,
      });
  }
  const keys = [...distinct.values()].sort(
    (a, b) =>
      a.storeId - b.storeId ||
      a.productId - b.productId ||
      a.locationId - b.locationId ||
      a.pool - b.pool ||
      (a.orderKey < b.orderKey ? -1 : a.orderKey > b.orderKey ? 1 : 0),
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
      balances.set(key, {
        id: null,
        created: false,
        key: balanceKey,
        storeNumber: storeNumbers.get(balanceKey.storeId) ?? '',
        quantity: 0,
        lastAt: null,
        lastCountAt: null,
        touched: false,
      });
    }
  }
  return balances;
}

/**
 * The stored balances of these keys (missing ones are simply absent). The exact keys joined
 * as rows sent with the statement: one probe of the key's unique index each (reading every
 * balance of the products instead cost more).
 */
async function readBalanceRows(
  trx: Transaction<Database>,
  dialect: Dialect,
  keys: readonly BalanceKey[],
): Promise<BalanceRow[]> {
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
export async function arrivalMoment(
  trx: Transaction<Database>,
  dialect: Dialect,
  keys: readonly BalanceKey[],
  now: number,
): Promise<number> {
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
 * end when none follows (this request's own rows written before the turns left out: they
 * are arrivals). Two index range reads of the ledger view, whatever the length of the
 * balance's history before that stretch (the first count after a moment comes from the
 * partial index of counts, migration 0022). Also returns where each row read lives, for
 * the counts the plan re-bases.
 */
async function readHistory(
  trx: Transaction<Database>,
  balance: BalanceState,
  range: HistoryRange,
  own: ReadonlySet<number | undefined>,
): Promise<{ history: HistoryWindow; rows: Map<number, { logId: number; at: number }> }> {
  if (balance.id === null) return { history: historyWindow([], false, balance.quantity), rows: new Map() };
  const sameBalance = trx.selectFrom('stock_ledger').where('balance_id', '=', balance.id);
  const closing = await sameBalance
    .select(['id', 'at'])
    .where('is_count', '=', 1)
    .where('at', '>', range.toAt)
    .orderBy('at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  let stretch = sameBalance
    .select(['id', 'log_id', 'at', 'delta', 'is_count', 'counted', 'expected'])
    .where('at', '>=', range.fromAt);
  if (closing) {
    const closingAt = Number(closing.at);
    const closingId = Number(closing.id);
    // `at <= closingAt` is implied by the OR, but PostgreSQL's planner only makes a plain
    // condition an index bound: without it the scan ran on to the end of the history.
    stretch = stretch
      .where('at', '<=', closingAt)
      .where((eb) => eb.or([eb('at', '<', closingAt), eb.and([eb('at', '=', closingAt), eb('id', '<=', closingId)])]));
  }
  const read = (await stretch.orderBy('at').orderBy('id').execute()).filter((row) => !own.has(Number(row.log_id)));
  const entries: TimelineEntry[] = read.map((row) => ({
    id: Number(row.id),
    at: Number(row.at),
    deltaMilli: Number(row.delta),
    count: row.is_count === 1 ? { countedMilli: Number(row.counted), expectedMilli: Number(row.expected) } : undefined,
  }));
  const rows = new Map(read.map((row) => [Number(row.id), { logId: Number(row.log_id), at: Number(row.at) }]));
  return { history: historyWindow(entries, closing !== undefined, balance.quantity), rows };
}

/**
 * Creates the balances among `balances` that have no row yet, at the figures this request
 * leaves them at (under their turns: nobody else writes them before the commit), and learns
 * their ids, which their postings name. The engine's own write, so the stock version
 * triggers stay out of it (the caller says so to the dialect).
 */
async function createBalances(
  trx: Transaction<Database>,
  dialect: Dialect,
  balances: ReadonlyMap<string, BalanceState>,
  now: number,
): Promise<void> {
  const missing = [...balances.values()].filter((balance) => balance.id === null);
  if (missing.length === 0) return;
  const created = await insertMany<BalanceRow>(
    trx,
    dialect,
    'stock_balances',
    BALANCE_COLUMNS,
    missing.map((b) => [
      b.key.storeId,
      b.storeNumber,
      b.key.productId,
      b.key.locationId,
      b.key.pool,
      b.key.orderKey,
      b.quantity,
      b.lastAt,
      b.lastCountAt,
      now,
    ]),
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

async function writeBalances(
  trx: Transaction<Database>,
  dialect: Dialect,
  touched: BalanceState[],
  now: number,
): Promise<void> {
  // Absolute values, one multi-row upsert on the balance key: nobody else writes these
  // balances until this transaction ends (lockBalances). All of them exist (createBalances
  // made the new ones); the upsert's conflict path is the update.
  await insertMany(
    trx,
    dialect,
    'stock_balances',
    BALANCE_COLUMNS,
    touched.map((b) => [
      b.key.storeId,
      b.storeNumber,
      b.key.productId,
      b.key.locationId,
      b.key.pool,
      b.key.orderKey,
      b.quantity,
      b.lastAt,
      b.lastCountAt,
      now,
    ]),
    `on conflict (store_id, product_id, location_id, pool, order_key) do update set quantity = excluded.quantity, last_at = excluded.last_at,
     last_count_at = excluded.last_count_at, updated_on = excluded.updated_on`,
  );
}
