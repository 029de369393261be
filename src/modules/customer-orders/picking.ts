import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { requireDateTime } from '../../domain/datetime.js';
import { addQuantities, fromQuantity, toQuantity } from '../../domain/decimal.js';
import type { PoolPart } from '../../domain/stock-rules.js';
import { assertStoreAccess, type Principal } from '../../shared/access.js';
import { duplicateKeyErrors } from '../../shared/bulk.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { bookEntries, type EntryDraft } from '../../ledger/book.js';
import { requireStore, resolveLines } from '../../ledger/intake.js';
import type { BookingStore, Ledger } from '../../ledger/ledger.js';
import { logRecord } from '../../db/log-record.js';
import { InsufficientStockError } from '../../ledger/postings.js';
import { linesOf, lockOrders, updateLine, updateOrder } from './repository.js';
import type { OrderLineRow, OrderRow } from './rows.js';
import { FINAL_STATUSES, REJECTION_REASON_TYPE, STATUS, type ClearanceBody, type OrderUpdateBody } from './schema.js';
import {
  boundBeyondPicks,
  SOURCE_CLEARANCE,
  SOURCE_PICKING,
  SOURCE_RELEASE,
  takeBoundBalances,
  type BoundRemainder,
} from './bound-stock.js';

/**
 * The stock side of a customer order (PRODUCT §5 order-bound stock, §7): picking moves stock
 * from its location and pool into the order's own balance (unlocated, the line's pool,
 * order_key = order number); lowering a pick and rejecting move it back to where it was
 * picked; clearance books it out of the store. Every move is a pair of ledger entries
 * (ledger/book.ts), so "balance = Σ ledger" holds, and a line's picked_quantity always
 * equals what picking bound for it (store-ops verify). Closing an order settles everything
 * bound under its number, picked or not (bound-stock.ts: never stranded).
 */

type Location = { id: number; location_code: string };

interface Move {
  line: OrderLineRow;
  /** Thousandths: > 0 binds, < 0 releases. */
  quantityMilli: number;
  /** The free side: where a pick comes from and a release goes back to (undefined = unlocated). */
  location: Location | undefined;
  /** Index of the request line, for a 409 naming it when the source is short. */
  requestIndex?: number;
}

/** Both legs of each move, in request order; the free leg of a pick is guarded against overdraw. */
function moveDrafts(
  order: OrderRow,
  moves: readonly Move[],
  products: Map<number, EntryDraft['product']>,
  at: number,
  appUserName: string | undefined,
): EntryDraft[] {
  return moves.flatMap((move) => {
    const pool = move.line.stock_pool as PoolPart['pool'];
    const common = {
      product: products.get(move.line.product_id)!,
      at,
      onArrival: true,
      isCount: false,
      pending: false,
      path: move.requestIndex === undefined ? undefined : `lines[${move.requestIndex}].picked_quantity`,
      record: logRecord({
        reference: order.order_number,
        source: SOURCE_PICKING,
        app_user_name: appUserName,
        customer_order_line_number: Number(move.line.line_number),
      }),
    };
    const free: EntryDraft = {
      ...common,
      location: move.location,
      poolParts: [{ pool, quantityMilli: -move.quantityMilli }],
      guard: move.quantityMilli > 0 ? { lineIndex: move.requestIndex ?? -1 } : undefined,
    };
    const bound: EntryDraft = {
      ...common,
      customerOrderNumber: order.order_number,
      poolParts: [{ pool, quantityMilli: move.quantityMilli }],
    };
    return move.quantityMilli > 0 ? [free, bound] : [bound, free];
  });
}

async function bookMoves(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  order: OrderRow,
  moves: readonly Move[],
  by: Principal,
  now: number,
  appUserName?: string,
) {
  if (moves.length === 0) return;
  const products = await ledger.policies.lookups.productsById(
    trx,
    moves.map((m) => m.line.product_id),
  );
  await bookEntries(trx, ledger, store, moveDrafts(order, moves, products, now, appUserName), by, now);
}

/**
 * Rejection, cancel: releases everything bound under the order's number in its store back to
 * free stock (PRODUCT §5 never stranded): each line's pick back to where it was picked, and
 * whatever else is bound (stock bound by entries before the order was imported) back to its
 * own location and pool (bound-stock.ts).
 */
async function releaseAll(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  order: OrderRow,
  lines: readonly OrderLineRow[],
  by: Principal,
  now: number,
) {
  const bound = await takeBoundBalances(trx, ledger.dialect, store.id, order.order_number);
  const picked = lines.filter((line) => Number(line.picked_quantity) !== 0);
  const rest = boundBeyondPicks(picked, bound);
  const locations = await ledger.policies.lookups.locations(
    trx,
    store.id,
    picked.flatMap((line) => (line.stock_location ? [line.stock_location] : [])),
  );
  const moves = picked.map((line) => ({
    line,
    quantityMilli: -Number(line.picked_quantity),
    location: line.stock_location ? locations.get(line.stock_location) : undefined,
  }));
  const products = await ledger.policies.lookups.productsById(trx, [
    ...picked.map((line) => line.product_id),
    ...rest.map((r) => r.productId),
  ]);
  const drafts = [
    ...moveDrafts(order, moves, products, now, undefined),
    ...rest.flatMap((remainder) => releaseDrafts(order, remainder, products, now)),
  ];
  await bookEntries(trx, ledger, store, drafts, by, now);
  for (const line of picked) await updateLine(trx, line.id, { picked_quantity: 0 });
}

/** Bound stock no pick accounts for, back to free stock at its own location and pool. */
function releaseDrafts(
  order: OrderRow,
  remainder: BoundRemainder,
  products: Map<number, EntryDraft['product']>,
  at: number,
): EntryDraft[] {
  const common = {
    product: products.get(remainder.productId)!,
    location: remainder.location,
    at,
    onArrival: true,
    isCount: false,
    pending: false,
    record: logRecord({ reference: order.order_number, source: SOURCE_RELEASE }),
  };
  return [
    {
      ...common,
      customerOrderNumber: order.order_number,
      poolParts: [{ pool: remainder.pool, quantityMilli: -remainder.quantityMilli }],
    },
    { ...common, poolParts: [{ pool: remainder.pool, quantityMilli: remainder.quantityMilli }] },
  ];
}

/** Rules the request alone can break (PRODUCT §3, §7: 400). */
function checkUpdate(body: OrderUpdateBody): void {
  const errors: FieldError[] = duplicateKeyErrors(
    body.lines ?? [],
    (l) => String(l.line_number),
    'lines',
    'line_number',
  );
  if (body.is_rejected === true && body.rejection_reason_code === undefined) {
    errors.push({ path: 'rejection_reason_code', message: 'is required to reject an order (a reason code of type 2)' });
  }
  if (body.status_id === STATUS.collected)
    errors.push({ path: 'status_id', message: 'an order is collected by POST /customerorders/clearance' });
  if (body.status_id === STATUS.rejected && body.is_rejected !== true)
    errors.push({ path: 'status_id', message: 'reject with is_rejected=true and a rejection_reason_code' });
  if (body.is_rejected === true && body.lines !== undefined && body.lines.length > 0)
    errors.push({ path: 'lines', message: 'a rejection releases every line: send no picks with it' });
  if (errors.length > 0) throw validationFailed('The order update is invalid', errors);
}

/** The status after an update: forward only (PRODUCT §7), skips allowed. */
function nextStatus(
  order: OrderRow,
  body: OrderUpdateBody,
  lines: readonly OrderLineRow[],
  pickedMilli: ReadonlyMap<number, number>,
): number {
  let status = order.status_id;
  const raise = (to: number) => (status = Math.max(status, to));
  if (body.is_claimed === true) raise(STATUS.claimed);
  const picked = lines.map((line) => pickedMilli.get(line.id) ?? Number(line.picked_quantity));
  if (picked.some((q) => q > 0)) raise(STATUS.picking);
  if (lines.length > 0 && lines.every((line, i) => picked[i]! >= Number(line.quantity))) raise(STATUS.picked);
  if (body.is_picked === true) raise(STATUS.picked);
  if (body.status_id !== undefined) raise(body.status_id);
  return status;
}

/** PUT /stores/{s}/orders/customerorder (PRODUCT §7): claim, pick, unpick, reject, cancel; atomic. */
export async function updateCustomerOrder(
  ctx: AppContext,
  storeNumber: string,
  body: OrderUpdateBody,
  by: Principal,
): Promise<string> {
  const actor = by.name;
  checkUpdate(body);
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  try {
    return await inTransaction(ctx.handle, async (trx) => {
      const now = Date.now();
      const order = (await lockOrders(trx, ctx.dialect, [body.order_number])).get(body.order_number);
      // An order of another store is reached through stored data: 403 unless the token holds that store (PRODUCT §4).
      if (order && order.store_id !== store.id) assertStoreAccess(by, order.store_number);
      if (!order || order.store_id !== store.id)
        throw notFound(`No customer order '${body.order_number}' in store '${storeNumber}'`);
      if (FINAL_STATUSES.has(order.status_id))
        throw conflict(
          `Customer order '${order.order_number}' is closed (status ${order.status_id}): it can no longer change`,
        );
      if (body.status_id !== undefined && body.status_id < order.status_id) {
        throw conflict(
          `Customer order '${order.order_number}' is at status ${order.status_id}: a status moves only forward`,
          [{ path: 'status_id', message: `${body.status_id} is before ${order.status_id}` }],
        );
      }
      const lines = await linesOf(trx, [order.id]);
      const changes = {
        is_claimed:
          body.is_claimed === undefined ? order.is_claimed : body.is_claimed ? (1 as const) : order.is_claimed,
        picked_username: body.picked_username ?? order.picked_username,
        comment: body.comment ?? order.comment,
        pickup_at: body.pickup_date === undefined ? order.pickup_at : requireDateTime(body.pickup_date),
        updated_on: now,
        modified_by: actor,
      };
      if (body.is_rejected === true) {
        const reason = (await ctx.ledger.policies.lookups.reasonCodes(trx, [body.rejection_reason_code!])).get(
          body.rejection_reason_code!,
        );
        if (!reason)
          throw unprocessable('Unknown rejection reason code', [
            { path: 'rejection_reason_code', message: `unknown reason code ${body.rejection_reason_code}` },
          ]);
        if (reason.reason_code_type !== REJECTION_REASON_TYPE) {
          throw unprocessable('Not a rejection reason code', [
            {
              path: 'rejection_reason_code',
              message: `reason code ${reason.reason_code} is of type ${reason.reason_code_type}, not a rejection code (type 2)`,
            },
          ]);
        }
        await releaseAll(trx, ctx.ledger, store, order, lines, by, now);
        await updateOrder(trx, order.id, {
          ...changes,
          status_id: STATUS.rejected,
          rejection_reason_code: reason.reason_code,
        });
        return `rejected '${order.order_number}'`;
      }
      if (body.status_id === STATUS.cancelled) {
        await releaseAll(trx, ctx.ledger, store, order, lines, by, now);
        await updateOrder(trx, order.id, { ...changes, status_id: STATUS.cancelled });
        return `cancelled '${order.order_number}'`;
      }
      const pickedMilli = await applyPicks(trx, ctx.ledger, store, order, lines, body, by, now);
      const status = nextStatus(order, body, lines, pickedMilli);
      await updateOrder(trx, order.id, { ...changes, status_id: status });
      return `updated '${order.order_number}': status ${status}`;
    });
  } catch (error) {
    if (error instanceof InsufficientStockError) {
      const line = body.lines![error.lineIndex]!;
      throw conflict(`Line ${line.line_number} cannot be picked: not that much free stock at its source`, [
        {
          path: `lines[${error.lineIndex}].picked_quantity`,
          message: `${fromQuantity(Math.max(0, error.availableMilli))} free at the source; nothing of this request was bound`,
        },
      ]);
    }
    throw error;
  }
}

/** The picks of an update: each line's new picked total, the difference bound or released. Returns the new totals by line id. */
async function applyPicks(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  order: OrderRow,
  lines: readonly OrderLineRow[],
  body: OrderUpdateBody,
  by: Principal,
  now: number,
): Promise<Map<number, number>> {
  const byNumber = new Map(lines.map((line) => [Number(line.line_number), line]));
  const requested = body.lines ?? [];
  // A pick's source: the location it names, else the line's own, else the line's preferred one.
  const sourceOf = (pick: (typeof requested)[number], line: OrderLineRow | undefined) =>
    pick.stock_location ?? line?.stock_location ?? line?.preferred_location_code ?? undefined;
  const resolution = await resolveLines(
    trx,
    ledger,
    store.id,
    requested.map((pick, index) => {
      const code = sourceOf(pick, byNumber.get(pick.line_number));
      return { locations: code ? [{ key: code, path: `lines[${index}].stock_location` }] : undefined };
    }),
  );
  const errors: FieldError[] = [];
  const conflicts: FieldError[] = [];
  const moves: Move[] = [];
  const totals = new Map<number, number>();
  requested.forEach((pick, index) => {
    const line = byNumber.get(pick.line_number);
    if (!line) {
      errors.push({
        path: `lines[${index}].line_number`,
        message: `order '${order.order_number}' has no line ${pick.line_number}`,
      });
      return;
    }
    const resolved = resolution.lines[index]!;
    const location = resolved.locations[0];
    errors.push(...resolved.errors);
    const current = Number(line.picked_quantity);
    if (pick.stock_pool !== undefined && pick.stock_pool !== line.stock_pool && current !== 0) {
      conflicts.push({
        path: `lines[${index}].stock_pool`,
        message: `line ${line.line_number} has stock bound in pool ${line.stock_pool}: lower its picked_quantity to 0 first`,
      });
    }
    if (errors.length > 0 || conflicts.length > 0) return;
    const pool = pick.stock_pool ?? line.stock_pool;
    const target = pick.picked_quantity === undefined ? current : toQuantity(pick.picked_quantity);
    const updated = { ...line, stock_pool: pool };
    // A pick comes from the named source; a release goes back to a named location, else to
    // where the line was picked (then its source is the line's own location).
    const releaseTo = pick.stock_location !== undefined || line.stock_location ? location : undefined;
    if (target !== current)
      moves.push({
        line: updated,
        quantityMilli: target - current,
        location: target > current ? location : releaseTo,
        requestIndex: index,
      });
    totals.set(line.id, target);
    byNumber.set(pick.line_number, {
      ...updated,
      picked_quantity: target,
      stock_location: target > current ? (location?.location_code ?? null) : line.stock_location,
    });
  });
  if (errors.length > 0) throw unprocessable('Some picks name unknown lines or locations', errors);
  if (conflicts.length > 0) throw conflict('Some picks cannot be applied now', conflicts);
  checkPickedTotal(order, byNumber.values(), moves);
  await bookMoves(trx, ledger, store, order, moves, by, now, body.picked_username);
  for (const line of lines) {
    const after = byNumber.get(Number(line.line_number))!;
    if (after === line) continue;
    await updateLine(trx, line.id, {
      picked_quantity: after.picked_quantity,
      stock_pool: after.stock_pool,
      stock_location: after.stock_location,
      picked_username: body.picked_username ?? line.picked_username,
    });
  }
  return totals;
}

/**
 * The order's picked total (`total_delivery_quantity` on read) is a kept sum (PRODUCT §3
 * "Exact numbers"): a pick that would take it out of range is refused (422) at the first
 * request line that raises a pick, before anything is booked.
 */
function checkPickedTotal(order: OrderRow, lines: Iterable<OrderLineRow>, moves: readonly Move[]): void {
  const raising = moves.find((move) => move.quantityMilli > 0 && move.requestIndex !== undefined);
  if (!raising) return;
  const site = {
    path: `lines[${raising.requestIndex}].picked_quantity`,
    what: `the picked total of order '${order.order_number}'`,
  };
  let total = 0;
  for (const line of lines) total = addQuantities(total, Number(line.picked_quantity), site);
}

/** POST /customerorders/clearance (PRODUCT §7): the bound stock is handed over and leaves the store; status 5. */
export async function clearOrder(ctx: AppContext, body: ClearanceBody, principal: Principal): Promise<string> {
  // body.store_number is a StoreRef: a store token that does not hold it was refused before (plugins/auth.ts).
  const store = await requireStore(ctx.ledger, ctx.db, body.store_number);
  return inTransaction(ctx.handle, async (trx) => {
    const now = Date.now();
    const order = (await lockOrders(trx, ctx.dialect, [body.order_number])).get(body.order_number);
    // An order of another store is reached through stored data: 403 unless the token holds that store (PRODUCT §4).
    if (order && order.store_id !== store.id) assertStoreAccess(principal, order.store_number);
    if (!order || order.store_id !== store.id)
      throw notFound(`No customer order '${body.order_number}' in store '${body.store_number}'`);
    if (FINAL_STATUSES.has(order.status_id))
      throw conflict(
        `Customer order '${order.order_number}' is closed (status ${order.status_id}): it cannot be cleared`,
      );
    // Everything bound under the number leaves the store (PRODUCT §5 never stranded): each
    // line's pick, and whatever else is bound there (entries before the order was imported).
    const bound = await takeBoundBalances(trx, ctx.dialect, store.id, order.order_number);
    const picked = (await linesOf(trx, [order.id])).filter((line) => Number(line.picked_quantity) !== 0);
    const rest = boundBeyondPicks(picked, bound);
    const products = await ctx.ledger.policies.lookups.productsById(trx, [
      ...picked.map((line) => line.product_id),
      ...rest.map((r) => r.productId),
    ]);
    const common = {
      at: now,
      onArrival: true,
      isCount: false,
      pending: false,
      customerOrderNumber: order.order_number,
    };
    const cleared = { reference: order.order_number, source: SOURCE_CLEARANCE };
    const drafts: EntryDraft[] = [
      ...picked.map((line) => ({
        ...common,
        product: products.get(line.product_id)!,
        poolParts: [{ pool: line.stock_pool as PoolPart['pool'], quantityMilli: -Number(line.picked_quantity) }],
        record: logRecord({ ...cleared, customer_order_line_number: Number(line.line_number) }),
      })),
      ...rest.map((remainder) => ({
        ...common,
        product: products.get(remainder.productId)!,
        location: remainder.location,
        poolParts: [{ pool: remainder.pool, quantityMilli: -remainder.quantityMilli }],
        record: logRecord(cleared),
      })),
    ];
    await bookEntries(trx, ctx.ledger, store, drafts, principal, now);
    await updateOrder(trx, order.id, { status_id: STATUS.collected, updated_on: now, modified_by: principal.name });
    return `cleared '${order.order_number}': ${picked.length} lines handed over`;
  });
}
