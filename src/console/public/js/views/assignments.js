// The back office's counting assignments (issue 44, PRODUCT §10, docs/counting.md): the
// store's assignments by status with their progress and variance (in quantity and by value,
// where the token may see it), a new assignment, Start and Cancel, and the lines of a submitted
// assignment that wait for review, approved or rejected through the stock log review endpoint.
// These are back-office decisions: they need the network and are never queued (like Clients).

import { path } from '../api.js';
import { dataTable, figure, h, messageArea, replace } from '../dom.js';
import { delta, moment, money, poolName, quantity } from '../format.js';
import { pagedList } from '../paged-list.js';
import {
  ASSIGNMENT_STATUS,
  allLines,
  assignmentName,
  assignmentPath,
  assignmentsPath,
  kindText,
  scopeText,
} from '../assignment-data.js';
import { loadReasonCodes } from './floor-form.js';

export const title = 'Assignments';

const STATUSES = Object.keys(ASSIGNMENT_STATUS);
const SCOPES = {
  product_numbers: 'Product numbers',
  category_codes: 'Category codes',
  location_codes: 'Location codes',
  counting_assignment_code: 'Store products with a counting code (ERP)',
  whole_store: 'The whole store',
};
const signedMoney = (value) => (value > 0 ? `+${money(value)}` : value < 0 ? `−${money(-value)}` : money(0));
const listOf = (text) =>
  text
    .split(/[\s,;]+/)
    .map((one) => one.trim())
    .filter((one) => one !== '');

export function render(ctx, params) {
  const chosen = STATUSES.includes(params.get('status')) ? params.get('status') : 'open';
  const messages = messageArea();
  // What creating said: apart from the list's messages, which its loading replaces.
  const createMessages = messageArea();
  const tabs = h(
    'div',
    { class: 'status-tabs', role: 'group', 'aria-label': 'Assignment status' },
    STATUSES.map((status) =>
      h(
        'button',
        {
          type: 'button',
          class: 'tab',
          'aria-pressed': String(status === chosen),
          'data-status': status,
          onclick: () => ctx.navigate('assignments', { status }),
        },
        ASSIGNMENT_STATUS[status],
        h('span', { class: 'count', 'data-count-for': status }, ''),
      ),
    ),
  );
  const list = pagedList({
    messages,
    moveFocus: ctx.moveFocus && !params.get('created'),
    fetchPage: (page) => ctx.api.get(assignmentsPath(ctx), { status: chosen, page_start: page, page_size: 50 }),
    summary: (page) =>
      `${page.total_count} ${ASSIGNMENT_STATUS[chosen].toLowerCase()} ${page.total_count === 1 ? 'assignment' : 'assignments'}`,
    renderItems: (assignments) =>
      assignments.length === 0
        ? h('p', { class: 'empty' }, 'No assignments with this status.')
        : h(
            'div',
            { class: 'cards' },
            assignments.map((assignment) => assignmentCard(ctx, assignment, messages)),
          ),
  });
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, `Counting assignments of ${ctx.storeLabel}`),
    h(
      'p',
      { class: 'intro' },
      'What the store is asked to count, how far it is, and the counts beyond the variance limit that wait for a decision. These actions need the network: nothing here is queued.',
    ),
    createForm(ctx, createMessages),
    createMessages.element,
    tabs,
    messages.element,
    list.element,
  );
  if (params.get('created'))
    createMessages.success(`Assignment ${params.get('created')} created. Start it when the store may count.`);
  // Not awaited: the list shows its own failures in `messages`; a missing count is only a missing hint.
  void list.start();
  void countPerStatus(ctx, tabs);
  return { element: view };
}

async function countPerStatus(ctx, tabs) {
  await Promise.all(
    STATUSES.map(async (status) => {
      try {
        const page = await ctx.api.get(assignmentsPath(ctx), { status, page_size: 1 });
        tabs.querySelector(`[data-count-for="${status}"]`).textContent = ` ${page.total_count}`;
      } catch {
        // The list itself shows any failure in words.
      }
    }),
  );
}

// ---- a new assignment ---------------------------------------------------------------------

function createForm(ctx, messages) {
  let counter = 0;
  const id = (name) => `assignment-${name}-${++counter}`;
  const input = (name, props = {}) => h('input', { id: id(name), name, autocomplete: 'off', ...props });
  const number = (name) => input(name, { type: 'number', inputmode: 'decimal', step: 'any', min: '0' });
  const field = (label, control, hint) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: control.id }, label),
      control,
      hint ? h('span', { class: 'meta' }, hint) : null,
    );
  const check = (control, label) =>
    h('div', { class: 'field checkbox' }, control, h('label', { for: control.id }, label));

  const code = input('code', { maxlength: '64' });
  const description = input('description', { maxlength: '500' });
  const scopeKind = h(
    'select',
    { id: id('scope'), name: 'scope' },
    Object.entries(SCOPES).map(([value, label]) => h('option', { value }, label)),
  );
  const scopeValues = input('values', { placeholder: '100200, 100300' });
  const onlyAt = input('only-at', { placeholder: 'A-01, A-02' });
  const blind = input('blind', { type: 'checkbox' });
  const kind = h(
    'select',
    { id: id('kind'), name: 'kind' },
    h('option', { value: 'spot' }, 'Spot: uncounted lines stay as they are'),
    h('option', { value: 'full' }, 'Full: uncounted lines become zero'),
  );
  const zeroReason = h('select', { id: id('zero-reason'), name: 'zero_reason_code' }, h('option', { value: '' }, '–'));
  const maxQuantity = number('max_variance_quantity');
  const maxValue = number('max_variance_value');
  const maxPercent = number('max_variance_percent');
  const due = input('due', { type: 'datetime-local' });
  const extra = input('extra', { type: 'checkbox' });
  const valuesField = field('Which', scopeValues, 'separated by commas or spaces');
  const onlyAtField = field('Only at locations', onlyAt, 'optional');
  const zeroField = field('Reason code for the zeroed lines', zeroReason);

  const showFields = () => {
    valuesField.hidden = scopeKind.value === 'whole_store';
    onlyAtField.hidden = scopeKind.value === 'whole_store' || scopeKind.value === 'location_codes';
    zeroField.hidden = kind.value !== 'full';
    zeroReason.required = kind.value === 'full';
  };
  scopeKind.addEventListener('change', showFields);
  kind.addEventListener('change', showFields);
  showFields();

  const createButton = h('button', { type: 'submit', class: 'primary', disabled: !ctx.canWrite }, 'Create assignment');
  const form = h(
    'form',
    {
      class: 'assignment-form',
      'aria-label': 'A new counting assignment',
      novalidate: true,
      async onsubmit(event) {
        event.preventDefault();
        const scope = {};
        if (scopeKind.value === 'whole_store') scope.whole_store = true;
        else {
          const values = listOf(scopeValues.value);
          if (values.length === 0) {
            messages.error('Name what to count (product numbers, categories, locations or a counting code).', {
              focus: true,
            });
            scopeValues.focus();
            return;
          }
          if (scopeKind.value === 'counting_assignment_code') scope.counting_assignment_code = values[0];
          else scope[scopeKind.value] = values;
          const at = listOf(onlyAt.value);
          if (at.length > 0 && scopeKind.value !== 'location_codes') scope.location_codes = at;
        }
        const body = { scope, blind: blind.checked, kind: kind.value, allow_extra_lines: extra.checked };
        if (code.value.trim()) body.counting_assignment_code = code.value.trim();
        if (description.value.trim()) body.description = description.value.trim();
        if (kind.value === 'full' && zeroReason.value) body.zero_reason_code = Number(zeroReason.value);
        for (const [name, control] of [
          ['max_variance_quantity', maxQuantity],
          ['max_variance_value', maxValue],
          ['max_variance_percent', maxPercent],
        ]) {
          const text = control.value.trim().replace(',', '.');
          if (text !== '') body[name] = Number(text);
        }
        if (due.value) body.due_datetime = new Date(due.value).toISOString();
        createButton.disabled = true;
        messages.loading('Creating the assignment…');
        try {
          const created = await ctx.api.post(assignmentsPath(ctx), body);
          ctx.navigate('assignments', { status: 'open', created: created.counting_assignment_id });
        } catch (failure) {
          messages.error(failure, { focus: true });
        } finally {
          createButton.disabled = !ctx.canWrite;
        }
      },
    },
    h(
      'div',
      { class: 'form-grid' },
      field('Code (optional)', code, "the ERP's key"),
      field('Description', description),
      field('Count', scopeKind),
      valuesField,
      onlyAtField,
      field('Kind', kind),
      zeroField,
      field('Variance limit: quantity', maxQuantity),
      field('Variance limit: value', maxValue, 'at purchase price'),
      field('Variance limit: percent', maxPercent),
      field('Due', due),
      check(blind, 'Blind: the store does not see what the books expect'),
      check(extra, 'Allow counts of products not on the list (extra lines)'),
    ),
    ctx.canWrite ? null : h('p', { class: 'notice info' }, 'Your token may only read: it cannot create assignments.'),
    createButton,
  );
  // The count reason codes (type 6) for a full count's zeroed lines.
  void loadReasonCodes(ctx, [6])
    .then((codes) =>
      zeroReason.replaceChildren(
        h('option', { value: '' }, codes.length === 0 ? 'No count reason code (type 6) exists' : 'Choose one'),
        ...codes.map((one) => h('option', { value: String(one.code) }, `${one.code} ${one.description ?? ''}`.trim())),
      ),
    )
    .catch(() => undefined);
  return h(
    'details',
    { class: 'card create-assignment' },
    h('summary', {}, h('span', { class: 'card-title' }, 'New assignment')),
    form,
  );
}

// ---- one assignment -----------------------------------------------------------------------

function assignmentCard(ctx, assignment, messages) {
  const card = h('details', {
    class: 'card assignment-card',
    'data-assignment': assignment.counting_assignment_id,
    open: assignment.status === 'submitted' ? true : null,
  });
  const pending = h('div', { class: 'pending-lines' });
  const draw = (shown) => {
    const p = shown.progress;
    const hasVariance = typeof p.variance_quantity === 'number';
    replace(
      card,
      h(
        'summary',
        {},
        h('span', { class: 'card-title' }, assignmentName(shown)),
        h('span', { class: `badge assignment-${shown.status}` }, ASSIGNMENT_STATUS[shown.status] ?? shown.status),
        h(
          'span',
          { class: 'card-meta' },
          [
            shown.description,
            kindText(shown),
            shown.status === 'open'
              ? 'not started'
              : `counted ${p.lines_counted} of ${p.lines_total}${p.lines_pending ? `, ${p.lines_pending} pending review` : ''}`,
            hasVariance && shown.status !== 'open' ? `variance ${delta(p.variance_quantity)}` : null,
            typeof p.variance_value === 'number' && shown.status !== 'open'
              ? `by value ${signedMoney(p.variance_value)}`
              : null,
          ]
            .filter(Boolean)
            .join(' · '),
        ),
      ),
      h(
        'dl',
        { class: 'figures' },
        figure('Lines', quantity(p.lines_total)),
        figure('Counted', quantity(p.lines_counted)),
        figure('Remaining', quantity(p.lines_remaining)),
        figure('Pending review', quantity(p.lines_pending)),
        figure('Variance', hasVariance ? delta(p.variance_quantity) : 'not shown'),
        figure('Variance value', typeof p.variance_value === 'number' ? signedMoney(p.variance_value) : 'not shown'),
      ),
      hasVariance
        ? null
        : h('p', { class: 'meta' }, 'Blind: your token sees the variance once the count is submitted.'),
      h(
        'p',
        { class: 'meta' },
        [
          `Counts ${scopeText(shown.scope)}`,
          limitsText(shown),
          shown.zero_reason_code !== null ? `zeroed lines with reason code ${shown.zero_reason_code}` : null,
          shown.due_datetime ? `due ${moment(shown.due_datetime)}` : null,
          shown.started_datetime ? `started ${moment(shown.started_datetime)}` : null,
          shown.submitted_datetime ? `submitted ${moment(shown.submitted_datetime)}` : null,
          shown.closed_datetime ? `closed ${moment(shown.closed_datetime)}` : null,
          shown.cancelled_datetime ? `cancelled ${moment(shown.cancelled_datetime)}` : null,
          `created by ${shown.created_by}`,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
      actions(ctx, shown, messages, reload),
      pending,
    );
    if (shown.status === 'submitted') void loadPending(ctx, shown, pending, messages, reload);
    else replace(pending);
  };
  async function reload() {
    const fresh = await ctx.api.get(assignmentPath(ctx, assignment.counting_assignment_id));
    card.open = true;
    draw(fresh);
    return fresh;
  }
  draw(assignment);
  return card;
}

function limitsText(assignment) {
  const limits = [
    assignment.max_variance_quantity !== null ? `${quantity(assignment.max_variance_quantity)} items` : null,
    assignment.max_variance_value !== null ? `${money(assignment.max_variance_value)} in value` : null,
    assignment.max_variance_percent !== null ? `${quantity(assignment.max_variance_percent)} %` : null,
  ].filter(Boolean);
  return limits.length > 0 ? `review beyond ${limits.join(' or ')}` : 'no variance limit';
}

function actions(ctx, assignment, messages, reload) {
  const id = assignment.counting_assignment_id;
  const name = assignmentName(assignment);
  const why = ctx.canWrite ? null : 'Your token has the read role';
  const step = (label, verb, done, { confirm, danger = false } = {}) =>
    h(
      'button',
      {
        type: 'button',
        class: danger ? 'danger' : 'primary',
        'data-action': verb,
        disabled: !ctx.canWrite,
        title: why,
        'aria-label': `${label} ${name}`,
        async onclick(event) {
          if (confirm && !window.confirm(confirm)) return;
          const button = event.currentTarget;
          button.disabled = true;
          messages.loading(`${label}: ${name}…`);
          try {
            await ctx.api.post(assignmentPath(ctx, id, `/${verb}`));
            const fresh = await reload();
            messages.success(done(fresh), { focus: true });
          } catch (failure) {
            messages.error(failure, { focus: true });
            button.disabled = !ctx.canWrite;
          }
        },
      },
      label,
    );
  const buttons = [];
  if (assignment.status === 'open')
    buttons.push(step('Start', 'start', (fresh) => `${name} started: ${fresh.progress.lines_total} lines to count.`));
  if (assignment.status === 'counting')
    buttons.push(h('a', { class: 'button', href: ctx.href('countlist', { assignment: id }) }, 'Count on this device'));
  if (assignment.status === 'open' || assignment.status === 'counting')
    buttons.push(
      step('Cancel', 'cancel', () => `${name} cancelled: nothing was booked.`, {
        danger: true,
        confirm: `Cancel ${name}? Nothing it counted is booked, and it cannot be started again.`,
      }),
    );
  return buttons.length > 0 ? h('p', { class: 'decision' }, buttons) : null;
}

/** The lines of a submitted assignment booked pending review, each approved or rejected through the review endpoint. */
async function loadPending(ctx, assignment, area, messages, reload) {
  replace(area, h('p', { class: 'meta' }, 'Loading the lines that wait for review…'));
  try {
    const { lines } = await allLines(ctx, assignment.counting_assignment_id, 'pending');
    replace(
      area,
      h('h3', {}, `${lines.length} ${lines.length === 1 ? 'line waits' : 'lines wait'} for review`),
      dataTable({
        caption: `Lines of ${assignmentName(assignment)} waiting for review`,
        empty: 'Nothing waits for review.',
        columns: [
          {
            label: 'Product',
            cell: (line) => [
              line.product_number,
              line.log_entry_id === null ? null : h('span', { class: 'sub' }, `entry ${line.log_entry_id}`),
            ],
          },
          {
            label: 'Where',
            cell: (line) => [
              line.location_code ?? 'No location',
              h('span', { class: 'sub' }, poolName(ctx.store, line.pool)),
            ],
          },
          { label: 'Expected', numeric: true, cell: (line) => quantity(line.expected_quantity) },
          { label: 'Counted', numeric: true, cell: (line) => quantity(line.counted_quantity) },
          {
            label: 'Variance',
            numeric: true,
            cell: (line) => (typeof line.variance_quantity === 'number' ? delta(line.variance_quantity) : '–'),
          },
          {
            label: 'When',
            cell: (line) => [
              moment(line.counted_at),
              line.app_user_name ? h('span', { class: 'sub' }, `by ${line.app_user_name}`) : null,
            ],
          },
          { label: 'Decision', cell: (line) => decision(ctx, line, messages, reload) },
        ],
        rows: lines.map((line) => ({ ...line, rowClass: 'review-row' })),
      }),
    );
  } catch (failure) {
    replace(area);
    messages.error(failure);
  }
}

function decision(ctx, line, messages, reload) {
  if (line.log_entry_id === null) return '–';
  const entry = line.log_entry_id;
  const decide = (approve) => async (event) => {
    const buttons = event.currentTarget.parentElement.querySelectorAll('button');
    for (const button of buttons) button.disabled = true;
    messages.loading(`${approve ? 'Approving' : 'Rejecting'} the count of ${line.product_number}…`);
    try {
      await ctx.api.post(path('/stores/', ctx.store.store_number, '/products/stock/storeproductlogs/review'), {
        ids: [entry],
        approve,
      });
      const fresh = await reload();
      messages.success(
        `${approve ? 'Approved' : 'Rejected'}: the count of ${line.product_number} at ${line.location_code ?? 'no location'} (entry ${entry})${approve ? ' is booked at its own moment' : ' never changes stock'}.${fresh.status === 'closed' ? ` ${assignmentName(fresh)} is closed: every line is booked or decided.` : ''}`,
        { focus: true },
      );
    } catch (failure) {
      messages.error(failure, { focus: true });
      for (const button of buttons) button.disabled = !ctx.canWrite;
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
        'data-entry': entry,
        disabled: !ctx.canWrite,
        title: why,
        onclick: decide(true),
        'aria-label': `Approve the count of ${line.product_number} (entry ${entry})`,
      },
      'Approve',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'data-action': 'reject',
        'data-entry': entry,
        disabled: !ctx.canWrite,
        title: why,
        onclick: decide(false),
        'aria-label': `Reject the count of ${line.product_number} (entry ${entry})`,
      },
      'Reject',
    ),
  );
}
