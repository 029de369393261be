import type { Action } from '../actions.js';
import { LOCATIONS, REASONS, type LocationCode, type ProductNo, type StoreNo } from '../chain.js';
import { balanceKey, isOpenOrder, type ChainModel, type CustomerOrder } from '../model.js';
import {
  API,
  firstOf,
  orderImportRefusals,
  orderImportRequest,
  pickOther,
  productName,
  rangeRefusal,
  type Plan,
} from './plan.js';

/** Customer orders: import, picking into order-bound stock, clearance, rejection, cancel (PRODUCT §7). */
export function planOrderCreate(
  model: ChainModel,
  action: Extract<Action, { kind: 'orderCreate' }>,
  serial: number,
): Plan {
  const number = `C${serial}`;
  const lines = action.lines.map((line, i) => ({
    line_number: i + 1,
    product_number: productName(line.product),
    quantity: line.quantity,
    stock_pool: 1,
  }));
  const body = { order_number: number, customer_name: 'Simulated Customer', lines };
  const refusal = firstOf(
    ...orderImportRefusals(model, action.who, action.store, action.crossStore),
    !model.isStore(action.store) && 404,
    lines.some((l) => !model.isLiveProduct(l.product_number)) && 422,
  );
  const request = orderImportRequest('customerorders', action.store, action.crossStore, body, action.who);
  return {
    label: `customer order ${number} in ${action.store}${action.crossStore ? ' (cross-store path)' : ''} by ${action.who}: ${lines.map((l) => `${l.product_number}×${l.quantity}`).join(', ')}`,
    request,
    expect: [refusal ?? 200],
    commit: (m) => {
      m.orders.push({
        number,
        store: action.store as StoreNo,
        status: 1,
        lines: lines.map((l) => ({
          number: l.line_number,
          product: l.product_number as ProductNo,
          milli: BigInt(l.quantity) * 1000n,
          pool: 1,
          picked: 0n,
          lastLoc: null,
        })),
        body,
      });
    },
  };
}

const boundKey = (order: CustomerOrder, line: { product: string; pool: number }) =>
  balanceKey(order.store, line.product, null, line.pool, order.number);

export function planPick(model: ChainModel, action: Extract<Action, { kind: 'pick' }>, now: number): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const line = order.lines[action.line % order.lines.length]!;
  const total = BigInt(action.total) * 1000n;
  const delta = total - line.picked;
  const best = (): LocationCode | null =>
    [...LOCATIONS, null].reduce<LocationCode | null>(
      (a, b) =>
        model.freeAt(order.store, line.product, b, line.pool) > model.freeAt(order.store, line.product, a, line.pool)
          ? b
          : a,
      'A',
    );
  const named = action.location === 'best' ? best() : action.location;
  const sentLocation = action.location === 'best' ? named : action.location;
  // Where the stock comes from (or goes back to): the named location, else where the line was last picked, else unlocated.
  const place = named ?? line.lastLoc;
  const source = balanceKey(order.store, line.product, place, line.pool, null);
  const bound = boundKey(order, line);
  const effects = (m: ChainModel) => {
    const at = m.arrival(now, [source, bound]);
    m.book(source, at, -delta);
    m.book(bound, at, delta);
    return [source, bound];
  };
  const refusal = firstOf(
    model.routeRefusal(action.who, true, order.store),
    !model.isStore(order.store) && 404,
    !isOpenOrder(order) && 409,
    delta > 0n && model.level(source) < delta && 409,
    rangeRefusal(model, effects),
  );
  // As for moves: the guard and the range may both refuse, and either answer is right.
  const bothRefuse = refusal === 409 && delta > 0n && rangeRefusal(model, effects) === 422;
  return {
    label: `pick ${order.number} (status ${order.status}) line ${line.number} ${line.product} to ${action.total} from ${place ?? '-'} by ${action.who}`,
    request: {
      method: 'PUT',
      url: `${API}/stores/${order.store}/orders/customerorder`,
      body: {
        order_number: order.number,
        lines: [
          {
            line_number: line.number,
            picked_quantity: action.total,
            ...(sentLocation ? { stock_location: sentLocation } : {}),
          },
        ],
      },
      who: action.who,
    },
    expect: bothRefuse ? [409, 422] : [refusal ?? 200],
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

export function planClear(
  model: ChainModel,
  action: Extract<Action, { kind: 'clear' }>,
  now: number,
): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const store = action.otherStore ? pickOther(order.store, order.lines.length) : order.store;
  const refusal = firstOf(
    model.routeRefusal(action.who, true),
    !model.covers(action.who, store) && 403,
    // Another store's order, found by its number, is a store reached through stored data (PRODUCT §4).
    store !== order.store && !model.covers(action.who, order.store) && 403,
    (store !== order.store || !model.isStore(store)) && 404,
    !isOpenOrder(order) && 409,
  );
  return {
    label: `clearance of ${order.number} (status ${order.status}) naming ${store} by ${action.who}`,
    request: {
      method: 'POST',
      url: `${API}/customerorders/clearance`,
      body: { store_number: store, order_number: order.number },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.orders.find((o) => o.number === order.number)!;
      // Everything bound under its number in its store is handed over, picked or bound by entries before the import.
      const bound = m.boundUnder(stored.store, stored.number);
      const at = m.arrival(
        now,
        bound.map((b) => b.key),
      );
      for (const { key, level } of bound) m.book(key, at, -level);
      stored.status = 5;
    },
  };
}

export function planReject(
  model: ChainModel,
  action: Extract<Action, { kind: 'reject' }>,
  now: number,
): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const refusal = firstOf(
    model.routeRefusal(action.who, true, order.store),
    !model.isStore(order.store) && 404,
    !isOpenOrder(order) && 409,
  );
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

/**
 * Rejection and cancel (docs/customer-orders.md): each line's picks go back to where they were
 * last picked; whatever else is bound under the number in the store (entries that named it)
 * goes back to free stock at its own location and pool.
 */
function releaseOrder(m: ChainModel, order: CustomerOrder, now: number): void {
  // One booking: the picks back, then whatever else is bound, all at one arrival moment.
  const moves: Array<{ from: string; to: string; milli: bigint }> = [];
  for (const line of order.lines) {
    if (line.picked === 0n) continue;
    moves.push({
      from: boundKey(order, line),
      to: balanceKey(order.store, line.product, line.lastLoc, line.pool, null),
      milli: line.picked,
    });
  }
  const picked = new Map<string, bigint>();
  for (const move of moves) picked.set(move.from, (picked.get(move.from) ?? 0n) + move.milli);
  for (const bound of m.boundUnder(order.store, order.number)) {
    const rest = bound.level - (picked.get(bound.key) ?? 0n);
    if (rest === 0n) continue;
    const [store, product, location, pool] = bound.key.split('|');
    moves.push({
      from: bound.key,
      to: balanceKey(store!, product!, location === '-' ? null : location!, Number(pool), null),
      milli: rest,
    });
  }
  const at = m.arrival(
    now,
    moves.flatMap((move) => [move.from, move.to]),
  );
  for (const line of order.lines) line.picked = 0n;
  for (const move of moves) {
    m.book(move.from, at, -move.milli);
    m.book(move.to, at, move.milli);
  }
}

export function planOrderStatus(
  model: ChainModel,
  action: Extract<Action, { kind: 'orderStatus' }>,
  now: number,
): Plan | undefined {
  if (model.orders.length === 0) return undefined;
  const order = model.orders[action.order % model.orders.length]!;
  const body =
    action.variant === 'claim'
      ? { order_number: order.number, is_claimed: true }
      : { order_number: order.number, status_id: 7 };
  const refusal = firstOf(
    model.routeRefusal(action.who, true, order.store),
    !model.isStore(order.store) && 404,
    !isOpenOrder(order) && 409,
  );
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
