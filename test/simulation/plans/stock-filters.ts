import type { Action } from '../actions.js';
import { STORES } from '../chain.js';
import type { ChainModel } from '../model.js';
import { API, firstOf, type Plan } from './plan.js';

/** A store product's facts the stock filters read (issue 43), from the model's balances. */
function modelFacts(m: ChainModel, storeProduct: string, location: string | null, free: boolean) {
  const pools = new Map<string, bigint>();
  const here = new Map<string, bigint>();
  let lastCount = -Infinity;
  for (const [key, entries] of m.balances) {
    const [store, product, loc, pool, order] = key.split('|');
    if (`${store}|${product}` !== storeProduct) continue;
    for (const entry of entries) if (entry.count) lastCount = Math.max(lastCount, entry.at);
    if (free && order !== '-') continue;
    pools.set(pool!, (pools.get(pool!) ?? 0n) + m.level(key));
    if (loc === location) here.set(pool!, (here.get(pool!) ?? 0n) + m.level(key));
  }
  return {
    belowZero: [...pools.values()].some((q) => q < 0n),
    atLocation: [...here.values()].some((q) => q !== 0n),
    lastCount,
  };
}

/**
 * The stock list under a random mix of the stock filters (docs/stock.md "The store's stock
 * list"), as a token reads it: every row listed passes them by the model, and every store
 * product the model booked or the ERP sent that passes them is listed.
 */
export function planStockFiltered(model: ChainModel, action: Extract<Action, { kind: 'stockFiltered' }>): Plan {
  const store = action.store === null ? undefined : STORES[action.store]!;
  const since = action.sinceMinutes === null ? undefined : Date.now() + action.sinceMinutes * 60_000;
  const query = [
    store && `store_number=${store}`,
    action.location && `location_code=${action.location}`,
    action.belowZero !== null && `below_zero=${action.belowZero}`,
    since !== undefined && `not_counted_since=${new Date(since).toISOString()}`,
    action.free && 'exclude_customer_order_stock=true',
  ].filter(Boolean);
  const visible = model.visibleTo(action.who);
  const passes = (m: ChainModel, key: string) => {
    const facts = modelFacts(m, key, action.location, action.free);
    return (
      (action.location === null || facts.atLocation) &&
      (action.belowZero === null || facts.belowZero === action.belowZero) &&
      (since === undefined || facts.lastCount < since)
    );
  };
  return {
    label: `stock list by ${action.who}: ${query.join(' ')}`,
    request: { method: 'GET', url: `${API}/storeproducts/stock?page_size=1000&${query.join('&')}`, who: action.who },
    expect: [firstOf(model.routeRefusal(action.who, false)) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const listed = (answer.json as { list: Array<{ store_number: string; product_number: string }> }).list.map(
        (row) => `${row.store_number}|${row.product_number}`,
      );
      const wrong = listed.filter((key) => !visible(key.split('|')[0]!) || !passes(m, key));
      if (wrong.length > 0) return `listed ${wrong.join(' ')}, which the filters leave out by the model`;
      const known = new Set([...m.balances.keys()].map((key) => key.split('|').slice(0, 2).join('|')));
      for (const key of m.storeProductsSent) known.add(key);
      const missing = [...known].filter((key) => {
        const [s, product] = key.split('|') as [string, string];
        const live = m.isStore(s) && !m.deletedProducts.has(product as never);
        return live && visible(s) && (store === undefined || s === store) && passes(m, key) && !listed.includes(key);
      });
      return missing.length === 0
        ? undefined
        : `misses ${missing.join(' ')}, which the filters let through by the model`;
    },
  };
}
