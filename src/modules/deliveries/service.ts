import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { requireDateTime, utcDayOf } from '../../domain/datetime.js';
import { assertStoreAccess, listScope, type Principal } from '../../shared/access.js';
import { describeCounts, duplicateKeyErrors, groupBy, type UpsertCounts } from '../../shared/bulk.js';
import { conflict, validationFailed } from '../../shared/errors.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import { diffLineSet } from '../../shared/line-set.js';
import { HeldReferences } from '../../shared/held-references.js';
import type { FieldError } from '../../shared/validation.js';
import { heldProductsByBarcodes, heldProductsByNumbers } from '../products/held.js';
import type { StoreRow } from '../stores/rows.js';
import { storesOfOrders } from '../stores/repository.js';
import {
  containerCount,
  headerHash,
  headerOf,
  lineRecord,
  lineSignature,
  toDeliveryOrder,
  type LineRecord,
} from './mapping.js';
import * as deliveries from './repository.js';
import { touchReceipts } from './receipts/writes.js';
import type { DeliveryLineRow, DeliveryRow } from './rows.js';
import { DeliveriesQuery, type DeliveryInput, type DeliveryOrder } from './schema.js';

const orderPath = (index: number) => `orders[${index}]`;
const linePath = (index: number, lineIndex: number) => `orders[${index}].order_lines[${lineIndex}]`;

/** Deliveries nothing more may happen to (PRODUCT §7). */
export const CLOSED_STATUSES: ReadonlySet<string> = new Set(['received', 'cancelled']);

/** Rules the request alone can break (PRODUCT §3: 400 naming every field). */
function checkRequest(orders: readonly DeliveryInput[]): void {
  const errors: FieldError[] = duplicateKeyErrors(orders, (o) => o.order_number, 'orders', 'order_number');
  orders.forEach((order, index) => {
    const lines = order.order_lines ?? [];
    errors.push(
      ...duplicateKeyErrors(lines, (l) => String(l.line_number), `${orderPath(index)}.order_lines`, 'line_number'),
    );
    lines.forEach((line, lineIndex) => {
      if (!line.product_number && !line.barcode) {
        errors.push({
          path: `${linePath(index, lineIndex)}.product_number`,
          message: 'is required unless the line names its product by barcode',
        });
      }
    });
    if (order.store_origin !== undefined && order.store_origin === order.store_number) {
      errors.push({
        path: `${orderPath(index)}.store_origin`,
        message: 'is the receiving store itself: a transfer comes from another store',
      });
    }
  });
  if (errors.length > 0) throw validationFailed('Some delivery orders are invalid', errors);
}

interface ResolvedProduct {
  id: number;
  product_number: string;
}

/** Which line of the request a reference belongs to (shared/held-references.ts). */
const lineItem = (orderIndex: number, lineNumber: number) => `${orderIndex}#${lineNumber}`;

/**
 * Each line's product by number, else by barcode — deleted products included: a line the
 * re-send leaves unchanged keeps its product (PRODUCT §3; only written lines must name live
 * products, checked once the plan knows them). A name no product ever had is a 422 at once.
 */
async function resolveLineProducts(
  trx: Transaction<Database>,
  orders: readonly DeliveryInput[],
): Promise<{ products: Array<ResolvedProduct[]>; held: HeldReferences }> {
  const all = orders.flatMap((o) => o.order_lines ?? []);
  const byNumber = await heldProductsByNumbers(
    trx,
    all.flatMap((l) => (l.product_number ? [l.product_number] : [])),
  );
  const byBarcode = await heldProductsByBarcodes(
    trx,
    all.flatMap((l) => (!l.product_number && l.barcode ? [l.barcode] : [])),
  );
  const held = new HeldReferences();
  const products = orders.map((order, index) =>
    (order.order_lines ?? []).map((line, lineIndex) => {
      const item = lineItem(index, line.line_number);
      const product = line.product_number ? byNumber.get(line.product_number) : byBarcode.get(line.barcode!);
      const id = line.product_number
        ? held.resolve(
            item,
            product,
            `${linePath(index, lineIndex)}.product_number`,
            `product '${line.product_number}'`,
          )
        : held.resolve(
            item,
            product,
            `${linePath(index, lineIndex)}.barcode`,
            `product with barcode '${line.barcode}'`,
          );
      return id === undefined ? { id: 0, product_number: '' } : { id, product_number: product!.product_number };
    }),
  );
  held.assertKnown('Some delivery lines name unknown products');
  return { products, held };
}

interface Plan {
  counts: UpsertCounts;
  newDeliveries: deliveries.NewDelivery[];
  updates: Array<() => Promise<void>>;
  /** Deliveries with a receipt whose header changed: their receipts change with them. */
  touchedReceiptDeliveries: number[];
  /** Lines the plan writes (lineItem keys): only these must name live products. */
  writtenLines: Set<string>;
}

/**
 * Create or update delivery orders by order_number (PRODUCT §7), atomic. An update may
 * change the header and add, change or remove lines; a line that received something keeps
 * its product and received quantity and cannot be removed (409). A received or cancelled
 * delivery no longer changes (409), unless the re-send is identical.
 */
export async function importDeliveries(
  ctx: AppContext,
  orders: readonly DeliveryInput[],
  containerOverride: boolean,
  principal: Principal,
  storeFromPath?: string,
): Promise<string> {
  const sent =
    storeFromPath === undefined ? orders : orders.map((order) => ({ ...order, store_number: storeFromPath }));
  // The stores each order names (store_number, store_origin) were checked against a store
  // token before any work (StoreRef fields, plugins/auth.ts; PRODUCT §4).
  checkRequest(sent);
  const stores = await storesOfOrders(ctx.db, sent, 'delivery orders', storeFromPath);

  const counts = await inTransaction(
    ctx.handle,
    async (trx) => {
      const now = Date.now();
      const { products, held } = await resolveLineProducts(trx, sent);
      const existing = await deliveries.lockDeliveries(
        trx,
        ctx.dialect,
        sent.map((o) => o.order_number),
      );
      const storedLines = await deliveries.linesOf(
        trx,
        [...existing.values()].map((d) => d.id),
      );
      const received = await deliveries.linesWithReceipts(
        trx,
        storedLines.map((l) => l.id),
      );
      const linesByDelivery = groupBy(storedLines, (line) => line.delivery_id);

      const plan: Plan = {
        counts: { created: 0, updated: 0, unchanged: 0, deleted: 0 },
        newDeliveries: [],
        updates: [],
        touchedReceiptDeliveries: [],
        writtenLines: new Set(),
      };
      const errors: FieldError[] = [];
      sent.forEach((order, index) => {
        const store = stores.get(order.store_number!)!;
        const sentLines = order.order_lines?.map((line, lineIndex) => lineRecord(line, products[index]![lineIndex]!));
        const stored = existing.get(order.order_number);
        if (!stored) {
          planCreate(plan, order, store, sentLines ?? [], containerOverride, now);
          for (const line of sentLines ?? []) plan.writtenLines.add(lineItem(index, line.line_number));
          return;
        }
        if (stored.store_id !== store.id) {
          // Another store's delivery is reached through stored data: 403 unless the token holds that store (PRODUCT §4).
          assertStoreAccess(principal, stored.store_number);
          errors.push({
            path: `${orderPath(index)}.order_number`,
            message: `belongs to a delivery of store '${stored.store_number}'`,
          });
          return;
        }
        errors.push(
          ...planUpdate(
            ctx,
            trx,
            plan,
            index,
            order,
            stored,
            linesByDelivery.get(stored.id) ?? [],
            received,
            sentLines,
            containerOverride,
            principal.name,
            now,
          ),
        );
      });
      if (errors.length > 0) throw conflict('Some delivery orders cannot change that way', errors);
      held.assertLiveWhere(
        (item) => plan.writtenLines.has(item),
        'Some new or changed delivery lines name deleted products',
      );

      await deliveries.insertDeliveries(trx, ctx.dialect, plan.newDeliveries, principal.name, now);
      for (const update of plan.updates) await update();
      await touchReceipts(trx, plan.touchedReceiptDeliveries, principal.name);
      return plan.counts;
    },
    { serialise: ['delivery_orders'] },
  );
  return describeCounts(counts);
}

function planCreate(
  plan: Plan,
  order: DeliveryInput,
  store: StoreRow,
  lines: LineRecord[],
  containerOverride: boolean,
  now: number,
): void {
  const header = headerOf(order, containerCount(order.no_of_containers, lines, containerOverride), now);
  plan.counts.created++;
  plan.newDeliveries.push({
    storeId: store.id,
    storeNumber: store.store_number,
    orderNumber: order.order_number,
    status: order.status === 'cancelled' ? 'cancelled' : 'open',
    header,
    contentHash: headerHash(header),
    lines,
  });
}

/** Plans the changes of one stored delivery; returns the conflicts (409) it would cause. */
function planUpdate(
  ctx: AppContext,
  trx: Transaction<Database>,
  plan: Plan,
  index: number,
  order: DeliveryInput,
  stored: DeliveryRow,
  storedLines: readonly DeliveryLineRow[],
  received: ReadonlySet<number>,
  sentLines: LineRecord[] | undefined,
  containerOverride: boolean,
  actor: string,
  now: number,
): FieldError[] {
  const lineChanges = diffLineSet({
    stored: storedLines,
    sent: sentLines ?? storedLines,
    signature: lineSignature,
    inUse: (line) =>
      received.has(line.id) ? `has received stock (${Number(line.received_quantity) / 1000})` : undefined,
    linesPath: `${orderPath(index)}.order_lines`,
  });
  const { inserts, changes, removals } = lineChanges;
  const errors: FieldError[] = [...lineChanges.conflicts];
  const finalLines = sentLines ?? storedLines;
  const header = headerOf(
    order,
    containerCount(order.no_of_containers, finalLines, containerOverride),
    stored.datetime_created_at,
  );
  const hash = headerHash(header);
  const cancelling = order.status === 'cancelled' && stored.status !== 'cancelled';
  // Absent status leaves it as it is: an ERP re-sending a cancelled order unchanged is no change.
  const reopening = order.status === 'open' && stored.status === 'cancelled';
  const linesChanged = inserts.length + changes.length + removals.length > 0;
  const changed = hash !== stored.content_hash || linesChanged || cancelling || reopening;
  if (!changed) {
    plan.counts.unchanged++;
    return errors;
  }
  if (CLOSED_STATUSES.has(stored.status)) {
    return [
      {
        path: `${orderPath(index)}.order_number`,
        message: `delivery '${stored.order_number}' is ${stored.status}: it can no longer change`,
      },
    ];
  }
  const hasReceived = stored.status !== 'open' || storedLines.some((line) => received.has(line.id));
  if (header.store_origin !== stored.store_origin && hasReceived) {
    // PRODUCT §4: what was received already left the origin's books (the transfer's legs);
    // re-pointing the origin would book later corrections in a store that never sent the goods.
    errors.push({
      path: `${orderPath(index)}.store_origin`,
      message: `delivery '${stored.order_number}' has received stock from ${stored.store_origin === null ? 'no store' : `store '${stored.store_origin}'`}: its origin can no longer change`,
    });
  }
  if (cancelling && hasReceived) {
    errors.push({
      path: `${orderPath(index)}.status`,
      message: `delivery '${stored.order_number}' has received stock: submit it through receiving instead of cancelling`,
    });
  }
  if (errors.length > 0) return errors;
  plan.counts.updated++;
  for (const line of [...inserts, ...changes.map((change) => change.record)])
    plan.writtenLines.add(lineItem(index, line.line_number));
  if (stored.status !== 'open') plan.touchedReceiptDeliveries.push(stored.id);
  plan.updates.push(async () => {
    await deliveries.updateDelivery(trx, stored.id, {
      ...header,
      status: cancelling ? 'cancelled' : stored.status,
      content_hash: hash,
      updated_on: now,
      modified_by: actor,
    });
    await deliveries.deleteLines(
      trx,
      removals.map((line) => line.id),
    );
    for (const { line, record } of changes) await deliveries.updateLine(trx, line.id, record);
    await deliveries.insertLines(trx, ctx.dialect, [
      { deliveryId: stored.id, storeId: stored.store_id, lines: inserts },
    ]);
  });
  return errors;
}

/** `delivery_date`: a day (YYYY-MM-DD) or a date-time, meaning its UTC day. */
function dayOf(text: string): { from: number; to: number } {
  const day = utcDayOf(text);
  if (day === undefined) {
    throw validationFailed('delivery_date is not a date', [
      { path: 'query.delivery_date', message: 'must be a day (YYYY-MM-DD) or an ISO 8601 date-time' },
    ]);
  }
  return day;
}

/** GET /orders/deliveries (interface §4.3): paged, every filter, store tokens see their stores. */
export async function listDeliveries(
  ctx: AppContext,
  query: DeliveriesQuery,
  principal: Principal,
): Promise<PagedResult<DeliveryOrder>> {
  const window = resolvePage(query, DeliveriesQuery, 'delivery_orders', ctx.cursors);
  const filters: deliveries.DeliveryFilters = {
    storeNumber: query.store_number,
    scope: listScope(principal),
    status: query.status,
    isSubmitted: query.is_submitted,
    updatedFrom: query.last_modified_date ? requireDateTime(query.last_modified_date) : undefined,
    orderNumber: query.order_number,
    supplierCode: query.supplier_code,
    supplierName: query.supplier_name,
    expectedBetween: query.delivery_date ? dayOf(query.delivery_date) : undefined,
    groupCode: query.group_code,
    secondaryOrderNumber: query.secondary_order_number,
  };
  const [rows, totalCount, lastModified] = await Promise.all([
    deliveries.pageOfDeliveries(ctx.db, ctx.dialect, filters, window),
    deliveries.countDeliveries(ctx.db, ctx.dialect, filters),
    deliveries.deliveriesLastModified(ctx.db, filters),
  ]);
  const lines = await deliveries.readLines(
    ctx.db,
    rows.slice(0, window.pageSize).map((row) => row.id),
  );
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => toDeliveryOrder(row, lines.get(row.id) ?? []),
    totalCount,
    lastModified,
    cursors: ctx.cursors,
  });
}
