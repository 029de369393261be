import type { Action, EntryArg } from './actions.js';
import { BARCODES, LOCATIONS, PRODUCTS, REASONS, STORES, UNIT_BARCODE, UNKNOWN_LOCATION, WAREHOUSES, type LocationCode, type ProductNo, type StoreNo, type TokenName } from './chain.js';
import { balanceKey, isOpenOrder, MAX_EXACT, type ChainModel, type CustomerOrder } from './model.js';
import { resolveQuantity, resolveTime, toNumber } from './time.js';

/**
 * Turns an action into the request a client sends and what the model says must follow
 * (issue 26). `expect` lists the statuses the rules allow (more than one only where PRODUCT.md
 * leaves the order of two refusals open); `commit` changes the model as the accepted request
 * must have changed the service, given its answer.
 */
export interface Plan {
  label: string;
  request: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; body?: unknown; who: TokenName; headers?: Record<string, string> };
  expect: number[];
  commit?: (model: ChainModel, answer: { status: number; json: unknown }) => void;
  /** A read whose answer the model checks. */
  check?: (model: ChainModel, answer: { status: number; json: unknown }) => string | undefined;
}

export const API = '/api/v2/public';

/** What a sequence remembers between steps that is not the chain's state. */
export interface SequenceContext {
  deliveries: number;
  orders: number;
  step: number;
  /** The last write sent with an Idempotency-Key whose answer the service keeps. */
  lastKeyed?: { plan: Plan; status: number; body: string };
}

const productName = (index: number) => (index < PRODUCTS.length ? PRODUCTS[index]! : 'P9');

/** Refusals in the order the service makes them: the route's guard, then validation, then the rest. */
function firstOf(...checks: Array<number | null | false | undefined>): number | null {
  for (const check of checks) if (typeof check === 'number') return check;
  return null;
}

/**
 * The request's effects applied to a copy, in arrival order: every balance must stay in range
 * after each booking (with the levels its counts expected), and each touched store product's
 * balances added up by size at the end (docs/stock.md "Exact sums").
 */
function rangeRefusal(model: ChainModel, effects: (m: ChainModel) => string[]): number | null {
  const copy = model.clone();
  let broken = false;
  copy.onBook = (key) => {
    if (!copy.balanceInRange(key)) broken = true;
  };
  const touched = effects(copy);
  return broken || copy.magnitudeOutOfRange(touched).length > 0 ? 422 : null;
}

export function planStep(model: ChainModel, action: Action, context: SequenceContext): Plan | undefined {
  const now = Date.now();
  switch (action.kind) {
    case 'log':
      return planLog(model, action, now, context.orders + 1);
    case 'move':
      return planMove(model, action, now);
    case 'review':
      return planReview(model, action, now);
    case 'deliveryCreate':
      return planDeliveryCreate(model, action, ++context.deliveries);
    case 'deliveryResend':
      return planDeliveryResend(model, action);
    case 'receive':
      return planReceive(model, action, now);
    case 'orderCreate':
      return planOrderCreate(model, action, ++context.orders);
    case 'pick':
      return planPick(model, action, now);
    case 'clear':
      return planClear(model, action, now);
    case 'reject':
      return planReject(model, action, now);
    case 'externalCount':
      return planExternalCount(model, action, now);
    case 'deleteProduct': {
      const product = PRODUCTS[action.product]!;
      return {
        label: `delete product ${product}`,
        request: { method: 'DELETE', url: `${API}/products`, body: { product_number: [product] }, who: 'integration' },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedProducts.add(product),
      };
    }
    case 'restoreProduct': {
      const product = PRODUCTS[action.product]!;
      return {
        label: `re-import product ${product}`,
        request: { method: 'POST', url: `${API}/products`, body: { products: [productRecord(product)] }, who: 'integration' },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedProducts.delete(product),
      };
    }
    case 'read':
      return planRead(model, action);
    case 'surrounding':
      return planSurrounding(model, action);
    case 'list':
      return planList(model, action);
    case 'orderStatus':
      return planOrderStatus(model, action, now);
    case 'receiptEntry':
      return planReceiptEntry(model, action, now);
    case 'locations':
      return planLocations(model, action);
    case 'locationProducts':
      return planLocationProducts(model, action);
    case 'receipts':
      return planReceipts(model, action);
    case 'ordersList':
      return planOrdersList(model, action);
    case 'storeProducts':
      return planStoreProducts(model, action);
    case 'reasonFlush': {
      const kept = REASON_RECORDS.filter(([kind]) => kind !== action.drop);
      return {
        label: `flush reason codes: drop ${action.drop}`,
        request: { method: 'POST', url: `${API}/reasoncodes?flush=true`, body: { reason_codes: kept.map(([, record]) => record) }, who: 'integration' },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => {
          m.deletedReasons.clear();
          m.deletedReasons.add(action.drop);
        },
      };
    }
    case 'reasonRestore':
      return {
        label: 'reason codes sent again',
        request: { method: 'POST', url: `${API}/reasoncodes`, body: { reason_codes: REASON_RECORDS.map(([, record]) => record) }, who: 'integration' },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedReasons.clear(),
      };
    case 'productListCreate':
      return planProductListCreate(model, action);
    case 'productListLines':
      return planProductListLines(model, action);
    case 'productListRead':
      return planProductListRead(model, action);
    case 'productListDelete':
      return planProductListDelete(model, action);
    case 'masterRead':
      return {
        label: `read ${action.which} by ${action.who}`,
        request: { method: 'GET', url: `${API}/${action.which}${action.which === 'reasoncodes' ? '' : '?page_size=50'}`, who: action.who },
        expect: [model.routeRefusal(action.who, false) ?? 200],
      };
    case 'masterWrite':
      return planMasterWrite(model, action);
    case 'storeFlush': {
      const dropped = STORES[action.drop]!;
      const kept = STORES.filter((s) => s !== dropped);
      return {
        label: `flush stores: keep ${kept.join(', ')}`,
        request: { method: 'POST', url: `${API}/stores?flush=true`, body: { stores: kept.map(storeRecord) }, who: 'integration' },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => {
          m.deletedStores.clear();
          m.deletedStores.add(dropped);
        },
      };
    }
    case 'storeRestore':
      return {
        label: 'stores sent again (restores a flushed one)',
        request: { method: 'POST', url: `${API}/stores`, body: { stores: STORES.map(storeRecord) }, who: 'integration' },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedStores.clear(),
      };
    case 'revoke':
    case 'resend':
      return undefined; // the runner does these itself
  }
}

/** The store record every sequence imports (a flush leaves one out, a re-send restores it). */
export function storeRecord(store: StoreNo): Record<string, unknown> {
  return { store_number: store, store_name: `Store ${store}`, is_active: true, is_active_data_exchange: true, is_warehouse: WAREHOUSES.includes(store), area_id: 'north' };
}

/** A reason code record of §4.5 with the flags of its kind. */
function reasonRecord(code: number, type: number, flags: Record<string, unknown>): Record<string, unknown> {
  return {
    reason_code: code,
    reason_code_description: `Reason ${code}`,
    reason_code_type: type,
    default_review_status: 0,
    is_comment_mandatory: false,
    is_gain: false,
    is_image_mandatory: false,
    is_loss: false,
    is_order_number_mandatory: false,
    is_picking_list: false,
    is_sales_order_discount: false,
    is_store: false,
    ...flags,
  };
}

/** The chain's reason codes (chain.ts REASONS), each under the kind the model knows it by. */
export const REASON_RECORDS: Array<[string, Record<string, unknown>]> = [
  ['plain', reasonRecord(REASONS.plain, 1, {})],
  ['loss', reasonRecord(REASONS.loss, 1, { is_loss: true })],
  ['gain', reasonRecord(REASONS.gain, 1, { is_gain: true })],
  ['review', reasonRecord(REASONS.review, 1, { default_review_status: 1 })],
  ['rejection', reasonRecord(REASONS.rejection, 2, {})],
  ['movement', reasonRecord(REASONS.movement, 3, {})],
];

/** The product master record every sequence imports (and a re-import restores). */
export function productRecord(product: ProductNo): Record<string, unknown> {
  return {
    product_number: product,
    product_name: `Product ${product}`,
    carrier_item_quantity: 1,
    is_counted: true,
    price_compare_multiplier: 1,
    barcode: BARCODES[product],
    ...(product === UNIT_BARCODE.product ? { units: [{ unit_barcode: UNIT_BARCODE.barcode, unit_name: 'box', unit_quantity: UNIT_BARCODE.items }] } : {}),
  };
}

// ------------------------------------------------------------------------- stock entries

const APP_USER_SPELLINGS = ['appUserName', 'AppUserName', 'APPUSERNAME'];

function planLog(model: ChainModel, action: Extract<Action, { kind: 'log' }>, now: number, nextOrder: number): Plan {
  const entries = action.entries.map((entry) => logEntry(model, action.store, entry, action.count, now, nextOrder));
  const query = `${APP_USER_SPELLINGS[action.userSpelling]}=sim${action.count ? '&is_counted_quantity=true' : ''}`;
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    entries.some((e) => e.at === null) && 400,
    !model.isStore(action.store) && 404,
    entries.some((e) => e.unprocessable) && 422,
    rangeRefusal(model, (m) => entries.flatMap((e) => (e.pending ? [] : [e.apply(m)]))),
  );
  return {
    label: `${action.count ? 'count' : 'log'} ${action.store} by ${action.who}: ${entries.map((e) => e.describe).join('; ')}`,
    request: { method: 'POST', url: `${API}/stores/${action.store}/products/stock/storeproductlogs?${query}`, body: { storeproductlog: entries.map((e) => e.body) }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m, answer) => {
      const ids = (answer.json as { data: number[] }).data;
      entries.forEach((entry, index) => {
        if (entry.pending) m.pending.push({ id: ids[index]!, store: action.store as StoreNo, key: entry.key, at: entry.at!, milli: entry.milli, order: entry.order, state: 'pending' });
        else entry.apply(m);
      });
    },
  };
}

interface LogEntryPlan {
  order: string | null;
  body: Record<string, unknown>;
  /** null: the time rule refuses it. */
  at: number | null;
  milli: bigint;
  pending: boolean;
  key: string;
  unprocessable: boolean;
  describe: string;
  /** Books the entry into a model; returns the balance it touched. */
  apply(m: ChainModel): string;
}

function logEntry(model: ChainModel, store: string, arg: EntryArg, count: boolean, now: number, nextOrder: number): LogEntryPlan {
  // Counts name no order here; an entry may name any order number (PRODUCT §5: bound stock is never stranded).
  const order =
    count || arg.order.kind === 'none'
      ? null
      : arg.order.kind === 'upcoming'
        ? `C${nextOrder + arg.order.ahead}`
        : model.orders.length === 0
          ? `C${nextOrder}`
          : model.orders[arg.order.index % model.orders.length]!.number;
  const product = productName(arg.product);
  const time = resolveTime(arg.time, now);
  const { value, milli: sent } = resolveQuantity(arg.quantity);
  // A count is a level: sent as a magnitude, with no reason code (the sign rules are for deltas).
  const quantity = count ? Math.abs(value) : value;
  const reason = count ? undefined : arg.reason;
  const absolute = sent < 0n ? -sent : sent;
  const milli = count ? absolute : reason === 'loss' ? -absolute : reason === 'gain' ? absolute : sent;
  const location = arg.location === undefined ? null : arg.location;
  const pool = arg.pool ?? (location === null || location === UNKNOWN_LOCATION ? 1 : model.defaultPool(location));
  const key = balanceKey(store, product, location, pool, order);
  return {
    order,
    body: {
      product_number: product,
      quantity,
      customer_order_line_number: 0,
      modification_datetime: time.text,
      ...(arg.location !== undefined ? { location_code: arg.location } : {}),
      ...(arg.pool !== undefined ? { pool_location: arg.pool } : {}),
      ...(reason !== undefined ? { reason_code: REASONS[reason] } : {}),
      ...(order !== null ? { customer_order_number: order } : {}),
    },
    at: time.at,
    milli,
    pending: reason === 'review',
    key,
    unprocessable:
      !model.isLiveProduct(product) ||
      location === UNKNOWN_LOCATION ||
      reason === 'unknown' ||
      (reason !== undefined && model.deletedReasons.has(reason)) ||
      // An order of the store moves its stock only by picking, rejection and clearance.
      (order !== null && model.orderIn(store, order) !== undefined),
    describe: `${product}@${location ?? '-'}/${pool}${order ? ` for ${order}` : ''} ${count ? '=' : ''}${quantity}${reason ? ` (${reason})` : ''} at ${time.text}`,
    apply(m) {
      m.book(key, time.at!, milli, count);
      return key;
    },
  };
}

/** PRODUCT §3: a stored sum stays where it is exact. */
export const inExactRange = (milli: bigint) => milli <= MAX_EXACT && milli >= -MAX_EXACT;

// ------------------------------------------------------------------------- movements, review

function planMove(model: ChainModel, action: Extract<Action, { kind: 'move' }>, now: number): Plan {
  const product = productName(action.product);
  const fromPool = action.fromPool ?? model.defaultPool(action.from);
  let toPool = action.toPool ?? model.defaultPool(action.to);
  // Both sides the same balance would move nothing: the generator means another pool then.
  if (action.from === action.to && fromPool === toPool) toPool = fromPool === 1 ? 2 : 1;
  const from = balanceKey(action.store, product, action.from, fromPool, null);
  const to = balanceKey(action.store, product, action.to, toPool, null);
  const milli = BigInt(action.quantity) * 1000n;
  const effects = (m: ChainModel) => {
    m.book(from, now, -milli);
    m.book(to, now, milli);
    return [from, to];
  };
  const side = (location: LocationCode | null, pool: number, explicit: boolean) => ({
    ...(location ? { location_code: location } : {}),
    ...(explicit ? { stock_pool: pool } : {}),
  });
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    !model.isStore(action.store) && 404,
    !model.isLiveProduct(product) && 422,
    !action.overage && model.level(from) < milli && 409,
    rangeRefusal(model, effects),
  );
  return {
    label: `move ${action.store} by ${action.who}: ${action.quantity} ${product} ${from} -> ${to}${action.overage ? ' (overage)' : ''}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${action.store}/storeproductlocation/movement?AppUserName=sim`,
      body: {
        body: [{
          quantity: action.quantity,
          product_number: product,
          allow_overage: action.overage,
          from_location: side(action.from, fromPool, action.fromPool !== undefined || action.from === action.to),
          to_location: side(action.to, toPool, action.toPool !== undefined || action.from === action.to),
        }],
      },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => void effects(m),
  };
}

function planReview(model: ChainModel, action: Extract<Action, { kind: 'review' }>, _now: number): Plan | undefined {
  if (model.pending.length === 0) return undefined;
  const entry = model.pending[action.pending % model.pending.length]!;
  const effects = (m: ChainModel) => {
    m.book(entry.key, entry.at, entry.milli);
    return [entry.key];
  };
  const refusal = firstOf(
    model.routeRefusal(action.who, true, entry.store),
    !model.isStore(entry.store) && 404,
    entry.state !== 'pending' && 409,
    action.approve && entry.order !== null && model.orderIn(entry.store, entry.order) !== undefined && 422,
    action.approve && rangeRefusal(model, effects),
  );
  return {
    label: `${action.approve ? 'approve' : 'reject'} entry ${entry.id} (${entry.state}) by ${action.who}`,
    request: { method: 'POST', url: `${API}/stores/${entry.store}/products/stock/storeproductlogs/review`, body: { ids: [entry.id], approve: action.approve }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.pending.find((p) => p.id === entry.id)!;
      stored.state = action.approve ? 'approved' : 'rejected';
      if (action.approve) effects(m);
    },
  };
}

// ------------------------------------------------------------------------- deliveries

function pickOther(store: string, index: number): StoreNo {
  const others = STORES.filter((s) => s !== store);
  return others[index % others.length]!;
}

const OUTSIDE_ORIGIN = 'X1';

function planDeliveryCreate(model: ChainModel, action: Extract<Action, { kind: 'deliveryCreate' }>, serial: number): Plan {
  const number = `D${serial}`;
  const origin =
    action.origin === 'none' ? null : action.origin === 'self' ? action.store : action.origin === 'outside' ? OUTSIDE_ORIGIN : pickOther(action.store, action.originIndex);
  const lines = action.lines.map((line, i) => ({
    line_number: i + 1,
    product_number: productName(line.product),
    quantity: line.quantity,
    target_stock_pool: line.pool,
  }));
  const body = {
    order_number: number,
    datetime_expected: '2026-12-01T08:00:00Z',
    no_of_containers: 1,
    order_type: origin === null ? 1 : 2,
    ...(origin !== null ? { store_origin: origin } : {}),
    order_lines: lines,
  };
  // The cross-store path names the store in the body (PRODUCT §4: checked like a path).
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.crossStore ? undefined : action.store),
    // Stores a body names are checked once it is valid, before any work (plugins/auth.ts).
    action.crossStore && !model.covers(action.who, action.store) && 403,
    origin !== null && !model.covers(action.who, origin) && 403,
    origin === action.store && 400,
    !model.isStore(action.store) && 404,
    lines.some((l) => !model.isLiveProduct(l.product_number)) && 422,
  );
  const request: Plan['request'] = action.crossStore
    ? { method: 'POST', url: `${API}/orders/deliveries`, body: { orders: [{ ...body, store_number: action.store, supplier_name: 'Simulated Supplier' }] }, who: action.who }
    : { method: 'POST', url: `${API}/stores/${action.store}/orders/deliveries`, body: { orders: [body] }, who: action.who };
  return {
    label: `delivery ${number} into ${action.store}${origin ? ` from ${origin}` : ''}${action.crossStore ? ' (cross-store path)' : ''} by ${action.who}: ${lines.map((l) => `${l.product_number}×${l.quantity}/${l.target_stock_pool}`).join(', ')}`,
    request,
    expect: [refusal ?? 200],
    commit: (m) => {
      m.deliveries.push({
        number,
        store: action.store as StoreNo,
        origin,
        type: body.order_type,
        status: 'open',
        hasReceipt: false,
        lines: lines.map((l) => ({ number: l.line_number, product: l.product_number as ProductNo, milli: BigInt(l.quantity) * 1000n, pool: l.target_stock_pool, received: 0n })),
        body,
      });
    },
  };
}

function planDeliveryResend(model: ChainModel, action: Extract<Action, { kind: 'deliveryResend' }>): Plan | undefined {
  if (model.deliveries.length === 0) return undefined;
  const delivery = model.deliveries[action.delivery % model.deliveries.length]!;
  const reorigin = action.variant === 'reorigin';
  const newOrigin = reorigin ? pickOther(delivery.store, action.originIndex + (delivery.origin === pickOther(delivery.store, action.originIndex) ? 1 : 0)) : delivery.origin;
  const body = reorigin ? { ...delivery.body, order_type: 2, store_origin: newOrigin } : delivery.body;
  const changed = reorigin && newOrigin !== delivery.origin;
  const received = delivery.lines.some((l) => l.received !== 0n) || delivery.status !== 'open';
  const refusal = firstOf(
    model.routeRefusal(action.who, true, delivery.store),
    newOrigin !== null && !model.covers(action.who, newOrigin) && 403,
    !model.isStore(delivery.store) && 404,
    changed && received && 409,
  );
  return {
    label: `re-send delivery ${delivery.number} (${action.variant}${changed ? ` origin ${delivery.origin} -> ${newOrigin}` : ''}, ${delivery.status}) by ${action.who}`,
    request: { method: 'POST', url: `${API}/stores/${delivery.store}/orders/deliveries`, body: { orders: [body] }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.deliveries.find((d) => d.number === delivery.number)!;
      stored.origin = newOrigin;
      stored.body = body;
    },
  };
}

function planReceive(model: ChainModel, action: Extract<Action, { kind: 'receive' }>, now: number): Plan | undefined {
  if (model.deliveries.length === 0) return undefined;
  const delivery = model.deliveries[action.delivery % model.deliveries.length]!;
  const seen = new Set<number>();
  const lines = action.lines
    .map((l) => ({ line: delivery.lines[l.line % delivery.lines.length]!, quantity: l.quantity }))
    .filter((l) => !seen.has(l.line.number) && seen.add(l.line.number));
  // A soft-deleted origin is still a store of this service with stock on its books: it gives the goods.
  const originStore = delivery.origin !== null && model.isChainStore(delivery.origin) ? delivery.origin : null;
  const effects = (m: ChainModel) =>
    lines.flatMap(({ line, quantity }) => {
      const milli = BigInt(quantity) * 1000n;
      const into = balanceKey(delivery.store, line.product, null, line.pool, null);
      m.book(into, now, milli);
      if (originStore === null) return [into];
      const out = balanceKey(originStore, line.product, null, 1, null);
      m.book(out, now, -milli);
      return [into, out];
    });
  const closed = delivery.status === 'received';
  const refusal = firstOf(
    model.routeRefusal(action.who, true, delivery.store),
    lines.length === 0 && !action.submit && 400,
    !model.isStore(delivery.store) && 404,
    originStore !== null && !model.covers(action.who, originStore) && 403,
    closed && 409,
    lines.some(({ line, quantity }) => line.received + BigInt(quantity) * 1000n < 0n) && 409,
    rangeRefusal(model, effects),
  );
  // A store token that may not touch the origin of a delivery already closed: either refusal is right.
  const expect = refusal === 403 && closed ? [403, 409] : [refusal ?? 200];
  return {
    label: `receive ${delivery.number} (${delivery.status}) in ${delivery.store} by ${action.who}: ${lines.map((l) => `line ${l.line.number} ${l.quantity}`).join(', ')}${action.submit ? ' + submit' : ''}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${delivery.store}/orders/deliveries/${delivery.number}/receive?appUserName=sim`,
      body: { lines: lines.map((l) => ({ line_number: l.line.number, received_quantity: l.quantity })), submit: action.submit },
      who: action.who,
    },
    expect,
    commit: (m) => {
      effects(m);
      const stored = m.deliveries.find((d) => d.number === delivery.number)!;
      for (const { line, quantity } of lines) stored.lines.find((l) => l.number === line.number)!.received += BigInt(quantity) * 1000n;
      if (lines.length > 0 && stored.status === 'open') stored.status = 'receiving';
      if (action.submit) stored.status = 'received';
      stored.hasReceipt = true;
    },
  };
}

// ------------------------------------------------------------------------- customer orders

function planOrderCreate(model: ChainModel, action: Extract<Action, { kind: 'orderCreate' }>, serial: number): Plan {
  const number = `C${serial}`;
  const lines = action.lines.map((line, i) => ({ line_number: i + 1, product_number: productName(line.product), quantity: line.quantity, stock_pool: 1 }));
  const body = { order_number: number, customer_name: 'Simulated Customer', lines };
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.crossStore ? undefined : action.store),
    action.crossStore && !model.covers(action.who, action.store) && 403,
    !model.isStore(action.store) && 404,
    lines.some((l) => !model.isLiveProduct(l.product_number)) && 422,
  );
  const request: Plan['request'] = action.crossStore
    ? { method: 'POST', url: `${API}/orders/customerorders`, body: { orders: [{ ...body, store_number: action.store }] }, who: action.who }
    : { method: 'POST', url: `${API}/stores/${action.store}/orders/customerorders`, body: { orders: [body] }, who: action.who };
  return {
    label: `customer order ${number} in ${action.store}${action.crossStore ? ' (cross-store path)' : ''} by ${action.who}: ${lines.map((l) => `${l.product_number}×${l.quantity}`).join(', ')}`,
    request,
    expect: [refusal ?? 200],
    commit: (m) => {
      m.orders.push({
        number,
        store: action.store as StoreNo,
        status: 1,
        lines: lines.map((l) => ({ number: l.line_number, product: l.product_number as ProductNo, milli: BigInt(l.quantity) * 1000n, pool: 1, picked: 0n, lastLoc: null })),
        body,
      });
    },
  };
}

const boundKey = (order: CustomerOrder, line: { product: string; pool: number }) => balanceKey(order.store, line.product, null, line.pool, order.number);

function planPick(model: ChainModel, action: Extract<Action, { kind: 'pick' }>, now: number): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const line = order.lines[action.line % order.lines.length]!;
  const total = BigInt(action.total) * 1000n;
  const delta = total - line.picked;
  const best = (): LocationCode | null =>
    [...LOCATIONS, null].reduce<LocationCode | null>((a, b) => (model.freeAt(order.store, line.product, b, line.pool) > model.freeAt(order.store, line.product, a, line.pool) ? b : a), 'A');
  const named = action.location === 'best' ? best() : action.location;
  const sentLocation = action.location === 'best' ? named : action.location;
  // Where the stock comes from (or goes back to): the named location, else where the line was last picked, else unlocated.
  const place = named ?? line.lastLoc;
  const source = balanceKey(order.store, line.product, place, line.pool, null);
  const bound = boundKey(order, line);
  const effects = (m: ChainModel) => {
    m.book(source, now, -delta);
    m.book(bound, now, delta);
    return [source, bound];
  };
  const refusal = firstOf(
    model.routeRefusal(action.who, true, order.store),
    !model.isStore(order.store) && 404,
    !isOpenOrder(order) && 409,
    delta > 0n && model.level(source) < delta && 409,
    rangeRefusal(model, effects),
  );
  return {
    label: `pick ${order.number} (status ${order.status}) line ${line.number} ${line.product} to ${action.total} from ${place ?? '-'} by ${action.who}`,
    request: {
      method: 'PUT',
      url: `${API}/stores/${order.store}/orders/customerorder`,
      body: { order_number: order.number, lines: [{ line_number: line.number, picked_quantity: action.total, ...(sentLocation ? { stock_location: sentLocation } : {}) }] },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.orders.find((o) => o.number === order.number)!;
      const storedLine = stored.lines.find((l) => l.number === line.number)!;
      if (delta !== 0n) effects(m);
      storedLine.picked = total;
      if (delta > 0n) storedLine.lastLoc = place;
      let status = stored.status;
      if (stored.lines.some((l) => l.picked > 0n)) status = Math.max(status, 3);
      if (stored.lines.every((l) => l.picked >= l.milli)) status = Math.max(status, 4);
      stored.status = status;
    },
  };
}

function planClear(model: ChainModel, action: Extract<Action, { kind: 'clear' }>, now: number): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const store = action.otherStore ? pickOther(order.store, order.lines.length) : order.store;
  const refusal = firstOf(
    model.routeRefusal(action.who, true),
    !model.covers(action.who, store) && 403,
    (store !== order.store || !model.isStore(store)) && 404,
    !isOpenOrder(order) && 409,
  );
  return {
    label: `clearance of ${order.number} (status ${order.status}) naming ${store} by ${action.who}`,
    request: { method: 'POST', url: `${API}/customerorders/clearance`, body: { store_number: store, order_number: order.number }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.orders.find((o) => o.number === order.number)!;
      // Everything bound under its number in its store is handed over, picked or bound by entries before the import.
      for (const bound of m.boundUnder(stored.store, stored.number)) m.book(bound.key, now, -bound.level);
      stored.status = 5;
    },
  };
}

function planReject(model: ChainModel, action: Extract<Action, { kind: 'reject' }>, now: number): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const refusal = firstOf(model.routeRefusal(action.who, true, order.store), !model.isStore(order.store) && 404, !isOpenOrder(order) && 409);
  return {
    label: `reject ${order.number} (status ${order.status}) by ${action.who}`,
    request: {
      method: 'PUT',
      url: `${API}/stores/${order.store}/orders/customerorder`,
      body: { order_number: order.number, is_rejected: true, rejection_reason_code: REASONS.rejection },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.orders.find((o) => o.number === order.number)!;
      releaseOrder(m, stored, now);
      stored.status = 6;
    },
  };
}

// ------------------------------------------------------------------------- external counting, reads

function planExternalCount(model: ChainModel, action: Extract<Action, { kind: 'externalCount' }>, now: number): Plan {
  const time = resolveTime(action.time, now);
  const lines = action.lines.map((line) => {
    const product = productName(line.product);
    const unit = line.unit && product === UNIT_BARCODE.product;
    const barcode = product in BARCODES ? (unit ? UNIT_BARCODE.barcode : BARCODES[product as ProductNo]) : '0000000000000';
    return { product, barcode, quantity: line.quantity, items: BigInt(line.quantity * (unit ? UNIT_BARCODE.items : 1)) * 1000n };
  });
  // Lines of one product add up; a barcode of no live product is kept unresolved (PRODUCT §5).
  const counted = new Map<string, bigint>();
  for (const line of lines) if (model.isLiveProduct(line.product)) counted.set(line.product, (counted.get(line.product) ?? 0n) + line.items);
  const effects = (m: ChainModel) =>
    [...counted].map(([product, items]) => {
      // The count states the free pool-1 total; it is booked on the unlocated pool-1 balance as
      // that total minus the located pool-1 stock at its moment (decisions.md, external counting).
      const located = LOCATIONS.reduce((sum, loc) => sum + m.levelAt(balanceKey(action.store, product, loc, 1, null), time.at!), 0n);
      const key = balanceKey(action.store, product, null, 1, null);
      m.book(key, time.at!, items - located, true);
      return key;
    });
  const refusal = firstOf(
    model.routeRefusal(action.who, true),
    time.at === null && 400,
    !model.covers(action.who, action.store) && 403,
    !model.isStore(action.store) && 404,
    rangeRefusal(model, effects),
  );
  return {
    label: `external count ${action.store} at ${time.text} by ${action.who}: ${lines.map((l) => `${l.barcode}=${l.quantity}`).join(', ')}`,
    request: {
      method: 'POST',
      url: `${API}/externalcountinglines`,
      body: { CountingDateTime: time.text, StoreNo: action.store, Lines: lines.map((l) => ({ counted_quantity: l.quantity, product_barcode: l.barcode })) },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => void effects(m),
  };
}

function planRead(model: ChainModel, action: Extract<Action, { kind: 'read' }>): Plan {
  const store = STORES[action.store]!;
  const product = PRODUCTS[action.product]!;
  const refusal = firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404);
  const total = model.storeTotal(store, product);
  const everBooked = [...model.balances.keys()].some((key) => key.startsWith(`${store}|${product}|`));
  // A deleted product, or one never stocked in the store, may have no stock record to show.
  const expect = refusal !== null ? [refusal] : model.deletedProducts.has(product) || !everBooked ? [200, 404] : [200];
  return {
    label: `read stock of ${product} in ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/products/${product}/stock?include_locations=true`, who: action.who },
    expect,
    check: (_m, answer) => {
      if (answer.status !== 200) return undefined;
      const shown = (answer.json as { products: Array<{ most_likely_stock: number }> }).products[0]?.most_likely_stock ?? 0;
      return shown === toNumber(total) ? undefined : `most_likely_stock of ${product} in ${store} is ${shown}, the model says ${toNumber(total)}`;
    },
  };
}


/**
 * Rejection and cancel (docs/customer-orders.md): each line's picks go back to where they were
 * last picked; whatever else is bound under the number in the store (entries that named it)
 * goes back to free stock at its own location and pool.
 */
function releaseOrder(m: ChainModel, order: CustomerOrder, now: number): void {
  for (const line of order.lines) {
    if (line.picked === 0n) continue;
    m.book(boundKey(order, line), now, -line.picked);
    m.book(balanceKey(order.store, line.product, line.lastLoc, line.pool, null), now, line.picked);
    line.picked = 0n;
  }
  for (const bound of m.boundUnder(order.store, order.number)) {
    const [store, product, location, pool] = bound.key.split('|');
    m.book(bound.key, now, -bound.level);
    m.book(balanceKey(store!, product!, location === '-' ? null : location!, Number(pool), null), now, bound.level);
  }
}

function planOrderStatus(model: ChainModel, action: Extract<Action, { kind: 'orderStatus' }>, now: number): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const body = action.variant === 'claim' ? { order_number: order.number, is_claimed: true } : { order_number: order.number, status_id: 7 };
  const refusal = firstOf(model.routeRefusal(action.who, true, order.store), !model.isStore(order.store) && 404, !isOpenOrder(order) && 409);
  return {
    label: `${action.variant} ${order.number} (status ${order.status}) by ${action.who}`,
    request: { method: 'PUT', url: `${API}/stores/${order.store}/orders/customerorder`, body, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.orders.find((o) => o.number === order.number)!;
      if (action.variant === 'claim') {
        stored.status = Math.max(stored.status, 2);
        return;
      }
      releaseOrder(m, stored, now);
      stored.status = 7;
    },
  };
}

/**
 * Receiving through a stock log entry (`is_from_receipt=true`, `reference` = the delivery,
 * docs/deliveries.md): the entry receives on the first line of its product still short of its
 * quantity, else the first; its pool is the line's target pool unless the entry names one; its
 * location the entry's. A transfer's origin gives the goods from its unlocated pool 1.
 */
function planReceiptEntry(model: ChainModel, action: Extract<Action, { kind: 'receiptEntry' }>, now: number): Plan | undefined {
  if (model.deliveries.length === 0) return undefined;
  const delivery = model.deliveries[action.delivery % model.deliveries.length]!;
  const product = delivery.lines[action.line % delivery.lines.length]!.product;
  const ofProduct = delivery.lines.filter((l) => l.product === product);
  const line = ofProduct.find((l) => l.received < l.milli) ?? ofProduct[0]!;
  const time = resolveTime(action.time, now);
  const milli = BigInt(action.quantity) * 1000n;
  const pool = action.pool ?? line.pool;
  const into = balanceKey(delivery.store, product, action.location, pool, null);
  const originStore = delivery.origin !== null && model.isChainStore(delivery.origin) ? delivery.origin : null;
  const effects = (m: ChainModel) => {
    m.book(into, time.at!, milli);
    if (originStore === null) return [into];
    const out = balanceKey(originStore, product, null, 1, null);
    m.book(out, time.at!, -milli);
    return [into, out];
  };
  const closed = delivery.status === 'received';
  const refusal = firstOf(
    model.routeRefusal(action.who, true, delivery.store),
    time.at === null && 400,
    !model.isStore(delivery.store) && 404,
    originStore !== null && !model.covers(action.who, originStore) && 403,
    !model.isLiveProduct(product) && 422,
    closed && 409,
    line.received + milli < 0n && 409,
    rangeRefusal(model, effects),
  );
  const expect = refusal === 403 && closed ? [403, 409] : [refusal ?? 200];
  return {
    label: `receipt entry on ${delivery.number} (${delivery.status}) in ${delivery.store} by ${action.who}: ${product} ${action.quantity} at ${action.location ?? '-'}/${pool} at ${time.text}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${delivery.store}/products/stock/storeproductlogs?is_from_receipt=true&appUserName=sim`,
      body: {
        storeproductlog: [{
          product_number: product,
          quantity: action.quantity,
          customer_order_line_number: 0,
          modification_datetime: time.text,
          reference: delivery.number,
          ...(action.location ? { location_code: action.location } : {}),
          ...(action.pool !== undefined ? { pool_location: action.pool } : {}),
        }],
      },
      who: action.who,
    },
    expect,
    commit: (m) => {
      effects(m);
      const stored = m.deliveries.find((d) => d.number === delivery.number)!;
      stored.lines.find((l) => l.number === line.number)!.received += milli;
      if (stored.status === 'open') stored.status = 'receiving';
      stored.hasReceipt = true;
    },
  };
}

/** Surrounding stock (PRODUCT §5): the other live stores of the area and every warehouse, with their quantity. */
function planSurrounding(model: ChainModel, action: Extract<Action, { kind: 'surrounding' }>): Plan {
  const store = STORES[action.store]!;
  const product = PRODUCTS[action.product]!;
  const refusal = firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404);
  const everBooked = [...model.balances.keys()].some((key) => key.startsWith(`${store}|${product}|`));
  return {
    label: `surrounding stock of ${product} from ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/storeproducts/${product}/surrounding`, who: action.who },
    expect: refusal !== null ? [refusal] : model.deletedProducts.has(product) || !everBooked ? [200, 404] : [200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const shown = answer.json as Array<{ store_number: string; most_likely_quantity: number }>;
      const want = STORES.filter((s) => s !== store && m.isStore(s)).map((s) => `${s}=${toNumber(m.storeTotal(s, product))}`).sort();
      const got = shown.map((row) => `${row.store_number}=${row.most_likely_quantity}`).sort();
      return JSON.stringify(got) === JSON.stringify(want) ? undefined : `surrounding stock of ${product} from ${store}: ${got.join(' ')}, the model says ${want.join(' ')}`;
    },
  };
}

interface ListedPage {
  total_count: number;
  project_last_modified_date: string | null;
  list: Array<{ store_number?: string; updated_on?: string; product_number?: string; most_likely_quantity?: number }>;
}

/**
 * A cross-store list as a token reads it (PRODUCT §4, §3.1): only rows of its stores, and every
 * figure of the page — total_count, project_last_modified_date — from those rows alone.
 */
function planList(model: ChainModel, action: Extract<Action, { kind: 'list' }>): Plan {
  const urls = { deliveries: '/orders/deliveries', logs: '/products/stock/storeproductlogs', stock: '/storeproducts/stock' } as const;
  const visible = model.visibleTo(action.who);
  return {
    label: `list ${action.list} by ${action.who}`,
    request: { method: 'GET', url: `${API}${urls[action.list]}?page_size=1000`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false)) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const page = answer.json as ListedPage;
      const foreign = page.list.filter((row) => row.store_number !== undefined && !visible(row.store_number));
      if (foreign.length > 0) return `${action.list} listed rows of stores ${[...new Set(foreign.map((r) => r.store_number))].join(', ')} to ${action.who}`;
      if (page.total_count !== page.list.length) return `${action.list}: total_count ${page.total_count} but ${page.list.length} rows listed (one page holds them all)`;
      const stamps = page.list.flatMap((row) => (row.updated_on ? [row.updated_on] : [])).sort();
      if (stamps.length === page.list.length && page.project_last_modified_date !== (stamps.at(-1) ?? null)) {
        return `${action.list}: project_last_modified_date ${page.project_last_modified_date}, newest row ${stamps.at(-1) ?? 'none'}`;
      }
      if (action.list === 'deliveries') {
        const want = m.deliveries.filter((d) => visible(d.store)).length;
        if (m.deletedStores.size === 0 && page.total_count !== want) return `deliveries: ${page.total_count} listed, the model has ${want} in ${action.who}'s stores`;
      }
      if (action.list === 'stock') {
        for (const row of page.list) {
          const want = toNumber(m.storeTotal(row.store_number!, row.product_number!));
          if (row.most_likely_quantity !== want) return `stock list: ${row.product_number} in ${row.store_number} is ${row.most_likely_quantity}, the model says ${want}`;
        }
      }
      return undefined;
    },
  };
}

// ------------------------------------------------------------------------- locations, receipts, orders, store products

/** Free stock of a product at a location, every pool (order-bound stock is never located). */
function locatedTotal(model: ChainModel, store: string, product: string, location: string): bigint {
  let total = 0n;
  for (const key of model.balances.keys()) if (key.startsWith(`${store}|${product}|${location}|`)) total += model.level(key);
  return total;
}

function planLocations(model: ChainModel, action: Extract<Action, { kind: 'locations' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `locations of ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/locations?page_size=100`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      for (const location of (answer.json as { list: Array<{ location_code: string; counter: number; quantity: number }> }).list) {
        const levels = PRODUCTS.map((p) => locatedTotal(m, store, p, location.location_code)).filter((q) => q !== 0n);
        const want = { counter: levels.length, quantity: toNumber(levels.reduce((a, b) => a + b, 0n)) };
        if (location.counter !== want.counter || location.quantity !== want.quantity) {
          return `location ${location.location_code} of ${store}: counter ${location.counter}, quantity ${location.quantity}; the model says ${want.counter}, ${want.quantity}`;
        }
      }
      return undefined;
    },
  };
}

function planLocationProducts(model: ChainModel, action: Extract<Action, { kind: 'locationProducts' }>): Plan {
  const store = STORES[action.store]!;
  const url = action.byTag ? `${API}/stores/${store}/locations/products?location_code=${action.location}&page_size=100` : `${API}/stores/${store}/locations/${action.location}/products?page_size=100`;
  return {
    label: `products at ${store}/${action.location} by ${action.who}`,
    request: { method: 'GET', url, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const shown = new Map<string, number>();
      for (const row of (answer.json as { list: Array<{ product_number: string; quantity: number }> }).list) shown.set(row.product_number, (shown.get(row.product_number) ?? 0) + row.quantity);
      for (const product of PRODUCTS) {
        if (m.deletedProducts.has(product)) continue;
        const want = toNumber(locatedTotal(m, store, product, action.location));
        if (want !== 0 && shown.get(product) !== want) return `${product} at ${store}/${action.location}: listed ${shown.get(product)}, the model says ${want}`;
      }
      return undefined;
    },
  };
}

/** A delivery has a receipt once something was received on it, or it was submitted. */
function planReceipts(model: ChainModel, action: Extract<Action, { kind: 'receipts' }>): Plan {
  const store = action.store === null ? undefined : STORES[action.store]!;
  const url = store === undefined ? `${API}/orders/receipts?receipt_type=${action.type}&page_size=1000` : `${API}/stores/${store}/orders/receipts?receipt_type=${action.type}&page_size=1000`;
  const visible = model.visibleTo(action.who);
  return {
    label: `receipts of type ${action.type}${store ? ` in ${store}` : ''} by ${action.who}`,
    request: { method: 'GET', url, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), store !== undefined && !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const page = answer.json as ListedPage;
      const foreign = page.list.filter((row) => row.store_number !== undefined && !visible(row.store_number));
      if (foreign.length > 0) return `receipts of stores ${foreign.map((r) => r.store_number).join(', ')} shown to ${action.who}`;
      if (page.total_count !== page.list.length) return `receipts: total_count ${page.total_count}, ${page.list.length} rows listed`;
      const want = m.deliveries.filter((d) => d.type === action.type && visible(d.store) && (store === undefined || d.store === store) && d.hasReceipt).length;
      if (m.deletedStores.size === 0 && page.total_count !== want) return `receipts: ${page.total_count} listed, the model has ${want}`;
      return undefined;
    },
  };
}

function planOrdersList(model: ChainModel, action: Extract<Action, { kind: 'ordersList' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `customer orders of ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/orders/customerorders?page_size=1000`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const listed = (answer.json as { list: Array<{ order_number: string; status_id: number; lines?: Array<{ line_number: number; picked_quantity: number }> }> }).list;
      const want = m.orders.filter((o) => o.store === store);
      if (listed.length !== want.length) return `customer orders of ${store}: ${listed.length} listed, the model has ${want.length}`;
      for (const order of want) {
        const got = listed.find((o) => o.order_number === order.number);
        const shape = (status: number, picks: Array<[number, number]>) => JSON.stringify({ status, picks });
        const have = got ? shape(got.status_id, (got.lines ?? []).map((l) => [l.line_number, l.picked_quantity])) : 'missing';
        const expected = shape(order.status, order.lines.map((l) => [l.number, toNumber(l.picked)]));
        if (have !== expected) return `customer order ${order.number}: listed ${have}, the model says ${expected}`;
      }
      return undefined;
    },
  };
}

function planStoreProducts(model: ChainModel, action: Extract<Action, { kind: 'storeProducts' }>): Plan {
  const product = productName(action.product);
  return {
    label: `${action.put ? 'PUT' : 'POST'} store product ${product} in ${action.store} by ${action.who}`,
    request: {
      method: action.put ? 'PUT' : 'POST',
      url: `${API}/stores/${action.store}/storeproducts`,
      body: { products: [{ product_number: product, min: 1, max: 20, average_keys: ['w1', 'w2'], average_array: [3, 4] }] },
      who: action.who,
    },
    expect: [firstOf(model.routeRefusal(action.who, true, action.store), !model.isStore(action.store) && 404, !model.isLiveProduct(product) && 422) ?? 200],
  };
}

// ------------------------------------------------------------------------- product lists

/** Lines as the interface's rules store them (§4.1): unknown products skipped, 0 → 1, merged unless duplicates are allowed. */
function listLines(model: ChainModel, sent: Array<{ product: string; milli: bigint }>, duplicates: boolean): Array<{ product: ProductNo; milli: bigint }> {
  const lines: Array<{ product: ProductNo; milli: bigint }> = [];
  for (const line of sent) {
    if (!model.isLiveProduct(line.product)) continue;
    const milli = line.milli === 0n ? 1000n : line.milli;
    const existing = duplicates ? undefined : lines.find((l) => l.product === line.product);
    if (existing) existing.milli += milli;
    else lines.push({ product: line.product, milli });
  }
  return lines;
}

function planProductListCreate(model: ChainModel, action: Extract<Action, { kind: 'productListCreate' }>): Plan {
  const sent = action.lines.map((l) => ({ product: productName(l.product), ...resolveQuantity(l.quantity) }));
  const lines = listLines(model, sent, action.duplicates);
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    !model.isStore(action.store) && 404,
    lines.some((l) => !inExactRange(l.milli)) && 422,
  );
  return {
    label: `product list in ${action.store} by ${action.who}${action.duplicates ? '' : ' (merged)'}: ${sent.map((l) => `${l.product}×${l.value}`).join(', ')}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${action.store}/productlists?app_username=sim`,
      body: { product_list_name: 'Sim list', product_list_type: 1, is_allow_duplicate_products: action.duplicates, lines: sent.map((l) => ({ product_number: l.product, quantity: l.value })) },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m, answer) => {
      m.productLists.push({ id: (answer.json as { product_list_id: number }).product_list_id, store: action.store as StoreNo, duplicates: action.duplicates, lines, state: 'live' });
    },
  };
}

function planProductListLines(model: ChainModel, action: Extract<Action, { kind: 'productListLines' }>): Plan | undefined {
  if (model.productLists.length === 0) return undefined;
  const list = model.productLists[action.list % model.productLists.length]!;
  const sent = action.lines.map((l) => ({ product: productName(l.product), ...resolveQuantity(l.quantity) }));
  // Lines of one product in one request are one change, summed; it sets the list's first line of that product.
  const changes = listLines(model, sent, false);
  const next = list.lines.map((l) => ({ ...l }));
  for (const change of changes) {
    const existing = next.find((l) => l.product === change.product);
    if (existing) existing.milli = change.milli;
    else next.push(change);
  }
  const refusal = firstOf(
    model.routeRefusal(action.who, true, list.store),
    !model.isStore(list.store) && 404,
    list.state === 'deleted' && 404,
    changes.some((l) => !inExactRange(l.milli)) && 422,
    list.state === 'archived' && 409,
  );
  return {
    label: `lines of product list ${list.id} (${list.state}) in ${list.store} by ${action.who}: ${sent.map((l) => `${l.product}×${l.value}`).join(', ')}`,
    request: { method: 'POST', url: `${API}/stores/${list.store}/productlists/${list.id}`, body: { lines: sent.map((l) => ({ product_number: l.product, quantity: l.value })) }, who: action.who },
    expect: refusal === 422 && list.state === 'archived' ? [409, 422] : [refusal ?? 200],
    commit: (m) => {
      m.productLists.find((l) => l.id === list.id)!.lines = next;
    },
  };
}

function planProductListRead(model: ChainModel, action: Extract<Action, { kind: 'productListRead' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `product lists of ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/productlists?show_lines=true&page_size=1000`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const listed = (answer.json as { list: Array<{ id: number; lines?: Array<{ product_number: string; quantity: number }> }> }).list;
      const want = m.productLists.filter((l) => l.store === store && l.state === 'live');
      if (listed.length !== want.length) return `product lists of ${store}: ${listed.length} listed, the model has ${want.length}`;
      for (const list of want) {
        const got = listed.find((l) => l.id === list.id);
        // Lines of a product deleted since are read from the master, which no longer shows it: compare the others.
        const have = JSON.stringify((got?.lines ?? []).filter((l) => m.isLiveProduct(l.product_number)).map((l) => [l.product_number, l.quantity]));
        const expected = JSON.stringify(list.lines.filter((l) => m.isLiveProduct(l.product)).map((l) => [l.product, toNumber(l.milli)]));
        if (have !== expected) return `product list ${list.id}: lines ${have}, the model says ${expected}`;
      }
      return undefined;
    },
  };
}

function planProductListDelete(model: ChainModel, action: Extract<Action, { kind: 'productListDelete' }>): Plan | undefined {
  if (model.productLists.length === 0) return undefined;
  const list = model.productLists[action.list % model.productLists.length]!;
  const refusal = firstOf(model.routeRefusal(action.who, true, list.store), !model.isStore(list.store) && 404);
  return {
    label: `${action.archive ? 'archive' : 'delete'} product list ${list.id} (${list.state}) in ${list.store} by ${action.who}`,
    request: {
      method: 'DELETE',
      url: `${API}/stores/${list.store}/productlists?product_list_id=${list.id}${action.archive ? '&is_archived=true' : '&is_delete_header=true'}`,
      who: action.who,
    },
    expect: [refusal ?? 200],
    check: (_m, answer) => (answer.status === 200 && answer.json !== (list.state !== 'deleted') ? `delete of list ${list.id} (${list.state}) answered ${JSON.stringify(answer.json)}` : undefined),
    commit: (m) => {
      const stored = m.productLists.find((l) => l.id === list.id)!;
      if (stored.state !== 'deleted') stored.state = action.archive ? 'archived' : 'deleted';
    },
  };
}

// ------------------------------------------------------------------------- master data

function planMasterWrite(model: ChainModel, action: Extract<Action, { kind: 'masterWrite' }>): Plan {
  const product = PRODUCTS[action.product]!;
  const requests: Record<typeof action.which, { method: 'POST' | 'PUT'; url: string; body: unknown }> = {
    categories: { method: 'POST', url: `${API}/categories`, body: { categories: [{ category_code: 'C1', category_name: 'Dairy', is_adjust_min_max: false, is_markdown: false }] } },
    prices: {
      method: 'POST',
      url: `${API}/products/prices`,
      body: { prices: [{ price_id: `${product}-1`, product_number: product, price: 2.5, price_type: 1, valid_from: '2020-01-01T00:00:00Z', valid_to: '2100-01-01T00:00:00Z' }] },
    },
    discounts: { method: 'POST', url: `${API}/products/discountprices`, body: { discounts: [{ is_delete: false, discount_id: `${product}-d`, product_number: product, price: 1.5 }] } },
    freefields: { method: 'POST', url: `${API}/products/freefields`, body: { free_fields: [{ country_code: 'NL', product_number: product, free_fields: [{ key: 'shelf', sort_order: 1, value: 'top' }] }] } },
    attributes: { method: 'PUT', url: `${API}/products/attributes`, body: { attribute: 'color', old_value: 'none', new_value: 'none' } },
  };
  const request = requests[action.which];
  // A price or discount of a deleted product names no live product.
  const namesProduct = action.which === 'prices' || action.which === 'discounts' || action.which === 'freefields';
  return {
    label: `${action.which} by ${action.who}${namesProduct ? ` for ${product}` : ''}`,
    request: { ...request, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, true, undefined, true), namesProduct && !model.isLiveProduct(product) && 422) ?? 200],
  };
}
