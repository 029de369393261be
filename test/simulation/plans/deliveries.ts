import type { Action } from '../actions.js';
import type { ProductNo, StoreNo } from '../chain.js';
import { balanceKey, type ChainModel } from '../model.js';
import { resolveTime } from '../time.js';
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

/** Deliveries, transfers and receiving (PRODUCT §7, docs/deliveries.md). */
const OUTSIDE_ORIGIN = 'X1';

export function planDeliveryCreate(
  model: ChainModel,
  action: Extract<Action, { kind: 'deliveryCreate' }>,
  serial: number,
): Plan {
  const number = `D${serial}`;
  const origin =
    action.origin === 'none'
      ? null
      : action.origin === 'self'
        ? action.store
        : action.origin === 'outside'
          ? OUTSIDE_ORIGIN
          : pickOther(action.store, action.originIndex);
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
    // Required on the cross-store path; sent on both, so a re-send on the store path is the same delivery.
    supplier_name: 'Simulated Supplier',
    order_type: origin === null ? 1 : 2,
    ...(origin !== null ? { store_origin: origin } : {}),
    order_lines: lines,
  };
  // The cross-store path names the store in the body (PRODUCT §4: checked like a path).
  const refusal = firstOf(
    // Stores a body names are checked once it is valid, before any work (plugins/auth.ts).
    ...orderImportRefusals(model, action.who, action.store, action.crossStore),
    origin !== null && !model.covers(action.who, origin) && 403,
    origin === action.store && 400,
    !model.isStore(action.store) && 404,
    lines.some((l) => !model.isLiveProduct(l.product_number)) && 422,
  );
  const request = orderImportRequest('deliveries', action.store, action.crossStore, body, action.who);
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
        lines: lines.map((l) => ({
          number: l.line_number,
          product: l.product_number as ProductNo,
          milli: BigInt(l.quantity) * 1000n,
          pool: l.target_stock_pool,
          received: 0n,
        })),
        body,
      });
    },
  };
}

export function planDeliveryResend(
  model: ChainModel,
  action: Extract<Action, { kind: 'deliveryResend' }>,
): Plan | undefined {
  if (model.deliveries.length === 0) return undefined;
  const delivery = model.deliveries[action.delivery % model.deliveries.length]!;
  const reorigin = action.variant === 'reorigin';
  const newOrigin = reorigin
    ? pickOther(
        delivery.store,
        action.originIndex + (delivery.origin === pickOther(delivery.store, action.originIndex) ? 1 : 0),
      )
    : delivery.origin;
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
    request: {
      method: 'POST',
      url: `${API}/stores/${delivery.store}/orders/deliveries`,
      body: { orders: [body] },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.deliveries.find((d) => d.number === delivery.number)!;
      stored.origin = newOrigin;
      stored.body = body;
    },
  };
}

export function planReceive(
  model: ChainModel,
  action: Extract<Action, { kind: 'receive' }>,
  now: number,
): Plan | undefined {
  if (model.deliveries.length === 0) return undefined;
  const delivery = model.deliveries[action.delivery % model.deliveries.length]!;
  const seen = new Set<number>();
  const lines = action.lines
    .map((l) => ({ line: delivery.lines[l.line % delivery.lines.length]!, quantity: l.quantity }))
    .filter((l) => !seen.has(l.line.number) && seen.add(l.line.number));
  // A soft-deleted origin is still a store of this service with stock on its books: it gives the goods.
  const originStore = delivery.origin !== null && model.isChainStore(delivery.origin) ? delivery.origin : null;
  // Two bookings, each at its own arrival moment: the receipts in the store, the out-legs at the origin.
  const effects = (m: ChainModel) => {
    const legs = lines
      .filter(({ quantity }) => quantity !== 0)
      .map(({ line, quantity }) => ({
        milli: BigInt(quantity) * 1000n,
        into: balanceKey(delivery.store, line.product, null, line.pool, null),
        out: originStore === null ? null : balanceKey(originStore, line.product, null, 1, null),
      }));
    const intoAt = m.arrival(
      now,
      legs.map((leg) => leg.into),
    );
    const outAt = m.arrival(
      now,
      legs.flatMap((leg) => (leg.out === null ? [] : [leg.out])),
    );
    for (const leg of legs) m.book(leg.into, intoAt, leg.milli);
    for (const leg of legs) if (leg.out !== null) m.book(leg.out, outAt, -leg.milli);
    return legs.flatMap((leg) => (leg.out === null ? [leg.into] : [leg.into, leg.out]));
  };
  const closed = delivery.status === 'received';
  const originRefuses = originStore !== null && lines.length > 0 && !model.covers(action.who, originStore);
  const refusal = firstOf(
    model.routeRefusal(action.who, true, delivery.store),
    lines.length === 0 && !action.submit && 400,
    !model.isStore(delivery.store) && 404,
    closed && 409,
    lines.some(({ line, quantity }) => line.received + BigInt(quantity) * 1000n < 0n) && 409,
    // The origin is reached through stored data when stock leaves it: the stock kernel refuses it
    // as it books (PRODUCT §4). A submit that receives nothing books nothing there.
    originRefuses && 403,
    rangeRefusal(model, effects),
  );
  // The destination's leg books (and meets the range) before the origin's leg meets the kernel's
  // authority check: when both refuse, either answer is right.
  const expect =
    refusal === 403 &&
    originRefuses &&
    model.routeRefusal(action.who, true, delivery.store) === null &&
    rangeRefusal(model, effects) === 422
      ? [403, 422]
      : [refusal ?? 200];
  return {
    label: `receive ${delivery.number} (${delivery.status}) in ${delivery.store} by ${action.who}: ${lines.map((l) => `line ${l.line.number} ${l.quantity}`).join(', ')}${action.submit ? ' + submit' : ''}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${delivery.store}/orders/deliveries/${delivery.number}/receive?appUserName=sim`,
      body: {
        lines: lines.map((l) => ({ line_number: l.line.number, received_quantity: l.quantity })),
        submit: action.submit,
      },
      who: action.who,
    },
    expect,
    commit: (m) => {
      effects(m);
      const stored = m.deliveries.find((d) => d.number === delivery.number)!;
      for (const { line, quantity } of lines)
        stored.lines.find((l) => l.number === line.number)!.received += BigInt(quantity) * 1000n;
      if (lines.length > 0 && stored.status === 'open') stored.status = 'receiving';
      if (action.submit) stored.status = 'received';
      stored.hasReceipt = true;
    },
  };
}

/**
 * Receiving through a stock log entry (`is_from_receipt=true`, `reference` = the delivery,
 * docs/deliveries.md): the entry receives on the first line of its product still short of its
 * quantity, else the first; its pool is the line's target pool unless the entry names one; its
 * location the entry's. A transfer's origin gives the goods from its unlocated pool 1.
 */
export function planReceiptEntry(
  model: ChainModel,
  action: Extract<Action, { kind: 'receiptEntry' }>,
  now: number,
): Plan | undefined {
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
  const originRefuses = originStore !== null && !model.covers(action.who, originStore);
  const refusal = firstOf(
    model.routeRefusal(action.who, true, delivery.store),
    time.at === null && 400,
    !model.isStore(delivery.store) && 404,
    !model.isLiveProduct(product) && 422,
    closed && 409,
    line.received + milli < 0n && 409,
    originRefuses && 403,
    rangeRefusal(model, effects),
  );
  // The destination's leg books (and meets the range) before the origin's leg meets the kernel's
  // authority check: when both refuse, either answer is right.
  const expect =
    refusal === 403 &&
    originRefuses &&
    model.routeRefusal(action.who, true, delivery.store) === null &&
    rangeRefusal(model, effects) === 422
      ? [403, 422]
      : [refusal ?? 200];
  return {
    label: `receipt entry on ${delivery.number} (${delivery.status}) in ${delivery.store} by ${action.who}: ${product} ${action.quantity} at ${action.location ?? '-'}/${pool} at ${time.text}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${delivery.store}/products/stock/storeproductlogs?is_from_receipt=true&appUserName=sim`,
      body: {
        storeproductlog: [
          {
            product_number: product,
            quantity: action.quantity,
            customer_order_line_number: 0,
            modification_datetime: time.text,
            reference: delivery.number,
            ...(action.location ? { location_code: action.location } : {}),
            ...(action.pool !== undefined ? { pool_location: action.pool } : {}),
          },
        ],
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
