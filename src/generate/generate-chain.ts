import type { AppContext } from '../app-context.js';
import type { StockBalanceTable, StoreProductTable } from '../db/schema.js';
import { importProducts } from '../modules/products/service.js';
import type { ProductsBody } from '../modules/products/schema.js';
import { importReasonCodes } from '../modules/reason-codes/service.js';
import type { ReasonCodesBody } from '../modules/reason-codes/schema.js';
import { mergeLogHours } from '../ledger/log-hours.js';
import { newStoreProductRow } from '../modules/store-products/repository.js';
import { importStores } from '../modules/stores/service.js';
import type { StoresBody } from '../modules/stores/schema.js';
import { servicePrincipal } from '../shared/access.js';
import {
  CHAIN_USERS,
  chainProductInput,
  chainReasonCodeInputs,
  chainStoreInput,
  firstDayOf,
  openingMoment,
  type ChainOptions,
} from './chain-plan.js';
import {
  ACTOR,
  balanceIdOf,
  ChainState,
  POSTED_AFTER_MS,
  replayHistory,
  type Chain,
  type ProductFacts,
} from './chain-history.js';

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
 * over pools), in time order per balance (so no entry is late; chain-history.ts). Only into
 * an empty chain: no store may exist yet.
 */

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

  progress(`master data: ${options.stores} stores, ${options.products} products`);
  await importMasterData(ctx, options);
  const chain: Chain = { ctx, options, progress, now, firstDay: firstDayOf(options, now), ...(await readMaster(ctx)) };
  const storeProducts = options.stores * options.products;

  // The balances are loaded before the log rows that name them, so the history is replayed
  // twice: once to learn what each balance ends at, once to load the rows (chain-history.ts).
  progress('planning the history: what each balance ends at');
  const state = new ChainState(storeProducts);
  await replayHistory(chain, state, false);
  progress('balances and store products');
  await loadBalancesAndStoreProducts(chain, state);
  // PostgreSQL: the ledger's months back to the opening counts, so the year of history lands
  // in its months rather than all in the partition before the first (migration 0025).
  await ctx.handle.dialect.ensureLedgerMonths(ctx.db, now, openingMoment(chain.firstDay));
  const entries = await replayHistory(chain, new ChainState(storeProducts), true);
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

/** Reason codes, stores and products through the services' imports, in batches. */
async function importMasterData(ctx: AppContext, options: ChainOptions): Promise<void> {
  const by = servicePrincipal(ACTOR);
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
}

/** The stores and products as imported, in the order of the plan's store and product indexes. */
async function readMaster(ctx: AppContext): Promise<Pick<Chain, 'stores' | 'products'>> {
  const stores = await ctx.db.selectFrom('stores').select(['id', 'store_number']).orderBy('store_number').execute();
  const products: ProductFacts[] = await ctx.db
    .selectFrom('products')
    .select(['id', 'product_number', 'barcode', 'price', 'purchase_price', 'purchase_unit_quantity'])
    .orderBy('product_number')
    .execute();
  return { stores, products };
}

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

const orNull = (value: number) => (Number.isNaN(value) ? null : value);

/**
 * Per store, its balances (pool 1, no location, no order) and store products as the history
 * leaves them, with the stamps the posting engine would have written.
 */
async function loadBalancesAndStoreProducts(chain: Chain, state: ChainState): Promise<void> {
  const { ctx, options } = chain;
  const opening = openingMoment(chain.firstDay);
  for (let store = 0; store < options.stores; store++) {
    const storeRow = chain.stores[store]!;
    const balances: unknown[][] = [];
    const rows: unknown[][] = [];
    let columns: Array<keyof StoreProductTable> = [];
    for (let product = 0; product < options.products; product++) {
      const index = store * options.products + product;
      const productRow = chain.products[product]!;
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
      // The columns newStoreProductRow gives, in its order: the same for every row.
      if (columns.length === 0) columns = Object.keys(row) as Array<keyof StoreProductTable>;
      rows.push(columns.map((column) => row[column]));
    }
    // Balances first: the stock-version triggers on them find no store product to bump.
    await ctx.handle.bulkLoad('stock_balances', BALANCE_COLUMNS, balances);
    await ctx.handle.bulkLoad('store_products', columns, rows);
  }
}
