import type { AppContext } from '../app-context.js';
import type { StockLogTable } from '../db/schema.js';
import { poolQuantitiesJson } from '../ledger/book.js';
import { LOG_RECORD_COLUMNS, logRecord } from '../db/log-record.js';
import type { BookingProductRow } from '../modules/products/rows.js';
import {
  CHAIN_REASONS,
  CHAIN_USERS,
  DAY_MS,
  entriesOfDay,
  openingLevelOf,
  openingMoment,
  seededRandom,
  type ChainOptions,
  type PlannedEntry,
} from './chain-plan.js';

/**
 * The stock history of a generated chain (generate-chain.ts): an opening count per store
 * product, then the planned entries of each day, replayed in time order into what each
 * balance ends at and, when loading, into stock_logs rows as the posting engine writes them.
 */

/** Who the generated rows are written by (created_by, modified_by, a log row's source). */
export const ACTOR = 'generate';

/** Posting lag: an entry reaches the service a minute after it happened (its updated_on). */
export const POSTED_AFTER_MS = 60_000;

/** What an entry's row carries of its product (as the posting engine reads it). */
export type ProductFacts = BookingProductRow;

/** The chain being generated: its master data as stored, and the moment it is generated at. */
export interface Chain {
  ctx: AppContext;
  options: ChainOptions;
  progress(message: string): void;
  now: number;
  /** The first day of history (chain-plan.ts firstDayOf). */
  firstDay: number;
  /** In store number order: the store of a planned entry's `store` index. */
  stores: ReadonlyArray<{ id: number; store_number: string }>;
  /** In product number order: the product of a planned entry's `product` index. */
  products: readonly ProductFacts[];
}

/** The balance of store product `index` (store × products + product) has the id index + 1. */
export const balanceIdOf = (index: number) => index + 1;

/** Per store product, indexed store × products + product: what the history adds up to. */
export class ChainState {
  readonly level: Float64Array;
  readonly lastAt: Float64Array;
  readonly lastCountAt: Float64Array;
  readonly lastCountBy: Uint8Array;
  readonly lastLossAt: Float64Array;
  readonly lastLossBy: Uint8Array;
  readonly stockModifiedAt: Float64Array;
  readonly touches: Uint32Array;

  constructor(size: number) {
    this.level = new Float64Array(size);
    this.lastAt = new Float64Array(size).fill(Number.NaN);
    this.lastCountAt = new Float64Array(size).fill(Number.NaN);
    this.lastCountBy = new Uint8Array(size);
    this.lastLossAt = new Float64Array(size).fill(Number.NaN);
    this.lastLossBy = new Uint8Array(size);
    this.stockModifiedAt = new Float64Array(size).fill(Number.NaN);
    this.touches = new Uint32Array(size);
  }
}

/**
 * The whole history in time order, into `state`; with `load`, its log rows (each with its
 * posting) into the database too. Run twice: first to learn what the balances end at (a
 * log row's balance_id names its balance, a foreign key on PostgreSQL, so the balances are
 * loaded before any log row), then again from the same seed to load the rows. Returns the
 * entries.
 */
export async function replayHistory(chain: Chain, state: ChainState, load: boolean): Promise<number> {
  const { options, progress, firstDay } = chain;
  const ids = { next: 1 };

  if (load) progress(`opening counts: ${options.stores * options.products} store products`);
  const opening = openingMoment(firstDay);
  for (let store = 0; store < options.stores; store++) {
    await bookBatch(
      chain,
      state,
      load,
      ids,
      Array.from({ length: options.products }, (_, product) => ({
        store,
        product,
        at: opening,
        kind: 'count' as const,
        quantityMilli: openingLevelOf(store, product),
        user: CHAIN_USERS[(store + product) % CHAIN_USERS.length]!,
      })),
    );
  }

  if (load) progress(`history: ${options.days} days × ${options.entriesPerDay} entries`);
  // The one random sequence of the seed, drawn day after day in this order: the same seed
  // replays the same history, which the second run relies on.
  const random = seededRandom(options.seed);
  for (let day = 0; day < options.days; day++) {
    await bookBatch(chain, state, load, ids, entriesOfDay(options, random, firstDay + day * DAY_MS));
    if (load && ((day + 1) % 30 === 0 || day === options.days - 1))
      progress(`  day ${day + 1} of ${options.days}: ${ids.next - 1} entries`);
  }
  return ids.next - 1;
}

/** Books a batch in time order: the state it leaves and, with `load`, its rows (ids from `ids.next` on). */
async function bookBatch(
  chain: Chain,
  state: ChainState,
  load: boolean,
  ids: { next: number },
  entries: readonly PlannedEntry[],
): Promise<void> {
  const logs: unknown[][] = [];
  for (const entry of entries) {
    const id = ids.next++;
    const index = entry.store * chain.options.products + entry.product;
    const isCount = entry.kind === 'count';
    const expected = state.level[index]!;
    const delta = isCount ? entry.quantityMilli - expected : entry.quantityMilli;
    const posted = Math.min(chain.now, entry.at + POSTED_AFTER_MS);
    if (load) {
      const log = logRowOf(chain, entry, id, {
        balanceId: balanceIdOf(index),
        delta,
        expected: isCount ? expected : null,
      });
      logs.push(LOG_COLUMNS.map((column) => log[column]));
    }
    state.level[index] = expected + delta;
    state.lastAt[index] = entry.at;
    state.stockModifiedAt[index] = posted;
    state.touches[index]!++;
    const user = CHAIN_USERS.indexOf(entry.user);
    if (isCount) {
      state.lastCountAt[index] = entry.at;
      state.lastCountBy[index] = user;
    }
    if (entry.kind === 'loss') {
      state.lastLossAt[index] = entry.at;
      state.lastLossBy[index] = user;
    }
  }
  if (load) await chain.ctx.handle.bulkLoad('stock_logs', LOG_COLUMNS, logs);
}

type LogRow = Required<Omit<StockLogTable, 'id'>> & { id: number };

/** The columns bulk-loaded into stock_logs, in the order of each row's values (the log record's as it lists them). */
const LOG_COLUMNS: ReadonlyArray<keyof LogRow> = [
  'id',
  'store_id',
  'store_number',
  'product_id',
  'product_number',
  'location_id',
  'reason_code',
  'modification_at',
  'is_count',
  'is_from_receipt',
  'quantity',
  'pool_quantities',
  'counted_quantity',
  'review_status',
  'is_applied',
  'price',
  'purchase_price',
  'purchase_unit_quantity',
  'location_code',
  'reason_code_description',
  'customer_order_number',
  'barcode',
  'created_on',
  'updated_on',
  'created_by',
  'modified_by',
  ...LOG_RECORD_COLUMNS,
  'balance_id',
  'delta',
  'expected',
];

/** The posting the engine would write into the entry's own row: its one balance, the delta booked and a count's expected level. */
interface Posting {
  balanceId: number;
  delta: number;
  expected: number | null;
}

/** The stock_logs row the posting engine writes for a log entry of one pool (pool 1, no location). */
function logRowOf(chain: Chain, entry: PlannedEntry, id: number, posting: Posting): LogRow {
  const store = chain.stores[entry.store]!;
  const product = chain.products[entry.product]!;
  const isCount = entry.kind === 'count';
  const reason = entry.kind === 'loss' ? CHAIN_REASONS.loss : isCount ? CHAIN_REASONS.count : undefined;
  const posted = Math.min(chain.now, entry.at + POSTED_AFTER_MS);
  return {
    id,
    store_id: store.id,
    store_number: store.store_number,
    product_id: product.id,
    product_number: product.product_number,
    location_id: null,
    reason_code: reason?.reason_code ?? null,
    modification_at: entry.at,
    is_count: isCount ? 1 : 0,
    is_from_receipt: 0,
    quantity: entry.quantityMilli,
    pool_quantities: poolQuantitiesJson([{ pool: 1, quantityMilli: entry.quantityMilli }]),
    counted_quantity: isCount ? entry.quantityMilli : null,
    review_status: 0,
    is_applied: 1,
    price: product.price,
    purchase_price: product.purchase_price,
    purchase_unit_quantity: product.purchase_unit_quantity,
    location_code: null,
    reason_code_description: reason?.reason_code_description ?? null,
    customer_order_number: null,
    barcode: product.barcode,
    created_on: posted,
    updated_on: posted,
    created_by: ACTOR,
    modified_by: ACTOR,
    ...logRecord({ customer_order_line_number: 0, app_user_name: entry.user, source: ACTOR }),
    balance_id: posting.balanceId,
    delta: posting.delta,
    expected: posting.expected,
  };
}
