// Customer orders of the chosen store by status (click-and-collect, docs/customer-orders.md),
// each with its lines: ordered, picked and where the product is.

import { path } from '../api.js';
import { dataTable, h, messageArea } from '../dom.js';
import { day, ORDER_STATUS, quantity } from '../format.js';
import { pagedList } from '../paged-list.js';

export const title = 'Orders';

const STATUSES = Object.keys(ORDER_STATUS).map(Number);

export function render(ctx, params) {
  const chosen = STATUSES.includes(Number(params.get('status'))) ? Number(params.get('status')) : 1;
  const ordersPath = path('/stores/', ctx.store.store_number, '/orders/customerorders');
  const messages = messageArea();
  const tabs = h(
    'div',
    { class: 'status-tabs', role: 'group', 'aria-label': 'Order status' },
    STATUSES.map((status) =>
      h(
        'button',
        {
          type: 'button',
          class: 'tab',
          'aria-pressed': String(status === chosen),
          'data-status': status,
          onclick: () => ctx.navigate('orders', { status }),
        },
        ORDER_STATUS[status],
        h('span', { class: 'count', 'data-count-for': status }, ''),
      ),
    ),
  );
  const list = pagedList({
    messages,
    moveFocus: ctx.moveFocus,
    fetchPage: (page) => ctx.api.get(ordersPath, { status_id: chosen, page_start: page, page_size: 50 }),
    summary: (page) =>
      `${page.total_count} ${ORDER_STATUS[chosen].toLowerCase()} ${page.total_count === 1 ? 'order' : 'orders'}`,
    renderItems: (orders) =>
      orders.length === 0
        ? h('p', { class: 'empty' }, 'No orders with this status.')
        : h(
            'div',
            { class: 'cards' },
            orders.map((order) => orderCard(ctx, order)),
          ),
  });
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Customer orders of ${ctx.storeLabel}`),
    tabs,
    messages.element,
    list.element,
  );
  // Not awaited: the view is returned now; the list shows its own failures in `messages`, and
  // countPerStatus swallows its own (a missing count is only a missing hint).
  void list.start();
  void countPerStatus(ctx, ordersPath, tabs);
  return { element: view };
}

/** How many orders each status holds: one single-item page per status, its total_count. */
async function countPerStatus(ctx, ordersPath, tabs) {
  await Promise.all(
    STATUSES.map(async (status) => {
      try {
        const page = await ctx.api.get(ordersPath, { status_id: status, page_size: 1 });
        tabs.querySelector(`[data-count-for="${status}"]`).textContent = ` ${page.total_count}`;
      } catch {
        // The list itself shows any failure in words; a missing count is only a missing hint.
      }
    }),
  );
}

function orderCard(ctx, order) {
  const lines = order.lines ?? [];
  return h(
    'details',
    { class: 'card', 'data-order': order.order_number },
    h(
      'summary',
      {},
      h('span', { class: 'card-title' }, `Order ${order.order_number}`),
      h(
        'span',
        { class: `badge order-status-${order.status_id}` },
        ORDER_STATUS[order.status_id] ?? String(order.status_id),
      ),
      h(
        'span',
        { class: 'card-meta' },
        [
          order.customer_name,
          order.pickup_date ? `pick-up ${day(order.pickup_date)}` : null,
          `picked ${quantity(order.total_delivery_quantity ?? 0)} of ${quantity(order.total_quantity)}`,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    ),
    order.is_active
      ? h(
          'p',
          {},
          h('a', { class: 'button', href: ctx.href('pick', { order: order.order_number }) }, 'Pick this order'),
        )
      : null,
    order.rejection_reason_code_description
      ? h('p', { class: 'meta' }, `Rejected: ${order.rejection_reason_code_description}`)
      : null,
    dataTable({
      caption: `Lines of order ${order.order_number}`,
      empty: 'This order has no lines.',
      columns: [
        { label: 'Line', cell: (line) => String(line.line_number) },
        { label: 'Product', cell: (line) => line.product_number ?? '–' },
        { label: 'Description', cell: (line) => line.description ?? '–' },
        { label: 'Ordered', numeric: true, cell: (line) => quantity(line.quantity) },
        { label: 'Picked', numeric: true, cell: (line) => quantity(line.picked_quantity) },
        {
          label: 'Where',
          cell: (line) =>
            (line.store_locations ?? [])
              .map((place) => `${place.location_code ?? 'not at a location'}: ${quantity(place.quantity)}`)
              .join(', ') || '–',
        },
      ],
      rows: lines,
    }),
  );
}
