import { sql, type Insertable, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { chunk } from '../../shared/bulk.js';
import { insertMany } from '../../db/insert-many.js';
import { newestUpdatedOn, pageOf, type PageSlice } from '../../db/page.js';
import type { Database, Executor, ProductListTable } from '../../db/schema.js';
import type { ListLine, StoredLine } from './line-rules.js';
import type { LineReadRow, ListReadRow, ListRow } from './rows.js';

/** The list type a handheld module creates (configuration: `store-ops productlists module`). */
export async function typeOfModule(db: Executor, moduleId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('product_list_modules')
    .select('type')
    .where('module_id', '=', moduleId)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.type);
}

export async function insertList(trx: Transaction<Database>, list: Insertable<ProductListTable>): Promise<number> {
  const row = await trx.insertInto('product_lists').values(list).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

const LINE_COLUMNS = ['list_id', 'line_no', 'product_id', 'quantity', 'stock_pool'] as const;

/** Lines appended to a list, numbered on from `afterLineNo`. */
export async function appendLines(
  trx: Transaction<Database>,
  dialect: Dialect,
  listId: number,
  afterLineNo: number,
  lines: readonly ListLine[],
): Promise<void> {
  const rows = lines.map((line, index) => [
    listId,
    afterLineNo + index + 1,
    line.productId,
    line.quantity,
    line.stockPool,
  ]);
  await insertMany(trx, dialect, 'product_list_lines', LINE_COLUMNS, rows);
}

/** The store's list, locked until the transaction ends: changes of one list run one after the other. */
export async function lockList(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  id: number,
): Promise<ListRow | undefined> {
  return dialect
    .lockForUpdate(trx.selectFrom('product_lists').selectAll().where('id', '=', id).where('store_id', '=', storeId))
    .executeTakeFirst();
}

/** A list's lines in list order, and the last position used. */
export async function storedLines(db: Executor, listId: number): Promise<{ lines: StoredLine[]; lastLineNo: number }> {
  const rows = await db
    .selectFrom('product_list_lines')
    .select(['line_no', 'product_id', 'quantity', 'stock_pool'])
    .where('list_id', '=', listId)
    .orderBy('line_no')
    .execute();
  return {
    lines: rows.map((row) => ({
      lineNo: Number(row.line_no),
      productId: Number(row.product_id),
      quantity: Number(row.quantity),
      stockPool: row.stock_pool,
    })),
    lastLineNo: rows.length === 0 ? 0 : Number(rows[rows.length - 1]!.line_no),
  };
}

/**
 * New quantities (and pools) of lines of one list: one statement per 500 lines, whatever the
 * request's size (a re-sent 5,000-line list is ten statements, not 5,000).
 */
export async function updateLines(
  trx: Transaction<Database>,
  listId: number,
  updates: ReadonlyArray<{ lineNo: number; quantity: number; stockPool: number | null }>,
): Promise<void> {
  for (const part of chunk(updates, 500)) {
    const quantity = sql<number>`case line_no ${sql.join(
      part.map((u) => sql`when ${u.lineNo} then cast(${u.quantity} as bigint)`),
      sql` `,
    )} end`;
    const stockPool = sql<number | null>`case line_no ${sql.join(
      part.map((u) => sql`when ${u.lineNo} then cast(${u.stockPool} as integer)`),
      sql` `,
    )} end`;
    await trx
      .updateTable('product_list_lines')
      .set({ quantity, stock_pool: stockPool })
      .where('list_id', '=', listId)
      .where(
        'line_no',
        'in',
        part.map((u) => u.lineNo),
      )
      .execute();
  }
}

export async function touchList(
  trx: Transaction<Database>,
  id: number,
  changes: Partial<Insertable<ProductListTable>> & { updated_on: number; modified_by: string },
): Promise<void> {
  await trx.updateTable('product_lists').set(changes).where('id', '=', id).execute();
}

/** Removes every line of the list; how many there were. */
export async function deleteLines(trx: Transaction<Database>, listId: number): Promise<number> {
  const result = await trx.deleteFrom('product_list_lines').where('list_id', '=', listId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteList(trx: Transaction<Database>, id: number): Promise<void> {
  await trx.deleteFrom('product_list_lines').where('list_id', '=', id).execute();
  await trx.deleteFrom('product_lists').where('id', '=', id).execute();
}

export interface ListFilters {
  storeId: number;
  archived: boolean;
  id?: number;
  type?: number;
  nameContains?: string;
  updatedFrom?: number;
}

function applyFilters<O>(
  query: SelectQueryBuilder<Database, 'product_lists', O>,
  dialect: Dialect,
  filters: ListFilters,
) {
  let filtered = query
    .where('product_lists.store_id', '=', filters.storeId)
    .where('product_lists.archived_on', filters.archived ? 'is not' : 'is', null);
  if (filters.id !== undefined) filtered = filtered.where('product_lists.id', '=', filters.id);
  if (filters.type !== undefined) filtered = filtered.where('product_lists.type', '=', filters.type);
  if (filters.updatedFrom !== undefined)
    filtered = filtered.where('product_lists.updated_on', '>=', filters.updatedFrom);
  const text = filters.nameContains;
  if (text !== undefined && text !== '')
    filtered = filtered.where((eb) => dialect.containsInsensitive(eb.ref('product_lists.name'), text));
  return filtered;
}

export async function countLists(db: Executor, dialect: Dialect, filters: ListFilters): Promise<number> {
  const row = await applyFilters(db.selectFrom('product_lists'), dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A page of lists with their line counts and type names. */
export function pageOfLists(
  db: Executor,
  dialect: Dialect,
  filters: ListFilters,
  window: PageSlice,
): Promise<ListReadRow[]> {
  const query = db
    .selectFrom('product_lists')
    .leftJoin('product_list_types as t', 't.type', 'product_lists.type')
    .selectAll('product_lists')
    .select('t.description as type_description')
    .select((eb) =>
      eb
        .selectFrom('product_list_lines as l')
        .select((inner) => inner.fn.countAll<number>().as('n'))
        .whereRef('l.list_id', '=', 'product_lists.id')
        .as('line_count'),
    );
  return pageOf(applyFilters(query, dialect, filters), 'product_lists.id', window).execute() as Promise<ListReadRow[]>;
}

/** Newest updated_on of the store's lists (PRODUCT §3.1 project_last_modified_date; the path names the store). */
export function listsLastModified(db: Executor, storeId: number): Promise<number | null> {
  return newestUpdatedOn(db.selectFrom('product_lists').where('store_id', '=', storeId), 'updated_on');
}

/**
 * The lines of the lists in list order (one key range per list), each with the lowest
 * `location_order` of the store's locations that hold a balance of its product (PRODUCT §8)
 * — an empty shelf is still the product's place, which is what a re-order list walks to.
 * What the master says of the product comes from product-details.ts.
 */
export async function readLines(
  db: Executor,
  storeId: number,
  listIds: readonly number[],
): Promise<Map<number, LineReadRow[]>> {
  const byList = new Map<number, LineReadRow[]>();
  for (const part of inListChunks([...new Set(listIds)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('product_list_lines as l')
      .select(['l.list_id', 'l.product_id', 'l.quantity', 'l.stock_pool'])
      .select((eb) =>
        eb
          .selectFrom('stock_balances as b')
          .innerJoin('locations as loc', 'loc.id', 'b.location_id')
          .select(sql<number | null>`min(loc.location_order)`.as('o'))
          .where('b.store_id', '=', storeId)
          .whereRef('b.product_id', '=', 'l.product_id')
          .where('b.location_id', '<>', 0)
          .where('loc.deleted_on', 'is', null)
          .as('store_walking_order'),
      )
      .where('l.list_id', 'in', part)
      .orderBy('l.list_id')
      .orderBy('l.line_no')
      .execute();
    for (const row of rows as LineReadRow[]) {
      const list = byList.get(Number(row.list_id));
      if (list) list.push(row);
      else byList.set(Number(row.list_id), [row]);
    }
  }
  return byList;
}
