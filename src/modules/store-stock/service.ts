import type { AppContext } from '../../app-context.js';
import { requireDateTime } from '../../domain/datetime.js';
import { listScope, visibleStores, type Principal } from '../../shared/access.js';
import { notFound } from '../../shared/errors.js';
import { pagedResponse, resolvePage, type PagedResult, type PageWindow } from '../../shared/paging.js';
import { effectivePricesInStores } from '../products/prices/effective.js';
import { requireLiveStore } from '../stores/repository.js';
import { cachedStockListCount } from './count-cache.js';
import { deltaPullPage, DeltaPulls } from './delta-pull.js';
import { parsePoolNames, summarise, toSingleProductStock, toStoreProductStock, toSurroundingStock } from './mapping.js';
import type { StockListRow } from './repository.js';
import * as stock from './repository.js';
import type { StockSubject } from './repository.js';
import {
  StoreProductStockQuery,
  type StockCsvQuery,
  type SingleProductStockQuery,
  type SingleProductStockResponse,
  type StoreProductStock,
  type SurroundingStock,
  type SurroundingStockQuery,
} from './schema.js';

/**
 * Stores the list covers: a store_number filter and a store token's stores (PRODUCT §4:
 * cross-store lists are filtered to them), resolved to ids so the page and the count run
 * on the (store_id, id) index; undefined = every live store.
 */
async function storeScope(
  ctx: AppContext,
  storeNumber: string | undefined,
  principal: Principal,
): Promise<number[] | undefined> {
  const visible = visibleStores(principal);
  if (storeNumber === undefined && visible === null) return undefined;
  const wanted =
    storeNumber === undefined ? visible! : visible === null || visible.includes(storeNumber) ? [storeNumber] : [];
  return stock.liveStoreIds(ctx.db, wanted);
}

/**
 * The repository's filters of a list or export query (interface §4.4, and the filters issue 43
 * adds: stock-state-filters.ts), over the stores already resolved.
 */
export function stockListFilters(
  query: StockCsvQuery,
  storeIds: readonly number[] | undefined,
): stock.StockListFilters {
  return {
    storeIds,
    productNumbers: [query.article_no, query.product_number].filter((n): n is string => n !== undefined),
    barcode: query.barcode,
    categoryCode: query.category_code,
    parentCategoryCode: query.parent_category_code,
    modifiedSince: query.last_modified_date === undefined ? undefined : requireDateTime(query.last_modified_date),
    stockModifiedSince:
      query.last_stock_modified_datetime === undefined
        ? undefined
        : requireDateTime(query.last_stock_modified_datetime),
    searchText: query.search_text,
    fromId: query.from_id,
    toId: query.to_id,
    locationCode: query.location_code,
    belowZero: query.below_zero,
    notCountedSince: query.not_counted_since === undefined ? undefined : requireDateTime(query.not_counted_since),
    // Read by the stock filters only: the figures they test are the ones the item shows.
    excludeOrderBound: query.exclude_customer_order_stock === true ? true : undefined,
  };
}

/**
 * PRODUCT §6 "price in stock reads": the store product's own price, else the effective
 * price in its store (price records by scope, else the master price). The effective
 * prices of the page come from one batched query.
 */
async function stockReadPrices(
  ctx: AppContext,
  rows: readonly StockListRow[],
  now: number,
): Promise<Map<number, number | null>> {
  const prices = new Map<number, number | null>();
  const unpriced = rows.filter((row) => row.price === null);
  for (const row of rows) if (row.price !== null) prices.set(row.id, row.price);
  const effective = await effectivePricesInStores(
    ctx.db,
    unpriced.map((row) => ({
      product: { id: row.product_id, country_code: row.product_country_code, price: row.master_price },
      store: { store_number: row.store_number, country_code: row.store_country_code, price_line_id: row.price_line_id },
    })),
    now,
  );
  unpriced.forEach((row, index) => prices.set(row.id, effective[index] ?? null));
  return prices;
}

const deltaPulls = new WeakMap<object, DeltaPulls>();

/** What the delta pull remembers for a database handle (its counts and page positions). */
export function deltaPullsOf(handle: object): DeltaPulls {
  let pulls = deltaPulls.get(handle);
  if (!pulls) deltaPulls.set(handle, (pulls = new DeltaPulls()));
  return pulls;
}

/**
 * The page and its exact total_count: the ERP's delta pull (last_stock_modified_datetime)
 * counted once per pull and read from where its previous page ended, on one snapshot
 * (delta-pull.ts); any other listing with its count kept per filter set (count-cache.ts).
 */
async function listPage(
  ctx: AppContext,
  filters: stock.StockListFilters,
  window: PageWindow,
): Promise<{ rows: StockListRow[]; totalCount: number }> {
  const stockModifiedSince = filters.stockModifiedSince;
  if (stockModifiedSince !== undefined) {
    const memory = deltaPullsOf(ctx.handle);
    return ctx.dialect.consistentRead(ctx.db, (db) =>
      deltaPullPage(db, ctx.dialect, memory, { ...filters, stockModifiedSince }, window),
    );
  }
  const [rows, totalCount] = await Promise.all([
    stock.pageOfStockList(ctx.db, ctx.dialect, filters, window),
    cachedStockListCount(ctx.db, ctx.handle, filters, () => stock.countStockList(ctx.db, ctx.dialect, filters)),
  ]);
  return { rows, totalCount };
}

/**
 * GET /storeproducts/stock (interface §4.4): one keyset query for the page, then one
 * batched query each for its balances (with locations) and its prices — never one per
 * row — so page 500 by scroll_id costs what page 1 does.
 */
export async function listStoreProductStock(
  ctx: AppContext,
  query: StoreProductStockQuery,
  principal: Principal,
): Promise<PagedResult<StoreProductStock>> {
  const excludeOrderBound = query.exclude_customer_order_stock === true;
  const includeLocations = query.include_locations === true;
  const window = resolvePage(query, StoreProductStockQuery, 'storeproducts/stock', ctx.cursors);
  const listFiltersOfQuery = stockListFilters(query, await storeScope(ctx, query.store_number, principal));
  const [{ rows, totalCount }, lastModified] = await Promise.all([
    listPage(ctx, listFiltersOfQuery, window),
    stock.storeProductsLastModified(ctx.db, listScope(principal)),
  ]);
  const pageRows = rows.slice(0, window.pageSize);
  const [balances, prices] = await Promise.all([
    stock.balancesOfStoreProducts(
      ctx.db,
      pageRows.map((row) => row.id),
      { excludeOrderBound, withLocations: includeLocations },
    ),
    stockReadPrices(ctx, pageRows, Date.now()),
  ]);
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) =>
      toStoreProductStock(row, summarise(balances.get(row.id) ?? []), prices.get(row.id) ?? null, includeLocations),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}

/** Store and product of a stock path, or the 404 that names which one is unknown. */
async function subjectOfPath(ctx: AppContext, storeNumber: string, productRef: string) {
  const subject = await stock.stockSubject(ctx.db, storeNumber, productRef);
  if (subject) return subject;
  await requireLiveStore(ctx.db, storeNumber, 'does not exist');
  throw notFound(`No product has the number or barcode '${productRef}'`);
}

/**
 * GET /stores/{s}/products/{p}/stock (interface §4.4), as the response body `serialize`
 * (the route's response schema) writes it. A product without any stock in the store still
 * answers one entry with most_likely_stock 0: the app asked about a known product, and
 * "0 in stock" is the answer it shows. Answers are reused from the process's answer cache
 * while everything they show is unchanged, or while nothing was committed at all
 * (answer-cache.ts).
 */
export async function productStockBody(
  ctx: AppContext,
  storeNumber: string,
  productRef: string,
  query: SingleProductStockQuery,
  serialize: (response: SingleProductStockResponse) => string,
): Promise<string> {
  const flags: AnswerFlags = {
    excludeOrderBound: query.exclude_customer_order_stock === true,
    withLocations: query.include_locations === true,
    includeZeroLines: query.include_zero_lines === true,
  };
  // Nothing committed since this path was last answered: the same answer, without even
  // resolving the path (read before anything else, so the answer is never older than it).
  const changeToken = ctx.handle.changeToken();
  if (changeToken === undefined) return freshProductStockBody(ctx, storeNumber, productRef, flags, serialize);
  const pathKey = `path\u0000${storeNumber}\u0000${productRef}\u0000${flagsKey(flags)}`;
  const unchanged = ctx.stockAnswers.get(pathKey, changeToken);
  if (unchanged !== undefined) return unchanged;

  const body = await freshProductStockBody(ctx, storeNumber, productRef, flags, serialize);
  ctx.stockAnswers.set(pathKey, changeToken, body);
  return body;
}

/** The answer of productStockBody from the database: the path resolved, then the answer cache by versions. */
async function freshProductStockBody(
  ctx: AppContext,
  storeNumber: string,
  productRef: string,
  flags: AnswerFlags,
  serialize: (response: SingleProductStockResponse) => string,
): Promise<string> {
  const subject = await subjectOfPath(ctx, storeNumber, productRef);
  const slot = answerSlot(subject, flags);
  const cached = slot && ctx.stockAnswers.get(slot.key, slot.fingerprint);
  if (cached !== undefined) return cached;
  const balances = await stock.balancesOfProduct(ctx.db, subject.store.id, subject.product.id, flags);
  const entry = toSingleProductStock({
    storeNumber: subject.store.store_number,
    productNumber: subject.product.product_number,
    summary: summarise(balances),
    schedule: subject.schedule,
    storePoolNames: parsePoolNames(subject.store.stock_pool_names),
    includeLocations: flags.withLocations,
    includeZeroLines: flags.includeZeroLines,
  });
  const body = serialize({ products: [entry] });
  if (slot) ctx.stockAnswers.set(slot.key, slot.fingerprint, body);
  return body;
}

interface AnswerFlags {
  excludeOrderBound: boolean;
  withLocations: boolean;
  includeZeroLines: boolean;
}

const flagsKey = (flags: AnswerFlags) => `${+flags.excludeOrderBound}${+flags.withLocations}${+flags.includeZeroLines}`;

/**
 * Where an answer is kept — per store product and flags — and its fingerprint: the versions
 * its balances and locations are read at, and every other value the answer shows. None
 * for a product without a store product row (it has no stock version to compare).
 */
function answerSlot(subject: StockSubject, flags: AnswerFlags): { key: string; fingerprint: string } | undefined {
  const { store, product, schedule, versions } = subject;
  if (versions === undefined) return undefined;
  const key = `${versions.storeProductId}|${flagsKey(flags)}`;
  const fingerprint = [
    versions.stock,
    flags.withLocations ? versions.locations : '',
    store.store_number,
    store.stock_pool_names,
    product.product_number,
    schedule.next_delivery_at,
    schedule.next_ordering_at,
    schedule.delivery_datetimes,
    schedule.ordering_datetimes,
  ].join('\u0000');
  return { key, fingerprint };
}

/**
 * GET /stores/{s}/storeproducts/{p}/surrounding (interface §4.4, PRODUCT §5): the other
 * active stores of the asking store's area and every active warehouse, each with its
 * stock of the product — zero included, so the app can say "0 in store X" — stores
 * first, warehouses last, each by store_number.
 */
export async function surroundingStock(
  ctx: AppContext,
  storeNumber: string,
  productRef: string,
  query: SurroundingStockQuery,
): Promise<SurroundingStock[]> {
  const { store, product } = await subjectOfPath(ctx, storeNumber, productRef);
  const rows = await stock.surroundingBalances(ctx.db, store, product.id, query.exclude_customer_order_stock === true);
  return toSurroundingStock(rows);
}
