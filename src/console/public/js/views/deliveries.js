// Deliveries to the chosen store with, per line, what was ordered (announced) and what
// was received so far (PRODUCT §7, docs/deliveries.md).

import { dataTable, h, messageArea } from '../dom.js';
import { day, delta, DELIVERY_STATUS, quantity } from '../format.js';
import { pagedList } from '../paged-list.js';

export const title = 'Deliveries';

/** Filter choices: the API's `status` or `is_submitted` (docs/deliveries.md). */
const FILTERS = [
  { value: 'unreceived', label: 'Not yet received', query: { is_submitted: false } },
  { value: 'open', label: 'Open', query: { status: 'open' } },
  { value: 'receiving', label: 'Receiving', query: { status: 'receiving' } },
  { value: 'received', label: 'Received', query: { status: 'received' } },
  { value: 'cancelled', label: 'Cancelled', query: { status: 'cancelled' } },
  { value: 'all', label: 'All', query: {} },
];

export function render(ctx, params) {
  const filter = FILTERS.find((f) => f.value === params.get('status')) ?? FILTERS[0];
  const messages = messageArea();
  const select = h(
    'select',
    { id: 'delivery-status', onchange: (event) => ctx.navigate('deliveries', { status: event.target.value }) },
    FILTERS.map((f) => h('option', { value: f.value, selected: f === filter }, f.label)),
  );
  const list = pagedList({
    messages,
    moveFocus: ctx.moveFocus,
    fetchPage: (page) =>
      ctx.api.get('/orders/deliveries', {
        store_number: ctx.store.store_number,
        ...filter.query,
        page_start: page,
        page_size: 50,
      }),
    summary: (page) =>
      `${page.total_count} ${page.total_count === 1 ? 'delivery' : 'deliveries'} (${filter.label.toLowerCase()})`,
    renderItems: (deliveries) =>
      deliveries.length === 0
        ? h('p', { class: 'empty' }, 'No deliveries match.')
        : h(
            'div',
            { class: 'cards' },
            deliveries.map((delivery) => deliveryCard(ctx, delivery)),
          ),
  });
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Deliveries to ${ctx.storeLabel}`),
    h('div', { class: 'filters' }, h('label', { for: 'delivery-status' }, 'Show'), select),
    messages.element,
    list.element,
  );
  // Not awaited: the view is returned now; the list shows its own failures in `messages`.
  void list.start();
  return { element: view };
}

function deliveryCard(ctx, delivery) {
  const lines = delivery.order_lines ?? [];
  const ordered = lines.reduce((sum, line) => sum + line.quantity, 0);
  const received = lines.reduce((sum, line) => sum + line.received_quantity, 0);
  return h(
    'details',
    { class: 'card', 'data-order': delivery.order_number },
    h(
      'summary',
      {},
      h('span', { class: 'card-title' }, `Delivery ${delivery.order_number ?? delivery.import_id}`),
      h(
        'span',
        { class: `badge status-${delivery.status}` },
        DELIVERY_STATUS[delivery.status] ?? delivery.status ?? '–',
      ),
      h(
        'span',
        { class: 'card-meta' },
        [
          delivery.supplier_name,
          `expected ${day(delivery.datetime_expected)}`,
          `${lines.length} ${lines.length === 1 ? 'line' : 'lines'}`,
          `received ${quantity(round(received))} of ${quantity(round(ordered))}`,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    ),
    delivery.status === 'open' || delivery.status === 'receiving'
      ? h(
          'p',
          {},
          h(
            'a',
            { class: 'button', href: ctx.href('receive', { order: delivery.order_number }) },
            'Receive this delivery',
          ),
        )
      : null,
    dataTable({
      caption: `Lines of delivery ${delivery.order_number}: ordered and received`,
      empty: 'This delivery has no lines.',
      columns: [
        { label: 'Line', cell: (line) => String(line.line_number) },
        { label: 'Product', cell: (line) => line.product_number ?? line.barcode ?? '–' },
        { label: 'Description', cell: (line) => line.description ?? '–' },
        { label: 'Ordered', numeric: true, cell: (line) => quantity(line.quantity) },
        { label: 'Received', numeric: true, cell: (line) => quantity(line.received_quantity) },
        { label: 'Difference', numeric: true, cell: (line) => difference(line) },
      ],
      rows: lines.map((line) => ({ ...line, rowClass: rowClass(line) })),
    }),
  );
}

const round = (value) => Math.round(value * 1000) / 1000;

function difference(line) {
  const gap = round(line.received_quantity - line.quantity);
  return gap === 0 ? 'complete' : gap < 0 ? `${delta(gap)} short` : `${delta(gap)} over`;
}

function rowClass(line) {
  const gap = round(line.received_quantity - line.quantity);
  return gap < 0 ? 'short' : gap > 0 ? 'over' : 'complete';
}
