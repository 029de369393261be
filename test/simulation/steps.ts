import type { Action, EntryArg } from './actions.js';
import { BARCODES, LOCATIONS, PRODUCTS, REASONS, STORES, UNIT_BARCODE, UNKNOWN_LOCATION, type LocationCode, type ProductNo, type StoreNo, type TokenName } from './chain.js';
import { balanceKey, isOpenOrder, type ChainModel, type CustomerOrder, type Delivery } from './model.js';
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

/** The request's effects applied to a copy: the range check reads the levels they leave. */
function rangeRefusal(model: ChainModel, effects: (m: ChainModel) => string[]): number | null {
  const copy = model.clone();
  const touched = effects(copy);
  return copy.outOfRange(touched).length > 0 ? 422 : null;
}

export function planStep(model: ChainModel, action: Action, context: SequenceContext): Plan | undefined {
  const now = Date.now();
  switch (action.kind) {
    case 'log':
      return planLog(model, action, now);
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
    case 'revoke':
    case 'resend':
      return undefined; // the runner does these itself
  }
}

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

function planLog(model: ChainModel, action: Extract<Action, { kind: 'log' }>, now: number): Plan {
  const entries = action.entries.map((entry) => logEntry(model, action.store, entry, action.count, now));
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
        if (entry.pending) m.pending.push({ id: ids[index]!, store: action.store as StoreNo, key: entry.key, at: entry.at!, milli: entry.milli, state: 'pending' });
        else entry.apply(m);
      });
    },
  };
}

interface LogEntryPlan {
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

function logEntry(model: ChainModel, store: string, arg: EntryArg, count: boolean, now: number): LogEntryPlan {
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
  const key = balanceKey(store, product, location, pool, null);
  return {
    body: {
      product_number: product,
      quantity,
      customer_order_line_number: 0,
      modification_datetime: time.text,
      ...(arg.location !== undefined ? { location_code: arg.location } : {}),
      ...(arg.pool !== undefined ? { pool_location: arg.pool } : {}),
      ...(reason !== undefined ? { reason_code: REASONS[reason] } : {}),
    },
    at: time.at,
    milli,
    pending: reason === 'review',
    key,
    unprocessable: !model.isLiveProduct(product) || location === UNKNOWN_LOCATION || reason === 'unknown',
    describe: `${product}@${location ?? '-'}/${pool} ${count ? '=' : ''}${quantity}${reason ? ` (${reason})` : ''} at ${time.text}`,
    apply(m) {
      m.book(key, time.at!, milli, count);
      return key;
    },
  };
}

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
    entry.state !== 'pending' && 409,
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
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    origin === action.store && 400,
    !model.isStore(action.store) && 404,
    origin !== null && !model.covers(action.who, origin) && 403,
    lines.some((l) => !model.isLiveProduct(l.product_number)) && 422,
  );
  return {
    label: `delivery ${number} into ${action.store}${origin ? ` from ${origin}` : ''} by ${action.who}: ${lines.map((l) => `${l.product_number}×${l.quantity}/${l.target_stock_pool}`).join(', ')}`,
    request: { method: 'POST', url: `${API}/stores/${action.store}/orders/deliveries`, body: { orders: [body] }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      m.deliveries.push({
        number,
        store: action.store as StoreNo,
        origin,
        type: body.order_type,
        status: 'open',
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
  const originStore = delivery.origin !== null && model.isStore(delivery.origin) ? delivery.origin : null;
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
    },
  };
}

// ------------------------------------------------------------------------- customer orders

function planOrderCreate(model: ChainModel, action: Extract<Action, { kind: 'orderCreate' }>, serial: number): Plan {
  const number = `C${serial}`;
  const lines = action.lines.map((line, i) => ({ line_number: i + 1, product_number: productName(line.product), quantity: line.quantity, stock_pool: 1 }));
  const body = { order_number: number, customer_name: 'Simulated Customer', lines };
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    !model.isStore(action.store) && 404,
    lines.some((l) => !model.isLiveProduct(l.product_number)) && 422,
  );
  return {
    label: `customer order ${number} in ${action.store} by ${action.who}: ${lines.map((l) => `${l.product_number}×${l.quantity}`).join(', ')}`,
    request: { method: 'POST', url: `${API}/stores/${action.store}/orders/customerorders`, body: { orders: [body] }, who: action.who },
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
  const best = (): LocationCode =>
    LOCATIONS.reduce((a, b) => (model.freeAt(order.store, line.product, b, line.pool) > model.freeAt(order.store, line.product, a, line.pool) ? b : a));
  const named = action.location === 'best' ? best() : action.location;
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
    !isOpenOrder(order) && 409,
    delta > 0n && model.level(source) < delta && 409,
    rangeRefusal(model, effects),
  );
  return {
    label: `pick ${order.number} (status ${order.status}) line ${line.number} ${line.product} to ${action.total} from ${place ?? '-'} by ${action.who}`,
    request: {
      method: 'PUT',
      url: `${API}/stores/${order.store}/orders/customerorder`,
      body: { order_number: order.number, lines: [{ line_number: line.number, picked_quantity: action.total, ...(named ? { stock_location: named } : {}) }] },
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
    store !== order.store && 404,
    !isOpenOrder(order) && 409,
  );
  return {
    label: `clearance of ${order.number} (status ${order.status}) naming ${store} by ${action.who}`,
    request: { method: 'POST', url: `${API}/customerorders/clearance`, body: { store_number: store, order_number: order.number }, who: action.who },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.orders.find((o) => o.number === order.number)!;
      for (const line of stored.lines) if (line.picked !== 0n) m.book(boundKey(stored, line), now, -line.picked);
      stored.status = 5;
    },
  };
}

function planReject(model: ChainModel, action: Extract<Action, { kind: 'reject' }>, now: number): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const refusal = firstOf(model.routeRefusal(action.who, true, order.store), !isOpenOrder(order) && 409);
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
      for (const line of stored.lines) {
        if (line.picked === 0n) continue;
        m.book(boundKey(stored, line), now, -line.picked);
        m.book(balanceKey(stored.store, line.product, line.lastLoc, line.pool, null), now, line.picked);
        line.picked = 0n;
      }
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
  const refusal = model.routeRefusal(action.who, false, store);
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

export type { Delivery };
