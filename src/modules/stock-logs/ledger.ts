import { sql, type Selectable, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { insertMany } from '../../db/insert-many.js';
import type { Database, StockBalanceTable } from '../../db/schema.js';
import { planEntry, type TimelineView } from '../../domain/ledger.js';
import { inListChunks } from '../../db/in-list.js';

/**
 * The posting engine: the only code that changes stock (PRODUCT §5 "Ledger first").
 * Each posting appends a stock_ledger row and moves its balance in the same transaction;
 * a late entry re-bases the next count of its balance (domain/ledger.ts). Balances are
 * locked (PostgreSQL row locks, in key order) before they are read, so concurrent writers
 * on the same balance queue instead of losing updates.
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
  id: number;
  key: BalanceKey;
  storeNumber: string;
  quantity: number;
  lastAt: number | null;
  lastCountAt: number | null;
  touched: boolean;
}

const LEDGER_COLUMNS = ['log_id', 'store_id', 'product_id', 'location_id', 'pool', 'order_key', 'at', 'delta', 'is_count', 'counted', 'expected'];

type BalanceRow = Omit<Selectable<StockBalanceTable>, 'updated_on'>;

const keyOf = (k: BalanceKey) => `${k.storeId}|${k.productId}|${k.locationId}|${k.pool}|${k.orderKey}`;

export async function applyPostings(
  trx: Transaction<Database>,
  dialect: Dialect,
  postings: readonly Posting[],
  storeNumbers: ReadonlyMap<number, string>,
  now: number,
): Promise<PostingResult[]> {
  if (postings.length === 0) return [];
  const balances = await lockBalances(trx, dialect, postings, storeNumbers, now);
  const pendingLedger: unknown[][] = [];
  const flushLedger = async () => {
    if (pendingLedger.length > 0) await insertMany(trx, dialect, 'stock_ledger', LEDGER_COLUMNS, pendingLedger.splice(0));
  };

  const results: PostingResult[] = [];
  for (const posting of postings) {
    const balance = balances.get(keyOf(posting))!;
    const late = balance.lastAt !== null && posting.at < balance.lastAt;
    let view: TimelineView = { levelAtMilli: balance.quantity };
    if (late) {
      // Rare: the entry happened before entries already recorded. Ask the ledger itself.
      await flushLedger();
      view = await timelineView(trx, posting, balance.lastCountAt !== null && posting.at < balance.lastCountAt);
    }
    const planned = planEntry(view, posting);
    if (planned.rebase) {
      await trx
        .updateTable('stock_ledger')
        .set({ delta: planned.rebase.deltaMilli, expected: planned.rebase.expectedMilli })
        .where('id', '=', planned.rebase.entryId)
        .execute();
    }
    pendingLedger.push([
      posting.logId,
      posting.storeId,
      posting.productId,
      posting.locationId,
      posting.pool,
      posting.orderKey,
      posting.at,
      planned.deltaMilli,
      posting.isCount ? 1 : 0,
      posting.isCount ? posting.quantityMilli : null,
      planned.expectedMilli ?? null,
    ]);
    // A re-based count absorbs the new entry's effect: the balance moves by the new delta
    // plus the count's change, which cancel out.
    const before = balance.quantity;
    balance.quantity += planned.rebase ? 0 : planned.deltaMilli;
    // A posting absorbed by a later count changes nothing now, so it cannot overdraw.
    if (posting.guard && !planned.rebase && balance.quantity < 0) {
      throw new InsufficientStockError(posting.guard.lineIndex, before);
    }
    balance.lastAt = balance.lastAt === null ? posting.at : Math.max(balance.lastAt, posting.at);
    if (posting.isCount) balance.lastCountAt = balance.lastCountAt === null ? posting.at : Math.max(balance.lastCountAt, posting.at);
    balance.touched = true;
    results.push({ logId: posting.logId, deltaMilli: planned.deltaMilli, expectedMilli: planned.expectedMilli });
  }
  await flushLedger();
  const touched = [...balances.values()].filter((b) => b.touched);
  await writeBalances(trx, dialect, touched, now);
  await markStockChanged(trx, touched, now);
  return results;
}

/**
 * The store products whose balances this transaction changed: when (interface §2.5
 * last_stock_modified_datetime). Here, next to the only writer of balances, so no path
 * that changes stock can leave it behind. (Their stock_version, which read caches compare,
 * is bumped by the database itself: migration 0009.) One statement per store and 10,000
 * products.
 */
async function markStockChanged(trx: Transaction<Database>, touched: readonly BalanceState[], now: number): Promise<void> {
  const productsByStore = new Map<number, Set<number>>();
  for (const balance of touched) {
    let products = productsByStore.get(balance.key.storeId);
    if (!products) productsByStore.set(balance.key.storeId, (products = new Set()));
    products.add(balance.key.productId);
  }
  for (const [storeId, products] of productsByStore) {
    for (const ids of inListChunks([...products], 10_000)) {
      await trx
        .updateTable('store_products')
        .set({ stock_modified_at: now })
        .where('store_id', '=', storeId)
        .where('product_id', 'in', ids)
        .execute();
    }
  }
}

/**
 * Creates missing balances and locks and reads every balance the postings touch, in one
 * upsert per chunk: `on conflict do update` takes the row lock on PostgreSQL (SQLite's
 * write transaction already holds the database lock). Keys go in one global order, so
 * two transactions lock shared balances in the same order and cannot deadlock on them.
 */
async function lockBalances(
  trx: Transaction<Database>,
  dialect: Dialect,
  postings: readonly Posting[],
  storeNumbers: ReadonlyMap<number, string>,
  now: number,
): Promise<Map<string, BalanceState>> {
  const distinct = new Map<string, BalanceKey>();
  for (const p of postings) distinct.set(keyOf(p), { storeId: p.storeId, productId: p.productId, locationId: p.locationId, pool: p.pool, orderKey: p.orderKey });
  const keys = [...distinct.values()].sort(
    (a, b) =>
      a.storeId - b.storeId || a.productId - b.productId || a.locationId - b.locationId || a.pool - b.pool || (a.orderKey < b.orderKey ? -1 : a.orderKey > b.orderKey ? 1 : 0),
  );
  const rows = await insertMany<BalanceRow>(
    trx,
    dialect,
    'stock_balances',
    ['store_id', 'store_number', 'product_id', 'location_id', 'pool', 'order_key', 'quantity', 'last_at', 'last_count_at', 'updated_on'],
    keys.map((k) => [k.storeId, storeNumbers.get(k.storeId) ?? '', k.productId, k.locationId, k.pool, k.orderKey, 0, null, null, now]),
    `on conflict (store_id, product_id, location_id, pool, order_key) do update set quantity = stock_balances.quantity
     returning id, store_id, store_number, product_id, location_id, pool, order_key, quantity, last_at, last_count_at`,
  );
  const balances = new Map<string, BalanceState>();
  for (const row of rows) {
    const key = keyOf({ storeId: Number(row.store_id), productId: Number(row.product_id), locationId: Number(row.location_id), pool: row.pool, orderKey: row.order_key });
    balances.set(key, {
      id: Number(row.id),
      key: distinct.get(key)!,
      storeNumber: row.store_number,
      quantity: Number(row.quantity),
      lastAt: row.last_at === null ? null : Number(row.last_at),
      lastCountAt: row.last_count_at === null ? null : Number(row.last_count_at),
      touched: false,
    });
  }
  return balances;
}

/** What the ledger says around a late entry's moment: the level then, and the next count. */
async function timelineView(trx: Transaction<Database>, posting: Posting, mayHaveLaterCount: boolean): Promise<TimelineView> {
  const sameBalance = trx
    .selectFrom('stock_ledger')
    .where('store_id', '=', posting.storeId)
    .where('product_id', '=', posting.productId)
    .where('location_id', '=', posting.locationId)
    .where('pool', '=', posting.pool)
    .where('order_key', '=', posting.orderKey);
  // Every recorded entry has a smaller id than the new one, so "at or before" is at <= moment.
  const level = await sameBalance
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('delta'), sql<number>`0`).as('level'))
    .where('at', '<=', posting.at)
    .executeTakeFirstOrThrow();
  const view: TimelineView = { levelAtMilli: Number(level.level) };
  if (mayHaveLaterCount) {
    const next = await sameBalance
      .select(['id', 'counted', 'expected'])
      .where('is_count', '=', 1)
      .where('at', '>', posting.at)
      .orderBy('at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (next) view.nextCount = { id: next.id, countedMilli: Number(next.counted), expectedMilli: Number(next.expected) };
  }
  return view;
}

async function writeBalances(trx: Transaction<Database>, dialect: Dialect, touched: BalanceState[], now: number): Promise<void> {
  // Absolute values, written as one multi-row upsert on the primary key: the rows are
  // locked by this transaction, so nobody else moved them in between.
  await insertMany(
    trx,
    dialect,
    'stock_balances',
    ['id', 'store_id', 'store_number', 'product_id', 'location_id', 'pool', 'order_key', 'quantity', 'last_at', 'last_count_at', 'updated_on'],
    touched.map((b) => [b.id, b.key.storeId, b.storeNumber, b.key.productId, b.key.locationId, b.key.pool, b.key.orderKey, b.quantity, b.lastAt, b.lastCountAt, now]),
    `on conflict (id) do update set quantity = excluded.quantity, last_at = excluded.last_at,
     last_count_at = excluded.last_count_at, updated_on = excluded.updated_on`,
  );
}
