// The review queue of the chosen store: entries whose reason code needs a review
// (PRODUCT §5), approved (applied to stock) or rejected (never applied) one by one.

import { entryPhoto } from '../photo.js';
import { path } from '../api.js';
import { dataTable, h, messageArea, resultHeading } from '../dom.js';
import { delta, moment, poolName, quantity } from '../format.js';

export const title = 'Review';

const PAGE_SIZE = 100;

export function render(ctx) {
  const messages = messageArea();
  const results = h('div', { class: 'results', 'aria-busy': 'false' });
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Review queue of ${ctx.storeLabel}`),
    ctx.canWrite
      ? h(
          'p',
          { class: 'intro' },
          'Approving an entry books it on stock at its own moment; rejecting it keeps it out of stock for good.',
        )
      : h(
          'p',
          { class: 'notice info' },
          `Your token (${ctx.me.name}) has the read role: it can see the queue but not approve or reject.`,
        ),
    messages.element,
    results,
  );
  // Not awaited: the view is returned now; load() shows its own failures in `messages`.
  void load(ctx, messages, results);
  return { element: view };
}

async function load(ctx, messages, results, { keepMessage = false } = {}) {
  if (!keepMessage) messages.loading('Loading entries waiting for review…');
  results.setAttribute('aria-busy', 'true');
  try {
    const page = await ctx.api.get('/products/stock/storeproductlogs', {
      store_number: ctx.store.store_number,
      review_status: 1,
      page_size: PAGE_SIZE,
    });
    const [stockByProduct, names] = await Promise.all([currentStock(ctx, page.list), productNames(ctx, page.list)]);
    if (!keepMessage) messages.clear();
    results.replaceChildren(queue(ctx, page, { stockByProduct, names }, messages, results));
  } catch (failure) {
    results.replaceChildren();
    messages.error(failure, { focus: ctx.moveFocus });
  } finally {
    results.setAttribute('aria-busy', 'false');
  }
}

/** The level now of every product in the queue, so an approval's effect is visible. */
async function currentStock(ctx, entries) {
  const numbers = [...new Set(entries.map((entry) => entry.product_number).filter(Boolean))];
  const levels = await Promise.all(numbers.map((number) => stockLevel(ctx, number)));
  return new Map(numbers.map((number, index) => [number, levels[index]]));
}

/** Names of the queue's products: one GET /products for them all (its product_number repeats). */
async function productNames(ctx, entries) {
  const numbers = [...new Set(entries.map((entry) => entry.product_number).filter(Boolean))];
  if (numbers.length === 0) return new Map();
  const answer = await ctx.api.get('/products', { product_number: numbers, page_size: numbers.length });
  return new Map((answer.records ?? []).map((product) => [product.product_number, product.product_name]));
}

async function stockLevel(ctx, productNumber) {
  const answer = await ctx.api.get(path('/stores/', ctx.store.store_number, '/products/', productNumber, '/stock'));
  return answer?.products?.[0]?.most_likely_stock ?? 0;
}

function queue(ctx, page, { stockByProduct, names }, messages, results) {
  const heading = resultHeading(2, page.total_count === 1 ? '1 entry waiting' : `${page.total_count} entries waiting`);
  return h(
    'div',
    {},
    heading,
    page.total_count > page.list.length
      ? h('p', { class: 'meta' }, `Showing the oldest ${page.list.length}; review them to see the next.`)
      : null,
    dataTable({
      caption: 'Entries waiting for review, oldest first',
      empty: 'Nothing waits for review in this store.',
      columns: [
        { label: 'Entry', cell: (entry) => String(entry.id) },
        {
          label: 'Product',
          cell: (entry) => [
            entry.product_number ?? '–',
            names.get(entry.product_number) ? h('span', { class: 'sub' }, names.get(entry.product_number)) : null,
          ],
        },
        {
          label: 'Change',
          numeric: true,
          cell: (entry) =>
            entry.counted_quantity !== undefined ? `count ${quantity(entry.counted_quantity)}` : delta(entry.quantity),
        },
        { label: 'Pool', cell: (entry) => (entry.stock_pool ? poolName(ctx.store, Number(entry.stock_pool)) : '–') },
        { label: 'Location', cell: (entry) => entry.location_code ?? '–' },
        { label: 'Reason', cell: (entry) => entry.reason_code_description ?? String(entry.reason_code ?? '–') },
        {
          label: 'Remark',
          cell: (entry) => [
            entry.remarks ?? (entry.exception_image ? '' : '–'),
            entryPhoto(ctx, entry.exception_image),
          ],
        },
        { label: 'Recorded', cell: (entry) => moment(entry.created_on) },
        { label: 'By', cell: (entry) => entry.app_user_name ?? entry.updated_by ?? '–' },
        { label: 'Stock now', numeric: true, cell: (entry) => quantity(stockByProduct.get(entry.product_number)) },
        { label: 'Decision', cell: (entry) => decisionButtons(ctx, entry, stockByProduct, messages, results) },
      ],
      rows: page.list.map((entry) => ({ ...entry, rowClass: 'review-row' })),
    }),
  );
}

function decisionButtons(ctx, entry, stockByProduct, messages, results) {
  const decide = (approve) => async (event) => {
    const buttons = event.currentTarget.parentElement.querySelectorAll('button');
    buttons.forEach((button) => (button.disabled = true));
    messages.loading(`${approve ? 'Approving' : 'Rejecting'} entry ${entry.id}…`);
    try {
      const before = stockByProduct.get(entry.product_number);
      await ctx.api.post(path('/stores/', ctx.store.store_number, '/products/stock/storeproductlogs/review'), {
        ids: [entry.id],
        approve,
      });
      const after = await stockLevel(ctx, entry.product_number);
      messages.success(
        approve
          ? `Entry ${entry.id} approved. Stock of ${entry.product_number} in this store: ${quantity(before)} → ${quantity(after)}.`
          : `Entry ${entry.id} rejected; it will never change stock. Stock of ${entry.product_number} stays ${quantity(after)}.`,
        { focus: true },
      );
      await load(ctx, messages, results, { keepMessage: true });
    } catch (failure) {
      messages.error(failure, { focus: true });
      buttons.forEach((button) => (button.disabled = !ctx.canWrite));
    }
  };
  const why = ctx.canWrite ? null : 'Your token has the read role';
  return h(
    'span',
    { class: 'decision' },
    h(
      'button',
      {
        type: 'button',
        class: 'primary',
        'data-action': 'approve',
        'data-entry': entry.id,
        disabled: !ctx.canWrite,
        title: why,
        onclick: decide(true),
        'aria-label': `Approve entry ${entry.id}`,
      },
      'Approve',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'data-action': 'reject',
        'data-entry': entry.id,
        disabled: !ctx.canWrite,
        title: why,
        onclick: decide(false),
        'aria-label': `Reject entry ${entry.id}`,
      },
      'Reject',
    ),
  );
}
