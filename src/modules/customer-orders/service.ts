import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { requireDateTime, utcDayOf } from '../../domain/datetime.js';
import { addQuantities, toQuantity } from '../../domain/decimal.js';
import { assertStoreAccess, type Principal } from '../../shared/access.js';
import { describeCounts, duplicateKeyErrors, groupBy, type UpsertCounts } from '../../shared/bulk.js';
import { conflict, validationFailed } from '../../shared/errors.js';
import { diffLineSet } from '../../shared/line-set.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import { HeldReferences } from '../../shared/held-references.js';
import type { FieldError } from '../../shared/validation.js';
import { heldProductsByNumbers } from '../products/held.js';
import type { StoreRow } from '../stores/rows.js';
import { requireLiveStore, storesOfOrders } from '../stores/repository.js';
import {
  headerHash,
  headerOf,
  lineRecord,
  lineSignature,
  toCustomerOrder,
  toCustomerOrderLine,
  type LineRecord,
} from './mapping.js';
import { lockOrderNumbers } from './bound-stock.js';
import * as orders from './repository.js';
import type { OrderLineRow, OrderRow } from './rows.js';
import { FINAL_STATUSES, OrdersQuery, type CustomerOrder, type OrderInput } from './schema.js';

const orderPath = (index: number) => `orders[${index}]`;

function checkRequest(sent: readonly OrderInput[]): void {
  const errors: FieldError[] = duplicateKeyErrors(sent, (o) => o.order_number, 'orders', 'order_number');
  sent.forEach((order, index) => {
    errors.push(
      ...duplicateKeyErrors(
        order.lines ?? [],
        (l) => String(l.line_number),
        `${orderPath(index)}.lines`,
        'line_number',
      ),
    );
  });
  if (errors.length > 0) throw validationFailed('Some customer orders are invalid', errors);
}

/**
 * An order's total quantity (`total_quantity` on read) is a kept sum of its lines (PRODUCT §3
 * "Exact numbers"): refused (422) at the line that takes it out of range. Orders sent without
 * lines keep their stored ones, which were checked when sent.
 */
function checkOrderTotals(sent: readonly OrderInput[]): void {
  sent.forEach((order, index) => {
    let total = 0;
    (order.lines ?? []).forEach((line, lineIndex) => {
      const site = {
        path: `${orderPath(index)}.lines[${lineIndex}].quantity`,
        what: `the total quantity of order '${order.order_number}'`,
      };
      total = addQuantities(total, toQuantity(line.quantity), site);
    });
  });
}

interface Plan {
  counts: UpsertCounts;
  created: orders.NewOrder[];
  updates: Array<(trx: Transaction<Database>) => Promise<void>>;
  /** Lines the plan writes (lineItem keys): only these must name live products. */
  writtenLines: Set<string>;
}

/** Which line of the request a reference belongs to (shared/held-references.ts). */
const lineItem = (orderIndex: number, lineNumber: number) => `${orderIndex}#${lineNumber}`;

/**
 * Create or update customer orders by order_number (PRODUCT §7), atomic. An update may change
 * the header and the lines; a line with picked (bound) stock keeps its product and cannot be
 * removed (409). A collected, rejected or cancelled order no longer changes (409), unless the
 * re-send is identical.
 */
export async function importOrders(
  ctx: AppContext,
  input: readonly OrderInput[],
  principal: Principal,
  storeFromPath?: string,
): Promise<string> {
  const sent = storeFromPath === undefined ? input : input.map((order) => ({ ...order, store_number: storeFromPath }));
  // Each order's store_number (a StoreRef on the cross-store path) was checked against a store
  // token before any work (plugins/auth.ts; PRODUCT §4).
  checkRequest(sent);
  checkOrderTotals(sent);
  const stores = await storesOfOrders(ctx.db, sent, 'customer orders', storeFromPath);
  const counts = await inTransaction(
    ctx.handle,
    async (trx) => {
      const now = Date.now();
      // Deleted products resolve too: a line the re-send leaves unchanged keeps its product;
      // only written lines must name live ones (PRODUCT §3, shared/held-references.ts).
      const products = await heldProductsByNumbers(
        trx,
        sent.flatMap((o) => (o.lines ?? []).map((l) => l.product_number)),
      );
      const held = new HeldReferences();
      sent.forEach((order, index) =>
        (order.lines ?? []).forEach((line, lineIndex) => {
          held.resolve(
            lineItem(index, line.line_number),
            products.get(line.product_number),
            `${orderPath(index)}.lines[${lineIndex}].product_number`,
            `product '${line.product_number}'`,
          );
        }),
      );
      held.assertKnown('Some order lines name unknown products');
      // The numbers' turns first: a stock post naming one of them either committed before the
      // order exists or sees it (bound-stock.ts: bound stock is never stranded, PRODUCT §5).
      await lockOrderNumbers(
        trx,
        ctx.dialect,
        sent.map((o) => o.order_number),
      );
      const existing = await orders.lockOrders(
        trx,
        ctx.dialect,
        sent.map((o) => o.order_number),
      );
      const storedLines = groupBy(
        await orders.linesOf(
          trx,
          [...existing.values()].map((o) => o.id),
        ),
        (line) => line.order_id,
      );
      const plan: Plan = {
        counts: { created: 0, updated: 0, unchanged: 0, deleted: 0 },
        created: [],
        updates: [],
        writtenLines: new Set(),
      };
      const conflicts: FieldError[] = [];
      sent.forEach((order, index) => {
        const store = stores.get(order.store_number!)!;
        const lines = order.lines?.map((line) => lineRecord(line, products.get(line.product_number)!));
        const stored = existing.get(order.order_number);
        if (!stored) planCreate(plan, index, order, store, lines ?? []);
        else if (stored.store_id !== store.id) {
          // Another store's order is reached through stored data: 403 unless the token holds that store (PRODUCT §4).
          assertStoreAccess(principal, stored.store_number);
          conflicts.push({
            path: `${orderPath(index)}.order_number`,
            message: `belongs to an order of store '${stored.store_number}'`,
          });
        } else
          conflicts.push(
            ...planUpdate(
              ctx,
              plan,
              index,
              order,
              stored,
              storedLines.get(stored.id) ?? [],
              lines,
              principal.name,
              now,
            ),
          );
      });
      if (conflicts.length > 0) throw conflict('Some customer orders cannot change that way', conflicts);
      held.assertLiveWhere(
        (item) => plan.writtenLines.has(item),
        'Some new or changed order lines name deleted products',
      );
      await orders.insertOrders(trx, ctx.dialect, plan.created, principal.name, now);
      for (const update of plan.updates) await update(trx);
      return plan.counts;
    },
    { serialise: ['customer_orders'] },
  );
  return describeCounts(counts);
}

function planCreate(plan: Plan, index: number, order: OrderInput, store: StoreRow, lines: LineRecord[]): void {
  const header = headerOf(order);
  plan.counts.created++;
  for (const line of lines) plan.writtenLines.add(lineItem(index, line.line_number));
  plan.created.push({
    storeId: store.id,
    storeNumber: store.store_number,
    orderNumber: order.order_number,
    header,
    contentHash: headerHash(header),
    lines,
  });
}

function planUpdate(
  ctx: AppContext,
  plan: Plan,
  index: number,
  order: OrderInput,
  stored: OrderRow,
  storedLines: readonly OrderLineRow[],
  sentLines: LineRecord[] | undefined,
  actor: string,
  now: number,
): FieldError[] {
  const lineChanges = diffLineSet({
    stored: storedLines,
    sent: sentLines ?? storedLines,
    signature: lineSignature,
    inUse: (line) =>
      Number(line.picked_quantity) !== 0 ? `has picked stock (${Number(line.picked_quantity) / 1000})` : undefined,
    linesPath: `${orderPath(index)}.lines`,
  });
  // A picked line keeps its pool too: its bound stock is in that pool.
  for (const { line, record } of lineChanges.changes) {
    if (Number(line.picked_quantity) !== 0 && line.stock_pool !== record.stock_pool) {
      lineChanges.conflicts.push({
        path: `${orderPath(index)}.lines`,
        message: `line ${line.line_number} has picked stock in pool ${line.stock_pool}: its pool cannot change`,
      });
    }
  }
  const header = headerOf(order);
  const hash = headerHash(header);
  const changed =
    hash !== stored.content_hash ||
    lineChanges.inserts.length + lineChanges.changes.length + lineChanges.removals.length > 0;
  if (!changed) {
    plan.counts.unchanged++;
    return [];
  }
  if (FINAL_STATUSES.has(stored.status_id)) {
    return [
      {
        path: `${orderPath(index)}.order_number`,
        message: `order '${stored.order_number}' is closed (status ${stored.status_id}): it can no longer change`,
      },
    ];
  }
  if (lineChanges.conflicts.length > 0) return lineChanges.conflicts;
  plan.counts.updated++;
  for (const line of [...lineChanges.inserts, ...lineChanges.changes.map((change) => change.record)])
    plan.writtenLines.add(lineItem(index, line.line_number));
  plan.updates.push(async (trx) => {
    await orders.updateOrder(trx, stored.id, { ...header, content_hash: hash, updated_on: now, modified_by: actor });
    await orders.deleteLines(
      trx,
      lineChanges.removals.map((line) => line.id),
    );
    for (const { line, record } of lineChanges.changes) await orders.updateLine(trx, line.id, record);
    await orders.insertLines(trx, ctx.dialect, [
      { orderId: stored.id, storeId: stored.store_id, lines: lineChanges.inserts },
    ]);
  });
  return [];
}

/** GET /stores/{s}/orders/customerorders (interface §4.12, §2.9): the store's orders with their lines. */
export async function listOrders(
  ctx: AppContext,
  storeNumber: string,
  query: OrdersQuery,
): Promise<PagedResult<CustomerOrder>> {
  const store = await requireLiveStore(ctx.db, storeNumber);
  const window = resolvePage(query, OrdersQuery, `customer_orders:${store.id}`, ctx.cursors);
  const pickupBetween = query.pickup_date === undefined ? undefined : utcDayOf(query.pickup_date);
  if (query.pickup_date !== undefined && pickupBetween === undefined) {
    throw validationFailed('pickup_date is not a date', [
      { path: 'query.pickup_date', message: 'must be a day (YYYY-MM-DD) or an ISO 8601 date-time' },
    ]);
  }
  const filters: orders.OrderFilters = {
    storeId: store.id,
    statusId: query.status_id,
    orderNumber: query.order_number,
    isActive: query.is_active,
    updatedFrom: query.last_modified_date ? requireDateTime(query.last_modified_date) : undefined,
    pickupBetween,
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    orders.pageOfOrders(ctx.db, filters, window),
    orders.countOrders(ctx.db, filters),
    orders.ordersLastModified(ctx.db, store.id),
  ]);
  const pageRows = rows.slice(0, window.pageSize);
  const lines = await orders.readLines(
    ctx.db,
    pageRows.map((row) => row.id),
  );
  const locations = await orders.storeLocationsOf(
    ctx.db,
    store.id,
    [...lines.values()].flat().map((line) => line.product_id),
  );
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => {
      const lineRows = lines.get(row.id) ?? [];
      return toCustomerOrder(
        row,
        lineRows,
        lineRows.map((line) => toCustomerOrderLine(line, row, locations.get(line.product_id) ?? [])),
      );
    },
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
