// The handheld's count list (issue 44, PRODUCT §10, docs/counting.md): pick a counting
// assignment of the store, scan a product, confirm where it stands, type how many, Enter, next.
// Each count is one action in the outbox (`assignment-count`), sent with its scanned moment as
// `counted_at`, so a count made without Wi-Fi is booked where it was scanned; the submission
// is an action after the counts before it. A recount replaces a line's count; "Add to this
// count" adds to it (the same shelf in two goes).
//
// Blind: while an assignment is blind this view shows neither what the books expect nor the
// variance, whoever is signed in (the API leaves them out for a store token anyway), and it
// reads no stock: a barcode is matched to its lines through the products of the lines.

import { dataTable, figure, h, messageArea, replace } from '../dom.js';
import { day, delta, moment, money, poolName, quantity } from '../format.js';
import { cameraButton } from '../camera.js';
import { scanFeedback } from '../scan-feedback.js';
import {
  ASSIGNMENT_STATUS,
  LINE_STATUS,
  allLines,
  assignmentName,
  assignmentPath,
  assignmentsPath,
  kindText,
  locationsInOrder,
  productsOf,
  scopeText,
  walkingOrder,
} from '../assignment-data.js';
import { field, scanRow, scannedNow } from './floor-form.js';
import { documentState, round } from './order-scan.js';

export const title = 'Count list';

/** Lines drawn in the list at most (the rest are counted all the same). */
const LINES_SHOWN = 500;

export function render(ctx, params) {
  const id = params.get('assignment');
  return id && /^[1-9][0-9]{0,14}$/.test(id) ? counting(ctx, id) : choice(ctx);
}

/** The store's assignments that can be counted (counting) or started (open). */
function choice(ctx) {
  const messages = messageArea();
  const list = h('div', { class: 'cards' });
  const element = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Count list of ${ctx.storeLabel}`),
    h(
      'p',
      { class: 'intro' },
      'The counts the store was asked to do. Choose one, then scan each product where it stands and type how many you counted. Works without Wi-Fi once a count is open.',
    ),
    messages.element,
    list,
  );
  void (async () => {
    messages.loading('Loading the counts to do…');
    try {
      const [counting, open] = await Promise.all(
        ['counting', 'open'].map((status) => ctx.api.get(assignmentsPath(ctx), { status, page_size: 100 })),
      );
      const assignments = [...(counting?.list ?? []), ...(open?.list ?? [])];
      messages.clear();
      replace(
        list,
        assignments.length === 0
          ? h('p', { class: 'empty' }, 'Nothing to count in this store right now.')
          : assignments.map((assignment) =>
              h(
                'a',
                {
                  class: 'card link-card',
                  href: ctx.href('countlist', { assignment: assignment.counting_assignment_id }),
                  'data-assignment': assignment.counting_assignment_id,
                },
                h('span', { class: 'card-title' }, assignmentName(assignment)),
                h(
                  'span',
                  { class: `badge assignment-${assignment.status}` },
                  ASSIGNMENT_STATUS[assignment.status] ?? assignment.status,
                ),
                h(
                  'span',
                  { class: 'card-meta' },
                  [
                    assignment.description,
                    kindText(assignment),
                    assignment.due_datetime ? `due ${day(assignment.due_datetime)}` : null,
                    assignment.status === 'counting'
                      ? `${assignment.progress.lines_counted} of ${assignment.progress.lines_total} lines counted`
                      : 'not started',
                  ]
                    .filter(Boolean)
                    .join(' · '),
                ),
              ),
            ),
      );
    } catch (failure) {
      messages.error(failure, { focus: ctx.moveFocus });
    }
  })();
  return { element };
}

const signedMoney = (value) => (value > 0 ? `+${money(value)}` : value < 0 ? `−${money(-value)}` : money(0));

const lineKey = (line) => `${line.product_number}|${line.location_code ?? ''}|${line.pool}`;

function counting(ctx, id) {
  const store = ctx.store.store_number;
  const document = `assignment:${id}`;
  const messages = messageArea();
  const scanMessages = messageArea();
  const heading = h('h1', { id: 'view-title', tabindex: '-1' }, `Count assignment ${id}`);
  const summary = h('p', { class: 'meta' });
  const blindNote = h(
    'p',
    { class: 'notice info', hidden: true },
    'Blind count: count what you see. The figures of the books are not shown until the count is submitted.',
  );
  const figures = h('dl', { class: 'figures assignment-progress' });
  const start = h('button', { type: 'button', class: 'primary big', hidden: true }, 'Start counting');

  const code = h('input', {
    name: 'code',
    type: 'text',
    maxlength: '64',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    enterkeyhint: 'next',
    'data-scan-target': true,
  });
  const found = h('p', { class: 'field-hint product-found', 'aria-live': 'polite' });
  const location = h('select', { name: 'location' }, h('option', { value: '' }, 'Scan a product first'));
  const counted = h('input', {
    name: 'counted',
    type: 'number',
    inputmode: 'decimal',
    step: 'any',
    min: '0',
    enterkeyhint: 'done',
  });
  const add = h('input', { type: 'checkbox', name: 'add', id: `add-${id}` });
  const form = h(
    'form',
    { class: 'floor-task', novalidate: true, hidden: true },
    field(
      'Barcode or product number',
      scanRow(
        code,
        cameraButton(code, () => code.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))),
      ),
      found,
    ),
    field('Location', location),
    field('Counted quantity', counted),
    h('div', { class: 'field checkbox' }, add, h('label', { for: add.id }, 'Add to this count (do not replace it)')),
    h('button', { type: 'submit', class: 'primary big', disabled: !ctx.canWrite }, 'Count'),
  );
  const listHeading = h('h2', {}, 'Lines in walking order');
  const table = h('div', { class: 'table-wrap' });
  const submit = h('button', { type: 'button', class: 'big', hidden: true, disabled: !ctx.canWrite }, 'Submit count');
  const element = h(
    'section',
    { class: 'view count-list', 'aria-labelledby': 'view-title', 'data-assignment': id },
    heading,
    summary,
    blindNote,
    ctx.canWrite ? null : h('p', { class: 'notice info' }, 'Your token may only read: nothing can be counted here.'),
    messages.element,
    figures,
    start,
    form,
    scanMessages.element,
    submit,
    listHeading,
    table,
  );

  const isFor = (action) => action.store === store && action.document === document;
  const load = documentState(ctx, {
    isFor,
    read: async () => {
      const assignment = await ctx.api.get(assignmentPath(ctx, id));
      const { lines } = assignment.status === 'open' ? { lines: [] } : await allLines(ctx, id);
      return { assignment, lines };
    },
  });
  let locations = [];
  let catalogue = { products: new Map(), codes: new Map(), complete: true };
  let catalogueFor = '';
  let current = { assignment: undefined, lines: [], submitting: false };
  let scanned = null;
  let lastTaken = '';
  let confirmUncounted = false;

  // Enter moves from the code to the location to the quantity (a scanner's Enter), and counts from the quantity.
  const order = [code, location, counted];
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    const index = order.indexOf(event.target);
    if (index < 0 || index === order.length - 1) return;
    event.preventDefault();
    if (event.target === code && !take()) {
      code.select();
      return;
    }
    order[index + 1].focus();
  });
  // Typed and left (not scanned): the same match, once per code.
  code.addEventListener('change', () => {
    if (code.value.trim() !== lastTaken) take();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void count();
  });

  // Only the latest read draws: one started before a count was queued would draw the line uncounted again.
  let reads = 0;
  async function refresh() {
    const turn = ++reads;
    try {
      const { document: read, waiting } = await load();
      if (turn !== reads) return;
      const { assignment, lines } = read;
      const numbers = [...new Set(lines.map((line) => line.product_number))].sort().join(',');
      if (numbers !== catalogueFor) {
        catalogue = await productsOf(
          ctx,
          lines.map((line) => line.product_number),
        );
        catalogueFor = numbers;
        if (turn !== reads) return;
      }
      current = { assignment, ...withWaiting(lines, waiting) };
      draw();
    } catch (failure) {
      if (turn === reads) messages.error(failure, { focus: ctx.moveFocus && !current.assignment });
    }
  }

  /** Blind for this view: expected and variance are shown only once the count is no longer blind. */
  const blind = () => current.assignment.blind && !['submitted', 'closed'].includes(current.assignment.status);

  function draw() {
    const { assignment, lines, submitting } = current;
    heading.textContent = `Count: ${assignmentName(assignment)}`;
    summary.textContent = [
      ASSIGNMENT_STATUS[assignment.status] ?? assignment.status,
      submitting ? 'submitted when sent' : null,
      assignment.description,
      kindText(assignment),
      assignment.due_datetime ? `due ${moment(assignment.due_datetime)}` : null,
    ]
      .filter(Boolean)
      .join(' · ');
    blindNote.hidden = !blind();
    const countingNow = assignment.status === 'counting' && !submitting;
    start.hidden = !(assignment.status === 'open' && ctx.canWrite);
    form.hidden = !countingNow;
    submit.hidden = !countingNow;
    if (assignment.status === 'open')
      messages.info(`Not started yet. Starting fixes the lines to count (${scopeText(assignment.scope)}).`);
    else if (!countingNow && !submitting) messages.info(doneText(assignment));
    else messages.clear();

    const countedLines = lines.filter((line) => line.shown !== null);
    const waitingLines = lines.filter((line) => line.waiting);
    const progress = assignment.progress;
    const shownFigures = [
      figure('Lines', quantity(assignment.status === 'open' ? progress.lines_total : lines.length)),
      figure(
        'Counted',
        quantity(countedLines.length),
        waitingLines.length > 0 ? `${waitingLines.length} waiting on this device` : null,
      ),
      figure('Remaining', quantity(lines.length - countedLines.length)),
    ];
    if (!blind() && typeof progress.variance_quantity === 'number') {
      shownFigures.push(figure('Variance', delta(progress.variance_quantity)));
      if (typeof progress.variance_value === 'number')
        shownFigures.push(figure('Variance value', signedMoney(progress.variance_value)));
    }
    replace(figures, shownFigures);

    listHeading.hidden = lines.length === 0;
    const walk = walkingOrder(lines, locations);
    const columns = [
      { label: 'Location', cell: (line) => line.location_code ?? 'No location' },
      {
        label: 'Product',
        cell: (line) => [
          line.product_number,
          catalogue.products.get(line.product_number)?.product_name
            ? h('span', { class: 'sub' }, catalogue.products.get(line.product_number).product_name)
            : null,
        ],
      },
      { label: 'Pool', cell: (line) => poolName(ctx.store, line.pool) },
    ];
    if (!blind()) columns.push({ label: 'Expected', numeric: true, cell: (line) => quantity(line.expected_quantity) });
    columns.push(
      {
        label: 'Counted',
        numeric: true,
        cell: (line) =>
          line.shown === null ? '–' : line.waiting ? `${quantity(line.shown)} (waiting)` : quantity(line.shown),
      },
      {
        label: 'Status',
        cell: (line) =>
          h(
            'span',
            { class: `badge line-${line.waiting ? 'counted' : line.status}` },
            line.waiting
              ? '✓ counted (waiting)'
              : line.shown !== null && line.status === 'counted'
                ? '✓ counted'
                : (LINE_STATUS[line.status] ?? line.status),
          ),
      },
    );
    replace(
      table,
      walk.length > LINES_SHOWN
        ? h('p', { class: 'meta' }, `The first ${LINES_SHOWN} of ${walk.length} lines in walking order.`)
        : null,
      dataTable({
        caption: 'The lines of this count in walking order, counted ones marked',
        empty: assignment.status === 'open' ? 'The lines are fixed when counting starts.' : 'This count has no lines.',
        columns,
        rows: walk.slice(0, LINES_SHOWN).map((line) => ({
          ...line,
          rowClass: line.shown === null ? 'to-count' : 'complete',
        })),
      }),
    );
    const uncounted = lines.length - countedLines.length;
    submit.textContent =
      confirmUncounted && uncounted > 0
        ? `Submit with ${uncounted} ${uncounted === 1 ? 'line' : 'lines'} not counted`
        : 'Submit count';
    if (scanned) fillLocations(scanned);
  }

  function doneText(assignment) {
    const p = assignment.progress;
    if (assignment.status === 'submitted')
      return `Submitted: ${p.lines_pending} ${p.lines_pending === 1 ? 'line waits' : 'lines wait'} for the back office's review.`;
    if (assignment.status === 'closed') return 'Closed: every line is booked.';
    if (assignment.status === 'cancelled') return 'Cancelled: nothing was booked.';
    return `This count is ${assignment.status}.`;
  }

  /** The code in the field matched to the lines of its product (on the device, no read). */
  function take() {
    const text = code.value.trim();
    scanned = null;
    lastTaken = text;
    code.removeAttribute('aria-invalid');
    if (text === '') {
      found.textContent = '';
      fillLocations(null);
      return null;
    }
    const named = catalogue.codes.get(text.toUpperCase());
    const lines = named ? current.lines.filter((line) => line.product_number === named.productNumber) : [];
    if (lines.length === 0 && !current.assignment?.allow_extra_lines) {
      found.textContent = catalogue.complete
        ? `${text} is not on this count list.`
        : `${text} is not known on this device: scan the product number instead.`;
      scanFeedback(code, false);
      fillLocations(null);
      return null;
    }
    const productNumber = named?.productNumber ?? text;
    scanned = {
      text,
      productNumber,
      // A code the device does not know (an extra line) goes as a barcode when it looks like one.
      byNumber: named ? text.toUpperCase() === productNumber.toUpperCase() : !/^[0-9]{8,14}$/.test(text),
      unit: named?.unit ?? 1,
      lines,
    };
    const name = catalogue.products.get(productNumber)?.product_name;
    found.textContent = [
      `Product ${productNumber}${name ? ` ${name}` : ''}`,
      scanned.unit !== 1 ? `one scan counts ${quantity(scanned.unit)}` : null,
      lines.length === 0
        ? 'not on the list: counted as an extra line'
        : `${lines.length} ${lines.length === 1 ? 'line' : 'lines'} to count`,
    ]
      .filter(Boolean)
      .join(' · ');
    scanFeedback(code, true);
    fillLocations(scanned);
    return scanned;
  }

  /** The scanned product's lines, in walking order, the first not yet counted chosen; others only where extra lines are allowed. */
  function fillLocations(product) {
    const chosenBefore = location.value;
    if (!product) {
      location.replaceChildren(h('option', { value: '' }, 'Scan a product first'));
      return;
    }
    const fresh = current.lines.filter((line) => line.product_number === product.productNumber);
    const walk = walkingOrder(fresh, locations);
    const pools = new Set(walk.map((line) => line.pool)).size > 1;
    const options = walk.map((line) =>
      h(
        'option',
        { value: `line:${lineKey(line)}` },
        `${line.location_code ?? 'No location'}${pools ? ` · ${poolName(ctx.store, line.pool)}` : ''}${line.shown !== null ? ` (counted ${quantity(line.shown)})` : ''}`,
      ),
    );
    const others = current.assignment?.allow_extra_lines
      ? h(
          'optgroup',
          { label: 'Another location (an extra line)' },
          locations.map((place) => h('option', { value: `extra:${place.code}` }, place.code)),
        )
      : null;
    location.replaceChildren(...options, others ?? []);
    const firstToCount = walk.find((line) => line.shown === null) ?? walk[0];
    const keep = [...location.options].some((option) => option.value === chosenBefore);
    location.value = keep ? chosenBefore : firstToCount ? `line:${lineKey(firstToCount)}` : location.options[0]?.value;
  }

  async function count() {
    scanMessages.clear();
    const product = scanned && scanned.text === code.value.trim() ? scanned : take();
    if (!product) return problem(code.value.trim() ? found.textContent : 'Scan or type a product first.', code);
    const text = counted.value.trim().replace(',', '.');
    const value = Number(text);
    if (text === '' || !Number.isFinite(value) || value < 0)
      return problem('Type the counted quantity (0 or more).', counted);
    const typed = round(value);
    const chosen = location.value;
    const line = chosen.startsWith('line:')
      ? current.lines.find((one) => `line:${lineKey(one)}` === chosen)
      : undefined;
    const where = line ? line.location_code : chosen.startsWith('extra:') ? chosen.slice(6) : null;
    const mode = add.checked ? 'add' : 'replace';
    const items = round(typed * product.unit);
    const countedAt = scannedNow();
    const entry = {
      ...(product.byNumber ? { product_number: product.productNumber } : { barcode: product.text }),
      location_code: where ?? null,
      ...(line ? { pool: line.pool } : {}),
      counted_quantity: typed,
      counted_at: countedAt,
      app_user_name: ctx.me.name,
      mode,
    };
    const place = where ?? 'no location';
    const before = line?.shown ?? null;
    const after = mode === 'add' && before !== null ? round(before + items) : items;
    // Shown as counted at once: the next scan, a moment later, suggests the next line to count.
    if (line) Object.assign(line, { shown: after, waiting: true });
    const label = `count ${product.productNumber} at ${place} on assignment ${id}: ${mode === 'add' ? `+${quantity(items)}` : quantity(items)}`;
    // Cleared before the action is kept, so the next scan can start at once and is never wiped.
    code.value = '';
    counted.value = '';
    add.checked = false;
    found.textContent = '';
    scanned = null;
    fillLocations(null);
    code.focus();
    try {
      await ctx.outbox.add({
        store,
        kind: 'assignment-count',
        document,
        label,
        method: 'POST',
        route: assignmentPath(ctx, id, '/counts'),
        body: { counts: [entry] },
        scannedAt: countedAt,
        by: ctx.me.name,
        line: line ? lineKey(line) : undefined,
        items,
        mode,
      });
    } catch (error) {
      return problem(`The count could not be kept on this device (${error.message}): nothing was queued. Count again.`);
    }
    scanFeedback(code, true);
    scanMessages.success(
      `${mode === 'add' ? 'Added' : before !== null ? 'Recounted' : 'Counted'} ${product.productNumber} at ${place}: ${quantity(after)}${mode === 'add' && before !== null ? ` (${quantity(before)} + ${quantity(items)})` : ''}. ${navigator.onLine ? 'Sending…' : 'Sent when the network is back.'}`,
    );
    confirmUncounted = false;
    await refresh();
  }

  function problem(text, input) {
    if (input) scanFeedback(input, false);
    scanMessages.error(text);
    input?.focus();
  }

  start.addEventListener('click', async () => {
    // Starting fixes the lines with the levels expected now: it needs the service, it is not queued.
    start.disabled = true;
    messages.loading('Starting: fixing the lines to count…');
    try {
      await ctx.api.post(assignmentPath(ctx, id, '/start'));
      messages.clear();
      await refresh();
      if (!form.hidden) code.focus();
    } catch (failure) {
      messages.error(failure, { focus: true });
    } finally {
      start.disabled = false;
    }
  });

  submit.addEventListener('click', async () => {
    const uncounted = current.lines.filter((line) => line.shown === null).length;
    if (uncounted > 0 && !confirmUncounted) {
      confirmUncounted = true;
      draw();
      scanMessages.error(
        `${uncounted} ${uncounted === 1 ? 'line is' : 'lines are'} not counted. ${
          current.assignment.kind === 'full'
            ? 'This is a full count: submitting counts them as zero.'
            : 'This is a spot count: they stay as they are.'
        } Press the button again to submit anyway.`,
      );
      submit.focus();
      return;
    }
    try {
      await ctx.outbox.add({
        store,
        kind: 'assignment-submit',
        document,
        label: `submit counting assignment ${id}`,
        method: 'POST',
        route: assignmentPath(ctx, id, '/submit'),
        scannedAt: scannedNow(),
        by: ctx.me.name,
      });
    } catch (error) {
      return problem(`Submitting could not be kept on this device (${error.message}). Press Submit again.`);
    }
    confirmUncounted = false;
    scanMessages.success(
      `Count submitted ${navigator.onLine ? 'now' : 'when the network is back'}; the counts are booked at the moments they were scanned.`,
    );
    await refresh();
  });

  const unsubscribe = ctx.outbox.subscribe(() => {
    if (!element.isConnected) return unsubscribe();
    void refresh();
  });
  void (async () => {
    messages.loading('Loading the count…');
    locations = await locationsInOrder(ctx).catch(() => []);
    await refresh();
    if (ctx.moveFocus && current.assignment && !form.hidden) code.focus();
  })();
  return { element, focus: heading };
}

/** Each line with the counts this device still holds for it: a recount replaces, an add adds, in the order they were made. */
function withWaiting(lines, waiting) {
  const shown = lines.map((line) => ({ ...line, shown: line.counted_quantity ?? null, waiting: false }));
  const byKey = new Map(shown.map((line) => [lineKey(line), line]));
  for (const action of waiting) {
    if (action.kind !== 'assignment-count' || !action.line) continue;
    const line = byKey.get(action.line);
    if (!line) continue;
    line.shown = action.mode === 'add' && line.shown !== null ? round(line.shown + action.items) : action.items;
    line.waiting = true;
  }
  return { lines: shown, submitting: waiting.some((action) => action.kind === 'assignment-submit') };
}
