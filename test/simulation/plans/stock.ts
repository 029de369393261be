import type { Action, EntryArg } from '../actions.js';
import {
  LOCATIONS,
  REASONS,
  UNIT_BARCODE,
  BARCODES,
  UNKNOWN_LOCATION,
  type LocationCode,
  type ProductNo,
  type StoreNo,
} from '../chain.js';
import { balanceKey, type ChainModel } from '../model.js';
import { resolveQuantity, resolveTime } from '../time.js';
import { API, firstOf, productName, rangeRefusal, type Plan } from './plan.js';
import { reviewedAssignmentEntry } from './counting.js';

/** Stock entries, counts, movements, review and external counting (PRODUCT §5). */
const APP_USER_SPELLINGS = ['appUserName', 'AppUserName', 'APPUSERNAME'];

export function planLog(
  model: ChainModel,
  action: Extract<Action, { kind: 'log' }>,
  now: number,
  nextOrder: number,
): Plan {
  const entries = action.entries.map((entry) => logEntry(model, action.store, entry, action.count, now, nextOrder));
  const query = `${APP_USER_SPELLINGS[action.userSpelling]}=sim${action.count ? '&is_counted_quantity=true' : ''}`;
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    entries.some((e) => e.at === null) && 400,
    !model.isStore(action.store) && 404,
    entries.some((e) => e.unprocessable) && 422,
    entries.some((e) => model.isArchived(e.at)) && 422,
    rangeRefusal(model, (m) => entries.flatMap((e) => (e.pending ? [] : [e.apply(m)]))),
  );
  // Refused only for its archived months: the 422 names every such line's date as sent (issue 40 item 5).
  const archivedPaths = entries.some((e) => e.unprocessable)
    ? []
    : entries.flatMap((e, index) =>
        model.isArchived(e.at) ? [`storeproductlog[${index}].modification_datetime`] : [],
      );
  return {
    label: `${action.count ? 'count' : 'log'} ${action.store} by ${action.who}: ${entries.map((e) => e.describe).join('; ')}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${action.store}/products/stock/storeproductlogs?${query}`,
      body: { storeproductlog: entries.map((e) => e.body) },
      who: action.who,
    },
    expect: [refusal ?? 200],
    check: (_m, answer) => refusalPathsDiffer(answer, archivedPaths),
    commit: (m, answer) => {
      const ids = (answer.json as { data: number[] }).data;
      entries.forEach((entry, index) => {
        if (entry.pending)
          m.pending.push({
            id: ids[index]!,
            store: action.store as StoreNo,
            key: entry.key,
            at: entry.at!,
            milli: entry.milli,
            order: entry.order,
            state: 'pending',
          });
        else entry.apply(m);
      });
    },
  };
}

/** With `expected` paths, a 422 must name exactly those fields, in that order. */
function refusalPathsDiffer(answer: { status: number; json: unknown }, expected: string[]): string | undefined {
  if (expected.length === 0 || answer.status !== 422) return undefined;
  const named = ((answer.json as { errors?: Array<{ path: string }> }).errors ?? []).map((error) => error.path);
  return named.join() === expected.join()
    ? undefined
    : `the 422 names ${JSON.stringify(named)}, the model ${JSON.stringify(expected)}`;
}

/** The customer order number an entry or a move names, if any. */
function orderNumberOf(model: ChainModel, ref: EntryArg['order'], nextOrder: number): string | null {
  if (ref.kind === 'none') return null;
  if (ref.kind === 'upcoming' || model.orders.length === 0)
    return `C${nextOrder + (ref.kind === 'upcoming' ? ref.ahead : 0)}`;
  return model.orders[ref.index % model.orders.length]!.number;
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

function logEntry(
  model: ChainModel,
  store: string,
  arg: EntryArg,
  count: boolean,
  now: number,
  nextOrder: number,
): LogEntryPlan {
  // Counts name no order here; an entry may name any order number (PRODUCT §5: bound stock is never stranded).
  const order = count ? null : orderNumberOf(model, arg.order, nextOrder);
  const product = productName(arg.product);
  const time = resolveTime(arg.time, now);
  const { value, milli: sent } = resolveQuantity(arg.quantity);
  // A count is a level: sent as a magnitude, with no reason code (the sign rules are for deltas).
  const quantity = count ? Math.abs(value) : value;
  const reason = count ? undefined : arg.reason;
  const absolute = sent < 0n ? -sent : sent;
  const milli = count ? absolute : reason === 'loss' ? -absolute : reason === 'gain' ? absolute : sent;
  const location = arg.location === undefined ? null : arg.location;
  const pool =
    arg.pool ?? (location === null || location === UNKNOWN_LOCATION ? 1 : model.defaultPool(store, location));
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

export function planMove(
  model: ChainModel,
  action: Extract<Action, { kind: 'move' }>,
  now: number,
  nextOrder: number,
): Plan {
  const product = productName(action.product);
  const fromPool = action.fromPool ?? model.defaultPool(action.store, action.from);
  let toPool = action.toPool ?? model.defaultPool(action.store, action.to);
  const order = orderNumberOf(model, action.bound.order, nextOrder);
  const fromOrder = action.bound.side === 'from' ? order : null;
  const toOrder = action.bound.side === 'to' ? order : null;
  // Both sides the same balance would move nothing: the generator means another pool then.
  if (action.from === action.to && fromPool === toPool && fromOrder === toOrder) toPool = fromPool === 1 ? 2 : 1;
  const from = balanceKey(action.store, product, action.from, fromPool, fromOrder);
  const to = balanceKey(action.store, product, action.to, toPool, toOrder);
  const milli = BigInt(action.quantity) * 1000n;
  const effects = (m: ChainModel) => {
    const at = m.arrival(now, [from, to]);
    m.book(from, at, -milli);
    m.book(to, at, milli);
    return [from, to];
  };
  const side = (location: LocationCode | null, pool: number, explicit: boolean, boundTo: string | null) => ({
    ...(location ? { location_code: location } : {}),
    ...(explicit ? { stock_pool: pool } : {}),
    ...(boundTo !== null ? { customer_order_number: boundTo } : {}),
  });
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    !model.isStore(action.store) && 404,
    !model.isLiveProduct(product) && 422,
    // An order of the store moves its stock only by picking, rejection and clearance.
    order !== null && model.orderIn(action.store, order) !== undefined && 422,
    !action.overage && model.level(from) < milli && 409,
    rangeRefusal(model, effects),
  );
  // The free-stock guard and the range are checked in one pass of the ledger's plan: when both
  // refuse, either answer is right.
  const bothRefuse = refusal === 409 && rangeRefusal(model, effects) === 422;
  return {
    label: `move ${action.store} by ${action.who}: ${action.quantity} ${product} ${from} -> ${to}${action.overage ? ' (overage)' : ''}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${action.store}/storeproductlocation/movement?AppUserName=sim`,
      body: {
        body: [
          {
            quantity: action.quantity,
            product_number: product,
            allow_overage: action.overage,
            from_location: side(
              action.from,
              fromPool,
              action.fromPool !== undefined || action.from === action.to,
              fromOrder,
            ),
            to_location: side(action.to, toPool, action.toPool !== undefined || action.from === action.to, toOrder),
          },
        ],
      },
      who: action.who,
    },
    expect: bothRefuse ? [409, 422] : [refusal ?? 200],
    commit: (m) => void effects(m),
  };
}

export function planReview(
  model: ChainModel,
  action: Extract<Action, { kind: 'review' }>,
  _now: number,
): Plan | undefined {
  if (model.pending.length === 0) return undefined;
  const entry = model.pending[action.pending % model.pending.length]!;
  // A count waiting for review (a counting assignment's line) is booked as a count at its moment.
  const effects = (m: ChainModel) => {
    m.book(entry.key, entry.at, entry.milli, entry.count === true);
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
    request: {
      method: 'POST',
      url: `${API}/stores/${entry.store}/products/stock/storeproductlogs/review`,
      body: { ids: [entry.id], approve: action.approve },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => {
      const stored = m.pending.find((p) => p.id === entry.id)!;
      stored.state = action.approve ? 'approved' : 'rejected';
      if (action.approve) effects(m);
      reviewedAssignmentEntry(m, stored, action.approve);
    },
  };
}

export function planExternalCount(
  model: ChainModel,
  action: Extract<Action, { kind: 'externalCount' }>,
  now: number,
): Plan {
  const time = resolveTime(action.time, now);
  const lines = action.lines.map((line) => {
    const product = productName(line.product);
    const unit = line.unit && product === UNIT_BARCODE.product;
    const barcode =
      product in BARCODES ? (unit ? UNIT_BARCODE.barcode : BARCODES[product as ProductNo]) : '0000000000000';
    return {
      product,
      barcode,
      quantity: line.quantity,
      items: BigInt(line.quantity * (unit ? UNIT_BARCODE.items : 1)) * 1000n,
    };
  });
  // Lines of one product add up; a barcode of no live product is kept unresolved (PRODUCT §5).
  const counted = new Map<string, bigint>();
  for (const line of lines)
    if (model.isLiveProduct(line.product)) counted.set(line.product, (counted.get(line.product) ?? 0n) + line.items);
  const effects = (m: ChainModel) =>
    [...counted].map(([product, items]) => {
      // The count states the free pool-1 total; it is booked on the unlocated pool-1 balance as
      // that total minus the located pool-1 stock at its moment (decisions.md, external counting).
      const located = LOCATIONS.reduce(
        (sum, loc) => sum + m.levelAt(balanceKey(action.store, product, loc, 1, null), time.at!),
        0n,
      );
      const key = balanceKey(action.store, product, null, 1, null);
      m.book(key, time.at!, items - located, true);
      return key;
    });
  const refusal = firstOf(
    model.routeRefusal(action.who, true),
    time.at === null && 400,
    !model.covers(action.who, action.store) && 403,
    !model.isStore(action.store) && 404,
    // Only lines that book are refused by their moment: unresolved barcodes are kept, not booked.
    counted.size > 0 && model.isArchived(time.at) && 422,
    rangeRefusal(model, effects),
  );
  return {
    check: (_m, answer) =>
      refusalPathsDiffer(answer, counted.size > 0 && model.isArchived(time.at) ? ['CountingDateTime'] : []),
    label: `external count ${action.store} at ${time.text} by ${action.who}: ${lines.map((l) => `${l.barcode}=${l.quantity}`).join(', ')}`,
    request: {
      method: 'POST',
      url: `${API}/externalcountinglines`,
      body: {
        CountingDateTime: time.text,
        StoreNo: action.store,
        Lines: lines.map((l) => ({ counted_quantity: l.quantity, product_barcode: l.barcode })),
      },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => {
      effects(m);
      const unresolved = lines.filter((l) => !m.isLiveProduct(l.product)).length;
      m.unresolved.set(action.store, (m.unresolved.get(action.store) ?? 0) + unresolved);
    },
  };
}
