import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import { upsertByKey } from '../../db/bulk-upsert.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { importFingerprint, importUnlessIdentical } from '../../db/versions.js';
import { describeCounts, duplicateKeyErrors } from '../../shared/bulk.js';
import { unprocessable, validationFailed } from '../../shared/errors.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import type { FieldError } from '../../shared/validation.js';
import { hierarchyProblems } from './hierarchy.js';
import { invalidMarkdownPercentages, toCategory, toCategoryRecord } from './mapping.js';
import * as categories from './repository.js';
import { CategoriesQuery, ROOT_CATEGORY_CODE, type CategoriesBody, type Category } from './schema.js';

/** POST /categories: bulk upsert by category_code, atomic, with flush (interface §4.10, PRODUCT §3). */
export async function importCategories(
  ctx: AppContext,
  body: CategoriesBody,
  flush: boolean,
  actor: string,
  bodyHash?: string,
): Promise<string> {
  const requestErrors = [
    ...duplicateKeyErrors(body.categories, (c) => c.category_code, 'categories', 'category_code'),
    ...lineErrors(body),
  ];
  if (requestErrors.length > 0) throw validationFailed('Some categories are invalid', requestErrors);
  const counts = await inTransaction(
    ctx.handle,
    (trx) =>
      importUnlessIdentical(trx, ctx.dialect, 'categories', importFingerprint(bodyHash, flush), async () => {
        const records = body.categories.map(toCategoryRecord);
        await assertHierarchy(trx, records, flush);
        return upsertByKey(trx, ctx.dialect, {
          table: 'categories',
          keyColumn: 'category_code',
          records,
          actor,
          now: Date.now(),
          flush,
        });
      }),
    { serialise: ['categories'] },
  );
  return describeCounts(counts);
}

/** Rules checkable from the request alone (PRODUCT §3: 400). */
function lineErrors(body: CategoriesBody): FieldError[] {
  const errors: FieldError[] = [];
  body.categories.forEach((category, index) => {
    if (category.category_code === ROOT_CATEGORY_CODE) {
      errors.push({
        path: `categories[${index}].category_code`,
        message: `'${ROOT_CATEGORY_CODE}' is reserved for the root (parent_category_code of top-level categories)`,
      });
    }
    const badParts =
      category.markdown_percentages === undefined ? [] : invalidMarkdownPercentages(category.markdown_percentages);
    if (badParts.length > 0) {
      errors.push({
        path: `categories[${index}].markdown_percentages`,
        message: `must be comma-separated percentages from 0 to 100 (at most 2 decimals); not: ${badParts.map((p) => `'${p.trim()}'`).join(', ')}`,
      });
    }
  });
  return errors;
}

/**
 * Parents must exist after the import and never form a cycle. A parent may come
 * anywhere in the same request; without flush it may also be a live stored category,
 * with flush every category absent from the request is about to be soft-deleted, so the
 * request must hold its own parents. Needs stored data, so it is a 422 (PRODUCT §3).
 */
async function assertHierarchy(
  trx: Transaction<Database>,
  records: ReadonlyArray<{ category_code: string; parent_category_code: string }>,
  flush: boolean,
): Promise<void> {
  const batch = new Map(records.map((r) => [r.category_code, r.parent_category_code]));
  const stored = flush ? new Map<string, string>() : await storedAncestors(trx, batch);
  const problems = hierarchyProblems([...batch.keys()], (code) => batch.get(code) ?? stored.get(code));
  if (problems.length === 0) return;

  const lineOf = new Map(records.map((r, index) => [r.category_code, index]));
  const errors = problems.map((problem): FieldError => {
    const path = `categories[${lineOf.get(problem.code)}].parent_category_code`;
    if (problem.kind === 'cycle') return { path, message: `closes a cycle of parents: ${problem.cycle.join(' → ')}` };
    return {
      path,
      message: flush
        ? `parent category '${problem.parent}' is not in this request (flush=true soft-deletes every category absent from it)`
        : `parent category '${problem.parent}' is neither in this request nor a live category`,
    };
  });
  const cycles = problems.filter((p) => p.kind === 'cycle').length;
  const unknown = problems.length - cycles;
  const said = [
    unknown > 0 ? `${unknown} with an unknown parent` : '',
    cycles > 0 ? `${cycles} parent cycle(s)` : '',
  ].filter(Boolean);
  throw unprocessable(`Category parents are inconsistent: ${said.join(', ')}`, errors);
}

/**
 * Parents of the stored live categories the request hangs under, up to the root: one
 * query per tree level, only along the request's own ancestry. A code the request
 * sends is taken from the request (its stored parent is about to change).
 */
async function storedAncestors(trx: Transaction<Database>, batch: Map<string, string>): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  const asked = new Set<string>();
  let candidates = [...batch.values()];
  for (;;) {
    const next = [...new Set(candidates)].filter(
      (code) => code !== ROOT_CATEGORY_CODE && !batch.has(code) && !asked.has(code),
    );
    if (next.length === 0) return known;
    for (const code of next) asked.add(code);
    const found = await categories.liveParentsOf(trx, next);
    for (const [code, parent] of found) known.set(code, parent);
    candidates = [...found.values()];
  }
}

/** GET /categories (interface §4.10, PRODUCT §6): paged, every role reads. */
export async function listCategories(ctx: AppContext, query: CategoriesQuery): Promise<PagedResult<Category>> {
  // module_id selects nothing here (no modules exist); echoed so clients see it was accepted.
  const window = resolvePage(query, CategoriesQuery, 'categories', ctx.cursors);
  const categoryFilters: categories.CategoryFilters = {
    parentCategoryCode: query.parent_category_code,
    searchText: query.search_text,
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    categories.pageOfCategories(ctx.db, ctx.dialect, categoryFilters, window),
    categories.countCategories(ctx.db, ctx.dialect, categoryFilters),
    categories.categoriesLastModified(ctx.db),
  ]);
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: toCategory,
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
