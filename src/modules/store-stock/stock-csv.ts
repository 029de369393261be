import { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.js';
import { POOLS } from '../../domain/stock-rules.js';
import { requireLiveStore } from '../stores/repository.js';
import { csvRecord, type CsvCell } from './csv.js';
import { parsePoolNames, summarise, toStoreProductStock } from './mapping.js';
import * as stock from './repository.js';
import type { StockCsvQuery, StoreProductStock } from './schema.js';
import { stockListFilters } from './service.js';

/**
 * GET /stores/{s}/storeproducts/stock.csv (issue 43, docs/stock.md "The stock list as CSV"):
 * the store's whole filtered stock list, one record per list item in the list's order, read
 * page by page after the last id sent (keyset), so a store of 100,000 products never holds
 * more than a page in memory, and a slow reader holds back the reading (the stream asks for
 * the next page only when the last one has been taken).
 */

/** Items read per page of the export: the list's largest page (tests lower it to see many pages). */
export const csvPaging = { pageSize: 1000 };

/** The columns, in order: list item fields by their API names (interface §2.5). */
const FIXED_BEFORE = ['product_number', 'product_description', 'barcode', 'category_code', 'category_name'] as const;
const FIXED_AFTER = ['store_location_codes', 'last_counted_datetime', 'most_likely_datetime'] as const;

/** The header: a pool's column carries the store's name of the pool beside its field name, when it has one. */
export function csvHeader(poolNames: ReadonlyArray<string | null>): string {
  const pools = POOLS.map((n) => {
    const name = poolNames[n - 1];
    return name ? `most_likely_pool_${n} (${name})` : `most_likely_pool_${n}`;
  });
  return csvRecord([...FIXED_BEFORE, 'most_likely_quantity', ...pools, ...FIXED_AFTER]);
}

/** Location codes of a store_locations list are joined by this (a code may hold spaces or commas). */
const LOCATION_SEPARATOR = '|';

/** One list item as its record: the very values the JSON list shows. */
export function csvLine(item: StoreProductStock): string {
  const pools = POOLS.map((n) => item[`most_likely_pool_${n}`]);
  const locations = (item.store_locations ?? [])
    .map((line) => line.store_location_code)
    .filter((code): code is string => code !== undefined);
  const cells: CsvCell[] = [
    item.product_number,
    item.product_description,
    item.barcode,
    item.category_code,
    item.category_name,
    item.most_likely_quantity,
    ...pools,
    locations.length === 0 ? undefined : locations.join(LOCATION_SEPARATOR),
    item.last_counted_datetime,
    item.most_likely_datetime,
  ];
  return csvRecord(cells);
}

interface CsvPage {
  text: string;
  /** The last id of the page, where the next one starts; undefined on the last page. */
  nextAfter: number | undefined;
}

/** The records of the page after `afterId`, with their balances and locations read in one query. */
async function csvPage(
  ctx: AppContext,
  filters: stock.StockListFilters,
  afterId: number,
  excludeOrderBound: boolean,
): Promise<CsvPage> {
  const size = csvPaging.pageSize;
  const rows = await stock.pageOfStockList(ctx.db, ctx.dialect, filters, { afterId, offset: 0, fetchLimit: size + 1 });
  const pageRows = rows.slice(0, size);
  const balances = await stock.balancesOfStoreProducts(
    ctx.db,
    pageRows.map((row) => row.id),
    { excludeOrderBound, withLocations: true },
  );
  // No price column: the price is the one field of the item that costs a query of its own.
  const text = pageRows
    .map((row) => csvLine(toStoreProductStock(row, summarise(balances.get(row.id) ?? []), null, true)))
    .join('');
  return { text, nextAfter: rows.length > size ? pageRows[pageRows.length - 1]!.id : undefined };
}

/** `stock-<store>-<YYYY-MM-DD>.csv`, and the header that offers it as a download (RFC 6266). */
export function contentDisposition(storeNumber: string, at: number): string {
  const name = `stock-${storeNumber}-${new Date(at).toISOString().slice(0, 10)}.csv`;
  // The quoted form takes printable ASCII only: anything else (quotes, slashes, letters beyond
  // ASCII) becomes `_` there, and the exact name goes in filename* (RFC 5987) for the browsers
  // that read it.
  const plain = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return plain === name
    ? `attachment; filename="${name}"`
    : `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export interface StockCsv {
  contentDisposition: string;
  body: Readable;
}

/**
 * The export, its first page read before anything is sent: an unknown store (404) or a database
 * that is down answers the error envelope, not a file cut short. A failure on a later page ends
 * the response without its last records (the transfer is cut, so the download fails visibly).
 * Pages are read one after another, not on one snapshot: a store product is written at most once,
 * with its figures as its page read them; one whose stock moves it in or out of the filter while
 * the export runs may be missing.
 */
export async function stockCsv(ctx: AppContext, storeNumber: string, query: StockCsvQuery): Promise<StockCsv> {
  const started = Date.now();
  const store = await requireLiveStore(ctx.db, storeNumber);
  const filters = stockListFilters(query, [store.id]);
  const excludeOrderBound = query.exclude_customer_order_stock === true;
  const first = await csvPage(ctx, filters, 0, excludeOrderBound);
  const header = csvHeader(parsePoolNames(store.stock_pool_names));
  async function* records(): AsyncGenerator<string> {
    let page = first;
    yield header + page.text;
    while (page.nextAfter !== undefined) {
      page = await csvPage(ctx, filters, page.nextAfter, excludeOrderBound);
      if (page.text !== '') yield page.text;
    }
  }
  return {
    contentDisposition: contentDisposition(store.store_number, started),
    body: Readable.from(records(), { objectMode: false }),
  };
}
