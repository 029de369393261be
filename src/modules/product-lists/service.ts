import type { AppContext } from '../../app-context.js';
import { inTransaction } from '../../db/transaction.js';
import { requireDateTime } from '../../domain/datetime.js';
import { duplicateKeyErrors } from '../../shared/bulk.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../shared/errors.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import type { FieldError } from '../../shared/validation.js';
import { heldProductsByNumbers } from '../products/held.js';
import { liveProductIds } from '../products/repository.js';
import { requireLiveStore } from '../stores/repository.js';
import { lineQuantity, newListLines, planLineUpdate, type SentLine } from './line-rules.js';
import { toListLine, toProductList } from './mapping.js';
import { productDetails } from './product-details.js';
import * as lists from './repository.js';
import {
  ListsQuery,
  MAX_LIST_LINES,
  type CreateListBody,
  type DeleteQuery,
  type ProductList,
  type ProductListLine,
  type UpdateLineInput,
  type UpdateLinesResult,
} from './schema.js';

const DEFAULT_APP_USERNAME = 'unknown';
/** At most this many unknown product numbers are named in a line update's message. */
const NAMED_SKIPS = 10;

const listNotFound = (id: number, storeNumber: string) => notFound(`Store '${storeNumber}' has no product list ${id}`);

/**
 * POST /stores/{s}/productlists (interface §4.1): a new list with its first lines, atomic.
 * The type is the module's configured type when `module_id` is sent (422 for a module not
 * configured), else `product_list_type`. Lines of unknown products are skipped.
 */
export async function createList(
  ctx: AppContext,
  storeNumber: string,
  body: CreateListBody,
  appUsername: string | undefined,
  actor: string,
): Promise<number> {
  const freeFields = body.free_fields ?? [];
  const errors = duplicateKeyErrors(freeFields, (field) => field.key, 'free_fields', 'key');
  if (errors.length > 0) throw validationFailed('The product list is invalid', errors);
  const store = await requireLiveStore(ctx.db, storeNumber);
  return inTransaction(ctx.handle, async (trx) => {
    let type = body.product_list_type;
    if (body.module_id !== undefined) {
      const configured = await lists.typeOfModule(trx, body.module_id);
      if (configured === undefined)
        throw unprocessable('Unknown module', [
          { path: 'module_id', message: `no list type is configured for module ${body.module_id}` },
        ]);
      type = configured;
    }
    const sent = body.lines ?? [];
    const products = await liveProductIds(
      trx,
      sent.map((line) => line.product_number),
    );
    const resolved = sent.map(
      (line, index): SentLine => ({
        path: `lines[${index}]`,
        productNumber: line.product_number,
        productId: products.get(line.product_number),
        quantity: lineQuantity(line.quantity),
      }),
    );
    const allowDuplicates = body.is_allow_duplicate_products ?? true;
    const planned = newListLines(resolved, allowDuplicates);
    const now = Date.now();
    const id = await lists.insertList(trx, {
      store_id: store.id,
      store_number: store.store_number,
      name: body.product_list_name,
      type,
      module_id: body.module_id ?? null,
      // Sent empty is not a user either: the list belongs to "unknown" as when it is left out.
      app_username: appUsername === undefined || appUsername.trim() === '' ? DEFAULT_APP_USERNAME : appUsername,
      allow_duplicates: allowDuplicates ? 1 : 0,
      free_fields: JSON.stringify(freeFields.map(({ key, value }) => ({ key, value }))),
      archived_on: null,
      created_on: now,
      updated_on: now,
      created_by: actor,
      modified_by: actor,
    });
    await lists.appendLines(trx, ctx.dialect, id, 0, planned.lines);
    return id;
  });
}

/** The product a line update names: `product_number`, or the deprecated `article_no` (interface §9). */
function productNumberOf(line: UpdateLineInput, index: number, errors: FieldError[]): string | undefined {
  if (line.product_number !== undefined && line.article_no !== undefined && line.product_number !== line.article_no) {
    errors.push({
      path: `lines[${index}].article_no`,
      message: `names product '${line.article_no}', product_number names '${line.product_number}'`,
    });
    return undefined;
  }
  const number = line.product_number ?? line.article_no;
  if (number === undefined)
    errors.push({
      path: `lines[${index}].product_number`,
      message: 'must name the product (product_number, or the deprecated article_no)',
    });
  return number;
}

function describeUpdate(
  counts: { added: number; updated: number; unchanged: number },
  skipped: readonly string[],
): string {
  const parts = [`added ${counts.added}`, `updated ${counts.updated}`, `unchanged ${counts.unchanged}`];
  if (skipped.length > 0) {
    const named = [...new Set(skipped)];
    const shown = named
      .slice(0, NAMED_SKIPS)
      .map((number) => `'${number}'`)
      .join(', ');
    parts.push(`skipped ${skipped.length} (unknown products: ${shown}${named.length > NAMED_SKIPS ? ', …' : ''})`);
  }
  return parts.join(', ');
}

/**
 * POST /stores/{s}/productlists/{id} (interface §4.1): adds or updates lines by product, atomic
 * (line-rules.ts planLineUpdate). An archived list is read-only (409); an unknown list is a 404.
 */
export async function updateLines(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  sentLines: readonly UpdateLineInput[],
  actor: string,
): Promise<UpdateLinesResult> {
  const errors: FieldError[] = [];
  const numbers = sentLines.map((line, index) => productNumberOf(line, index, errors));
  if (errors.length > 0) throw validationFailed('Some lines do not name their product', errors);
  const store = await requireLiveStore(ctx.db, storeNumber);
  const message = await inTransaction(ctx.handle, async (trx) => {
    const list = await lists.lockList(trx, ctx.dialect, store.id, id);
    if (!list) throw listNotFound(id, storeNumber);
    if (list.archived_on !== null) throw conflict(`Product list ${id} is archived: its lines no longer change`);
    // Deleted products resolve too: a line the update leaves as it is keeps its product (PRODUCT §3).
    const products = await heldProductsByNumbers(trx, numbers as string[]);
    const resolved = sentLines.map(
      (line, index): SentLine => ({
        path: `lines[${index}]`,
        productNumber: numbers[index]!,
        productId: products.get(numbers[index]!)?.id,
        deleted: products.get(numbers[index]!)?.live === false,
        quantity: lineQuantity(line.quantity),
        stockPool: line.stock_pool === undefined ? undefined : Number(line.stock_pool),
      }),
    );
    const stored = await lists.storedLines(trx, id);
    const plan = planLineUpdate(stored.lines, resolved);
    if (plan.errors.length > 0) throw validationFailed('Some lines are invalid', plan.errors);
    const total = stored.lines.length + plan.inserts.length;
    if (total > MAX_LIST_LINES) {
      throw unprocessable('The list would be too long', [
        { path: 'lines', message: `the list would hold ${total} lines; a list holds at most ${MAX_LIST_LINES}` },
      ]);
    }
    await lists.updateLines(trx, id, plan.updates);
    await lists.appendLines(trx, ctx.dialect, id, stored.lastLineNo, plan.inserts);
    // A request that changes nothing leaves modified_on alone, so incremental reads stay quiet (PRODUCT §3).
    if (plan.updates.length + plan.inserts.length > 0)
      await lists.touchList(trx, id, { updated_on: Date.now(), modified_by: actor });
    return describeUpdate(
      { added: plan.inserts.length, updated: plan.updates.length, unchanged: plan.unchanged },
      plan.skipped,
    );
  });
  return { code: 200, status: 'success', message, data: String(id) };
}

/**
 * DELETE /stores/{s}/productlists (interface §4.1, PRODUCT §8): `is_archived=true` archives the
 * list (lines kept), else `is_delete_header=true` removes it with its lines, else only its
 * lines go. true when the list exists (something was deleted or archived), false when not.
 */
export async function deleteList(
  ctx: AppContext,
  storeNumber: string,
  query: DeleteQuery,
  actor: string,
): Promise<boolean> {
  const store = await requireLiveStore(ctx.db, storeNumber);
  return inTransaction(ctx.handle, async (trx) => {
    const list = await lists.lockList(trx, ctx.dialect, store.id, query.product_list_id);
    if (!list) return false;
    const now = Date.now();
    if (query.is_archived === true) {
      if (list.archived_on === null)
        await lists.touchList(trx, list.id, { archived_on: now, updated_on: now, modified_by: actor });
    } else if (query.is_delete_header === true) {
      await lists.deleteList(trx, list.id);
    } else if ((await lists.deleteLines(trx, list.id)) > 0) {
      await lists.touchList(trx, list.id, { updated_on: now, modified_by: actor });
    }
    return true;
  });
}

/** The lines of the lists as read (interface §2.1), each with its product as the master says now. */
async function readListLines(
  ctx: AppContext,
  storeId: number,
  listIds: readonly number[],
): Promise<Map<number, ProductListLine[]>> {
  const rows = await lists.readLines(ctx.db, storeId, listIds);
  const products = await productDetails(
    ctx.db,
    ctx.handle,
    [...rows.values()].flatMap((lines) => lines.map((line) => Number(line.product_id))),
  );
  const read = new Map<number, ProductListLine[]>();
  for (const [listId, lines] of rows)
    read.set(
      listId,
      lines.map((line) => toListLine(line, products.get(Number(line.product_id))!)),
    );
  return read;
}

/** GET /stores/{s}/productlists (interface §4.1, §2.1): the store's lists, lines only with show_lines=true. */
export async function listLists(
  ctx: AppContext,
  storeNumber: string,
  query: ListsQuery,
): Promise<PagedResult<ProductList>> {
  const store = await requireLiveStore(ctx.db, storeNumber);
  const window = resolvePage(query, ListsQuery, `product_lists:${store.id}`, ctx.cursors);
  const filters: lists.ListFilters = {
    storeId: store.id,
    archived: query.is_archived === true,
    id: query.product_list_id,
    type: query.type,
    nameContains: query.name,
    updatedFrom: query.last_updated_on === undefined ? undefined : requireDateTime(query.last_updated_on),
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    lists.pageOfLists(ctx.db, ctx.dialect, filters, window),
    lists.countLists(ctx.db, ctx.dialect, filters),
    lists.listsLastModified(ctx.db, store.id),
  ]);
  const lines =
    query.show_lines === true
      ? await readListLines(
          ctx,
          store.id,
          rows.slice(0, window.pageSize).map((row) => Number(row.id)),
        )
      : undefined;
  return pagedResponse({
    window,
    rows,
    idOf: (row) => Number(row.id),
    toItem: (row) => toProductList(row, lines === undefined ? undefined : (lines.get(Number(row.id)) ?? [])),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
