// Receive a delivery (PRODUCT §7, docs/deliveries.md): scan what arrived against what was
// ordered, see what is still missing, and finish. Each scan is one receipt entry in the
// outbox (`is_from_receipt=true`, `reference` the order number), booked at the moment it
// was scanned; finishing is the receive endpoint's `submit`, sent after the scans before it.

import { path } from '../api.js';
import { dataTable, h, messageArea, replace } from '../dom.js';
import { day, DELIVERY_STATUS, delta, quantity } from '../format.js';
import { field, loadLocations, locationOptions, stockLogAction, scannedNow } from './floor-form.js';
import { documentState, linesFor, productNumberOf, round, scanFields } from './order-scan.js';
import { scanFeedback } from '../scan-feedback.js';

export const title = 'Receive';

const RECEIVABLE = new Set(['open', 'receiving']);

export function render(ctx, params) {
  const orderNumber = params.get('order');
  return orderNumber ? receiving(ctx, orderNumber) : choice(ctx);
}

/** Without a delivery chosen: the deliveries still to receive, and a field for a delivery's number. */
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
        if (number.value.trim()) ctx.navigate('receive', { order: number.value.trim() });
      },
    },
    field('Delivery number', number),
    h('button', { type: 'submit', class: 'primary' }, 'Open'),
  );
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Receive a delivery in ${ctx.storeLabel}`),
    form,
    messages.element,
    list,
  );
  void (async () => {
    messages.loading('Loading the deliveries to receive…');
    try {
      const page = await ctx.api.get('/orders/deliveries', {
        store_number: ctx.store.store_number,
        is_submitted: false,
        page_size: 50,
      });
      const open = (page?.list ?? []).filter((delivery) => RECEIVABLE.has(delivery.status));
      messages.clear();
      replace(
        list,
        open.length === 0
          ? h('p', { class: 'empty' }, 'No delivery waits to be received.')
          : open.map((delivery) =>
              h(
                'a',
                { class: 'card link-card', href: ctx.href('receive', { order: delivery.order_number }) },
                h('span', { class: 'card-title' }, `Delivery ${delivery.order_number}`),
                h('span', { class: `badge status-${delivery.status}` }, DELIVERY_STATUS[delivery.status]),
                h(
                  'span',
                  { class: 'card-meta' },
                  [delivery.supplier_name, `expected ${day(delivery.datetime_expected)}`].filter(Boolean).join(' · '),
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

function receiving(ctx, orderNumber) {
  const store = ctx.store.store_number;
  const messages = messageArea();
  const scanMessages = messageArea();
  const summary = h('p', { class: 'meta' });
  const table = h('div', { class: 'table-wrap' });
  const scan = scanFields();
  const location = h('select', { name: 'put-away' });
  const finish = h('button', { type: 'button', class: 'big', disabled: !ctx.canWrite }, 'Finish delivery');
  const form = h(
    'form',
    { class: 'floor-task', novalidate: true },
    ...scan.elements,
    field('Put away at', location),
    h('button', { type: 'submit', class: 'primary big', disabled: !ctx.canWrite }, 'Receive'),
  );
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Receive delivery ${orderNumber}`),
    summary,
    ctx.canWrite ? null : h('p', { class: 'notice info' }, 'Your token may only read: nothing can be received here.'),
    messages.element,
    form,
    scanMessages.element,
    table,
    finish,
  );

  const isFor = (action) => action.store === store && action.document === `delivery:${orderNumber}`;
  const load = documentState(ctx, {
    isFor,
    read: async () => {
      const page = await ctx.api.get('/orders/deliveries', { store_number: store, order_number: orderNumber });
      return page?.list?.[0];
    },
  });
  let current = { delivery: undefined, lines: [], finishing: false };
  let confirmShort = false;

  async function refresh() {
    try {
      const { document: delivery, waiting } = await load();
      if (!delivery) {
        messages.error(`No delivery ${orderNumber} for this store. Check the number on the delivery note.`);
        form.hidden = true;
        finish.hidden = true;
        return;
      }
      current = { delivery, ...withWaiting(delivery, waiting) };
      draw();
    } catch (failure) {
      messages.error(failure);
    }
  }

  function draw() {
    const { delivery, lines, finishing } = current;
    const open = RECEIVABLE.has(delivery.status) && !finishing;
    const ordered = lines.reduce((sum, line) => sum + line.quantity, 0);
    const received = lines.reduce((sum, line) => sum + line.shown, 0);
    summary.textContent = [
      DELIVERY_STATUS[delivery.status] ?? delivery.status,
      finishing ? 'finishing when sent' : null,
      delivery.supplier_name,
      `expected ${day(delivery.datetime_expected)}`,
      `received ${quantity(round(received))} of ${quantity(round(ordered))}`,
    ]
      .filter(Boolean)
      .join(' · ');
    form.hidden = !open;
    finish.hidden = !open;
    if (!open && !finishing) messages.info(`This delivery is ${delivery.status}: nothing more can be received on it.`);
    const missing = lines.filter((line) => line.shown < line.quantity);
    replace(
      table,
      dataTable({
        caption: `Lines of delivery ${orderNumber}: ordered, received, missing`,
        empty: 'This delivery has no lines.',
        columns: [
          { label: 'Line', cell: (line) => String(line.line_number) },
          { label: 'Product', cell: (line) => line.product_number ?? '–' },
          { label: 'Description', cell: (line) => line.description ?? '–' },
          { label: 'Ordered', numeric: true, cell: (line) => quantity(line.quantity) },
          {
            label: 'Received',
            numeric: true,
            cell: (line) =>
              line.waiting > 0 ? `${quantity(line.shown)} (${quantity(line.waiting)} waiting)` : quantity(line.shown),
          },
          { label: 'Missing', numeric: true, cell: (line) => gap(line) },
        ],
        rows: lines.map((line) => ({
          ...line,
          rowClass: line.shown < line.quantity ? 'short' : line.shown > line.quantity ? 'over' : 'complete',
        })),
      }),
    );
    finish.textContent =
      confirmShort && missing.length > 0
        ? `Finish with ${missing.length} ${missing.length === 1 ? 'line' : 'lines'} missing`
        : 'Finish delivery';
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void receiveScan();
  });

  async function receiveScan() {
    const code = scan.code.value.trim();
    const each = scan.quantity();
    scanMessages.clear();
    if (!code) return problem('Scan or type a product of the delivery.', scan.code);
    if (each === undefined) return problem('Type the quantity per scan (more than 0).', scan.each);
    let matching = linesFor(current.lines, code);
    if (matching.length === 0) {
      const productNumber = await productNumberOf(ctx, code);
      if (productNumber) matching = current.lines.filter((line) => line.product_number === productNumber);
    }
    if (matching.length === 0)
      return problem(
        `${code} is not on delivery ${orderNumber}. Put it aside and tell the back office; nothing was booked.`,
        scan.code,
      );
    const productNumber = matching[0].product_number;
    const where = location.value || undefined;
    scan.code.value = '';
    scan.code.focus();
    const action = stockLogAction(ctx, {
      kind: 'receive',
      label: `receive ${quantity(each)} × ${productNumber} on delivery ${orderNumber}${where ? ` at ${where}` : ''}`,
      query: { is_from_receipt: true },
      entry: { product_number: productNumber, quantity: each, reference: orderNumber, location_code: where },
    });
    action.document = `delivery:${orderNumber}`;
    try {
      await ctx.outbox.add(action);
    } catch (error) {
      return problem(`The scan could not be kept on this device (${error.message}): nothing was queued. Scan again.`);
    }
    const ordered = matching.reduce((sum, line) => sum + line.quantity, 0);
    const after = round(matching.reduce((sum, line) => sum + line.shown, 0) + each);
    scanFeedback(scan.code, true);
    const state =
      after > ordered
        ? `${delta(round(after - ordered))} over what was ordered`
        : after === ordered
          ? 'complete'
          : `${quantity(round(ordered - after))} still missing`;
    scanMessages.success(
      `Received ${quantity(each)} × ${productNumber}: ${quantity(after)} of ${quantity(ordered)}, ${state}.`,
    );
    confirmShort = false;
    await refresh();
  }

  function problem(text, input) {
    if (input) scanFeedback(input, false);
    scanMessages.error(text);
    input?.focus();
  }

  finish.addEventListener('click', async () => {
    const missing = current.lines.filter((line) => line.shown < line.quantity);
    if (missing.length > 0 && !confirmShort) {
      confirmShort = true;
      draw();
      scanMessages.error(
        `${missing.length} ${missing.length === 1 ? 'line is' : 'lines are'} not complete. Press the button again to finish anyway: what is missing stays on the receipt for the back office.`,
      );
      finish.focus();
      return;
    }
    try {
      await ctx.outbox.add({
        store,
        kind: 'receive-finish',
        document: `delivery:${orderNumber}`,
        label: `finish delivery ${orderNumber}`,
        method: 'POST',
        route: path('/stores/', store, '/orders/deliveries/', orderNumber, '/receive'),
        query: { appUserName: ctx.me.name },
        body: { lines: [], submit: true },
        scannedAt: scannedNow(),
        by: ctx.me.name,
      });
    } catch (error) {
      return problem(`Finishing could not be kept on this device (${error.message}). Press Finish again.`);
    }
    confirmShort = false;
    scanMessages.success(
      `Delivery ${orderNumber} is finished ${navigator.onLine ? 'now' : 'when the network is back'}; the receipt goes to the back office.`,
    );
    await refresh();
  });

  const unsubscribe = ctx.outbox.subscribe(() => {
    if (!element.isConnected) return unsubscribe();
    void refresh();
  });
  void (async () => {
    const locations = await loadLocations(ctx).catch(() => []);
    location.replaceChildren(...locationOptions(locations, 'Unlocated (the pool’s stock)'));
    await refresh();
  })();
  return { element, focus: scan.code };
}

/** Each line with what this device still holds for the delivery, spread as the service will (docs/deliveries.md). */
function withWaiting(delivery, waiting) {
  const lines = (delivery.order_lines ?? []).map((line) => ({ ...line, shown: line.received_quantity, waiting: 0 }));
  for (const action of waiting) {
    if (action.kind === 'receive-finish') continue;
    const entry = action.body.storeproductlog[0];
    const same = lines.filter((line) => line.product_number === entry.product_number);
    // The first line of the product still short of its quantity, else the first.
    const line = same.find((one) => one.shown < one.quantity) ?? same[0];
    if (!line) continue;
    line.shown = round(line.shown + entry.quantity);
    line.waiting = round(line.waiting + entry.quantity);
  }
  return { lines, finishing: waiting.some((action) => action.kind === 'receive-finish') };
}

function gap(line) {
  const missing = round(line.quantity - line.shown);
  return missing === 0 ? 'complete' : missing > 0 ? quantity(missing) : `${delta(-missing)} over`;
}
