// Pick a customer order (click-and-collect, docs/customer-orders.md): the lines to pick and
// where their stock is, scan each product as it goes into the tote, hand the order over.
// Each scan is one update in the outbox with the line's new picked total (the API's
// `picked_quantity` is a total, so a replay of the same update binds nothing twice); handing
// over marks picking complete and clears the order, sent after the picks before it.

import { path } from '../api.js';
import { dataTable, h, messageArea, replace } from '../dom.js';
import { day, ORDER_STATUS, quantity } from '../format.js';
import { field, loadLocations, locationOptions, scannedNow } from './floor-form.js';
import { documentState, linesFor, productNumberOf, round, scanFields } from './order-scan.js';
import { scanFeedback } from '../scan-feedback.js';

export const title = 'Pick';

/** New, claimed, picking, picked: an order that can still be picked and handed over. */
const ACTIVE = new Set([1, 2, 3, 4]);

export function render(ctx, params) {
  const orderNumber = params.get('order');
  return orderNumber ? picking(ctx, orderNumber) : choice(ctx);
}

const ordersPath = (ctx) => path('/stores/', ctx.store.store_number, '/orders/customerorders');

/** Without an order chosen: the store's active orders, earliest pick-up first, and a field for an order number. */
function choice(ctx) {
  const messages = messageArea();
  const list = h('div', { class: 'cards' });
  const number = h('input', {
    name: 'order',
    type: 'text',
    maxlength: '64',
    autocomplete: 'off',
    'data-scan-target': true,
  });
  const form = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: (event) => {
        event.preventDefault();
        if (number.value.trim()) ctx.navigate('pick', { order: number.value.trim() });
      },
    },
    field('Order number', number),
    h('button', { type: 'submit', class: 'primary' }, 'Open'),
  );
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Pick a customer order in ${ctx.storeLabel}`),
    form,
    messages.element,
    list,
  );
  void (async () => {
    messages.loading('Loading the orders to pick…');
    try {
      const page = await ctx.api.get(ordersPath(ctx), { is_active: true, page_size: 50 });
      const orders = (page?.list ?? []).sort((a, b) =>
        String(a.pickup_date ?? '').localeCompare(String(b.pickup_date ?? '')),
      );
      messages.clear();
      replace(
        list,
        orders.length === 0
          ? h('p', { class: 'empty' }, 'No order waits to be picked.')
          : orders.map((order) =>
              h(
                'a',
                { class: 'card link-card', href: ctx.href('pick', { order: order.order_number }) },
                h('span', { class: 'card-title' }, `Order ${order.order_number}`),
                h('span', { class: `badge order-status-${order.status_id}` }, ORDER_STATUS[order.status_id]),
                h(
                  'span',
                  { class: 'card-meta' },
                  [
                    order.customer_name,
                    order.pickup_date ? `pick-up ${day(order.pickup_date)}` : null,
                    `${order.total_lines} ${order.total_lines === 1 ? 'line' : 'lines'}`,
                  ]
                    .filter(Boolean)
                    .join(' · '),
                ),
              ),
            ),
      );
    } catch (failure) {
      messages.error(failure);
    }
  })();
  return { element, focus: number };
}

function picking(ctx, orderNumber) {
  const store = ctx.store.store_number;
  const messages = messageArea();
  const scanMessages = messageArea();
  const summary = h('p', { class: 'meta' });
  const table = h('div', { class: 'table-wrap' });
  const scan = scanFields();
  const from = h('select', { name: 'pick-from' });
  const handOver = h('button', { type: 'button', class: 'big', disabled: !ctx.canWrite }, 'Hand over');
  const form = h(
    'form',
    { class: 'floor-task', novalidate: true },
    ...scan.elements,
    field('Picked from', from),
    h('button', { type: 'submit', class: 'primary big', disabled: !ctx.canWrite }, 'Pick'),
  );
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Pick order ${orderNumber}`),
    summary,
    ctx.canWrite ? null : h('p', { class: 'notice info' }, 'Your token may only read: nothing can be picked here.'),
    messages.element,
    form,
    scanMessages.element,
    table,
    handOver,
  );

  const document = `customer-order:${orderNumber}`;
  const load = documentState(ctx, {
    isFor: (action) => action.store === store && action.document === document,
    read: async () => (await ctx.api.get(ordersPath(ctx), { order_number: orderNumber }))?.list?.[0],
  });
  let current = { order: undefined, lines: [], handingOver: false };
  let confirmShort = false;

  async function refresh() {
    try {
      const { document: order, waiting } = await load();
      if (!order) {
        messages.error(`No customer order ${orderNumber} in this store. Check the number on the order.`);
        form.hidden = true;
        handOver.hidden = true;
        return;
      }
      current = { order, ...withWaiting(order, waiting) };
      draw();
    } catch (failure) {
      messages.error(failure);
    }
  }

  function draw() {
    const { order, lines, handingOver } = current;
    const open = ACTIVE.has(order.status_id) && !handingOver;
    const picked = lines.reduce((sum, line) => sum + line.shown, 0);
    summary.textContent = [
      ORDER_STATUS[order.status_id] ?? String(order.status_id),
      handingOver ? 'handed over when sent' : null,
      order.customer_name,
      order.pickup_date ? `pick-up ${day(order.pickup_date)}` : null,
      `picked ${quantity(round(picked))} of ${quantity(order.total_quantity)}`,
    ]
      .filter(Boolean)
      .join(' · ');
    form.hidden = !open;
    handOver.hidden = !open;
    if (!open && !handingOver)
      messages.info(
        `This order is ${(ORDER_STATUS[order.status_id] ?? '').toLowerCase()}: nothing more can be picked.`,
      );
    // The walking order: the shelf nearest the start first (store_walking_order, §2.9).
    const walk = [...lines].sort(
      (a, b) => a.store_walking_order - b.store_walking_order || a.line_number - b.line_number,
    );
    replace(
      table,
      dataTable({
        caption: `Lines of order ${orderNumber} in walking order: ordered, picked, where`,
        empty: 'This order has no lines.',
        columns: [
          { label: 'Line', cell: (line) => String(line.line_number) },
          { label: 'Product', cell: (line) => line.product_number ?? '–' },
          { label: 'Description', cell: (line) => line.description ?? '–' },
          { label: 'Ordered', numeric: true, cell: (line) => quantity(line.quantity) },
          {
            label: 'Picked',
            numeric: true,
            cell: (line) => (line.waiting ? `${quantity(line.shown)} (waiting)` : quantity(line.shown)),
          },
          {
            label: 'Where',
            cell: (line) =>
              (line.store_locations ?? [])
                .map((place) => `${place.location_code ?? 'unlocated'}: ${quantity(place.quantity)}`)
                .join(', ') || '–',
          },
        ],
        rows: walk.map((line) => ({ ...line, rowClass: line.shown < line.quantity ? 'short' : 'complete' })),
      }),
    );
    const short = lines.filter((line) => line.shown < line.quantity).length;
    handOver.textContent = confirmShort && short > 0 ? `Hand over with ${short} short` : 'Hand over';
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void pickScan();
  });

  async function pickScan() {
    const code = scan.code.value.trim();
    const each = scan.quantity();
    scanMessages.clear();
    if (!code) return problem('Scan or type a product of the order.', scan.code);
    if (each === undefined) return problem('Type the quantity per scan (more than 0).', scan.each);
    let matching = linesFor(current.lines, code);
    if (matching.length === 0) {
      const productNumber = await productNumberOf(ctx, code);
      if (productNumber) matching = current.lines.filter((line) => line.product_number === productNumber);
    }
    if (matching.length === 0)
      return problem(`${code} is not on order ${orderNumber}: put it back. Nothing was picked.`, scan.code);
    const line = matching.find((one) => round(one.shown + each) <= one.quantity);
    if (!line) {
      const room = matching.map((one) => round(one.quantity - one.shown)).reduce((a, b) => Math.max(a, b), 0);
      return problem(
        room > 0
          ? `Only ${quantity(room)} more of ${matching[0].product_number} ${room === 1 ? 'is' : 'are'} ordered: pick fewer.`
          : `${matching[0].product_number} is picked in full already: put it back.`,
        scan.code,
      );
    }
    const total = round(line.shown + each);
    const where = from.value || suggestedSource(line, each);
    scan.code.value = '';
    scan.code.focus();
    try {
      await ctx.outbox.add({
        store,
        kind: 'pick',
        document,
        label: `pick ${quantity(each)} × ${line.product_number} for order ${orderNumber} (line ${line.line_number}: ${quantity(total)} of ${quantity(line.quantity)})`,
        method: 'PUT',
        route: path('/stores/', store, '/orders/customerorder'),
        body: {
          order_number: orderNumber,
          is_claimed: true,
          picked_username: ctx.me.name,
          lines: [{ line_number: line.line_number, picked_quantity: total, stock_location: where }],
        },
        scannedAt: scannedNow(),
        by: ctx.me.name,
      });
    } catch (error) {
      return problem(`The pick could not be kept on this device (${error.message}): nothing was queued. Scan again.`);
    }
    scanFeedback(scan.code, true);
    const left = round(line.quantity - total);
    scanMessages.success(
      `Picked ${quantity(each)} × ${line.product_number}${where ? ` from ${where}` : ''}: line ${line.line_number} ${left === 0 ? 'complete' : `${quantity(left)} to go`}.`,
    );
    confirmShort = false;
    await refresh();
  }

  function problem(text, input) {
    if (input) scanFeedback(input, false);
    scanMessages.error(text);
    input?.focus();
  }

  handOver.addEventListener('click', async () => {
    const short = current.lines.filter((line) => line.shown < line.quantity);
    if (short.length > 0 && !confirmShort) {
      confirmShort = true;
      draw();
      scanMessages.error(
        `${short.length} ${short.length === 1 ? 'line is' : 'lines are'} short. Press the button again to hand over what was picked; the rest is not charged as collected.`,
      );
      handOver.focus();
      return;
    }
    const common = { store, document, scannedAt: scannedNow(), by: ctx.me.name };
    try {
      await ctx.outbox.add({
        ...common,
        kind: 'pick-complete',
        label: `picking of order ${orderNumber} complete`,
        method: 'PUT',
        route: path('/stores/', store, '/orders/customerorder'),
        body: { order_number: orderNumber, is_picked: true, picked_username: ctx.me.name },
      });
      await ctx.outbox.add({
        ...common,
        kind: 'hand-over',
        label: `hand over order ${orderNumber}`,
        method: 'POST',
        route: '/customerorders/clearance',
        body: { store_number: store, order_number: orderNumber },
      });
    } catch (error) {
      return problem(`Handing over could not be kept on this device (${error.message}). Press Hand over again.`);
    }
    confirmShort = false;
    scanMessages.success(
      `Order ${orderNumber} is handed over ${navigator.onLine ? 'now' : 'when the network is back'}.`,
    );
    await refresh();
  });

  const unsubscribe = ctx.outbox.subscribe(() => {
    if (!element.isConnected) return unsubscribe();
    void refresh();
  });
  void (async () => {
    const locations = await loadLocations(ctx).catch(() => []);
    from.replaceChildren(...locationOptions(locations, 'Where the order says'));
    await refresh();
  })();
  return { element, focus: scan.code };
}

/**
 * Where a pick comes from when the picker does not say: where this line was picked last, else
 * its preferred location, else the first location holding enough free stock of the line's pool
 * for the scan; none
 * leaves it to the service (unlocated stock).
 */
function suggestedSource(line, each) {
  return (
    line.stock_location ??
    line.preferred_location_code ??
    (line.store_locations ?? []).find(
      (place) => place.location_code && (place[`most_likely_pool_${line.stock_pool}`] ?? place.quantity) >= each,
    )?.location_code
  );
}

/** Each line's picked total as shown: the last total this device still holds for it, else the service's. */
function withWaiting(order, waiting) {
  const lines = (order.lines ?? []).map((line) => ({ ...line, shown: line.picked_quantity, waiting: false }));
  for (const action of waiting) {
    for (const pick of action.body.lines ?? []) {
      const line = lines.find((one) => one.line_number === pick.line_number);
      if (line && pick.picked_quantity !== undefined) {
        line.shown = pick.picked_quantity;
        line.waiting = true;
      }
    }
  }
  return { lines, handingOver: waiting.some((action) => action.kind === 'hand-over') };
}
