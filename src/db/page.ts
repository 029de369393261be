import type { OrderByExpression, ReferenceExpression, SelectQueryBuilder } from 'kysely';
import { columnIn } from './in-list.js';

/** The part of a PageWindow (shared/paging.ts) a query needs. */
export interface PageSlice {
  /** Keyset mode: continue after this id (then skip `offset` more, if any). */
  afterId?: number;
  /** Offset mode: skip this many records. */
  offset: number;
  /** Records to fetch (a page and one more). */
  fetchLimit: number;
}

/**
 * One page of a list in `id` order (PRODUCT §3.1): after the cursor's id when the request
 * scrolls (keyset: page 10,000 costs what page 1 does), else from the offset, and one
 * record more than a page so the caller knows whether another follows. `grouped` lists
 * (an aggregate as the id, e.g. the smallest balance id of a group) compare it in HAVING.
 */
export function pageOf<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  id: ReferenceExpression<DB, TB>,
  window: PageSlice,
  options: { grouped?: boolean } = {},
): SelectQueryBuilder<DB, TB, O> {
  let paged = query;
  if (window.afterId !== undefined) {
    // Kysely cannot relate a generic reference to its value type; the id is always a number.
    const afterId = window.afterId as never;
    paged = options.grouped ? paged.having(id, '>', afterId) : paged.where(id, '>', afterId);
  }
  // With afterId too: a remembered position a few pages back (stock-logs/log-pull.ts).
  if (window.offset > 0) paged = paged.offset(window.offset);
  return paged.orderBy(id as OrderByExpression<DB, TB, O>).limit(window.fetchLimit);
}

/**
 * The stores a list answers for (PRODUCT §4, shared/access.ts listScope): store numbers, or
 * undefined for every store. A list's rows, its total_count and its project_last_modified_date
 * are all restricted by it — through inStores — so no figure of a list can show a store its
 * rows may not.
 */
export type StoreScope = readonly string[] | undefined;

/** The rows of `query` in the stores of `scope` (`column` holds the store number); every row when undefined. */
export function inStores<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: ReferenceExpression<DB, TB>,
  scope: StoreScope,
): SelectQueryBuilder<DB, TB, O> {
  if (scope === undefined) return query;
  return query.where((eb) => columnIn(eb, column, scope as never));
}

/**
 * project_last_modified_date (PRODUCT §3.1): the newest `updated_on` of a list's resource —
 * of `query`, which is the resource's table restricted by the list's StoreScope (inStores)
 * and by nothing else: the figure is of the resource type as the caller may see it, not of
 * the page's other filters. Null when there is none.
 */
export async function newestUpdatedOn<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: ReferenceExpression<DB, TB>,
): Promise<number | null> {
  const row = (await query.select((eb) => eb.fn.max(column as never).as('last')).executeTakeFirst()) as
    | { last: unknown }
    | undefined;
  return row?.last === null || row?.last === undefined ? null : Number(row.last);
}
