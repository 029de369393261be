import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Dialect } from '../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { addQuantities, fromQuantity, toQuantity } from '../../domain/decimal.js';
import type { PoolPart } from '../../domain/stock-rules.js';
import { assertStoreAccess, type Principal } from '../../shared/access.js';
import { groupBy } from '../../shared/bulk.js';
import { conflict, notFound, unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { bookEntries, bookEntriesWithMoments, type EntryDraft } from '../../ledger/book.js';
import { requireStore } from '../../ledger/intake.js';
import type { Booked, BookingStore, Ledger, ReceivingCandidate } from '../../ledger/ledger.js';
import { logRecord } from '../../db/log-record.js';
import { insertReceiptLines, receiptStamp, upsertReceipts } from './receipts/writes.js';
import { linesOf, lockDeliveries } from './repository.js';
import type { DeliveryLineRow, DeliveryRow } from './rows.js';
import type { ReceiveBody, ReceiveQuery } from './schema.js';
import { CLOSED_STATUSES } from './service.js';

/**
 * Receiving (PRODUCT §7), both ways with one code path: stock log entries posted with
 * `is_from_receipt=true` and `reference` = an order number, and the receive endpoint by
 * line number. Each receiving entry is an ordinary ledger entry (ledger/book.ts); this
 * file only plans which delivery line it raises and, after booking, writes what receiving
 * keeps besides stock: line totals, the delivery's status, its receipt and receipt lines,
 * and a transfer's leg out of its origin store.
 */

interface ReceivingItem {
  draftIndex: number;
  delivery: DeliveryRow;
  line: DeliveryLineRow;
  quantityMilli: number;
}

export interface ReceivingPlan {
  items: ReceivingItem[];
}

const total = (parts: readonly PoolPart[]) => parts.reduce((sum, part) => sum + part.quantityMilli, 0);

/** The line of `productId` a product-named entry raises: the first still short of its quantity, else the first. */
function lineForProduct(
  lines: readonly DeliveryLineRow[],
  productId: number,
  receivedMilli: ReadonlyMap<number, number>,
): DeliveryLineRow | undefined {
  const ofProduct = lines
    .filter((line) => line.product_id === productId)
    .sort((a, b) => Number(a.line_number) - Number(b.line_number));
  return ofProduct.find((line) => receivedMilli.get(line.id)! < Number(line.quantity)) ?? ofProduct[0];
}

/**
 * Matches candidates to delivery lines of this store (locking the deliveries), checks the
 * receiving rules and sets the pools of drafts whose sender chose none. Candidates whose
 * order number is no delivery of the store are left alone: a receipt entry without an
 * announced delivery books stock as before (docs/decisions.md). 422 for entries that
 * cannot receive, 409 for a closed delivery or a line total that would go below zero.
 */
export async function planReceiving(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  drafts: EntryDraft[],
  candidates: readonly ReceivingCandidate[],
): Promise<ReceivingPlan> {
  const plan: ReceivingPlan = { items: [] };
  if (candidates.length === 0) return plan;
  const locked = await lockDeliveries(
    trx,
    dialect,
    candidates.map((c) => c.orderNumber),
  );
  const deliveries = new Map([...locked].filter(([, delivery]) => delivery.store_id === storeId));
  if (deliveries.size === 0) return plan;
  const lines = await linesOf(
    trx,
    [...deliveries.values()].map((d) => d.id),
  );
  const receivedMilli = new Map(lines.map((line) => [line.id, Number(line.received_quantity)]));
  const unfit: FieldError[] = [];
  const conflicts: FieldError[] = [];
  for (const candidate of candidates) {
    const delivery = deliveries.get(candidate.orderNumber);
    if (!delivery) continue;
    const draft = drafts[candidate.draftIndex]!;
    if (CLOSED_STATUSES.has(delivery.status)) {
      conflicts.push({
        path: candidate.path,
        message: `delivery '${delivery.order_number}' is ${delivery.status}: nothing more can be received on it`,
      });
      continue;
    }
    if (draft.isCount) {
      unfit.push({
        path: candidate.path,
        message: `a count cannot receive on delivery '${delivery.order_number}': send the received quantity as a delta`,
      });
      continue;
    }
    if (draft.pending) {
      unfit.push({
        path: `${candidate.path}.reason_code`,
        message: `needs review: a receipt of delivery '${delivery.order_number}' is booked at once, never pending`,
      });
      continue;
    }
    const ofDelivery = lines.filter((line) => line.delivery_id === delivery.id);
    const line =
      candidate.lineNumber === undefined
        ? lineForProduct(ofDelivery, draft.product.id, receivedMilli)
        : ofDelivery.find((l) => Number(l.line_number) === candidate.lineNumber);
    if (!line) {
      unfit.push(
        candidate.lineNumber === undefined
          ? {
              path: `${candidate.path}.product_number`,
              message: `product '${draft.product.product_number}' is not on delivery '${delivery.order_number}'`,
            }
          : {
              path: `${candidate.path}.line_number`,
              message: `delivery '${delivery.order_number}' has no line ${candidate.lineNumber}`,
            },
      );
      continue;
    }
    if (!candidate.poolChosen) {
      const quantityMilli = total(draft.poolParts);
      drafts[candidate.draftIndex] = {
        ...draft,
        poolParts: quantityMilli === 0 ? [] : [{ pool: line.target_stock_pool as PoolPart['pool'], quantityMilli }],
      };
    }
    const quantityMilli = total(drafts[candidate.draftIndex]!.poolParts);
    // The line's received total is a kept sum (PRODUCT §3 "Exact numbers"): out of range → 422 at this entry.
    const after = addQuantities(receivedMilli.get(line.id)!, quantityMilli, {
      path: `${candidate.path}.${candidate.quantityField}`,
      what: `the received total of line ${line.line_number} of delivery '${delivery.order_number}'`,
    });
    if (after < 0) {
      conflicts.push({
        path: `${candidate.path}.${candidate.quantityField}`,
        message: `would leave line ${line.line_number} of delivery '${delivery.order_number}' at ${fromQuantity(after)} received (it has ${fromQuantity(receivedMilli.get(line.id)!)})`,
      });
      continue;
    }
    receivedMilli.set(line.id, after);
    plan.items.push({ draftIndex: candidate.draftIndex, delivery, line, quantityMilli });
  }
  if (unfit.length > 0) throw unprocessable('Some entries cannot receive on their delivery', unfit);
  if (conflicts.length > 0) throw conflict('Some entries cannot receive on their delivery now', conflicts);
  return plan;
}

/** Adds `deltas` (line id → thousandths) to the lines' received quantities, one statement per chunk. */
async function raiseReceived(trx: Transaction<Database>, deltas: ReadonlyMap<number, number>): Promise<void> {
  for (const part of inListChunks([...deltas.keys()], 1_000)) {
    const unique = [...new Set(part)];
    const cases = sql.join(
      unique.map((id) => sql`when ${id} then cast(${deltas.get(id)!} as bigint)`),
      sql` `,
    );
    await trx
      .updateTable('delivery_order_lines')
      .set({ received_quantity: sql<number>`received_quantity + case id ${cases} end` })
      .where('id', 'in', unique)
      .execute();
  }
}

/** Deliveries whose first receipt this is become `receiving`; submitted ones `received`. */
async function advanceStatuses(
  trx: Transaction<Database>,
  touched: readonly DeliveryRow[],
  submitted: ReadonlySet<number>,
  actor: string,
  now: number,
): Promise<void> {
  for (const status of ['receiving', 'received'] as const) {
    const ids = touched
      .filter((d) => (status === 'received' ? submitted.has(d.id) : !submitted.has(d.id)))
      .map((d) => d.id);
    if (ids.length === 0) continue;
    await trx
      .updateTable('delivery_orders')
      .set({
        status:
          status === 'received' ? 'received' : sql<string>`case when status = 'open' then 'receiving' else status end`,
        updated_on: now,
        modified_by: actor,
      })
      .where('id', 'in', ids)
      .execute();
  }
}

/**
 * A transfer's other leg (docs/decisions.md Deliveries "transfers"): what the destination
 * received leaves the origin store's unlocated pool 1, when the origin is a store of this
 * service (live, or soft-deleted by a flush: its books stay exact), in the same transaction. Both legs carry the receiving entry's id as reference_id.
 * The origin is reached through stored data: it is booked as the receiving request's
 * principal, so a store token that does not hold the origin gets 403 and nothing is booked
 * (PRODUCT §4; the kernel refuses, ledger/book.ts).
 */
async function bookTransferLegs(
  trx: Transaction<Database>,
  ledger: Ledger,
  plan: ReceivingPlan,
  drafts: readonly EntryDraft[],
  ids: readonly number[],
  by: Principal,
  now: number,
): Promise<void> {
  const transfers = plan.items.filter((item) => item.delivery.store_origin !== null && item.quantityMilli !== 0);
  const byOrigin = groupBy(transfers, (item) => item.delivery.store_origin!);
  for (const [originNumber, items] of byOrigin) {
    // A flushed (soft-deleted) origin still gives the goods: a unit never appears from nothing.
    const origin = await ledger.policies.lookups.storeKeepingBooks(trx, originNumber);
    if (!origin) continue;
    const legs: EntryDraft[] = items.map((item) => {
      const received = drafts[item.draftIndex]!;
      return {
        product: received.product,
        at: received.at,
        onArrival: received.onArrival,
        path: received.path,
        atPath: received.atPath,
        isCount: false,
        poolParts: [{ pool: 1, quantityMilli: -item.quantityMilli }],
        pending: false,
        record: logRecord({
          app_user_name: received.record.app_user_name,
          reference: item.delivery.order_number,
          reference_id: ids[item.draftIndex],
          source: 'transfer',
        }),
      };
    });
    await bookEntries(trx, ledger, origin, legs, by, now);
    const receivingIds = items.map((item) => ids[item.draftIndex]!);
    for (const part of inListChunks(receivingIds, KEYS_PER_QUERY)) {
      await trx.updateTable('stock_logs').set({ reference_id: sql<number>`id` }).where('id', 'in', part).execute();
    }
  }
}

/**
 * After the plan's drafts were booked (`booked`: ids and moments by draft index): raises the line totals,
 * advances the deliveries' statuses, extends their receipts with one receipt line per
 * receiving entry, and books transfers out of their origin. `submitted` deliveries close.
 */
export async function finishReceiving(
  trx: Transaction<Database>,
  ledger: Ledger,
  plan: ReceivingPlan,
  drafts: readonly EntryDraft[],
  booked: Booked,
  submitted: readonly DeliveryRow[],
  by: Principal,
  now: number,
): Promise<void> {
  const ids = booked.ids;
  const actor = by.name;
  const touched = new Map<number, DeliveryRow>();
  for (const item of plan.items) touched.set(item.delivery.id, item.delivery);
  for (const delivery of submitted) touched.set(delivery.id, delivery);
  if (touched.size === 0) return;
  const deltas = new Map<number, number>();
  for (const item of plan.items) deltas.set(item.line.id, (deltas.get(item.line.id) ?? 0) + item.quantityMilli);
  await raiseReceived(trx, deltas);
  const submittedIds = new Set(submitted.map((d) => d.id));
  await advanceStatuses(trx, [...touched.values()], submittedIds, actor, now);
  await bookTransferLegs(trx, ledger, plan, drafts, ids, by, now);
  // The receipts clock last: it is held from here to the commit, so the shorter the better,
  // and no balance lock is ever awaited while holding it (no lock cycle with other receipts).
  const stamp = await receiptStamp(trx);
  const receipts = await upsertReceipts(trx, [...touched.values()], submittedIds, actor, stamp);
  await insertReceiptLines(
    trx,
    ledger.dialect,
    plan.items.map((item) => {
      const product = drafts[item.draftIndex]!.product;
      return {
        receipt_id: receipts.get(item.delivery.id)!,
        store_id: item.delivery.store_id,
        delivery_line_id: item.line.id,
        log_id: booked.ids[item.draftIndex]!,
        log_at: booked.moments[item.draftIndex]!,
        line_number: item.line.line_number,
        product_id: item.line.product_id,
        product_number: item.line.product_number,
        barcode: item.line.barcode ?? product.barcode,
        container_barcode: item.line.container_barcode,
        description: item.line.description ?? item.line.product_description,
        received_quantity: item.quantityMilli,
        shipped_quantity: item.line.quantity,
        purchase_price: item.line.purchase_price ?? product.purchase_price ?? 0,
        store_products_price: product.price ?? 0,
        created_on: stamp,
        updated_on: stamp,
      };
    }),
  );
}

/** POST /stores/{s}/orders/deliveries/{order_number}/receive (PRODUCT §7): atomic. */
export async function receiveDelivery(
  ctx: AppContext,
  storeNumber: string,
  orderNumber: string,
  body: ReceiveBody,
  query: ReceiveQuery,
  by: Principal,
): Promise<string> {
  if (body.lines.length === 0 && body.submit !== true) {
    throw validationFailed('Nothing to receive', [
      { path: 'lines', message: 'is empty and submit is not true: the request would change nothing' },
    ]);
  }
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inTransaction(ctx.handle, async (trx) => {
    const now = Date.now();
    const delivery = (await lockDeliveries(trx, ctx.dialect, [orderNumber])).get(orderNumber);
    // A delivery of another store is reached through stored data: 403 unless the token holds that store (PRODUCT §4).
    if (delivery && delivery.store_id !== store.id) assertStoreAccess(by, delivery.store_number);
    if (!delivery || delivery.store_id !== store.id)
      throw notFound(`No delivery '${orderNumber}' in store '${storeNumber}'`);
    if (CLOSED_STATUSES.has(delivery.status))
      throw conflict(`Delivery '${orderNumber}' is ${delivery.status}: nothing more can be received on it`);
    const lines = new Map((await linesOf(trx, [delivery.id])).map((line) => [Number(line.line_number), line]));
    const products = await ctx.ledger.policies.lookups.productsById(
      trx,
      [...lines.values()].map((line) => line.product_id),
    );
    const unknown = body.lines.flatMap((l, index) =>
      lines.has(l.line_number)
        ? []
        : [{ path: `lines[${index}].line_number`, message: `delivery '${orderNumber}' has no line ${l.line_number}` }],
    );
    if (unknown.length > 0) throw unprocessable('Some lines are not on the delivery', unknown);
    const drafts: EntryDraft[] = body.lines.map((received, index) => {
      const line = lines.get(received.line_number)!;
      const quantityMilli = toQuantity(received.received_quantity);
      return {
        product: products.get(line.product_id)!,
        at: now,
        onArrival: true,
        path: `lines[${index}].received_quantity`,
        isCount: false,
        poolParts:
          quantityMilli === 0
            ? []
            : [{ pool: (received.target_stock_pool ?? line.target_stock_pool) as PoolPart['pool'], quantityMilli }],
        pending: false,
        isFromReceipt: true,
        record: logRecord({ reference: orderNumber, app_user_name: query.appUserName }),
      };
    });
    const candidates = body.lines.map((received, index) => ({
      draftIndex: index,
      path: `lines[${index}]`,
      quantityField: 'received_quantity',
      orderNumber,
      lineNumber: received.line_number,
      poolChosen: true,
    }));
    const plan = await planReceiving(trx, ctx.dialect, store.id, drafts, candidates);
    const booking: BookingStore = store;
    const booked = await bookEntriesWithMoments(trx, ctx.ledger, booking, drafts, by, now);
    await finishReceiving(trx, ctx.ledger, plan, drafts, booked, body.submit === true ? [delivery] : [], by, now);
    const status = body.submit === true ? 'received' : 'receiving';
    return `received ${body.lines.length} lines on delivery '${orderNumber}'; status ${status}`;
  });
}
