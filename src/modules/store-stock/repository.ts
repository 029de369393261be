import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database, StoreProductTable } from '../../db/schema.js';
import type { BalanceLine, LocationInfo } from './rows.js';
import { compiledOnce } from '../../db/compiled.js';
import { columnIn, inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { inStores, newestUpdatedOn, pageOf, type PageSlice, type StoreScope } from '../../db/page.js';
import { hasStockStateFilter, stockStateConditions, type StockStateFilters } from './stock-state-filters.js';

/**
 * Stock reads (interface §2.5, §4.4). Stock levels come only from stock_balances, the
 * projection of the ledger (PRODUCT §5). Indexes relied on: store_products
 * (store_id, id, product_id, deleted_on) for the keyset page and the count of a store,
 * products_deleted (partial) for the hidden products, stores.store_number,
 * products.product_number, product_barcodes.barcode, and stock_balances by its key
 * (store_id, product_id, …) and by (product_id, store_id) for surrounding stock.
 */

// ---------------------------------------------------------------- store product list

export interface StockListFilters extends StockStateFilters {
  /** Only these stores (a store_number filter or a store token, resolved); undefined = every live store. */
  storeIds?: readonly number[];
  /** article_no and product_number: each given one must match. */
  productNumbers: readonly string[];
  barcode?: string;
  categoryCode?: string;
  parentCategoryCode?: string;
  modifiedSince?: number;
  /** last_stock_modified_datetime: store products with an applied entry updated at or after it (see `listedStoreProducts`). */
  stockModifiedSince?: number;
  searchText?: string;
  fromId?: number;
  toId?: number;
  /** A lower bound of the ids of the entries updated since stockModifiedSince (log-pull.ts windowLowerId): where their index is read from. */
  changedIdAtLeast?: number;
}

/** Ids of the live stores among `numbers`. */
export async function liveStoreIds(db: Kysely<Database>, numbers: readonly string[]): Promise<number[]> {
  if (numbers.length === 0) return [];
  const rows = await db
    .selectFrom('stores')
    .select('id')
    .where('store_number', 'in', [...new Set(numbers)])
    .where('deleted_on', 'is', null)
    .execute();
  return rows.map((row) => row.id);
}

const hasProductFilter = (f: StockListFilters) =>
  f.productNumbers.length > 0 ||
  f.barcode !== undefined ||
  f.categoryCode !== undefined ||
  f.parentCategoryCode !== undefined ||
  (f.searchText !== undefined && f.searchText !== '');

/**
 * The live products the product filters of §4.4 let through (a semi-join, so the count
 * needs no join). The dialect is needed for search_text only (the compiled one-store page
 * has none).
 */
function matchingProducts(db: Kysely<Database>, dialect: Dialect | undefined, f: StockListFilters) {
  let query = db.selectFrom('products as p').select('p.id').where('p.deleted_on', 'is', null);
  for (const number of f.productNumbers) query = query.where('p.product_number', '=', number);
  if (f.barcode !== undefined) {
    const barcode = f.barcode;
    query = query.where('p.id', 'in', (eb) =>
      eb.selectFrom('product_barcodes').select('product_id').where('barcode', '=', barcode),
    );
  }
  if (f.categoryCode !== undefined) query = query.where('p.category_code', '=', f.categoryCode);
  if (f.parentCategoryCode !== undefined) {
    const parent = f.parentCategoryCode;
    query = query.where('p.category_code', 'in', (eb) =>
      eb
        .selectFrom('categories')
        .select('category_code')
        .where('parent_category_code', '=', parent)
        .where('deleted_on', 'is', null),
    );
  }
  const text = f.searchText;
  if (text !== undefined && text !== '') {
    if (dialect === undefined) throw new Error('search_text needs the dialect');
    query = query.where((eb) =>
      eb.or([
        dialect.containsInsensitive(eb.ref('p.product_number'), text),
        dialect.containsInsensitive(eb.ref('p.product_name'), text),
        dialect.containsInsensitive(eb.ref('p.product_description'), text),
        eb.exists(
          eb
            .selectFrom('product_barcodes as b')
            .select(sql.lit(1).as('one'))
            .whereRef('b.product_id', '=', 'p.id')
            .where((inner) => dialect.containsInsensitive(inner.ref('b.barcode'), text)),
        ),
      ]),
    );
  }
  return query;
}

/**
 * Live store products of live products in live stores, with every filter of §4.4. No
 * join: stores and products enter as semi-joins, so the count reads the
 * (store_id, id, product_id, deleted_on) index alone; soft-deleted products and stores
 * (hidden from reads) are the few rows of the partial index and the stores table.
 */
export function listedStoreProducts(db: Kysely<Database>, dialect: Dialect | undefined, f: StockListFilters) {
  let query = db.selectFrom('store_products as sp').where('sp.deleted_on', 'is', null);
  const storeIds = f.storeIds;
  if (storeIds !== undefined) {
    query = query.where((eb) => columnIn(eb, 'sp.store_id', storeIds));
  } else {
    query = query.where('sp.store_id', 'not in', (eb) =>
      eb.selectFrom('stores').select('id').where('deleted_on', 'is not', null),
    );
  }
  query = hasProductFilter(f)
    ? query.where('sp.product_id', 'in', matchingProducts(db, dialect, f))
    : query.where('sp.product_id', 'not in', (eb) =>
        eb.selectFrom('products').select('id').where('deleted_on', 'is not', null),
      );
  if (f.modifiedSince !== undefined) query = query.where('sp.updated_on', '>=', f.modifiedSince);
  const stockSince = f.stockModifiedSince;
  if (stockSince !== undefined) {
    // "Stock changed at or after T" (PRODUCT §3.1) is an applied entry of the store product
    // updated at or after T — booked, or approved, then — found through those entries (the
    // updated_on index of stock_logs), so the ERP's delta pull reads what changed, not every
    // store product of the chain; or, where an archive moved that entry out, the stamp it
    // kept (ledger/archive.ts). Not the stamp stock_modified_at alone: a booking stamps the
    // moment it began, and one that began earlier but committed later on the same store
    // product leaves the older moment, so the stamp can lie below the latest change
    // (docs/decisions.md "delta pull"). And until its first stock change a store product's
    // stock moment is its creation (PRODUCT §3.1, issue 41): one created at or after T is a
    // member — never booked, or booked since (its entries are all younger than it) — found
    // through the created_on index (migration 0030).
    const idAtLeast = f.changedIdAtLeast;
    query = query.where(({ eb, refTuple, selectFrom }) => {
      let changed = selectFrom('stock_logs as changed')
        .select(['changed.store_id', 'changed.product_id'])
        .where('changed.updated_on', '>=', stockSince)
        .where('changed.is_applied', '=', 1);
      if (idAtLeast !== undefined) changed = changed.where('changed.id', '>=', idAtLeast);
      const archived = selectFrom('stock_stamps_archived as archived')
        .select(['archived.store_id', 'archived.product_id'])
        .where('archived.stamp', '>=', stockSince);
      const created = selectFrom('store_products as created')
        .select(['created.store_id', 'created.product_id'])
        .where('created.created_on', '>=', stockSince);
      return eb(
        refTuple('sp.store_id', 'sp.product_id'),
        'in',
        changed.unionAll(archived).unionAll(created).$asTuple('store_id', 'product_id'),
      );
    });
  }
  if (f.fromId !== undefined) query = query.where('sp.id', '>=', f.fromId);
  if (f.toId !== undefined) query = query.where('sp.id', '<=', f.toId);
  if (hasStockStateFilter(f)) query = query.where((eb) => eb.and(stockStateConditions(eb, f, storeIds)));
  return query;
}

export async function countStockList(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: StockListFilters,
): Promise<number> {
  const row = await listedStoreProducts(db, dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What a list item shows of its store product, product, store and category. */
function withItemColumns(query: ReturnType<typeof listedStoreProducts>) {
  return query
    .innerJoin('products as p', 'p.id', 'sp.product_id')
    .innerJoin('stores as s', 's.id', 'sp.store_id')
    .leftJoin('categories as c', (join) =>
      join.onRef('c.category_code', '=', 'p.category_code').on('c.deleted_on', 'is', null),
    )
    .select([
      'sp.id',
      'sp.store_id',
      'sp.store_number',
      'sp.product_id',
      'sp.product_number',
      'sp.min',
      'sp.max',
      'sp.original_min',
      'sp.original_max',
      'sp.order_level',
      'sp.adjusted_order_level',
      'sp.forecast',
      'sp.demand_until_delivery',
      'sp.price',
      'sp.validate_expiry_at',
      'sp.next_delivery_at',
      'sp.next_ordering_at',
      'sp.last_counted_at',
      'sp.last_expiry_at',
      'sp.last_expiry_by',
      'sp.last_loss_by',
      'sp.last_minmax_by',
      'sp.last_receipt_by',
      'sp.stock_modified_at',
      'sp.group_code',
      'sp.promotion_week',
      'sp.is_replenishment',
      'sp.attention_codes',
      'sp.average_array',
      'sp.forecast_array',
      'sp.history_array',
      'sp.delivery_datetimes',
      'sp.ordering_datetimes',
      'p.product_name',
      'p.barcode',
      'p.barcodes_array',
      'p.category_code',
      'p.is_stock',
      'p.price as master_price',
      'p.country_code as product_country_code',
      'p.purchase_unit_quantity',
      'p.purchase_unit_name',
      'p.smallest_quantity',
      'p.smallest_product_number',
      'p.attention_code',
      'p.referral_product_number',
      'p.promotion_week as product_promotion_week',
      's.country_code as store_country_code',
      's.price_line_id',
      's.stock_pool_names',
      'c.category_name',
    ]);
}

/**
 * The page of the list's most common request — one store's stock, no other filter, paged
 * by scroll_id or from the start — built and compiled once: building and compiling this
 * fifty-column join cost about a tenth of serving the page. Ids start at 1, so the first
 * page is the page after id 0.
 */
const oneStorePageAfter = compiledOnce((db, storeId: number, afterId: number, fetchLimit: number) =>
  pageOf(withItemColumns(listedStoreProducts(db, undefined, { storeIds: [storeId], productNumbers: [] })), 'sp.id', {
    afterId,
    offset: 0,
    fetchLimit,
  }),
);

const isOneStoreOnly = (f: StockListFilters) =>
  f.storeIds?.length === 1 &&
  !hasProductFilter(f) &&
  f.modifiedSince === undefined &&
  f.stockModifiedSince === undefined &&
  f.fromId === undefined &&
  f.toId === undefined &&
  !hasStockStateFilter(f);

/**
 * One page in id order (keyset after `afterId`, else offset), with what the item shows of
 * product, store and category. By offset the page's ids are found first, from store_products
 * alone (its (store_id, id, product_id, deleted_on) index covers a store's list), and only
 * those rows are joined: joining first would make PostgreSQL join and sort every product of
 * the store for each page (docs/stock.md "Reads at chain scale").
 */
export function pageOfStockList(db: Kysely<Database>, dialect: Dialect, filters: StockListFilters, window: PageSlice) {
  if (isOneStoreOnly(filters) && (window.afterId !== undefined || window.offset === 0)) {
    return oneStorePageAfter(db, filters.storeIds![0]!, window.afterId ?? 0, window.fetchLimit);
  }
  return stockListRows(db, pageOf(listedStoreProducts(db, dialect, filters).select('sp.id'), 'sp.id', window));
}

/** A query of store product ids built on `listedStoreProducts`. */
type StoreProductIds = SelectQueryBuilder<Database & { sp: StoreProductTable }, 'sp', { id: number }>;

/** The list rows of the store products `ids` names (a list of ids or a query of them), in id order. */
export async function stockListRows(db: Kysely<Database>, ids: readonly number[] | StoreProductIds) {
  const query = withItemColumns(
    db.selectFrom('store_products as sp').where('sp.id', 'in', ids as StoreProductIds),
  ).orderBy('sp.id');
  return Array.isArray(ids) && ids.length === 0 ? [] : query.execute();
}

/**
 * Newest updated_on of any store product of the stores the list answers for (PRODUCT §3.1
 * project_last_modified_date); the same scope as the page's storeIds, without its filters.
 */
export function storeProductsLastModified(db: Kysely<Database>, scope: StoreScope): Promise<number | null> {
  const all = db.selectFrom('store_products');
  const scoped =
    scope === undefined
      ? all
      : all.where(
          'store_products.store_id',
          'in',
          inStores(db.selectFrom('stores').select('stores.id'), 'stores.store_number', scope),
        );
  return newestUpdatedOn(scoped, 'store_products.updated_on');
}

const LOCATION_COLUMNS = ['l.location_code', 'l.location_order', 'l.default_stock_pool', 'l.tags'] as const;

/**
 * Every balance of the given store products in one query (no per-row look-ups), keyed by
 * store product id; with `withLocations` each carries its location (left join: location 0
 * is stock booked without a location).
 */
export async function balancesOfStoreProducts(
  db: Kysely<Database>,
  storeProductIds: readonly number[],
  options: { excludeOrderBound: boolean; withLocations: boolean },
): Promise<Map<number, BalanceLine[]>> {
  const byStoreProduct = new Map<number, BalanceLine[]>();
  for (const ids of inListChunks(storeProductIds, KEYS_PER_QUERY)) {
    let query = db
      .selectFrom('store_products as sp')
      .innerJoin('stock_balances as b', (join) =>
        join.onRef('b.store_id', '=', 'sp.store_id').onRef('b.product_id', '=', 'sp.product_id'),
      )
      .leftJoin('locations as l', 'l.id', 'b.location_id')
      .select(['sp.id as store_product_id', 'b.location_id', 'b.pool', 'b.quantity'])
      .where('sp.id', 'in', ids);
    if (options.excludeOrderBound) query = query.where('b.order_key', '=', '');
    const rows = await (options.withLocations ? query.select(LOCATION_COLUMNS) : query).execute();
    for (const row of rows) {
      const line = toBalanceLine(row);
      const lines = byStoreProduct.get(row.store_product_id);
      if (lines) lines.push(line);
      else byStoreProduct.set(row.store_product_id, [line]);
    }
  }
  return byStoreProduct;
}

type BalanceSelection = { location_id: number; pool: number; quantity: number } & Partial<
  Record<'location_code' | 'tags', string | null>
> &
  Partial<Record<'location_order' | 'default_stock_pool', number | null>>;

function toBalanceLine(row: BalanceSelection): BalanceLine {
  const location: LocationInfo | undefined =
    row.location_code === undefined || row.location_code === null
      ? undefined
      : {
          location_code: row.location_code,
          location_order: Number(row.location_order ?? 0),
          default_stock_pool: row.default_stock_pool ?? null,
          tags: row.tags ?? '[]',
        };
  return { location_id: Number(row.location_id), pool: row.pool, quantity: Number(row.quantity), location };
}

// ---------------------------------------------------------------- one product

/**
 * The store and the product a path names, with the store product's schedule, in one
 * statement (the hot path of the single-product read): the product by its number, else
 * by any barcode (product_barcodes holds the product barcode, barcodes_array and unit
 * barcodes, PRODUCT §5); a number wins over a barcode. Undefined when either is unknown.
 */
const selectStockSubject = compiledOnce((db, storeNumber: string, productRef: string) => {
  const candidates = db
    .selectFrom('products')
    .select(['id', 'product_number', sql<number>`0`.as('by_barcode')])
    .where('product_number', '=', productRef)
    .where('deleted_on', 'is', null)
    .unionAll(
      db
        .selectFrom('product_barcodes as b')
        .innerJoin('products as pb', 'pb.id', 'b.product_id')
        .select(['pb.id', 'pb.product_number', sql<number>`1`.as('by_barcode')])
        .where('b.barcode', '=', productRef)
        .where('pb.deleted_on', 'is', null),
    );
  return (
    db
      .selectFrom('stores as s')
      .innerJoin(candidates.as('p'), (join) => join.onTrue())
      .leftJoin('store_products as sp', (join) =>
        join.onRef('sp.store_id', '=', 's.id').onRef('sp.product_id', '=', 'p.id').on('sp.deleted_on', 'is', null),
      )
      .select([
        's.id as store_id',
        's.store_number',
        's.stock_pool_names',
        's.area_id',
        'p.id as product_id',
        'p.product_number',
        'p.by_barcode',
        'sp.id as store_product_id',
        'sp.stock_version',
        'sp.next_delivery_at',
        'sp.next_ordering_at',
        'sp.delivery_datetimes',
        'sp.ordering_datetimes',
      ])
      // Read in the same statement (one snapshot) as the store product's stock_version: what
      // the answer cache compares (answer-cache.ts).
      .select((eb) =>
        eb
          .selectFrom('resource_versions')
          .select('version')
          .where('resource', '=', 'locations')
          .as('locations_version'),
      )
      .where('s.store_number', '=', storeNumber)
      .where('s.deleted_on', 'is', null)
  );
});

/** What a store product's balances depend on (answer-cache.ts). */
export interface StockVersions {
  storeProductId: number;
  stock: number;
  locations: number;
}

export type StockSubject = NonNullable<Awaited<ReturnType<typeof stockSubject>>>;

export async function stockSubject(db: Kysely<Database>, storeNumber: string, productRef: string) {
  const rows = await selectStockSubject(db, storeNumber, productRef);
  const row = rows.find((r) => Number(r.by_barcode) === 0) ?? rows[0];
  if (row === undefined) return undefined;
  const versions: StockVersions | undefined =
    row.store_product_id === null
      ? undefined
      : {
          storeProductId: Number(row.store_product_id),
          stock: Number(row.stock_version),
          locations: Number(row.locations_version),
        };
  return {
    store: {
      id: Number(row.store_id),
      store_number: row.store_number,
      stock_pool_names: row.stock_pool_names,
      area_id: row.area_id,
    },
    product: { id: Number(row.product_id), product_number: row.product_number },
    /** The versions the product's balances depend on; undefined without a store product row. */
    versions,
    schedule: {
      next_delivery_at: row.next_delivery_at,
      next_ordering_at: row.next_ordering_at,
      delivery_datetimes: row.delivery_datetimes,
      ordering_datetimes: row.ordering_datetimes,
    },
  };
}

/** The balances of one product in one store; `withLocations` adds each line's location. */
function balancesQuery(
  db: Kysely<Database>,
  storeId: number,
  productId: number,
  excludeOrderBound: boolean,
  withLocations: boolean,
) {
  let query = db
    .selectFrom('stock_balances as b')
    .leftJoin('locations as l', 'l.id', 'b.location_id')
    .select(['b.location_id', 'b.pool', 'b.quantity'])
    .where('b.store_id', '=', storeId)
    .where('b.product_id', '=', productId);
  if (excludeOrderBound) query = query.where('b.order_key', '=', '');
  return withLocations ? query.select(LOCATION_COLUMNS) : query;
}

/** The four shapes of the single-product balance query, each compiled once. */
const balancesVariants = [false, true].flatMap((excludeOrderBound) =>
  [false, true].map((withLocations) => ({
    excludeOrderBound,
    withLocations,
    run: compiledOnce((db, storeId: number, productId: number) =>
      balancesQuery(db, storeId, productId, excludeOrderBound, withLocations),
    ),
  })),
);

/** The balances of one product in one store; `withLocations` adds each line's location. */
export async function balancesOfProduct(
  db: Kysely<Database>,
  storeId: number,
  productId: number,
  options: { excludeOrderBound: boolean; withLocations: boolean },
): Promise<BalanceLine[]> {
  const variant = balancesVariants.find(
    (v) => v.excludeOrderBound === options.excludeOrderBound && v.withLocations === options.withLocations,
  )!;
  const rows = await variant.run(db, storeId, productId);
  return rows.map((row) => toBalanceLine(row as Parameters<typeof toBalanceLine>[0]));
}

/**
 * Surrounding stock (PRODUCT §5): every other active live store of `areaId` and every
 * active live warehouse, each with its balances of the product (left join: a store
 * without stock still comes back, with null balance columns). Stores first, then
 * warehouses, each by store_number.
 */
export function surroundingBalances(
  db: Kysely<Database>,
  asking: { id: number; area_id: string | null },
  productId: number,
  excludeOrderBound: boolean,
) {
  const areaId = asking.area_id;
  return db
    .selectFrom('stores as s')
    .leftJoin('stock_balances as b', (join) => {
      const onProduct = join.onRef('b.store_id', '=', 's.id').on('b.product_id', '=', productId);
      return excludeOrderBound ? onProduct.on('b.order_key', '=', '') : onProduct;
    })
    .select([
      's.id',
      's.store_number',
      's.store_name',
      's.area_id',
      's.area_description',
      's.is_warehouse',
      'b.pool',
      'b.quantity',
    ])
    .where('s.deleted_on', 'is', null)
    .where('s.is_active', '=', 1)
    .where('s.id', '<>', asking.id)
    .where((eb) =>
      areaId === null
        ? eb('s.is_warehouse', '=', 1)
        : eb.or([eb('s.is_warehouse', '=', 1), eb('s.area_id', '=', areaId)]),
    )
    .orderBy('s.is_warehouse')
    .orderBy('s.store_number')
    .execute();
}

/** A row of a stock list page (mapping.ts turns it into a stock item). */
export type StockListRow = Awaited<ReturnType<typeof pageOfStockList>>[number];

/** A store of the area around the asking one, with one of its balances of the product (or none). */
export type SurroundingRow = Awaited<ReturnType<typeof surroundingBalances>>[number];
