import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import { newestUpdatedOn } from '../../db/page.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { type AssignmentStep, planLines, stepAllowed } from '../../domain/counting.js';
import { requireDateTime } from '../../domain/datetime.js';
import { requireStore } from '../../ledger/intake.js';
import type { BookingStore } from '../../ledger/types.js';
import type { Principal } from '../../shared/access.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../shared/errors.js';
import { pagedResponse, type PagedResult, resolvePage } from '../../shared/paging.js';
import type { FieldError } from '../../shared/validation.js';
import { assignmentColumns, readsBlind, toAssignment, toLine } from './mapping.js';
import * as repo from './repository.js';
import { type Assignment, type AssignmentBody, type Line, ListQuery, LinesQuery, type Scope } from './schema.js';

/** reason_code_type of a count reason code (interface §2.6): a full count's zeroing entries carry one. */
const COUNT_REASON_TYPE = 6;

/**
 * Every write of a store's assignments takes the store's turn (db/transaction.ts serialise):
 * two starts racing see each other's claims, and a count racing the submission is either in
 * it or refused after it (PRODUCT §10). PostgreSQL: an advisory lock; SQLite: its one writer.
 */
export function inStoreTurn<T>(
  ctx: AppContext,
  store: BookingStore,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return inTransaction(ctx.handle, work, { serialise: [`counting_assignments:${store.id}`] });
}

/** The assignment, locked, or 404; then a 409 naming its status if `step` is not allowed from it. */
export async function assignmentFor(
  ctx: AppContext,
  trx: Transaction<Database>,
  store: BookingStore,
  id: number,
  step: AssignmentStep,
): Promise<repo.AssignmentRow> {
  const row = await repo.lockAssignment(trx, ctx.dialect, store.id, id);
  if (!row) throw notFound(`No counting assignment ${id} in store '${store.store_number}'`);
  if (!stepAllowed(step, row.status)) {
    throw conflict(`Counting assignment ${id} is ${row.status}: it cannot ${STEP_WORDS[step]}`, [
      { path: 'status', message: `is ${row.status}` },
    ]);
  }
  return row;
}

const STEP_WORDS: Record<AssignmentStep, string> = {
  start: 'start counting (only an open assignment starts)',
  count: 'take counts (only while counting)',
  submit: 'be submitted (only while counting)',
  cancel: 'be cancelled (only while open or counting)',
};

/** The next updated_on: always moving, so the feed's trigger sees every change (migration 0033). */
export const nextStamp = (row: repo.AssignmentRow, now: number) => Math.max(now, row.updated_on + 1);

/** Rules the request alone can break (PRODUCT §3: 400 naming the fields). */
function checkBody(body: AssignmentBody): void {
  const errors: FieldError[] = [];
  const { scope } = body;
  const selectors = [scope.counting_assignment_code, scope.product_numbers, scope.category_codes, scope.location_codes];
  if (scope.whole_store === true && selectors.some((s) => s !== undefined))
    errors.push({ path: 'scope.whole_store', message: 'counts every store product: give no other scope with it' });
  if (scope.whole_store !== true && selectors.every((s) => s === undefined || (Array.isArray(s) && s.length === 0)))
    errors.push({
      path: 'scope',
      message:
        'must name what to count: counting_assignment_code, product_numbers, category_codes, location_codes or whole_store',
    });
  if (body.kind === 'full' && body.zero_reason_code === undefined)
    errors.push({
      path: 'zero_reason_code',
      message: 'is required for a full count: the uncounted lines are zeroed with it',
    });
  if (errors.length > 0) throw validationFailed('The counting assignment is invalid', errors);
}

/** What the scope names must exist (PRODUCT §3: 422 naming the value). */
async function checkReferences(
  ctx: AppContext,
  trx: Transaction<Database>,
  store: BookingStore,
  body: AssignmentBody,
): Promise<void> {
  const { lookups } = ctx.ledger.policies;
  const errors: FieldError[] = [];
  if (body.zero_reason_code !== undefined) {
    const reason = (await lookups.reasonCodes(trx, [body.zero_reason_code])).get(body.zero_reason_code);
    if (!reason) errors.push({ path: 'zero_reason_code', message: `unknown reason code ${body.zero_reason_code}` });
    else if (reason.reason_code_type !== COUNT_REASON_TYPE)
      errors.push({
        path: 'zero_reason_code',
        message: `reason code ${reason.reason_code} is of type ${reason.reason_code_type}, not a count code (type ${COUNT_REASON_TYPE})`,
      });
  }
  const numbers = body.scope.product_numbers ?? [];
  const products = await lookups.productsByNumber(trx, numbers);
  numbers.forEach((n, i) => {
    if (!products.has(n)) errors.push({ path: `scope.product_numbers[${i}]`, message: `unknown product '${n}'` });
  });
  const codes = body.scope.category_codes ?? [];
  const categories = await knownCategories(trx, codes);
  codes.forEach((c, i) => {
    if (!categories.has(c)) errors.push({ path: `scope.category_codes[${i}]`, message: `unknown category '${c}'` });
  });
  const locationCodes = body.scope.location_codes ?? [];
  const locations = await lookups.locations(trx, store.id, locationCodes);
  locationCodes.forEach((c, i) => {
    if (!locations.has(c))
      errors.push({ path: `scope.location_codes[${i}]`, message: `unknown location '${c}' in this store` });
  });
  if (errors.length > 0) throw unprocessable('The counting assignment refers to unknown data', errors);
}

async function knownCategories(trx: Transaction<Database>, codes: readonly string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await trx
    .selectFrom('categories')
    .select('category_code')
    .where('category_code', 'in', codes)
    .where('deleted_on', 'is', null)
    .execute();
  return new Set(rows.map((row) => row.category_code));
}

/** POST /stores/{s}/countingassignments (PRODUCT §10). */
export async function createAssignment(
  ctx: AppContext,
  storeNumber: string,
  body: AssignmentBody,
  by: Principal,
): Promise<Assignment> {
  checkBody(body);
  const dueAt = body.due_datetime === undefined ? null : requireDateTime(body.due_datetime);
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inStoreTurn(ctx, store, async (trx) => {
    const now = Date.now();
    const code = body.counting_assignment_code;
    if (code !== undefined) {
      const holder = await repo.findOpenByCode(trx, store.id, code);
      if (holder)
        throw conflict(
          `Counting assignment ${holder.id} of store '${storeNumber}' already has code '${code}' and is ${holder.status}`,
          [{ path: 'counting_assignment_code', message: `is counting assignment ${holder.id}'s` }],
        );
    }
    await checkReferences(ctx, trx, store, body);
    const id = await repo.insertAssignment(trx, {
      store_id: store.id,
      store_number: store.store_number,
      ...assignmentColumns(body),
      due_at: dueAt,
      status: 'open',
      lines_total: 0,
      lines_counted: 0,
      lines_pending: 0,
      variance_quantity: 0,
      variance_value: 0,
      created_on: now,
      updated_on: now,
      created_by: by.name,
      modified_by: by.name,
    });
    return toAssignment((await repo.findAssignment(trx, store.id, id))!, by);
  });
}

/** POST …/{id}/start: the lines are fixed with the levels expected now (PRODUCT §10). */
export async function startAssignment(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  by: Principal,
): Promise<Assignment> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inStoreTurn(ctx, store, async (trx) => {
    const row = await assignmentFor(ctx, trx, store, id, 'start');
    const now = Date.now();
    const scope = JSON.parse(row.scope) as Scope;
    const { lookups } = ctx.ledger.policies;
    const products = [...(await lookups.productsByNumber(trx, scope.product_numbers ?? [])).values()];
    const locations = [...(await lookups.locations(trx, store.id, scope.location_codes ?? [])).values()];
    const locationIds = scope.location_codes === undefined ? undefined : new Set(locations.map((l) => l.id));
    const byProducts =
      scope.whole_store === true ||
      scope.counting_assignment_code !== undefined ||
      scope.product_numbers !== undefined ||
      scope.category_codes !== undefined;
    const inScope = byProducts
      ? await repo.scopeProducts(trx, store.id, {
          wholeStore: scope.whole_store === true,
          code: scope.counting_assignment_code,
          productIds: products.map((p) => p.id),
          categoryCodes: scope.category_codes ?? [],
        })
      : await repo.productsAtLocations(trx, store.id, [...(locationIds ?? [])]);
    const productIds = inScope.map((p) => p.productId);
    const prices = new Map(inScope.map((p) => [p.productId, p.purchasePrice]));
    const planned = planLines(productIds, await repo.freeBalances(trx, store.id, productIds), locationIds);
    const counted = [...new Set(planned.map((line) => line.productId))];
    await refuseClaimed(ctx, trx, store, counted, id);
    await repo.insertLines(
      trx,
      ctx.dialect,
      planned.map((line) => ({
        assignment_id: id,
        store_id: store.id,
        product_id: line.productId,
        location_id: line.locationId,
        pool: line.pool,
        is_extra: 0,
        expected: line.expectedMilli,
        purchase_price: prices.get(line.productId) ?? null,
        counted: null,
        counted_at: null,
        app_user_name: null,
        status: 'not_counted',
        log_id: null,
        log_at: null,
        created_on: now,
        updated_on: now,
      })),
    );
    await repo.insertClaims(trx, ctx.dialect, store.id, id, counted);
    await repo.updateAssignment(trx, id, {
      status: 'counting',
      started_at: now,
      lines_total: planned.length,
      updated_on: nextStamp(row, now),
      modified_by: by.name,
    });
    return toAssignment((await repo.findAssignment(trx, store.id, id))!, by);
  });
}

/**
 * A product is in at most one counting assignment at a time (PRODUCT §10): a 409 naming the
 * assignments already counting any of them. Under the store's turn, so two starts racing
 * cannot both pass; the claims' primary key is the backstop.
 */
export async function refuseClaimed(
  ctx: AppContext,
  trx: Transaction<Database>,
  store: BookingStore,
  productIds: readonly number[],
  own: number,
  pathOf: (productId: number) => string = () => 'scope',
): Promise<void> {
  const claims = await repo.claimsOf(trx, store.id, productIds);
  const others = [...claims.entries()].filter(([, assignment]) => assignment !== own);
  if (others.length === 0) return;
  const named = await ctx.ledger.policies.lookups.productsById(
    trx,
    others.map(([productId]) => productId),
  );
  const holders = [...new Set(others.map(([, assignment]) => assignment))].sort((a, b) => a - b);
  throw conflict(
    `Counting assignment${holders.length > 1 ? 's' : ''} ${holders.join(', ')} of store '${store.store_number}' ${holders.length > 1 ? 'are' : 'is'} counting ${others.length} of these products: a product is counted by one assignment at a time`,
    others.slice(0, 200).map(([productId, assignment]) => ({
      path: pathOf(productId),
      message: `product '${named.get(productId)?.product_number ?? productId}' is being counted by counting assignment ${assignment}`,
    })),
  );
}

/** POST …/{id}/cancel: books nothing (PRODUCT §10). */
export async function cancelAssignment(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  by: Principal,
): Promise<Assignment> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inStoreTurn(ctx, store, async (trx) => {
    const row = await assignmentFor(ctx, trx, store, id, 'cancel');
    const now = Date.now();
    await repo.releaseClaims(trx, id);
    await repo.updateAssignment(trx, id, {
      status: 'cancelled',
      cancelled_at: now,
      updated_on: nextStamp(row, now),
      modified_by: by.name,
    });
    return toAssignment((await repo.findAssignment(trx, store.id, id))!, by);
  });
}

/** GET …/{id}. */
export async function getAssignment(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  by: Principal,
): Promise<Assignment> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  const row = await repo.findAssignment(ctx.db, store.id, id);
  if (!row) throw notFound(`No counting assignment ${id} in store '${storeNumber}'`);
  return toAssignment(row, by);
}

/** GET /stores/{s}/countingassignments (PagedResponse, `status` filter). */
export async function listAssignments(
  ctx: AppContext,
  storeNumber: string,
  query: ListQuery,
  by: Principal,
): Promise<PagedResult<Assignment>> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  const window = resolvePage(query, ListQuery, `counting_assignments:${store.id}`, ctx.cursors);
  const [rows, total, lastModified] = await Promise.all([
    repo.pageOfAssignments(ctx.db, store.id, query.status, window),
    repo
      .assignmentsOfStore(ctx.db, store.id, query.status)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    newestUpdatedOn(repo.assignmentsOfStore(ctx.db, store.id, undefined), 'updated_on'),
  ]);
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => toAssignment(row, by),
    totalCount: Number(total.n),
    lastModified,
    cursors: ctx.cursors,
  });
}

/** GET …/{id}/lines: expected and variance absent for a store token while blind. */
export async function listLines(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  query: LinesQuery,
  by: Principal,
): Promise<PagedResult<Line>> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  // The cursor first: one of another store's or assignment's lines is a 400 (PRODUCT §3.1), not a 404.
  const window = resolvePage(query, LinesQuery, `counting_lines:${store.id}:${id}`, ctx.cursors);
  const row = await repo.findAssignment(ctx.db, store.id, id);
  if (!row) throw notFound(`No counting assignment ${id} in store '${storeNumber}'`);
  const hide = readsBlind(row, by);
  const [rows, total, lastModified] = await Promise.all([
    repo.pageOfLines(ctx.db, id, query.status, window),
    repo
      .linesOfAssignment(ctx.db, id, query.status)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    newestUpdatedOn(repo.linesOfAssignment(ctx.db, id, undefined), 'updated_on'),
  ]);
  return pagedResponse({
    window,
    rows,
    idOf: (line) => line.id,
    toItem: (line) => toLine(line, hide),
    totalCount: Number(total.n),
    lastModified,
    cursors: ctx.cursors,
  });
}
