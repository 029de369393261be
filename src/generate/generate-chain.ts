import type { AppContext } from '../app-context.js';
import type { StockBalanceTable, StockLogTable, StoreProductTable } from '../db/schema.js';
import type { BookingProductRow } from '../modules/products/rows.js';
import { importProducts } from '../modules/products/service.js';
import type { ProductsBody } from '../modules/products/schema.js';
import { importReasonCodes } from '../modules/reason-codes/service.js';
import type { ReasonCodesBody } from '../modules/reason-codes/schema.js';
import { poolQuantitiesJson } from '../ledger/book.js';
import { mergeLogHours } from '../ledger/log-hours.js';
import { newStoreProductRow } from '../modules/store-products/repository.js';
import { importStores } from '../modules/stores/service.js';
import type { StoresBody } from '../modules/stores/schema.js';
import { servicePrincipal } from '../shared/access.js';
import {
  CHAIN_REASONS,
  CHAIN_USERS,
  chainProductInput,
  chainReasonCodeInputs,
  chainStoreInput,
  DAY_MS,
  entriesOfDay,
  firstDayOf,
  openingLevelOf,
  openingMoment,
  seededRandom,
  type ChainOptions,
  type PlannedEntry,
} from './chain-plan.js';

/**
 * `store-ops generate` (issue 28): a consistent chain for capacity planning and the scale
 * bench, written far faster than the API could — master data through the services (so
 * products, barcodes and stores are exactly what an import makes), then the stock history
 * straight into stock_logs with DbHandle.bulkLoad (COPY on PostgreSQL,
 * one transaction per batch on SQLite), and last the balances and store products it adds
 * up to, with the stamps the posting engine would have left. `store-ops verify` is clean
 * after it (test/generate).
 *
 * Each entry is what the posting engine writes for a log entry of one pool (pool 1, no
 * location): one stock_logs row carrying its posting (balance_id, delta and, for a count,
 * expected: one row per entry, migration 0022; no stock_log_parts row, as no entry is split
 * over pools), in time order per balance (so no entry is late). Only into an empty chain: no
 * store may exist yet.
 */

const ACTOR = 'generate';
const MASTER_BATCH = 1_000;

export interface GenerateProgress {
  (message: string): void;
}

export interface GenerateSummary {
  stores: number;
  products: number;
  storeProducts: number;
  entries: number;
  seconds: number;
}

type LogRow = Required<Omit<StockLogTable, 'id'>> & { id: number };

/** What an entry's row carries of its product (as the posting engine reads it). */
type ProductFacts = BookingProductRow;

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
  'reference_id',
  'customer_order_line_number',
  'customer_order_shipment_line_number',
  'scanned_at',
  'order_after_at',
  'price',
  'purchase_price',
  'purchase_unit_quantity',
  'location_code',
  'reason_code_description',
  'customer_order_number',
  'customer_order_shipment_number',
  'app_user_name',
  'reference',
  'source',
  'remarks',
  'exception_image',
  'orderno',
  'barcode',
  'created_on',
  'updated_on',
  'created_by',
  'modified_by',
  'balance_id',
  'delta',
  'expected',
];
const BALANCE_COLUMNS: ReadonlyArray<keyof StockBalanceTable> = [
  'id',
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

/** Posting lag: an entry reaches the service a minute after it happened (its updated_on). */
const POSTED_AFTER_MS = 60_000;

/** Per store product, indexed store × products + product: what the history adds up to. */
class ChainState {
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

const orNull = (value: number) => (Number.isNaN(value) ? null : value);

export async function generateChain(
  ctx: AppContext,
  options: ChainOptions,
  progress: GenerateProgress,
  now = Date.now(),
): Promise<GenerateSummary> {
  const started = Date.now();
  const existing = await ctx.db.selectFrom('stores').select('id').limit(1).executeTakeFirst();
  if (existing)
    throw new Error('store-ops generate writes a new chain into an empty database: this one already has stores');
  const by = servicePrincipal(ACTOR);

  progress(`master data: ${options.stores} stores, ${options.products} products`);
  await importReasonCodes(ctx, { reason_codes: chainReasonCodeInputs() } as unknown as ReasonCodesBody, false, ACTOR);
  for (let from = 0; from < options.stores; from += MASTER_BATCH) {
    const stores = Array.from({ length: Math.min(MASTER_BATCH, options.stores - from) }, (_, i) =>
      chainStoreInput(from + i),
    );
    await importStores(ctx, { stores } as unknown as StoresBody, false, ACTOR);
  }
  for (let from = 0; from < options.products; from += 10 * MASTER_BATCH) {
    const products = Array.from({ length: Math.min(10 * MASTER_BATCH, options.products - from) }, (_, i) =>
      chainProductInput(from + i),
    );
    await importProducts(ctx, { products } as unknown as ProductsBody, false, by);
  }
  const stores = await ctx.db.selectFrom('stores').select(['id', 'store_number']).orderBy('store_number').execute();
  const products: ProductFacts[] = await ctx.db
    .selectFrom('products')
    .select(['id', 'product_number', 'barcode', 'price', 'purchase_price', 'purchase_unit_quantity'])
    .orderBy('product_number')
    .execute();
  const storeProducts = options.stores * options.products;
  const firstDay = firstDayOf(options, now);
  // The balance of store product `index` (store × products + product) has the id index + 1.
  const balanceIdOf = (index: number) => index + 1;

  /** The posting the engine would write into the entry's own row: its one balance, the delta booked and a count's expected level. */
  interface Posting {
    balanceId: number;
    delta: number;
    expected: number | null;
  }
  const logRowOf = (entry: PlannedEntry, id: number, posting: Posting): LogRow => {
    const store = stores[entry.store]!;
    const product = products[entry.product]!;
    const isCount = entry.kind === 'count';
    const reason = entry.kind === 'loss' ? CHAIN_REASONS.loss : isCount ? CHAIN_REASONS.count : undefined;
    const posted = Math.min(now, entry.at + POSTED_AFTER_MS);
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
      reference_id: null,
      customer_order_line_number: 0,
      customer_order_shipment_line_number: null,
      scanned_at: null,
      order_after_at: null,
      price: product.price,
      purchase_price: product.purchase_price,
      purchase_unit_quantity: product.purchase_unit_quantity,
      location_code: null,
      reason_code_description: reason?.reason_code_description ?? null,
      customer_order_number: null,
      customer_order_shipment_number: null,
      app_user_name: entry.user,
      reference: null,
      source: ACTOR,
      remarks: null,
      exception_image: null,
      orderno: null,
      barcode: product.barcode,
      created_on: posted,
      updated_on: posted,
      created_by: ACTOR,
      modified_by: ACTOR,
      balance_id: posting.balanceId,
      delta: posting.delta,
      expected: posting.expected,
    };
  };

  /**
   * The whole history in time order, into `state`; with `load`, its log rows (each with its
   * posting) into the database too. Run twice: first to learn what the balances end at (a
   * log row's balance_id names its balance, a foreign key on PostgreSQL, so the balances are
   * loaded before any log row), then again from the same seed to load the rows. Returns the
   * entries.
   */
  const replay = async (state: ChainState, load: boolean): Promise<number> => {
    let nextId = 1;
    /** Books a batch in time order: the state it leaves and, with `load`, its rows. */
    const book = async (entries: readonly PlannedEntry[]) => {
      const logs: unknown[][] = [];
      for (const entry of entries) {
        const id = nextId++;
        const index = entry.store * options.products + entry.product;
        const isCount = entry.kind === 'count';
        const expected = state.level[index]!;
        const delta = isCount ? entry.quantityMilli - expected : entry.quantityMilli;
        const posted = Math.min(now, entry.at + POSTED_AFTER_MS);
        if (load) {
          const log = logRowOf(entry, id, {
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
      if (load) await ctx.handle.bulkLoad('stock_logs', LOG_COLUMNS, logs);
    };

    if (load) progress(`opening counts: ${storeProducts} store products`);
    const opening = openingMoment(firstDay);
    for (let store = 0; store < options.stores; store++) {
      await book(
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
    const random = seededRandom(options.seed);
    for (let day = 0; day < options.days; day++) {
      await book(entriesOfDay(options, random, firstDay + day * DAY_MS));
      if (load && ((day + 1) % 30 === 0 || day === options.days - 1))
        progress(`  day ${day + 1} of ${options.days}: ${nextId - 1} entries`);
    }
    return nextId - 1;
  };

  progress('planning the history: what each balance ends at');
  const state = new ChainState(storeProducts);
  await replay(state, false);
  const opening = openingMoment(firstDay);
  progress('balances and store products');
  for (let store = 0; store < options.stores; store++) {
    const storeRow = stores[store]!;
    const balances: unknown[][] = [];
    const rows: unknown[][] = [];
    let columns: Array<keyof StoreProductTable> = [];
    for (let product = 0; product < options.products; product++) {
      const index = store * options.products + product;
      const productRow = products[product]!;
      balances.push([
        balanceIdOf(index),
        storeRow.id,
        storeRow.store_number,
        productRow.id,
        0,
        1,
        '',
        state.level[index],
        orNull(state.lastAt[index]!),
        orNull(state.lastCountAt[index]!),
        orNull(state.stockModifiedAt[index]!),
      ]);
      const lossAt = orNull(state.lastLossAt[index]!);
      const row = {
        ...newStoreProductRow(storeRow, productRow, opening + POSTED_AFTER_MS, ACTOR),
        id: index + 1,
        stock_version: state.touches[index],
        // Never booked: its stock moment stays its creation (newStoreProductRow, PRODUCT §3.1).
        ...(Number.isNaN(state.stockModifiedAt[index]!) ? {} : { stock_modified_at: state.stockModifiedAt[index]! }),
        last_counted_at: orNull(state.lastCountAt[index]!),
        last_counted_by: CHAIN_USERS[state.lastCountBy[index]!],
        last_loss_at: lossAt,
        last_loss_by: lossAt === null ? null : CHAIN_USERS[state.lastLossBy[index]!],
      } as Record<string, unknown>;
      if (columns.length === 0) columns = Object.keys(row) as Array<keyof StoreProductTable>;
      rows.push(columns.map((column) => row[column]));
    }
    // Balances first: the stock-version triggers on them find no store product to bump.
    await ctx.handle.bulkLoad('stock_balances', BALANCE_COLUMNS, balances);
    await ctx.handle.bulkLoad('store_products', columns, rows);
  }
  // PostgreSQL: the ledger's months back to the opening counts, so the year of history lands
  // in its months rather than all in the partition before the first (migration 0025).
  await ctx.handle.dialect.ensureLedgerMonths(ctx.db, now, openingMoment(firstDay));
  const entries = await replay(new ChainState(storeProducts), true);
  while ((await mergeLogHours(ctx.handle)) > 0);
  progress('analyze');
  await ctx.handle.analyze([
    'stores',
    'products',
    'product_barcodes',
    'store_products',
    'stock_logs',
    'stock_log_parts',
    'stock_balances',
    'stock_log_hours',
  ]);
  return {
    stores: options.stores,
    products: options.products,
    storeProducts,
    entries,
    seconds: (Date.now() - started) / 1000,
  };
}
