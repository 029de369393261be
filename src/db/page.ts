import type { OrderByExpression, ReferenceExpression, SelectQueryBuilder } from 'kysely';

/** The part of a PageWindow (shared/paging.ts) a query needs. */
export interface PageSlice {
  /** Keyset mode: continue after this id. */
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
  } else if (window.offset > 0) {
    paged = paged.offset(window.offset);
  }
  return paged.orderBy(id as OrderByExpression<DB, TB, O>).limit(window.fetchLimit);
}
