// The webhook subscriptions (PRODUCT §9) and how their deliveries are going: what each one
// still has to send, when it last got through, its last error and since when it fails. A
// paused one (24 h of failures) can be resumed here, a failing one retried now. The API shows them to admin and
// integration tokens only; they are the chain's, so the store picker does not filter them.

import { path } from '../api.js';
import { dataTable, h, messageArea, resultHeading } from '../dom.js';
import { momentToSecond, quantity, time } from '../format.js';

export const title = 'Webhooks';

/** Roles the API shows and resumes subscriptions for. */
const MANAGERS = new Set(['admin', 'integration']);
/** The API counts pending events up to this many (src/modules/webhooks/schema.ts PENDING_COUNT_CAP). */
const PENDING_COUNT_CAP = 10_000;

export function render(ctx) {
  const messages = messageArea();
  const results = h('div', { class: 'results', 'aria-busy': 'false' });
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, 'Webhook subscriptions'),
    h(
      'p',
      { class: 'intro' },
      'Where the service pushes the change feed, and how each delivery is going. Subscriptions are the whole chain’s: the store picker does not filter them.',
    ),
    h(
      'div',
      { class: 'filters' },
      h(
        'button',
        { type: 'button', id: 'webhooks-refresh', onclick: () => load(ctx, messages, results, { moveFocus: true }) },
        'Refresh',
      ),
    ),
    messages.element,
    results,
  );
  // Not awaited: the view is returned now; load() shows its own failures in `messages`.
  void load(ctx, messages, results, { moveFocus: ctx.moveFocus });
  return { element: view };
}

async function load(ctx, messages, results, { moveFocus = false, keepMessage = false } = {}) {
  if (!keepMessage) messages.loading('Loading webhook subscriptions…');
  results.setAttribute('aria-busy', 'true');
  try {
    const answer = await ctx.api.get('/webhooks');
    if (!keepMessage) messages.clear();
    const heading = resultHeading(2, headline(answer.webhooks));
    results.replaceChildren(
      heading,
      h('p', { class: 'meta' }, `As of ${time(new Date())}.`),
      subscriptionTable(ctx, answer.webhooks, messages, results),
    );
    if (moveFocus) heading.focus();
  } catch (failure) {
    results.replaceChildren();
    if (failure.kind === 'forbidden') {
      // Not an error of the page: this token's role does not see subscriptions.
      messages.clear();
      results.replaceChildren(
        h(
          'div',
          { class: 'notice info', 'data-notice': 'role' },
          h(
            'p',
            {},
            `Webhook subscriptions need an admin or integration token. Your token (${ctx.me.name}) has the ${ctx.me.role} role.`,
          ),
          h('p', { class: 'meta' }, failure.sentence),
        ),
      );
    } else {
      messages.error(failure, { focus: moveFocus });
    }
  } finally {
    results.setAttribute('aria-busy', 'false');
  }
}

/** "3 subscriptions: 2 active, 1 paused; 1 failing". */
function headline(webhooks) {
  if (webhooks.length === 0) return 'No webhook subscriptions';
  const paused = webhooks.filter((webhook) => webhook.status === 'paused').length;
  const failing = webhooks.filter((webhook) => webhook.status === 'active' && webhook.failing_since).length;
  const counted = `${webhooks.length} ${webhooks.length === 1 ? 'subscription' : 'subscriptions'}: ${webhooks.length - paused} active, ${paused} paused`;
  return failing > 0 ? `${counted}; ${failing} failing` : counted;
}

const pending = (count) => (count >= PENDING_COUNT_CAP ? `${quantity(PENDING_COUNT_CAP)} or more` : quantity(count));

function subscriptionTable(ctx, webhooks, messages, results) {
  return dataTable({
    caption: 'Webhook subscriptions and the health of their deliveries',
    empty:
      'Nothing subscribes to the change feed. Admin and integration tokens create subscriptions through the API (POST /webhooks).',
    columns: [
      {
        label: 'Subscription',
        cell: (webhook) => [
          h('span', { class: 'url' }, webhook.url),
          h(
            'span',
            { class: 'sub' },
            `#${webhook.id} · by ${webhook.created_by} · ${momentToSecond(webhook.created_at)}`,
          ),
        ],
      },
      {
        label: 'Delivers',
        cell: (webhook) => [
          webhook.types ? webhook.types.join(', ') : 'Every type',
          h(
            'span',
            { class: 'sub' },
            webhook.stores
              ? `${webhook.stores.length === 1 ? 'store' : 'stores'} ${webhook.stores.join(', ')}`
              : 'every store',
          ),
        ],
      },
      { label: 'Status', cell: (webhook) => status(webhook) },
      {
        label: 'Pending',
        numeric: true,
        cell: (webhook) => [
          pending(webhook.pending_events),
          h('span', { class: 'sub' }, `after sequence ${webhook.after_sequence}`),
        ],
      },
      {
        label: 'Last delivered',
        cell: (webhook) => [
          webhook.last_delivered_at ? momentToSecond(webhook.last_delivered_at) : 'Never',
          h(
            'span',
            { class: 'sub' },
            `${quantity(webhook.delivered_events)} ${webhook.delivered_events === 1 ? 'event' : 'events'} delivered`,
          ),
        ],
      },
      {
        label: 'Last error',
        cell: (webhook) =>
          webhook.last_error
            ? [
                h('span', { class: 'error-text' }, webhook.last_error),
                h('span', { class: 'sub' }, `at ${momentToSecond(webhook.last_error_at)}`),
              ]
            : '–',
      },
      {
        label: 'Action',
        cell: (webhook) =>
          webhook.status === 'paused' || webhook.failing_since ? resumeButton(ctx, webhook, messages, results) : '–',
      },
    ],
    rows: webhooks.map((webhook) => ({ ...webhook, rowClass: `webhook-row webhook-${webhook.status}` })),
  });
}

/** The badge, and how long it has been failing and when it tries again. */
function status(webhook) {
  const failing = webhook.status === 'active' && webhook.failing_since;
  const waiting = webhook.status === 'active' && webhook.pending_events > 0 && webhook.next_attempt_at;
  return [
    h('span', { class: `badge webhook-status-${webhook.status}` }, webhook.status === 'paused' ? 'Paused' : 'Active'),
    failing ? [' ', h('span', { class: 'badge webhook-failing' }, 'Failing')] : null,
    webhook.failing_since
      ? h('span', { class: 'sub' }, `failing since ${momentToSecond(webhook.failing_since)}`)
      : null,
    waiting ? h('span', { class: 'sub' }, `next attempt ${momentToSecond(webhook.next_attempt_at)}`) : null,
  ];
}

/** Resume a paused subscription, or retry a failing one now: the API's resume does both. */
function resumeButton(ctx, webhook, messages, results) {
  const allowed = MANAGERS.has(ctx.me.role);
  const paused = webhook.status === 'paused';
  return h(
    'button',
    {
      type: 'button',
      class: 'primary',
      'data-action': 'resume',
      'aria-label': paused ? `Resume subscription ${webhook.id}` : `Retry subscription ${webhook.id} now`,
      disabled: !allowed,
      title: allowed ? null : 'Resuming needs an admin or integration token',
      async onclick(event) {
        const button = event.currentTarget;
        button.disabled = true;
        messages.loading(`${paused ? 'Resuming' : 'Retrying'} subscription ${webhook.id}…`);
        try {
          await ctx.api.post(path('/webhooks/', webhook.id, '/resume'), {});
          messages.success(
            `Subscription ${webhook.id} ${paused ? 'resumed' : 'retried'}: its batch goes to ${webhook.url} again now.`,
            { focus: true },
          );
          await load(ctx, messages, results, { keepMessage: true });
        } catch (failure) {
          messages.error(failure, { focus: true });
          button.disabled = !allowed;
        }
      },
    },
    paused ? 'Resume' : 'Retry now',
  );
}
