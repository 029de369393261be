// Stock of a product in the chosen store: totals, per pool (with what is bound to
// customer orders), per location, and its price.

import { dataTable, figure, h, resultHeading } from '../dom.js';
import { money, moment, poolName, quantity } from '../format.js';
import { loadProductStock, searchProducts } from '../stock-data.js';
import { productLookupView } from './product-lookup.js';

export const title = 'Stock';

export function render(ctx, params) {
  return productLookupView(ctx, params, {
    view: 'stock',
    title: `Stock in ${ctx.storeLabel}`,
    buttonLabel: 'Look up',
    loadingText: (code) => `Looking up ${code}…`,
    async load(code) {
      let stock;
      try {
        stock = await loadProductStock(ctx.api, ctx.store.store_number, code);
      } catch (failure) {
        // Not a number or barcode: a name, or part of one ("milk").
        if (failure.kind !== 'not-found') throw failure;
        const found = await searchProducts(ctx.api, ctx.store.store_number, code);
        if (found.products.length === 0) throw failure;
        if (found.products.length > 1) return matches(ctx, code, found);
        stock = await loadProductStock(ctx.api, ctx.store.store_number, found.products[0].productNumber);
      }
      const heading = resultHeading(2, stock.name);
      return { element: stockResult(ctx, stock, heading), heading };
    },
  });
}

/** The products a text matches, each a link to its stock. */
function matches(ctx, text, found) {
  const heading = resultHeading(
    2,
    found.total > found.products.length
      ? `The first ${found.products.length} of ${found.total} products matching “${text}”`
      : `${found.total} products matching “${text}”`,
  );
  const element = h(
    'article',
    { class: 'search-result' },
    heading,
    dataTable({
      caption: `Products matching ${text}`,
      columns: [
        {
          label: 'Product',
          cell: (product) => h('a', { href: ctx.href('stock', { code: product.productNumber }) }, product.name),
        },
        { label: 'Number', cell: (product) => product.productNumber },
        { label: 'Barcode', cell: (product) => product.barcode ?? '–' },
        { label: 'Stock', numeric: true, cell: (product) => quantity(product.stock) },
      ],
      rows: found.products,
    }),
  );
  return { element, heading };
}

function stockResult(ctx, stock, heading) {
  const store = ctx.store;
  return h(
    'article',
    { class: 'stock-result', 'data-product': stock.productNumber },
    heading,
    h(
      'p',
      { class: 'meta' },
      `Product ${stock.productNumber}`,
      stock.barcode ? ` · barcode ${stock.barcode}` : null,
      stock.lastChanged ? ` · stock last changed ${moment(stock.lastChanged)}` : null,
    ),
    h(
      'dl',
      { class: 'figures' },
      figure('In store', h('span', { 'data-figure': 'total' }, quantity(stock.total))),
      figure('Free to sell', h('span', { 'data-figure': 'free' }, quantity(stock.free))),
      figure('Bound to customer orders', h('span', { 'data-figure': 'order-bound' }, quantity(stock.orderBound))),
      figure(
        'Price',
        h('span', { 'data-figure': 'price' }, money(stock.price)),
        typeof stock.specialPrice === 'number' ? `special ${money(stock.specialPrice)}` : null,
      ),
    ),
    h('h3', {}, 'Per pool'),
    dataTable({
      caption: 'Stock per pool',
      empty: 'No stock in any pool.',
      columns: [
        { label: 'Pool', cell: (line) => poolName(store, line.pool) },
        { label: 'In store', numeric: true, cell: (line) => quantity(line.total) },
        { label: 'Free', numeric: true, cell: (line) => quantity(line.free) },
        { label: 'Order-bound', numeric: true, cell: (line) => quantity(line.orderBound) },
      ],
      rows: stock.pools,
    }),
    h('h3', {}, 'Per location'),
    dataTable({
      caption: 'Stock per location',
      empty: 'No stock at any location.',
      columns: [
        { label: 'Location', cell: (line) => line.code ?? 'Not at a location' },
        {
          label: 'Pools',
          cell: (line) =>
            line.pools.map((part) => `${poolName(store, part.pool)}: ${quantity(part.quantity)}`).join(', ') || '–',
        },
        { label: 'Tags', cell: (line) => line.tags.join(', ') || '–' },
        { label: 'Quantity', numeric: true, cell: (line) => quantity(line.quantity) },
      ],
      rows: stock.locations,
    }),
    h(
      'p',
      { class: 'actions' },
      h(
        'a',
        { href: ctx.href('history', { code: stock.productNumber }), class: 'button' },
        `History of ${stock.productNumber}`,
      ),
    ),
  );
}
