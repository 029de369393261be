import type { Action } from '../actions.js';
import { PRODUCTS, STORES, type ProductNo, type StoreNo } from '../chain.js';
import type { ChainModel } from '../model.js';
import { resolveQuantity, toNumber } from '../time.js';
import { API, firstOf, inExactRange, productName, type Plan } from './plan.js';
import { productRecord, REASON_RECORDS, storeRecord } from './records.js';

/** Store products, product lists and the rest of the master data. */
export function planStoreProducts(model: ChainModel, action: Extract<Action, { kind: 'storeProducts' }>): Plan {
  const product = productName(action.product);
  return {
    label: `${action.put ? 'PUT' : 'POST'} store product ${product} in ${action.store} by ${action.who}`,
    request: {
      method: action.put ? 'PUT' : 'POST',
      url: `${API}/stores/${action.store}/storeproducts`,
      body: {
        products: [{ product_number: product, min: 1, max: 20, average_keys: ['w1', 'w2'], average_array: [3, 4] }],
      },
      who: action.who,
    },
    // A store product re-sent as it is stores nothing new: it keeps its deleted product (PRODUCT §3
    // upserts; decisions.md "references to deleted master data"). Anything else must name a live one.
    expect: [
      firstOf(
        model.routeRefusal(action.who, true, action.store),
        !model.isStore(action.store) && 404,
        !model.isLiveProduct(product) && !model.storeProductsSent.has(`${action.store}|${product}`) && 422,
      ) ?? 200,
    ],
    commit: (m) => void m.storeProductsSent.add(`${action.store}|${product}`),
  };
}

const isChainProduct = (product: string) => (PRODUCTS as readonly string[]).includes(product);

/** Lines as the interface's rules store them (§4.1): unknown products skipped, 0 → 1, merged unless duplicates are allowed. */
function listLines(
  model: ChainModel,
  sent: Array<{ product: string; milli: bigint }>,
  duplicates: boolean,
  keep: (product: string) => boolean = (product) => model.isLiveProduct(product),
): Array<{ product: ProductNo; milli: bigint }> {
  const lines: Array<{ product: ProductNo; milli: bigint }> = [];
  for (const line of sent) {
    if (!keep(line.product)) continue;
    const milli = line.milli === 0n ? 1000n : line.milli;
    const existing = duplicates ? undefined : lines.find((l) => l.product === line.product);
    if (existing) existing.milli += milli;
    else lines.push({ product: line.product as ProductNo, milli });
  }
  return lines;
}

export function planProductListCreate(model: ChainModel, action: Extract<Action, { kind: 'productListCreate' }>): Plan {
  const sent = action.lines.map((l) => ({ product: productName(l.product), ...resolveQuantity(l.quantity) }));
  const lines = listLines(model, sent, action.duplicates);
  const refusal = firstOf(
    model.routeRefusal(action.who, true, action.store),
    !model.isStore(action.store) && 404,
    // A new list resolves live products only: lines of a deleted one are skipped unsummed, like
    // an unknown product's (a line update resolves deleted products too: planProductListLines).
    lines.some((l) => !inExactRange(l.milli)) && 422,
  );
  return {
    label: `product list in ${action.store} by ${action.who}${action.duplicates ? '' : ' (merged)'}: ${sent.map((l) => `${l.product}×${l.value}`).join(', ')}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${action.store}/productlists?app_username=sim`,
      body: {
        product_list_name: 'Sim list',
        product_list_type: 1,
        is_allow_duplicate_products: action.duplicates,
        lines: sent.map((l) => ({ product_number: l.product, quantity: l.value })),
      },
      who: action.who,
    },
    expect: [refusal ?? 200],
    commit: (m, answer) => {
      m.productLists.push({
        id: (answer.json as { product_list_id: number }).product_list_id,
        store: action.store as StoreNo,
        duplicates: action.duplicates,
        lines,
        state: 'live',
      });
    },
  };
}

export function planProductListLines(
  model: ChainModel,
  action: Extract<Action, { kind: 'productListLines' }>,
): Plan | undefined {
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
    listLines(model, sent, false, isChainProduct).some((l) => !inExactRange(l.milli)) && 422,
    list.state === 'archived' && 409,
  );
  return {
    label: `lines of product list ${list.id} (${list.state}) in ${list.store} by ${action.who}: ${sent.map((l) => `${l.product}×${l.value}`).join(', ')}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${list.store}/productlists/${list.id}`,
      body: { lines: sent.map((l) => ({ product_number: l.product, quantity: l.value })) },
      who: action.who,
    },
    expect: refusal === 422 && list.state === 'archived' ? [409, 422] : [refusal ?? 200],
    commit: (m) => {
      m.productLists.find((l) => l.id === list.id)!.lines = next;
    },
  };
}

export function planProductListRead(model: ChainModel, action: Extract<Action, { kind: 'productListRead' }>): Plan {
  const store = STORES[action.store]!;
  return {
    label: `product lists of ${store} by ${action.who}`,
    request: {
      method: 'GET',
      url: `${API}/stores/${store}/productlists?show_lines=true&page_size=1000`,
      who: action.who,
    },
    expect: [firstOf(model.routeRefusal(action.who, false, store), !model.isStore(store) && 404) ?? 200],
    check: (m, answer) => {
      if (answer.status !== 200) return undefined;
      const listed = (
        answer.json as { list: Array<{ id: number; lines?: Array<{ product_number: string; quantity: number }> }> }
      ).list;
      const want = m.productLists.filter((l) => l.store === store && l.state === 'live');
      if (listed.length !== want.length)
        return `product lists of ${store}: ${listed.length} listed, the model has ${want.length}`;
      for (const list of want) {
        const got = listed.find((l) => l.id === list.id);
        // Lines of a product deleted since are read from the master, which no longer shows it: compare the others.
        const have = JSON.stringify(
          (got?.lines ?? [])
            .filter((l) => m.isLiveProduct(l.product_number))
            .map((l) => [l.product_number, l.quantity]),
        );
        const expected = JSON.stringify(
          list.lines.filter((l) => m.isLiveProduct(l.product)).map((l) => [l.product, toNumber(l.milli)]),
        );
        if (have !== expected) return `product list ${list.id}: lines ${have}, the model says ${expected}`;
      }
      return undefined;
    },
  };
}

export function planProductListDelete(
  model: ChainModel,
  action: Extract<Action, { kind: 'productListDelete' }>,
): Plan | undefined {
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
    check: (_m, answer) =>
      answer.status === 200 && answer.json !== (list.state !== 'deleted')
        ? `delete of list ${list.id} (${list.state}) answered ${JSON.stringify(answer.json)}`
        : undefined,
    commit: (m) => {
      const stored = m.productLists.find((l) => l.id === list.id)!;
      if (stored.state !== 'deleted') stored.state = action.archive ? 'archived' : 'deleted';
    },
  };
}

export function planMasterWrite(model: ChainModel, action: Extract<Action, { kind: 'masterWrite' }>): Plan {
  const product = PRODUCTS[action.product]!;
  const requests: Record<typeof action.which, { method: 'POST' | 'PUT'; url: string; body: unknown }> = {
    categories: {
      method: 'POST',
      url: `${API}/categories`,
      body: {
        categories: [{ category_code: 'C1', category_name: 'Dairy', is_adjust_min_max: false, is_markdown: false }],
      },
    },
    prices: {
      method: 'POST',
      url: `${API}/products/prices`,
      body: {
        prices: [
          {
            price_id: `${product}-1`,
            product_number: product,
            price: 2.5,
            price_type: 1,
            valid_from: '2020-01-01T00:00:00Z',
            valid_to: '2100-01-01T00:00:00Z',
          },
        ],
      },
    },
    discounts: {
      method: 'POST',
      url: `${API}/products/discountprices`,
      body: { discounts: [{ is_delete: false, discount_id: `${product}-d`, product_number: product, price: 1.5 }] },
    },
    freefields: {
      method: 'POST',
      url: `${API}/products/freefields`,
      body: {
        free_fields: [
          { country_code: 'NL', product_number: product, free_fields: [{ key: 'shelf', sort_order: 1, value: 'top' }] },
        ],
      },
    },
    attributes: {
      method: 'PUT',
      url: `${API}/products/attributes`,
      body: { attribute: 'color', old_value: 'none', new_value: 'none' },
    },
  };
  const request = requests[action.which];
  // A price or discount of a deleted product names no live product.
  const namesProduct = action.which === 'prices' || action.which === 'discounts' || action.which === 'freefields';
  // A chain-wide price sent again as it is writes nothing, so it keeps a product deleted since (shared/held-references.ts).
  const unchangedPrice = action.which === 'prices' && model.prices.has(`${product}-1`);
  return {
    label: `${action.which} by ${action.who}${namesProduct ? ` for ${product}` : ''}`,
    request: { ...request, who: action.who },
    expect: [
      firstOf(
        model.routeRefusal(action.who, true, undefined, true),
        namesProduct && !unchangedPrice && !model.isLiveProduct(product) && 422,
      ) ?? 200,
    ],
    // The feed mirrors (feeds.ts) know every price record: this one is chain-wide.
    commit: action.which === 'prices' ? (m) => void m.prices.set(`${product}-1`, null) : undefined,
  };
}

/** Master data moved under the flows (issue 26: deletes and flushes in the middle of them), and master reads. */
export function planMasterChange(
  model: ChainModel,
  action: Extract<
    Action,
    {
      kind:
        | 'deleteProduct'
        | 'restoreProduct'
        | 'reasonFlush'
        | 'reasonRestore'
        | 'masterRead'
        | 'storeFlush'
        | 'storeRestore';
    }
  >,
): Plan {
  switch (action.kind) {
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
        request: {
          method: 'POST',
          url: `${API}/products`,
          body: { products: [productRecord(product)] },
          who: 'integration',
        },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedProducts.delete(product),
      };
    }
    case 'reasonFlush': {
      const kept = REASON_RECORDS.filter(([kind]) => kind !== action.drop);
      return {
        label: `flush reason codes: drop ${action.drop}`,
        request: {
          method: 'POST',
          url: `${API}/reasoncodes?flush=true`,
          body: { reason_codes: kept.map(([, record]) => record) },
          who: 'integration',
        },
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
        request: {
          method: 'POST',
          url: `${API}/reasoncodes`,
          body: { reason_codes: REASON_RECORDS.map(([, record]) => record) },
          who: 'integration',
        },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedReasons.clear(),
      };
    case 'masterRead':
      return {
        label: `read ${action.which} by ${action.who}`,
        request: {
          method: 'GET',
          url: `${API}/${action.which}${action.which === 'reasoncodes' ? '' : '?page_size=50'}`,
          who: action.who,
        },
        expect: [model.routeRefusal(action.who, false) ?? 200],
      };
    case 'storeFlush': {
      const dropped = STORES[action.drop]!;
      const kept = STORES.filter((s) => s !== dropped);
      return {
        label: `flush stores: keep ${kept.join(', ')}`,
        request: {
          method: 'POST',
          url: `${API}/stores?flush=true`,
          body: { stores: kept.map(storeRecord) },
          who: 'integration',
        },
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
        request: {
          method: 'POST',
          url: `${API}/stores`,
          body: { stores: STORES.map(storeRecord) },
          who: 'integration',
        },
        expect: [model.routeRefusal('integration', true, undefined, true) ?? 200],
        commit: (m) => m.deletedStores.clear(),
      };
  }
}

/** PRODUCT §5 Locations: upsert by code; a new default pool decides where later entries at the location book. */
export function planLocationUpsert(model: ChainModel, action: Extract<Action, { kind: 'locationUpsert' }>): Plan {
  return {
    label: `location ${action.location} of ${action.store}: default pool ${action.pool}, by ${action.who}`,
    request: {
      method: 'POST',
      url: `${API}/stores/${action.store}/locations`,
      body: {
        locations: [
          {
            location_code: action.location,
            location_order: action.location === 'A' ? 1 : 2,
            default_stock_pool: action.pool,
          },
        ],
      },
      who: action.who,
    },
    expect: [firstOf(model.routeRefusal(action.who, true, action.store), !model.isStore(action.store) && 404) ?? 200],
    commit: (m) => void m.locationPools.set(`${action.store}|${action.location}`, action.pool),
  };
}
