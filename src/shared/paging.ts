import { createHash } from 'node:crypto';
import type { Static, TObject } from '@sinclair/typebox';
import { formatDateTime, formatOptionalDateTime } from '../domain/datetime.js';
import type { CursorCodec } from './cursor.js';

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

interface PageQuery {
  page_size?: number;
  page_start?: number;
  scroll_id?: string;
}

/** The query names that choose the page; every other declared query name is a filter. */
const PAGING_NAMES: ReadonlySet<string> = new Set<keyof PageQuery>(['page_size', 'page_start', 'scroll_id']);

/** Which slice of the ordered records a request asks for. */
export interface PageWindow {
  pageSize: number;
  pageStart: number;
  /** Keyset mode: continue after this id. */
  afterId?: number;
  /** Offset mode: skip this many records. */
  offset: number;
  /** Records to fetch: one more than a page, to know whether another page follows. */
  fetchLimit: number;
  /** Fingerprint of the list and its filters that the page's scroll_id is bound to. */
  scope: string;
  /** The active filters, echoed as `list_filters`. */
  filters: ListFilters;
  /** The pull's moment when the cursor carries one (shared/cursor.ts asOf). */
  asOf?: number;
}

export type ListFilters = Record<string, string[]>;

/**
 * The active filters of a list request (PRODUCT §3.1 list_filters): every property the
 * route's query schema declares, except the paging ones, that the validated query holds,
 * as arrays of strings in name order. Taken from the validated query, not from a list
 * per module, so no filter can be left out of the echo or of the cursor's fingerprint.
 * Names arrive canonical (plugins/request-parsing.ts) and values coerced; names the
 * schema does not declare are ignored, as everywhere else.
 */
function filtersOfQuery(querySchema: TObject, query: unknown): ListFilters {
  const values = query as Record<string, unknown>;
  const echoed: ListFilters = {};
  for (const name of Object.keys(querySchema.properties).sort()) {
    if (PAGING_NAMES.has(name)) continue;
    const value = values[name];
    if (value === undefined || value === null) continue;
    echoed[name] = Array.isArray(value) ? value.map(String) : [String(value)];
  }
  return echoed;
}

const clampPageSize = (size: number) => Math.min(MAX_PAGE_SIZE, Math.max(1, size));

/**
 * Resolves paging parameters: defaults, clamps (page_size 1..1000, page_start ≥ 1) and
 * the scroll cursor, which wins over page_start. A request with only `scroll_id` keeps
 * the page size the cursor was issued with.
 *
 * `list` names the list and whatever the path selects (`locations:<store id>`): with the
 * query's filters it makes the fingerprint a cursor is bound to, so a scroll_id issued
 * under one filter or path is a 400 under another (docs/decisions.md, Paging).
 */
export function resolvePage<S extends TObject>(
  query: Static<S>,
  querySchema: S,
  list: string,
  cursors: CursorCodec,
): PageWindow {
  const filters = filtersOfQuery(querySchema, query);
  const paging = query as PageQuery;
  const scope = createHash('sha1')
    .update(JSON.stringify([list, filters]))
    .digest('base64url')
    .slice(0, 16);
  // A list whose schema declares no scroll_id (GET /products) ignores one, like any unknown name.
  const scrollId = 'scroll_id' in querySchema.properties ? paging.scroll_id : undefined;
  if (scrollId) {
    const position = cursors.decode(scrollId, scope);
    const pageSize = clampPageSize(paging.page_size ?? position.pageSize);
    return {
      pageSize,
      pageStart: position.page,
      afterId: position.afterId,
      offset: 0,
      fetchLimit: pageSize + 1,
      scope,
      filters,
      asOf: position.asOf,
    };
  }
  const pageSize = clampPageSize(paging.page_size ?? DEFAULT_PAGE_SIZE);
  const pageStart = Math.max(1, paging.page_start ?? 1);
  return { pageSize, pageStart, offset: (pageStart - 1) * pageSize, fetchLimit: pageSize + 1, scope, filters };
}

export interface PagedResult<T> {
  page_size: number;
  page_start: number;
  total_count: number;
  list: T[];
  list_filters: ListFilters;
  next_page: number | null;
  previous_page: number | null;
  project_last_modified_date: string | null;
  scroll_id: string | null;
  server_time: string;
  sort_column: string;
  sort_order: string;
  task_last_modified_date: string | null;
}

/**
 * Builds the PagedResponse from the fetched rows (at most fetchLimit, in id order).
 * `idOf` gives the keyset position of a row.
 */
export function pagedResponse<Row, Item>(args: {
  window: PageWindow;
  rows: Row[];
  idOf: (row: Row) => number;
  toItem: (row: Row) => Item;
  totalCount: number;
  lastModified: number | null;
  cursors: CursorCodec;
  /** A list read as of a moment: its server_time, carried by its cursor to the next page. */
  asOf?: number;
}): PagedResult<Item> {
  const { window, rows, totalCount } = args;
  const hasMore = rows.length > window.pageSize;
  const pageRows = hasMore ? rows.slice(0, window.pageSize) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    page_size: window.pageSize,
    page_start: window.pageStart,
    total_count: totalCount,
    list: pageRows.map(args.toItem),
    list_filters: window.filters,
    next_page: hasMore ? window.pageStart + 1 : null,
    previous_page: window.pageStart > 1 ? window.pageStart - 1 : null,
    project_last_modified_date: formatOptionalDateTime(args.lastModified) ?? null,
    scroll_id:
      hasMore && last !== undefined
        ? args.cursors.encode({
            afterId: args.idOf(last),
            page: window.pageStart + 1,
            pageSize: window.pageSize,
            scope: window.scope,
            asOf: args.asOf,
          })
        : null,
    server_time: formatDateTime(args.asOf ?? Date.now()),
    sort_column: 'id',
    sort_order: 'asc',
    task_last_modified_date: null,
  };
}
