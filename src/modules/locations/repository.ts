import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { columnIn, inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { newestUpdatedOn, pageOf, type PageSlice } from '../../db/page.js';
import type { Database, Executor, LocationTagTable, ProductTable } from '../../db/schema.js';
import { chunk } from '../../shared/bulk.js';
import { orderDetailsKey } from './mapping.js';
import type { LocatedBalance, LocationProductRow, LocationRow, OrderDetails } from './rows.js';

export interface LocationRef {
  id: number;
  location_code: string;
  default_stock_pool: number | null;
}

/** Live locations of a store among `codes`, by code. */
export async function findLocationsByCodes(
  db: Executor,
  storeId: number,
  codes: readonly string[],
): Promise<Map<string, LocationRef>> {
  const found = new Map<string, LocationRef>();
  for (const codeChunk of inListChunks([...new Set(codes)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('locations')
      .select(['id', 'location_code', 'default_stock_pool'])
      .where('store_id', '=', storeId)
      .where('location_code', 'in', codeChunk)
      .where('deleted_on', 'is', null)
      .execute();
    for (const row of rows) found.set(row.location_code, row);
  }
  return found;
}

// ---------------------------------------------------------------- writes

/** Replaces the tag rows of `locations` with their tags (the index of jsonTag look-ups). */
export async function replaceTags(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  locations: ReadonlyArray<{ id: number; tags: readonly string[] }>,
): Promise<void> {
  for (const ids of chunk(
    locations.map((l) => l.id),
    KEYS_PER_QUERY,
  )) {
    await trx.deleteFrom('location_tags').where('location_id', 'in', ids).execute();
  }
  const rows: LocationTagTable[] = locations.flatMap((l) =>
    l.tags.map((tag) => ({ location_id: l.id, store_id: storeId, tag })),
  );
  for (const batch of chunk(rows, Math.floor(dialect.maxParameters / 3))) {
    await trx.insertInto('location_tags').values(batch).execute();
  }
}

// ---------------------------------------------------------------- location list

export interface LocationFilters {
  storeId: number;
  searchText?: string;
}

function filteredLocations(db: Kysely<Database>, dialect: Dialect, filters: LocationFilters) {
  let query = db
    .selectFrom('locations as l')
    .where('l.store_id', '=', filters.storeId)
    .where('l.deleted_on', 'is', null);
  const text = filters.searchText;
  if (text !== undefined && text !== '') {
    query = query.where((eb) =>
      eb.or([
        dialect.containsInsensitive(eb.ref('l.location_code'), text),
        eb.exists(
          eb
            .selectFrom('location_tags as t')
            .select(sql.lit(1).as('one'))
            .whereRef('t.location_id', '=', 'l.id')
            .where((inner) => dialect.containsInsensitive(inner.ref('t.tag'), text)),
        ),
      ]),
    );
  }
  return query;
}

export async function countLocations(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: LocationFilters,
): Promise<number> {
  const row = await filteredLocations(db, dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfLocations(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: LocationFilters,
  window: PageSlice,
): Promise<LocationRow[]> {
  return pageOf(filteredLocations(db, dialect, filters).selectAll('l'), 'l.id', window).execute();
}

/** Newest updated_on of the store's locations (PRODUCT §3.1 project_last_modified_date). */
export function locationsLastModified(db: Kysely<Database>, storeId: number): Promise<number | null> {
  return newestUpdatedOn(db.selectFrom('locations').where('store_id', '=', storeId), 'updated_on');
}

export function findLocation(
  db: Kysely<Database>,
  storeId: number,
  locationCode: string,
): Promise<LocationRow | undefined> {
  return db
    .selectFrom('locations')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('location_code', '=', locationCode)
    .where('deleted_on', 'is', null)
    .executeTakeFirst();
}

/** Every non-zero balance at `locationIds`, in one query (no per-location look-ups). */
export async function balancesAt(
  db: Kysely<Database>,
  storeId: number,
  locationIds: readonly number[],
  ignoreOrderBound: boolean,
): Promise<LocatedBalance[]> {
  if (locationIds.length === 0) return [];
  return db
    .selectFrom('stock_balances as b')
    .innerJoin('products as p', 'p.id', 'b.product_id')
    .select([
      'b.location_id',
      'b.product_id',
      'p.product_number',
      'p.product_name',
      'b.order_key',
      'b.pool',
      'b.quantity',
    ])
    .where('b.store_id', '=', storeId)
    .where('b.location_id', 'in', locationIds)
    .where('b.quantity', '<>', 0)
    .$if(ignoreOrderBound, (q) => q.where('b.order_key', '=', ''))
    .orderBy('b.location_id')
    .orderBy('p.product_number')
    .orderBy('b.order_key')
    .orderBy('b.pool')
    .execute();
}

/**
 * Line details of order-bound stock: the latest applied log entry that booked stock of
 * the product for the order at the location (the balance key holds only the order number).
 * Keyed by orderDetailsKey(product, order, location) and, without location, by product
 * and order over all the locations asked.
 */
export async function orderDetailsOf(
  db: Kysely<Database>,
  locations: { storeId: number; ids: readonly number[] } | LocationSelection,
  wanted: ReadonlyArray<{ productId: number; orderKey: string }>,
): Promise<Map<string, OrderDetails>> {
  const details = new Map<string, OrderDetails>();
  const bound = wanted.filter((w) => w.orderKey !== '');
  if (bound.length === 0 || ('ids' in locations && locations.ids.length === 0)) return details;
  const storeId = locations.storeId;
  const locationIds = 'ids' in locations ? [...locations.ids] : selectedLocations(db, locations);
  const orders = [...new Set(bound.map((w) => w.orderKey))];
  const products = [...new Set(bound.map((w) => w.productId))];
  for (const orderChunk of chunk(orders, 1000)) {
    const rows = await db
      .selectFrom('stock_logs')
      .select([
        'product_id',
        'location_id',
        'customer_order_number',
        'customer_order_line_number',
        'customer_order_shipment_number',
        'customer_order_shipment_line_number',
      ])
      .where('store_id', '=', storeId)
      .where('customer_order_number', 'in', orderChunk)
      .where('product_id', 'in', products)
      .where('location_id', 'in', locationIds)
      .where('is_applied', '=', 1)
      .orderBy('id')
      .execute();
    // Ascending ids: the latest entry is set last and wins.
    for (const row of rows) {
      const value: OrderDetails = {
        customer_order_line_number: row.customer_order_line_number,
        customer_order_shipment_number: row.customer_order_shipment_number,
        customer_order_shipment_line_number: row.customer_order_shipment_line_number,
      };
      details.set(orderDetailsKey(row.product_id, row.customer_order_number!, row.location_id!), value);
      details.set(orderDetailsKey(row.product_id, row.customer_order_number!), value);
    }
  }
  return details;
}

// ---------------------------------------------------------------- location products

/** Which locations a location-products request covers (interface §4.2). */
export interface LocationSelection {
  storeId: number;
  /** One location (the path's, or the `location_code` query). */
  locationCode?: string;
  /** Locations carrying any of these tags (jsonTag). */
  tags?: readonly string[];
}

export interface LocationProductFilters {
  customerOrderNumber?: string;
  customerOrderShipmentNumber?: string;
  searchText?: string;
  advanceSearch: boolean;
}

/** The ids of the live locations a selection covers, as a subquery (no id list in memory). */
function selectedLocations(db: Kysely<Database>, selection: LocationSelection) {
  let query = db
    .selectFrom('locations as l')
    .select('l.id')
    .where('l.store_id', '=', selection.storeId)
    .where('l.deleted_on', 'is', null);
  if (selection.locationCode !== undefined) query = query.where('l.location_code', '=', selection.locationCode);
  const tags = selection.tags;
  if (tags !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('location_tags as t')
          .select(sql.lit(1).as('one'))
          .whereRef('t.location_id', '=', 'l.id')
          .where('t.store_id', '=', selection.storeId)
          .where((inner) => columnIn(inner, 't.tag', tags)),
      ),
    );
  }
  return query;
}

/**
 * search_text on location products (PRODUCT §5): advance_search → every word somewhere in
 * number, any barcode or description; otherwise prefix on number or any barcode, or a
 * substring of the description. Barcodes are all the product answers to (product_barcodes).
 */
function productSearch(dialect: Dialect, text: string, advance: boolean) {
  return (eb: ExpressionBuilder<Database & { p: ProductTable }, 'p'>): Expression<SqlBool> => {
    const barcodeMatches = (match: (column: Expression<string | null>) => Expression<SqlBool>) =>
      eb.exists(
        eb
          .selectFrom('product_barcodes as pb')
          .select(sql.lit(1).as('one'))
          .whereRef('pb.product_id', '=', 'p.id')
          .where((inner) => match(inner.ref('pb.barcode'))),
      );
    if (!advance) {
      return eb.or([
        dialect.startsWithInsensitive(eb.ref('p.product_number'), text),
        barcodeMatches((column) => dialect.startsWithInsensitive(column, text)),
        dialect.containsInsensitive(eb.ref('p.product_name'), text),
      ]);
    }
    const words = text.split(/\s+/).filter((w) => w !== '');
    return eb.and(
      words.map((word) =>
        eb.or([
          dialect.containsInsensitive(eb.ref('p.product_number'), word),
          barcodeMatches((column) => dialect.containsInsensitive(column, word)),
          dialect.containsInsensitive(eb.ref('p.product_name'), word),
        ]),
      ),
    );
  };
}

/**
 * Stock at the locations grouped per (product, customer order or none); the smallest
 * balance id of a group is its stable keyset position (scroll_id).
 */
function groupedLocationProducts(
  db: Kysely<Database>,
  dialect: Dialect,
  selection: LocationSelection,
  filters: LocationProductFilters,
) {
  let query = db
    .selectFrom('stock_balances as b')
    .innerJoin('products as p', 'p.id', 'b.product_id')
    .where('b.store_id', '=', selection.storeId)
    .where('b.location_id', 'in', selectedLocations(db, selection));
  if (filters.customerOrderNumber !== undefined) query = query.where('b.order_key', '=', filters.customerOrderNumber);
  if (filters.customerOrderShipmentNumber !== undefined) {
    const shipment = filters.customerOrderShipmentNumber;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('stock_logs as s')
          .select(sql.lit(1).as('one'))
          .whereRef('s.store_id', '=', 'b.store_id')
          .whereRef('s.product_id', '=', 'b.product_id')
          .whereRef('s.location_id', '=', 'b.location_id')
          .whereRef('s.customer_order_number', '=', 'b.order_key')
          .where('s.customer_order_shipment_number', '=', shipment),
      ),
    );
  }
  if (filters.searchText !== undefined && filters.searchText.trim() !== '') {
    query = query.where(productSearch(dialect, filters.searchText, filters.advanceSearch));
  }
  return query.groupBy(['p.id', 'b.order_key']).having((eb) => eb.fn.sum('b.quantity'), '<>', 0);
}

export async function countLocationProducts(
  db: Kysely<Database>,
  dialect: Dialect,
  selection: LocationSelection,
  filters: LocationProductFilters,
): Promise<number> {
  const groups = groupedLocationProducts(db, dialect, selection, filters).select('p.id');
  const row = await db
    .selectFrom(groups.as('g'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function pageOfLocationProducts(
  db: Kysely<Database>,
  dialect: Dialect,
  selection: LocationSelection,
  filters: LocationProductFilters,
  window: PageSlice,
): Promise<LocationProductRow[]> {
  const query = groupedLocationProducts(db, dialect, selection, filters).select((eb) => [
    eb.fn.min('b.id').as('id'),
    'p.id as product_id',
    'b.order_key',
    eb.fn.sum<number>('b.quantity').as('quantity'),
    'p.product_number',
    'p.product_name',
    'p.barcode',
    'p.image_url',
  ]);
  // A group's keyset position is its smallest balance id (stable while the group exists).
  const rows = await pageOf(query, (eb) => eb.fn.min('b.id'), window, { grouped: true }).execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), product_id: Number(r.product_id), quantity: Number(r.quantity) }));
}

/** Newest change of stock at the selected locations (project_last_modified_date of location products). */
export function balancesLastModified(db: Kysely<Database>, selection: LocationSelection): Promise<number | null> {
  return newestUpdatedOn(
    db
      .selectFrom('stock_balances')
      .where('store_id', '=', selection.storeId)
      .where('location_id', 'in', selectedLocations(db, selection)),
    'updated_on',
  );
}
