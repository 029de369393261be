// The OAuth2 clients (issue 41, docs/security.md): who may fetch access tokens at
// POST /oauth2/token, registering one (its secret shown once, here), a new secret (the old one
// works 24 h more) and revoking one (its tokens refused within a second everywhere). The API
// manages clients for admin tokens only; they are the chain's, so the store picker does not
// filter them.

import { path } from '../api.js';
import { dataTable, h, messageArea, resultHeading } from '../dom.js';
import { momentToSecond, time } from '../format.js';

export const title = 'Clients';

const ROLES = ['integration', 'read', 'store', 'admin'];

export function render(ctx) {
  const messages = messageArea();
  const secret = h('div', { class: 'secret-area', 'aria-live': 'polite' });
  const results = h('div', { class: 'results', 'aria-busy': 'false' });
  const admin = ctx.me.role === 'admin';
  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h('h1', { id: 'view-title', tabindex: '-1' }, 'API clients'),
    h(
      'p',
      { class: 'intro' },
      'Integrations such as tap-colleqtive log in with OAuth2 client credentials: they send their client_id and secret to /oauth2/token and get short-lived access tokens. Clients are the whole chain’s: the store picker does not filter them.',
    ),
    admin ? createForm(ctx, messages, secret, results) : null,
    messages.element,
    secret,
    results,
  );
  // Not awaited: the view is returned now; load() shows its own failures in `messages`.
  if (admin) void load(ctx, messages, results, { moveFocus: ctx.moveFocus });
  else {
    results.replaceChildren(
      h(
        'div',
        { class: 'notice info', 'data-notice': 'role' },
        h(
          'p',
          {},
          `API clients are managed with an admin token. Your token (${ctx.me.name}) has the ${ctx.me.role} role.`,
        ),
      ),
    );
  }
  return { element: view };
}

function createForm(ctx, messages, secret, results) {
  const name = h('input', { id: 'client-name', name: 'name', required: true, maxlength: 100, autocomplete: 'off' });
  const role = h(
    'select',
    { id: 'client-role', name: 'role' },
    ROLES.map((r) => h('option', { value: r }, r)),
  );
  const stores = h('input', {
    id: 'client-stores',
    name: 'stores',
    autocomplete: 'off',
    placeholder: 'S1, S2',
    'aria-describedby': 'client-stores-hint',
  });
  const scope = h('input', {
    id: 'client-scope',
    name: 'scope',
    autocomplete: 'off',
    placeholder: 'e.g. read',
    'aria-describedby': 'client-scope-hint',
  });
  const field = (label, input, hint, hintId) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: input.id }, label),
      input,
      hint ? h('span', { class: 'meta', id: hintId }, hint) : null,
    );
  return h(
    'form',
    {
      class: 'filters client-form',
      'aria-label': 'Register a client',
      async onsubmit(event) {
        event.preventDefault();
        const body = { name: name.value.trim(), role: role.value };
        const storeList = stores.value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
        if (storeList.length > 0) body.stores = storeList;
        if (scope.value.trim() !== '') body.scope = scope.value.trim();
        messages.loading(`Registering ${body.name}…`);
        try {
          const created = await ctx.api.post('/clients', body);
          messages.success(`Client ${created.name} registered.`);
          showSecret(
            secret,
            created.name,
            created.client_id,
            created.client_secret,
            'Copy the secret now: it is shown only this once.',
          );
          name.value = '';
          stores.value = '';
          scope.value = '';
          await load(ctx, messages, results, { keepMessage: true });
        } catch (failure) {
          messages.error(failure, { focus: true });
        }
      },
    },
    field('Name', name),
    field('Role', role),
    field('Stores', stores, 'store role only, comma-separated', 'client-stores-hint'),
    field('Scope', scope, 'optional, narrows the client (docs/security.md)', 'client-scope-hint'),
    h('button', { type: 'submit', class: 'primary', id: 'client-create' }, 'Register client'),
  );
}

function showSecret(area, name, clientId, secret, note) {
  area.replaceChildren(
    h(
      'div',
      { class: 'notice success', 'data-notice': 'secret', tabindex: '-1' },
      h('p', {}, h('strong', {}, name), ': ', note),
      h(
        'dl',
        { class: 'figures' },
        h(
          'div',
          { class: 'figure' },
          h('dt', {}, 'client_id'),
          h('dd', { class: 'url', 'data-field': 'client_id' }, clientId),
        ),
        h(
          'div',
          { class: 'figure' },
          h('dt', {}, 'client_secret'),
          h('dd', { class: 'url', 'data-field': 'client_secret' }, secret),
        ),
      ),
      h(
        'button',
        {
          type: 'button',
          'data-action': 'copy-secret',
          async onclick(event) {
            // The clipboard needs a secure context (https or localhost); elsewhere the text is there to select.
            const button = event.currentTarget;
            try {
              await navigator.clipboard.writeText(`client_id=${clientId}\nclient_secret=${secret}`);
              button.textContent = 'Copied';
            } catch {
              button.textContent = 'Copy failed: select the text instead';
            }
          },
        },
        'Copy client_id and secret',
      ),
      h(
        'p',
        { class: 'meta' },
        'This secret is not stored anywhere readable: leaving or reloading this page loses it. A lost secret is replaced with New secret.',
      ),
    ),
  );
  area.firstChild.focus();
}

async function load(ctx, messages, results, { moveFocus = false, keepMessage = false } = {}) {
  if (!keepMessage) messages.loading('Loading API clients…');
  results.setAttribute('aria-busy', 'true');
  try {
    const answer = await ctx.api.get('/clients');
    if (!keepMessage) messages.clear();
    const live = answer.clients.filter((c) => !c.revoked).length;
    const heading = resultHeading(
      2,
      answer.clients.length === 0
        ? 'No API clients'
        : `${answer.clients.length} ${answer.clients.length === 1 ? 'client' : 'clients'}: ${live} live, ${answer.clients.length - live} revoked`,
    );
    results.replaceChildren(
      heading,
      h('p', { class: 'meta' }, `As of ${time(new Date())}.`),
      clientTable(ctx, answer.clients, messages, results),
    );
    if (moveFocus) heading.focus();
  } catch (failure) {
    results.replaceChildren();
    messages.error(failure, { focus: moveFocus });
  } finally {
    results.setAttribute('aria-busy', 'false');
  }
}

function clientTable(ctx, clients, messages, results) {
  return dataTable({
    caption: 'API clients (OAuth2 client credentials)',
    empty: 'No client is registered. Register one above, or with npx store-ops client create.',
    columns: [
      {
        label: 'Client',
        cell: (c) => [
          h('strong', {}, c.name),
          h('span', { class: 'sub url' }, c.client_id),
          h('span', { class: 'sub' }, `by ${c.created_by} · ${momentToSecond(c.created_on)}`),
        ],
      },
      {
        label: 'Role',
        cell: (c) => [
          c.role,
          h('span', { class: 'sub' }, c.stores ? `stores ${c.stores.join(', ')}` : 'every store'),
          c.scope ? h('span', { class: 'sub' }, `scope ${c.scope}`) : null,
        ],
      },
      {
        label: 'Status',
        cell: (c) =>
          c.revoked
            ? [
                h('span', { class: 'badge client-revoked' }, 'Revoked'),
                h('span', { class: 'sub' }, momentToSecond(c.revoked)),
              ]
            : [
                h('span', { class: 'badge client-live' }, 'Live'),
                c.previous_secret_valid_until
                  ? h(
                      'span',
                      { class: 'sub' },
                      `previous secret until ${momentToSecond(c.previous_secret_valid_until)}`,
                    )
                  : null,
              ],
      },
      {
        label: 'Action',
        cell: (c) =>
          c.revoked ? '–' : [rotateButton(ctx, c, messages, results), ' ', revokeButton(ctx, c, messages, results)],
      },
    ],
    rows: clients.map((c) => ({ ...c, rowClass: `client-row ${c.revoked ? 'client-revoked' : 'client-live'}` })),
  });
}

function rotateButton(ctx, client, messages, results) {
  return h(
    'button',
    {
      type: 'button',
      'data-action': 'rotate',
      'aria-label': `New secret for ${client.name}`,
      async onclick() {
        messages.loading(`A new secret for ${client.name}…`);
        try {
          const rotated = await ctx.api.post(path('/clients/', client.name, '/rotate-secret'), {});
          messages.success(
            `New secret for ${client.name}; the previous one works until ${momentToSecond(rotated.previous_secret_valid_until)}.`,
          );
          const area = results.parentElement.querySelector('.secret-area');
          showSecret(
            area,
            client.name,
            rotated.client_id,
            rotated.client_secret,
            'Copy the new secret now: it is shown only this once.',
          );
          await load(ctx, messages, results, { keepMessage: true });
        } catch (failure) {
          messages.error(failure, { focus: true });
        }
      },
    },
    'New secret',
  );
}

function revokeButton(ctx, client, messages, results) {
  return h(
    'button',
    {
      type: 'button',
      class: 'danger',
      'data-action': 'revoke',
      'aria-label': `Revoke ${client.name}`,
      async onclick() {
        if (
          !window.confirm(
            `Revoke ${client.name}? It gets no new token, and its tokens stop working within a second. This cannot be undone.`,
          )
        )
          return;
        messages.loading(`Revoking ${client.name}…`);
        try {
          await ctx.api.call('DELETE', path('/clients/', client.name));
          messages.success(`${client.name} revoked: its access tokens are refused from now on.`, { focus: true });
          await load(ctx, messages, results, { keepMessage: true });
        } catch (failure) {
          messages.error(failure, { focus: true });
        }
      },
    },
    'Revoke',
  );
}
