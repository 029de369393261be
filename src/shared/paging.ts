import { createHash } from 'node:crypto';
import { formatDateTime, formatOptionalDateTime } from '../domain/datetime.js';
import type { CursorCodec } from './cursor.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface PageQuery {
  page_size?: number;
  page_start?: number;
  scroll_id?: string;
}

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
  scope: string;
}

export type ListFilters = Record<string, string[]>;

/** Active filters echoed as arrays of strings (PRODUCT §3.1 list_filters). */
export function listFilters(filters: Record<string, unknown>): ListFilters {
  const echoed: ListFilters = {};
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    echoed[name] = Array.isArray(value) ? value.map(String) : [String(value)];
  }
  return echoed;
}

const clampPageSize = (size: number) => Math.min(MAX_PAGE_SIZE, Math.max(1, size));

/**
 * Resolves paging parameters: defaults, clamps (page_size 1..1000, page_start ≥ 1) and
 * the scroll cursor, which wins over page_start and is bound to the resource and filters.
 * A request with only `scroll_id` keeps the page size the cursor was issued with.
 */
export function resolvePage(query: PageQuery, resource: string, filters: ListFilters, cursors: CursorCodec): PageWindow {
  const scope = createHash('sha1').update(resource).update(JSON.stringify(filters)).digest('base64url').slice(0, 16);
  if (query.scroll_id) {
    const position = cursors.decode(query.scroll_id, scope);
    const pageSize = clampPageSize(query.page_size ?? position.pageSize);
    return { pageSize, pageStart: position.page, afterId: position.afterId, offset: 0, fetchLimit: pageSize + 1, scope };
  }
  const pageSize = clampPageSize(query.page_size ?? DEFAULT_PAGE_SIZE);
  const pageStart = Math.max(1, query.page_start ?? 1);
  return { pageSize, pageStart, offset: (pageStart - 1) * pageSize, fetchLimit: pageSize + 1, scope };
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
  filters: ListFilters;
  lastModified: number | null;
  cursors: CursorCodec;
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
    list_filters: args.filters,
    next_page: hasMore ? window.pageStart + 1 : null,
    previous_page: window.pageStart > 1 ? window.pageStart - 1 : null,
    project_last_modified_date: formatOptionalDateTime(args.lastModified) ?? null,
    scroll_id:
      hasMore && last !== undefined
        ? args.cursors.encode({ afterId: args.idOf(last), page: window.pageStart + 1, pageSize: window.pageSize, scope: window.scope })
        : null,
    server_time: formatDateTime(Date.now()),
    sort_column: 'id',
    sort_order: 'asc',
    task_last_modified_date: null,
  };
}
