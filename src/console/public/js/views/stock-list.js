// The store's stock as a list (issue 43): every store product with its stock, filtered by
// location, category, below zero and "not counted since", as the back office asks; the same
// list as a CSV file (RFC 4180) from the service's export, with the filters shown.
// The filters live in the address (#/list?location=A-01&below=1), so a list can be bookmarked
// and the back button returns to it.

import { path } from '../api.js';
import { dataTable, h, messageArea } from '../dom.js';
import { moment, poolName, POOLS, quantity } from '../format.js';
import { pagedList } from '../paged-list.js';
import { field, loadLocations, locationOptions } from './floor-form.js';

export const title = 'List';

const PAGE_SIZE = 100;

/** The API's filters from the address's parameters: what the list and the export are asked with. */
function filtersFrom(params) {
  const since = params.get('since');
  return {
    location_code: params.get('location') || undefined,
    category_code: params.get('category') || undefined,
    below_zero: params.get('below') === '1' ? true : undefined,
    // The start of that day where the employee is: "not counted since Monday" means since Monday morning.
    not_counted_since:
      since && /^\d{4}-\d{2}-\d{2}$/.test(since) ? new Date(`${since}T00:00:00`).toISOString() : undefined,
    search_text: params.get('text') || undefined,
  };
}

export function render(ctx, params) {
  const filters = filtersFrom(params);
  const messages = messageArea();
  const exportMessages = messageArea();
  const location = h('select', { name: 'location' }, locationOptions([], 'Any location'));
  const category = h('select', { name: 'category' }, h('option', { value: '' }, 'Any category'));
  const below = h('input', { id: 'below-zero', name: 'below', type: 'checkbox', checked: filters.below_zero === true });
  const since = h('input', { name: 'since', type: 'date', value: params.get('since') ?? '' });
  const text = h('input', { name: 'text', type: 'search', maxlength: '200', value: params.get('text') ?? '' });
  const form = h(
    'form',
    {
      class: 'filters list-filters',
      onsubmit: (event) => {
        event.preventDefault();
        ctx.navigate('list', {
          location: location.value,
          category: category.value,
          below: below.checked ? '1' : '',
          since: since.value,
          text: text.value.trim(),
        });
      },
    },
    field('Location', location),
    field('Category', category),
    field('Not counted since', since),
    field('Name, number or barcode', text),
    h('div', { class: 'field checkbox' }, below, h('label', { for: 'below-zero' }, 'Below zero only')),
    h('button', { type: 'submit', class: 'primary' }, 'Show'),
  );
  const exportButton = h(
    'button',
    { type: 'button', onclick: () => exportCsv(ctx, filters, exportMessages) },
    'Export CSV',
  );
  const list = pagedList({
    messages,
    moveFocus: ctx.moveFocus,
    fetchPage: (page) =>
      ctx.api.get('/storeproducts/stock', {
        store_number: ctx.store.store_number,
        ...filters,
        page_start: page,
        page_size: PAGE_SIZE,
      }),
    summary: (page) => `${page.total_count} ${page.total_count === 1 ? 'product' : 'products'}${describe(filters)}`,
    renderItems: (items) => stockTable(ctx, items),
  });
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Stock list of ${ctx.storeLabel}`),
    form,
    h('p', { class: 'actions' }, exportButton),
    exportMessages.element,
    messages.element,
    list.element,
  );
  void (async () => {
    const [locations, categories] = await Promise.all([
      loadLocations(ctx).catch(() => []),
      ctx.api.get('/categories', { page_size: 1000 }).catch(() => undefined),
    ]);
    location.replaceChildren(...locationOptions(locations, 'Any location'));
    location.value = filters.location_code ?? '';
    const known = (categories?.list ?? []).map((one) => one.category_code).sort();
    for (const code of known) category.append(h('option', { value: code }, categoryLabel(categories.list, code)));
    category.value = filters.category_code ?? '';
  })();
  void list.start();
  return { element };
}

const categoryLabel = (categories, code) => {
  const found = categories.find((one) => one.category_code === code);
  return found?.category_name ? `${code} ${found.category_name}` : code;
};

/** ", at A-01, below zero, …": the filters in words, after the count. */
function describe(filters) {
  const parts = [
    filters.location_code ? `at ${filters.location_code}` : null,
    filters.category_code ? `in ${filters.category_code}` : null,
    filters.below_zero ? 'below zero' : null,
    filters.not_counted_since ? `not counted since ${moment(filters.not_counted_since)}` : null,
    filters.search_text ? `matching “${filters.search_text}”` : null,
  ].filter(Boolean);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

function stockTable(ctx, items) {
  return dataTable({
    caption: 'Store products with their stock',
    empty: 'No product matches.',
    columns: [
      {
        label: 'Product',
        cell: (item) => h('a', { href: ctx.href('stock', { code: item.product_number }) }, item.product_number ?? '–'),
      },
      { label: 'Description', cell: (item) => item.product_description ?? '–' },
      { label: 'Category', cell: (item) => item.category_code ?? '–' },
      { label: 'Stock', numeric: true, cell: (item) => quantity(item.most_likely_quantity) },
      {
        label: 'Pools',
        cell: (item) =>
          POOLS.filter((pool) => (item[`most_likely_pool_${pool}`] ?? 0) !== 0)
            .map((pool) => `${poolName(ctx.store, pool)}: ${quantity(item[`most_likely_pool_${pool}`])}`)
            .join(', ') || '–',
      },
      {
        label: 'Last counted',
        cell: (item) => (item.last_counted_datetime ? moment(item.last_counted_datetime) : 'never'),
      },
      { label: 'Last changed', cell: (item) => (item.most_likely_datetime ? moment(item.most_likely_datetime) : '–') },
    ],
    // Marked as the below-zero filter finds them: any pool below zero.
    rows: items.map((item) => ({
      ...item,
      rowClass: POOLS.some((pool) => (item[`most_likely_pool_${pool}`] ?? 0) < 0) ? 'short' : undefined,
    })),
  });
}

/** The whole filtered list from the service's export, handed to the browser as a file. */
async function exportCsv(ctx, filters, messages) {
  messages.loading('Exporting…');
  try {
    const { blob, filename } = await ctx.api.download(
      path('/stores/', ctx.store.store_number, '/storeproducts/stock.csv'),
      filters,
    );
    const link = h('a', { href: URL.createObjectURL(blob), download: filename, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The browser has the file once the click is handled; the address is freed after it.
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    messages.success(`Exported ${filename}.`);
  } catch (failure) {
    messages.error(failure);
  }
}
