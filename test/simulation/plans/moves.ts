import type { Action } from '../actions.js';
import { PRODUCTS, type StoreNo } from '../chain.js';
import type { ChainModel } from '../model.js';
import { API, firstOf, type Plan } from './plan.js';

/**
 * Store-scoped records moved between stores (issue 40 item 2): a price re-sent with another
 * store_number, or none (chain-wide), or from chain-wide to a store. The store it left must be
 * told through its feed; the runner's feed mirrors (feeds.ts) check that after each move.
 * Price `SP<n>` is always of product P<n+1>: only its store moves.
 */
export function planPriceMove(model: ChainModel, action: Extract<Action, { kind: 'priceMove' }>): Plan {
  const id = `SP${action.price}`;
  const product = PRODUCTS[action.price % PRODUCTS.length]!;
  const target = action.store;
  const known = model.prices.has(id);
  const before = model.prices.get(id);
  // An identical re-send writes nothing, so it keeps a deleted product or store (shared/held-references.ts).
  const unchanged = known && before === target;
  const refusal = firstOf(
    model.routeRefusal(action.who, true, undefined, true),
    target !== null && !model.isChainStore(target) && 422,
    !unchanged && (!model.isLiveProduct(product) || (target !== null && !model.isStore(target))) && 422,
  );
  return {
    label: `price ${id} of ${product}: ${known ? (before ?? 'chain-wide') : 'new'} → ${target ?? 'chain-wide'}, by ${action.who}`,
    request: {
      method: 'POST',
      url: `${API}/products/prices`,
      body: {
        prices: [
          {
            price_id: id,
            product_number: product,
            price: 2 + action.price,
            price_type: 1,
            valid_from: '2020-01-01T00:00:00Z',
            valid_to: '2100-01-01T00:00:00Z',
            // Chain-wide spelt both ways: empty, or left out.
            ...(target !== null ? { store_number: target } : action.price === 0 ? { store_number: '' } : {}),
          },
        ],
      },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m) => void m.prices.set(id, target as StoreNo | null),
  };
}
