import { sql, type Insertable, type Selectable, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { insertMany, insertManyReturningIds } from '../../db/insert-many.js';
import type { PageSlice } from '../../db/page.js';
import { pageOf } from '../../db/page.js';
import type { CountingAssignmentTable, CountingLineTable, Database, Executor } from '../../db/schema.js';
import type { ScopeBalance } from '../../domain/counting.js';

export type AssignmentRow = Selectable<CountingAssignmentTable>;
export type LineRow = Selectable<CountingLineTable>;

/** A line as read for the API: its product number and location code beside it. */
export type NamedLineRow = LineRow & { product_number: string; location_code: string | null };

const numbered = <T extends Record<string, unknown>>(row: T, columns: readonly (keyof T)[]): T => {
  for (const column of columns)
    if (row[column] !== null) (row as Record<keyof T, unknown>)[column] = Number(row[column]);
  return row;
};
const ASSIGNMENT_NUMBERS = [
  'id',
  'store_id',
  'zero_reason_code',
  'max_variance_quantity',
  'max_variance_value',
  'max_variance_percent',
  'due_at',
  'lines_total',
  'lines_counted',
  'lines_pending',
  'variance_quantity',
  'variance_value',
  'started_at',
  'submitted_at',
  'closed_at',
  'cancelled_at',
  'created_on',
  'updated_on',
] as const;
const LINE_NUMBERS = [
  'id',
  'assignment_id',
  'store_id',
  'product_id',
  'location_id',
  'pool',
  'expected',
  'purchase_price',
  'counted',
  'counted_at',
  'log_id',
  'log_at',
  'created_on',
  'updated_on',
] as const;
export const assignmentOf = (row: AssignmentRow): AssignmentRow => numbered(row, ASSIGNMENT_NUMBERS);
export const lineOf = <R extends LineRow>(row: R): R => numbered(row, LINE_NUMBERS as readonly (keyof R)[]);

export async function insertAssignment(
  trx: Transaction<Database>,
  row: Insertable<CountingAssignmentTable>,
): Promise<number> {
  const { id } = await trx.insertInto('counting_assignments').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(id);
}

/** The assignment of the store, locked for this transaction's changes (FOR UPDATE on PostgreSQL). */
export async function lockAssignment(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  id: number,
): Promise<AssignmentRow | undefined> {
  const row = await dialect
    .lockForUpdate(
      trx.selectFrom('counting_assignments').selectAll().where('store_id', '=', storeId).where('id', '=', id),
    )
    .executeTakeFirst();
  return row && assignmentOf(row);
}

export async function findAssignment(db: Executor, storeId: number, id: number): Promise<AssignmentRow | undefined> {
  const row = await db
    .selectFrom('counting_assignments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && assignmentOf(row);
}

/** The store's assignment holding `code` while not closed or cancelled (the code is its key then). */
export async function findOpenByCode(db: Executor, storeId: number, code: string): Promise<AssignmentRow | undefined> {
  const row = await db
    .selectFrom('counting_assignments')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('counting_assignment_code', '=', code)
    .where('status', 'in', ['open', 'counting', 'submitted'])
    .executeTakeFirst();
  return row && assignmentOf(row);
}

export function assignmentsOfStore(db: Executor, storeId: number, status: string | undefined) {
  let query = db.selectFrom('counting_assignments').where('store_id', '=', storeId);
  if (status !== undefined) query = query.where('status', '=', status);
  return query;
}

export async function pageOfAssignments(
  db: Executor,
  storeId: number,
  status: string | undefined,
  slice: PageSlice,
): Promise<AssignmentRow[]> {
  const rows = await pageOf(assignmentsOfStore(db, storeId, status).selectAll(), 'id', slice).execute();
  return rows.map(assignmentOf);
}

export async function updateAssignment(
  trx: Transaction<Database>,
  id: number,
  changes: Partial<Omit<CountingAssignmentTable, 'id'>>,
): Promise<void> {
  await trx.updateTable('counting_assignments').set(changes).where('id', '=', id).execute();
}

/** Live store products of the store that the scope's product selectors name (their union). */
export async function scopeProducts(
  trx: Transaction<Database>,
  storeId: number,
  selectors: { wholeStore: boolean; code?: string; productIds: readonly number[]; categoryCodes: readonly string[] },
): Promise<Array<{ productId: number; purchasePrice: number | null }>> {
  const rows = await trx
    .selectFrom('store_products as sp')
    .innerJoin('products as p', 'p.id', 'sp.product_id')
    .select(['sp.product_id', 'p.purchase_price'])
    .where('sp.store_id', '=', storeId)
    .where('sp.deleted_on', 'is', null)
    .$if(!selectors.wholeStore, (q) =>
      q.where((eb) => {
        const any = [];
        if (selectors.code !== undefined) any.push(eb('sp.counting_assignment_code', '=', selectors.code));
        if (selectors.productIds.length > 0) any.push(eb('sp.product_id', 'in', selectors.productIds));
        if (selectors.categoryCodes.length > 0) any.push(eb('p.category_code', 'in', selectors.categoryCodes));
        return any.length > 0 ? eb.or(any) : sql<boolean>`1 = 0`;
      }),
    )
    .orderBy('sp.product_id')
    .execute();
  return rows.map((row) => ({
    productId: Number(row.product_id),
    purchasePrice: row.purchase_price === null ? null : Number(row.purchase_price),
  }));
}

/** Products of the store with free stock at any of the locations (a scope of locations alone). */
export async function productsAtLocations(
  trx: Transaction<Database>,
  storeId: number,
  locationIds: readonly number[],
): Promise<Array<{ productId: number; purchasePrice: number | null }>> {
  if (locationIds.length === 0) return [];
  const rows = await trx
    .selectFrom('store_products as sp')
    .innerJoin('products as p', 'p.id', 'sp.product_id')
    .select(['sp.product_id', 'p.purchase_price'])
    .where('sp.store_id', '=', storeId)
    .where('sp.deleted_on', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('stock_balances as b')
          .select('b.id')
          .whereRef('b.store_id', '=', 'sp.store_id')
          .whereRef('b.product_id', '=', 'sp.product_id')
          .where('b.order_key', '=', '')
          .where('b.location_id', 'in', locationIds),
      ),
    )
    .orderBy('sp.product_id')
    .execute();
  return rows.map((row) => ({
    productId: Number(row.product_id),
    purchasePrice: row.purchase_price === null ? null : Number(row.purchase_price),
  }));
}

/** The free balances (not bound to a customer order) of the products in the store, as they stand. */
export async function freeBalances(
  trx: Transaction<Database>,
  storeId: number,
  productIds: readonly number[],
): Promise<ScopeBalance[]> {
  const balances: ScopeBalance[] = [];
  for (const ids of inListChunks(productIds, KEYS_PER_QUERY)) {
    const rows = await trx
      .selectFrom('stock_balances')
      .select(['product_id', 'location_id', 'pool', 'quantity'])
      .where('store_id', '=', storeId)
      .where('order_key', '=', '')
      .where('product_id', 'in', ids)
      .execute();
    for (const row of rows)
      balances.push({
        productId: Number(row.product_id),
        locationId: Number(row.location_id),
        pool: Number(row.pool),
        quantityMilli: Number(row.quantity),
      });
  }
  // A chunk padded with a repeated id reads its balances once: the list is unique by key already.
  return balances;
}

/** Which of the products another assignment of the store is counting, and which. */
export async function claimsOf(
  trx: Transaction<Database>,
  storeId: number,
  productIds: readonly number[],
): Promise<Map<number, number>> {
  const claims = new Map<number, number>();
  for (const ids of inListChunks([...new Set(productIds)], KEYS_PER_QUERY)) {
    const rows = await trx
      .selectFrom('counting_claims')
      .select(['product_id', 'assignment_id'])
      .where('store_id', '=', storeId)
      .where('product_id', 'in', ids)
      .execute();
    for (const row of rows) claims.set(Number(row.product_id), Number(row.assignment_id));
  }
  return claims;
}

export async function insertClaims(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  assignmentId: number,
  productIds: readonly number[],
): Promise<void> {
  if (productIds.length === 0) return;
  await insertMany(
    trx,
    dialect,
    'counting_claims',
    ['store_id', 'product_id', 'assignment_id'],
    productIds.map((productId) => [storeId, productId, assignmentId]),
  );
}

export async function releaseClaims(trx: Transaction<Database>, assignmentId: number): Promise<void> {
  await trx.deleteFrom('counting_claims').where('assignment_id', '=', assignmentId).execute();
}

const LINE_COLUMNS = [
  'assignment_id',
  'store_id',
  'product_id',
  'location_id',
  'pool',
  'is_extra',
  'expected',
  'purchase_price',
  'counted',
  'counted_at',
  'app_user_name',
  'status',
  'log_id',
  'log_at',
  'created_on',
  'updated_on',
] as const satisfies ReadonlyArray<keyof Insertable<CountingLineTable>>;

export async function insertLines(
  trx: Transaction<Database>,
  dialect: Dialect,
  lines: ReadonlyArray<Omit<Insertable<CountingLineTable>, 'id'>>,
): Promise<number[]> {
  if (lines.length === 0) return [];
  return insertManyReturningIds(
    trx,
    dialect,
    'counting_lines',
    LINE_COLUMNS,
    lines.map((line) => LINE_COLUMNS.map((column) => line[column] ?? null)),
  );
}

/** The assignment's lines of these products (the ones a request of counts can touch). */
export async function linesOfProducts(
  trx: Transaction<Database>,
  assignmentId: number,
  productIds: readonly number[],
): Promise<LineRow[]> {
  const lines: LineRow[] = [];
  const seen = new Set<number>();
  for (const ids of inListChunks([...new Set(productIds)], KEYS_PER_QUERY)) {
    const rows = await trx
      .selectFrom('counting_lines')
      .selectAll()
      .where('assignment_id', '=', assignmentId)
      .where('product_id', 'in', ids)
      .execute();
    for (const row of rows.map(lineOf)) if (!seen.has(row.id) && seen.add(row.id)) lines.push(row);
  }
  return lines;
}

export async function allLines(trx: Transaction<Database>, assignmentId: number): Promise<NamedLineRow[]> {
  const rows = await namedLines(trx).where('l.assignment_id', '=', assignmentId).orderBy('l.id').execute();
  return rows.map(lineOf);
}

export function namedLines(db: Executor) {
  return db
    .selectFrom('counting_lines as l')
    .innerJoin('products as p', 'p.id', 'l.product_id')
    .leftJoin('locations as loc', 'loc.id', 'l.location_id')
    .selectAll('l')
    .select(['p.product_number', 'loc.location_code']);
}

export async function pageOfLines(
  db: Executor,
  assignmentId: number,
  status: string | undefined,
  slice: PageSlice,
): Promise<NamedLineRow[]> {
  let query = namedLines(db).where('l.assignment_id', '=', assignmentId);
  if (status !== undefined) query = query.where('l.status', '=', status);
  const rows = await pageOf(query, 'l.id', slice).execute();
  return rows.map(lineOf);
}

export function linesOfAssignment(db: Executor, assignmentId: number, status: string | undefined) {
  let query = db.selectFrom('counting_lines').where('assignment_id', '=', assignmentId);
  if (status !== undefined) query = query.where('status', '=', status);
  return query;
}

/** A line's count, or its booking: every line of one request in one statement. */
export interface LineChange {
  id: number;
  counted: number | null;
  countedAt: number | null;
  appUserName: string | null;
  status: string;
  logId: number | null;
  logAt: number | null;
}

export async function updateLines(
  trx: Transaction<Database>,
  dialect: Dialect,
  changes: readonly LineChange[],
  now: number,
): Promise<void> {
  for (let start = 0; start < changes.length; start += KEYS_PER_QUERY) {
    const part = changes.slice(start, start + KEYS_PER_QUERY);
    await sql`
      update counting_lines set counted = v.counted, counted_at = v.counted_at, app_user_name = v.app_user_name,
        status = v.status, log_id = v.log_id, log_at = v.log_at, updated_on = ${now}
      from ${dialect.rowsSource(
        'v',
        [
          { name: 'id', type: 'bigint' },
          { name: 'counted', type: 'bigint' },
          { name: 'counted_at', type: 'bigint' },
          { name: 'app_user_name', type: 'text' },
          { name: 'status', type: 'text' },
          { name: 'log_id', type: 'bigint' },
          { name: 'log_at', type: 'bigint' },
        ],
        part.map((c) => [c.id, c.counted, c.countedAt, c.appUserName, c.status, c.logId, c.logAt]),
      )}
      where counting_lines.id = v.id`.execute(trx);
  }
}

/**
 * The level of each line's balance at a moment (every applied entry at or before it, PRODUCT
 * §5 counts): the balance now less what was booked after the moment, which for a count just
 * scanned is a short read from its moment on (ledger index by balance and moment).
 */
export async function levelsAt(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  lines: ReadonlyArray<{ id: number; productId: number; locationId: number; pool: number; at: number }>,
): Promise<Map<number, number>> {
  const levels = new Map<number, number>();
  // A store the planner has no statistics for yet (a fresh store, a large load since the last
  // analyze) gets this statement estimated in the millions and its plan compiled: ~0.8 s for
  // ~30 ms of execution at 5,000 lines. Counts and submission run no analytical scan.
  if (lines.length > 0) await dialect.withoutPlanCompiling(trx);
  for (let start = 0; start < lines.length; start += KEYS_PER_QUERY) {
    const part = lines.slice(start, start + KEYS_PER_QUERY);
    const { rows } = await sql<{ id: number; quantity: number | null; later: number | null }>`
      select v.id, b.quantity,
        (select sum(g.delta) from stock_ledger g where g.balance_id = b.id and g.at > v.at) as later
      from ${dialect.rowsSource(
        'v',
        [
          { name: 'id', type: 'bigint' },
          { name: 'product_id', type: 'bigint' },
          { name: 'location_id', type: 'bigint' },
          { name: 'pool', type: 'bigint' },
          { name: 'at', type: 'bigint' },
        ],
        part.map((l) => [l.id, l.productId, l.locationId, l.pool, l.at]),
      )}
      left join stock_balances b on b.store_id = ${storeId} and b.product_id = v.product_id
        and b.location_id = v.location_id and b.pool = v.pool and b.order_key = ''`.execute(trx);
    for (const row of rows) levels.set(Number(row.id), Number(row.quantity ?? 0) - Number(row.later ?? 0));
  }
  return levels;
}
