import type { Action } from '../actions.js';
import { PRODUCTS, STORES } from '../chain.js';
import type { ChainModel } from '../model.js';
import { toNumber } from '../time.js';
import { API, firstOf, type Plan } from './plan.js';

/** Reads checked against the model: stock, surrounding stock, locations, the cross-store lists as each token sees them. */
export function planRead(model: ChainModel, action: Extract<Action, { kind: 'read' }>): Plan {
  const store = STORES[action.store]!;
  const product = PRODUCTS[action.product]!;
  const refusal = firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404);
  const total = model.storeTotal(store, product);
  const everBooked = [...model.balances.keys()].some((key) => key.startsWith(`${store}|${product}|`));
  // A deleted product, or one never stocked in the store, may have no stock record to show.
  const expect = refusal !== null ? [refusal] : model.deletedProducts.has(product) || !everBooked ? [200, 404] : [200];
  return {
    label: `read stock of ${product} in ${store} by ${action.who}`,
    request: {
      method: 'GET',
      url: `${API}/stores/${store}/products/${product}/stock?include_locations=true`,
      who: action.who,
    },
    expect,
    check: (_m, answer) => {
      if (answer.status !== 200) return undefined;
      const shown =
        (answer.json as { products: Array<{ most_likely_stock: number }> }).products[0]?.most_likely_stock ?? 0;
      return shown === toNumber(total)
        ? undefined
        : `most_likely_stock of ${product} in ${store} is ${shown}, the model says ${toNumber(total)}`;
    },
  };
}

/** Surrounding stock (PRODUCT §5): the other live stores of the area and every warehouse, with their quantity. */
export function planSurrounding(model: ChainModel, action: Extract<Action, { kind: 'surrounding' }>): Plan {
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
      const want = STORES.filter((s) => s !== store && m.isStore(s))
        .map((s) => `${s}=${toNumber(m.storeTotal(s, product))}`)
        .sort();
      const got = shown.map((row) => `${row.store_number}=${row.most_likely_quantity}`).sort();
      return JSON.stringify(got) === JSON.stringify(want)
        ? undefined
        : `surrounding stock of ${product} from ${store}: ${got.join(' ')}, the model says ${want.join(' ')}`;
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
export function planList(model: ChainModel, action: Extract<Action, { kind: 'list' }>): Plan {
  const urls = {
    deliveries: '/orders/deliveries',
    logs: '/products/stock/storeproductlogs',
    stock: '/storeproducts/stock',
  } as const;
  const visible = model.visibleTo(action.who);
  return {
    label: `list ${action.list} by ${action.who}`,
    request: { method: 'GET', url: `${API}${urls[action.list]}?page_size=1000`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false)) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const page = answer.json as ListedPage;
      const foreign = page.list.filter((row) => row.store_number !== undefined && !visible(row.store_number));
      if (foreign.length > 0)
        return `${action.list} listed rows of stores ${[...new Set(foreign.map((r) => r.store_number))].join(', ')} to ${action.who}`;
      if (page.total_count !== page.list.length)
        return `${action.list}: total_count ${page.total_count} but ${page.list.length} rows listed (one page holds them all)`;
      if (action.list === 'deliveries') {
        const want = m.deliveries.filter((d) => visible(d.store)).length;
        if (m.deletedStores.size === 0 && page.total_count !== want)
          return `deliveries: ${page.total_count} listed, the model has ${want} in ${action.who}'s stores`;
      }
      if (action.list === 'stock') {
        for (const row of page.list) {
          const want = toNumber(m.storeTotal(row.store_number!, row.product_number!));
          if (row.most_likely_quantity !== want)
            return `stock list: ${row.product_number} in ${row.store_number} is ${row.most_likely_quantity}, the model says ${want}`;
        }
      }
      return undefined;
    },
    // PRODUCT §3.1, §4: the newest change of the resource in the token's stores — soft-deleted
    // records included (a deletion is a change an incremental pull must see), other stores never.
    audit: async (db, answer) => {
      if (answer.status !== 200) return undefined;
      const table = ({ deliveries: 'delivery_orders', logs: 'stock_logs', stock: 'store_products' } as const)[
        action.list
      ];
      const stores = STORES.filter(visible);
      const row = await db
        .selectFrom(table)
        .where('store_number', 'in', stores)
        .select((eb) => eb.fn.max('updated_on').as('newest'))
        .executeTakeFirst();
      const newest =
        row?.newest === null || row?.newest === undefined ? null : new Date(Number(row.newest)).toISOString();
      const shown = (answer.json as ListedPage).project_last_modified_date;
      return shown === newest
        ? undefined
        : `${action.list}: project_last_modified_date ${shown}, the newest change in ${action.who}'s stores is ${newest}`;
    },
  };
}

/** Free stock of a product at a location, every pool (order-bound stock is never located). */
function locatedTotal(model: ChainModel, store: string, product: string, location: string): bigint {
  let total = 0n;
  for (const key of model.balances.keys())
    if (key.startsWith(`${store}|${product}|${location}|`)) total += model.level(key);
  return total;
}

export function planLocations(model: ChainModel, action: Extract<Action, { kind: 'locations' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `locations of ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/locations?page_size=100`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      for (const location of (
        answer.json as { list: Array<{ location_code: string; counter: number; quantity: number }> }
      ).list) {
        // A location's stock is one entry per (product, customer order or none); an entry whose
        // pools add up to 0 is left out, and `counter` counts the products with an entry (decisions.md Locations).
        const entries = new Map<string, bigint>();
        for (const key of m.balances.keys()) {
          const [keyStore, product, keyLocation, , order] = key.split('|');
          if (keyStore !== store || keyLocation !== location.location_code) continue;
          entries.set(`${product}|${order}`, (entries.get(`${product}|${order}`) ?? 0n) + m.level(key));
        }
        const held = [...entries].filter(([, quantity]) => quantity !== 0n);
        const want = {
          counter: new Set(held.map(([entry]) => entry.split('|')[0])).size,
          quantity: toNumber(held.reduce((sum, [, q]) => sum + q, 0n)),
        };
        if (location.counter !== want.counter || location.quantity !== want.quantity) {
          return `location ${location.location_code} of ${store}: counter ${location.counter}, quantity ${location.quantity}; the model says ${want.counter}, ${want.quantity}`;
        }
      }
      return undefined;
    },
  };
}

export function planLocationProducts(model: ChainModel, action: Extract<Action, { kind: 'locationProducts' }>): Plan {
  const store = STORES[action.store]!;
  const url = action.byTag
    ? `${API}/stores/${store}/locations/products?location_code=${action.location}&page_size=100`
    : `${API}/stores/${store}/locations/${action.location}/products?page_size=100`;
  return {
    label: `products at ${store}/${action.location} by ${action.who}`,
    request: { method: 'GET', url, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      // Rows are per (product, order): added up in thousandths, exactly.
      const shown = new Map<string, bigint>();
      for (const row of (answer.json as { list: Array<{ product_number: string; quantity: number }> }).list) {
        shown.set(row.product_number, (shown.get(row.product_number) ?? 0n) + BigInt(Math.round(row.quantity * 1000)));
      }
      for (const product of PRODUCTS) {
        if (m.deletedProducts.has(product)) continue;
        const want = locatedTotal(m, store, product, action.location);
        if (want !== 0n && shown.get(product) !== want)
          return `${product} at ${store}/${action.location}: listed ${toNumber(shown.get(product) ?? 0n)}, the model says ${toNumber(want)}`;
      }
      return undefined;
    },
  };
}

/** A delivery has a receipt once something was received on it, or it was submitted. */
export function planReceipts(model: ChainModel, action: Extract<Action, { kind: 'receipts' }>): Plan {
  const store = action.store === null ? undefined : STORES[action.store]!;
  const url =
    store === undefined
      ? `${API}/orders/receipts?receipt_type=${action.type}&page_size=1000`
      : `${API}/stores/${store}/orders/receipts?receipt_type=${action.type}&page_size=1000`;
  const visible = model.visibleTo(action.who);
  return {
    label: `receipts of type ${action.type}${store ? ` in ${store}` : ''} by ${action.who}`,
    request: { method: 'GET', url, who: action.who },
    expect: [
      firstOf(model.routeRefusal(action.who, false, store), store !== undefined && !model.isStore(store) && 404) ?? 200,
    ],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const page = answer.json as ListedPage;
      const foreign = page.list.filter((row) => row.store_number !== undefined && !visible(row.store_number));
      if (foreign.length > 0)
        return `receipts of stores ${foreign.map((r) => r.store_number).join(', ')} shown to ${action.who}`;
      if (page.total_count !== page.list.length)
        return `receipts: total_count ${page.total_count}, ${page.list.length} rows listed`;
      const want = m.deliveries.filter(
        (d) => d.type === action.type && visible(d.store) && (store === undefined || d.store === store) && d.hasReceipt,
      ).length;
      if (m.deletedStores.size === 0 && page.total_count !== want)
        return `receipts: ${page.total_count} listed, the model has ${want}`;
      return undefined;
    },
  };
}

export function planOrdersList(model: ChainModel, action: Extract<Action, { kind: 'ordersList' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `customer orders of ${store} by ${action.who}`,
    request: { method: 'GET', url: `${API}/stores/${store}/orders/customerorders?page_size=1000`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const listed = (
        answer.json as {
          list: Array<{
            order_number: string;
            status_id: number;
            lines?: Array<{ line_number: number; picked_quantity: number }>;
          }>;
        }
      ).list;
      const want = m.orders.filter((o) => o.store === store);
      if (listed.length !== want.length)
        return `customer orders of ${store}: ${listed.length} listed, the model has ${want.length}`;
      for (const order of want) {
        const got = listed.find((o) => o.order_number === order.number);
        const shape = (status: number, picks: Array<[number, number]>) => JSON.stringify({ status, picks });
        const have = got
          ? shape(
              got.status_id,
              (got.lines ?? []).map((l) => [l.line_number, l.picked_quantity]),
            )
          : 'missing';
        const expected = shape(
          order.status,
          order.lines.map((l) => [l.number, toNumber(l.picked)]),
        );
        if (have !== expected) return `customer order ${order.number}: listed ${have}, the model says ${expected}`;
      }
      return undefined;
    },
  };
}

/** PRODUCT §5: the counting lines kept unresolved in a store, each one listed. */
export function planUnresolved(model: ChainModel, action: Extract<Action, { kind: 'unresolved' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `unresolved counting lines of ${store} by ${action.who}`,
    request: {
      method: 'GET',
      url: `${API}/stores/${store}/externalcountinglines/unresolved?page_size=1000`,
      who: action.who,
    },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const page = answer.json as { total_count: number; list: unknown[] };
      const want = m.unresolved.get(store) ?? 0;
      return page.total_count === want && page.list.length === want
        ? undefined
        : `unresolved lines of ${store}: ${page.total_count} (${page.list.length} listed), the model has ${want}`;
    },
  };
}

/** The token describing itself: any valid token may (the console's first call). */
export function planCurrentToken(model: ChainModel, action: Extract<Action, { kind: 'currentToken' }>): Plan {
  return {
    label: `current token by ${action.who}`,
    request: { method: 'GET', url: `${API}/tokens/current`, who: action.who },
    expect: [model.routeRefusal(action.who, false) ?? 200],
  };
}
