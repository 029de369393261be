import type { Action } from '../actions.js';
import type { ChainModel } from '../model.js';
import { API, firstOf, type Plan } from './plan.js';

interface PulledPage {
  total_count: number;
  next_page: number | null;
  list: Array<{ store_number: string; product_number: string }>;
}

/**
 * The ERP's stock delta pull (PRODUCT §3.1) as a token reads it. From the start of time — a
 * first full pull, sent zone-less as tap-colleqtive sends its start_date (issue 41) — every
 * store product the token may see is listed once: every one the model ever booked, and the
 * stored ones that never had stock (created by the ERP, by a product list, by an entry still
 * awaiting review: until its first stock change a store product's stock moment is its
 * creation), checked against the store itself. From a minute ahead: none.
 */
export function planStockPull(model: ChainModel, action: Extract<Action, { kind: 'stockPull' }>): Plan {
  const visible = model.visibleTo(action.who);
  const since =
    action.from === 'start' ? '1970-01-01T00:00:00' : new Date(Date.now() + 60_000).toISOString().slice(0, -1);
  const keys = (page: PulledPage) => page.list.map((row) => `${row.store_number}|${row.product_number}`);
  return {
    label: `stock delta pull from ${action.from} by ${action.who}`,
    request: {
      method: 'GET',
      url: `${API}/storeproducts/stock?last_stock_modified_datetime=${since}&Page_Size=1000`,
      who: action.who,
    },
    expect: [firstOf(model.routeRefusal(action.who, false)) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const page = answer.json as PulledPage;
      const listed = keys(page);
      if (new Set(listed).size !== listed.length) return `delta pull listed a store product twice: ${listed.join(' ')}`;
      if (page.total_count !== listed.length || page.next_page !== null)
        return `delta pull: total_count ${page.total_count}, ${listed.length} rows on the only page`;
      const foreign = page.list.filter((row) => !visible(row.store_number));
      if (foreign.length > 0)
        return `delta pull listed stores ${foreign.map((r) => r.store_number).join(', ')} to ${action.who}`;
      if (action.from === 'future')
        return listed.length === 0 ? undefined : `delta pull from a minute ahead listed ${listed.join(' ')}`;
      // Every store product the model booked or the ERP sent (booked since or not: PRODUCT §3.1).
      const booked = new Set([...m.balances.keys()].map((key) => key.split('|').slice(0, 2).join('|')));
      for (const key of m.storeProductsSent) booked.add(key);
      const missing = [...booked].filter((key) => {
        const [store, product] = key.split('|') as [string, string];
        return visible(store) && m.isStore(store) && !m.deletedProducts.has(product as never) && !listed.includes(key);
      });
      return missing.length === 0
        ? undefined
        : `a first full delta pull misses ${missing.join(' ')}, which the model booked or sent`;
    },
    audit: async (db, answer) => {
      if (answer.status !== 200 || action.from === 'future') return undefined;
      const rows = await db
        .selectFrom('store_products as sp')
        .innerJoin('stores as s', 's.id', 'sp.store_id')
        .innerJoin('products as p', 'p.id', 'sp.product_id')
        .where('sp.deleted_on', 'is', null)
        .where('s.deleted_on', 'is', null)
        .where('p.deleted_on', 'is', null)
        .select(['sp.store_number', 'sp.product_number'])
        .execute();
      const want = rows
        .filter((row) => visible(row.store_number))
        .map((row) => `${row.store_number}|${row.product_number}`)
        .sort();
      const got = keys(answer.json as PulledPage).sort();
      return JSON.stringify(got) === JSON.stringify(want)
        ? undefined
        : `a first full delta pull lists ${got.join(' ')}, the live store products are ${want.join(' ')}`;
    },
  };
}
