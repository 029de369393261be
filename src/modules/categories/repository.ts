import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { newestUpdatedOn, pageOf, type PageSlice } from '../../db/page.js';
import type { Database } from '../../db/schema.js';
import { chunk } from '../../shared/bulk.js';
import type { CategoryRow } from './rows.js';

export interface CategoryFilters {
  parentCategoryCode?: string;
  searchText?: string;
}

/** Codes per `in (…)` list: well below the parameter limit of either database. */
const CODES_PER_QUERY = 10_000;

function applyFilters<O>(
  query: SelectQueryBuilder<Database, 'categories', O>,
  dialect: Dialect,
  filters: CategoryFilters,
) {
  let filtered = query.where('deleted_on', 'is', null);
  if (filters.parentCategoryCode !== undefined)
    filtered = filtered.where('parent_category_code', '=', filters.parentCategoryCode);
  if (filters.searchText !== undefined && filters.searchText !== '') {
    const text = filters.searchText;
    // PRODUCT §3.1: categories are searched on the name.
    filtered = filtered.where((eb) => dialect.containsInsensitive(eb.ref('category_name'), text));
  }
  return filtered;
}

export async function countCategories(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: CategoryFilters,
): Promise<number> {
  const row = await applyFilters(db.selectFrom('categories'), dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfCategories(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: CategoryFilters,
  window: PageSlice,
): Promise<CategoryRow[]> {
  return pageOf(applyFilters(db.selectFrom('categories').selectAll(), dialect, filters), 'id', window).execute();
}

/** Newest updated_on of any category (PRODUCT §3.1 project_last_modified_date; master data: every store's). */
export function categoriesLastModified(db: Kysely<Database>): Promise<number | null> {
  return newestUpdatedOn(db.selectFrom('categories'), 'updated_on');
}

/** Parent code of each live category among `codes` (absent codes are not live). */
export async function liveParentsOf(db: Kysely<Database>, codes: readonly string[]): Promise<Map<string, string>> {
  const parents = new Map<string, string>();
  for (const codeChunk of chunk(codes, CODES_PER_QUERY)) {
    const rows = await db
      .selectFrom('categories')
      .select(['category_code', 'parent_category_code'])
      .where('category_code', 'in', codeChunk)
      .where('deleted_on', 'is', null)
      .execute();
    for (const row of rows) parents.set(row.category_code, row.parent_category_code);
  }
  return parents;
}

/** Every live category's parent, for `store-ops verify`. */
export async function allLiveParents(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('categories')
    .select(['category_code', 'parent_category_code'])
    .where('deleted_on', 'is', null)
    .execute();
  return new Map(rows.map((row) => [row.category_code, row.parent_category_code]));
}
