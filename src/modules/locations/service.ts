import type { AppContext } from '../../app-context.js';
import { upsertByKey } from '../../db/bulk-upsert.js';
import { inTransaction } from '../../db/transaction.js';
import { describeCounts, duplicateKeyErrors } from '../../shared/bulk.js';
import { notFound, validationFailed } from '../../shared/errors.js';
import { pagedResponse, resolvePage, type PagedResult, type PageWindow } from '../../shared/paging.js';
import { requireLiveStore } from '../stores/repository.js';
import { normaliseTags, toLocation, toLocationProduct, toLocationRecord } from './mapping.js';
import * as locations from './repository.js';
import {
  LocationProductsQuery,
  LocationsQuery,
  TaggedLocationProductsQuery,
  type Location,
  type LocationProduct,
  type LocationsBody,
} from './schema.js';

/** POST /stores/{s}/locations (PRODUCT §5): upsert by location_code within the store, atomic. */
export async function importLocations(
  ctx: AppContext,
  storeNumber: string,
  body: LocationsBody,
  actor: string,
): Promise<string> {
  const store = await requireLiveStore(ctx.db, storeNumber, 'does not exist');
  const duplicates = duplicateKeyErrors(body.locations, (l) => l.location_code, 'locations', 'location_code');
  if (duplicates.length > 0)
    throw validationFailed('A location_code appears more than once in the request', duplicates);
  const records = body.locations.map((input) => toLocationRecord(store, input));
  const counts = await inTransaction(
    ctx.handle,
    async (trx) => {
      const result = await upsertByKey(trx, ctx.dialect, {
        table: 'locations',
        keyColumn: 'location_code',
        scope: { column: 'store_id', value: store.id },
        records,
        actor,
        now: Date.now(),
        flush: false,
      });
      // Only created or changed locations can have different tags.
      const written = body.locations
        .filter((input) => result.writtenKeys.has(input.location_code))
        .map((input) => ({ id: result.idsByKey.get(input.location_code)!, tags: normaliseTags(input.tags) }));
      await locations.replaceTags(trx, ctx.dialect, store.id, written);
      return result;
    },
    { serialise: [`locations:${store.id}`] },
  );
  return describeCounts(counts);
}

/** GET /stores/{s}/locations (interface §4.2): a page of locations and, in one query, their stock. */
export async function listLocations(
  ctx: AppContext,
  storeNumber: string,
  query: LocationsQuery,
): Promise<PagedResult<Location>> {
  const store = await requireLiveStore(ctx.db, storeNumber, 'does not exist');
  const ignoreOrderBound = query.ignore_customerorder_stock === true;
  const window = resolvePage(query, LocationsQuery, `locations:${store.id}`, ctx.cursors);
  const locationFilters: locations.LocationFilters = { storeId: store.id, searchText: query.search_text };
  const [rows, totalCount, lastModified] = await Promise.all([
    locations.pageOfLocations(ctx.db, ctx.dialect, locationFilters, window),
    locations.countLocations(ctx.db, ctx.dialect, locationFilters),
    locations.locationsLastModified(ctx.db, store.id),
  ]);
  const pageRows = rows.slice(0, window.pageSize);
  const pageIds = pageRows.map((r) => r.id);
  const balances = await locations.balancesAt(ctx.db, store.id, pageIds, ignoreOrderBound);
  const details = await locations.orderDetailsOf(
    ctx.db,
    { storeId: store.id, ids: pageIds },
    balances.map((b) => ({ productId: b.product_id, orderKey: b.order_key })),
  );
  const byLocation = new Map<number, typeof balances>();
  for (const balance of balances) {
    const list = byLocation.get(balance.location_id) ?? [];
    list.push(balance);
    byLocation.set(balance.location_id, list);
  }
  const poolNames = JSON.parse(store.stock_pool_names) as Array<string | null>;
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => toLocation(row, byLocation.get(row.id) ?? [], poolNames, details),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}

/**
 * jsonTag (PRODUCT §5): a JSON array of tags, a JSON string, or else the text itself as
 * one tag (what is not valid JSON is a plain tag, never an error).
 */
export function parseJsonTag(jsonTag: string): string[] {
  try {
    const parsed: unknown = JSON.parse(jsonTag);
    if (Array.isArray(parsed))
      return parsed
        .filter((t) => t !== null && t !== undefined)
        .map((t) => (typeof t === 'string' ? t : JSON.stringify(t)));
    if (typeof parsed === 'string') return [parsed];
  } catch {
    // not JSON: a plain tag
  }
  return [jsonTag];
}

/** GET /stores/{s}/locations/{code}/products (interface §4.2): unknown location → 404. */
export async function listProductsAtLocation(
  ctx: AppContext,
  storeNumber: string,
  locationCode: string,
  query: LocationProductsQuery,
): Promise<PagedResult<LocationProduct>> {
  const store = await requireLiveStore(ctx.db, storeNumber, 'does not exist');
  const location = await locations.findLocation(ctx.db, store.id, locationCode);
  if (!location) throw notFound(`Location '${locationCode}' does not exist in store '${storeNumber}'`);
  const window = resolvePage(
    query,
    LocationProductsQuery,
    `location-products:${store.id}:at:${locationCode}`,
    ctx.cursors,
  );
  return listLocationProducts(ctx, { storeId: store.id, locationCode }, query, window);
}

/**
 * GET /stores/{s}/locations/products (interface §4.2): the locations named by
 * `location_code` and/or carrying a `jsonTag` tag (both: both must hold; neither: every
 * location of the store). A product at several of them is one line with the sum.
 */
export async function listProductsAtTaggedLocations(
  ctx: AppContext,
  storeNumber: string,
  query: TaggedLocationProductsQuery,
): Promise<PagedResult<LocationProduct>> {
  const store = await requireLiveStore(ctx.db, storeNumber, 'does not exist');
  const tags = query.jsonTag === undefined ? undefined : parseJsonTag(query.jsonTag);
  const window = resolvePage(query, TaggedLocationProductsQuery, `location-products:${store.id}`, ctx.cursors);
  return listLocationProducts(ctx, { storeId: store.id, locationCode: query.location_code, tags }, query, window);
}

async function listLocationProducts(
  ctx: AppContext,
  selection: locations.LocationSelection,
  query: LocationProductsQuery,
  window: PageWindow,
): Promise<PagedResult<LocationProduct>> {
  const productFilters: locations.LocationProductFilters = {
    customerOrderNumber: query.customer_order_number,
    customerOrderShipmentNumber: query.customer_order_shipment_number,
    searchText: query.search_text,
    advanceSearch: query.advance_search === true,
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    locations.pageOfLocationProducts(ctx.db, ctx.dialect, selection, productFilters, window),
    locations.countLocationProducts(ctx.db, ctx.dialect, selection, productFilters),
    locations.balancesLastModified(ctx.db, selection),
  ]);
  const details = await locations.orderDetailsOf(
    ctx.db,
    selection,
    rows.slice(0, window.pageSize).map((r) => ({ productId: r.product_id, orderKey: r.order_key })),
  );
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => toLocationProduct(row, details),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
