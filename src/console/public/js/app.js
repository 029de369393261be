// The store console's shell: sign-in, the header with the store picker, the navigation
// and a small hash router (#/stock?code=…). Views are modules with render(ctx, params).

import { Api } from './api.js';
import { h, messageArea, replace } from './dom.js';
import * as session from './session.js';
import * as signInView from './views/sign-in.js';
import * as stockView from './views/stock.js';
import * as stockListView from './views/stock-list.js';
import * as countView from './views/count.js';
import * as countListView from './views/count-list.js';
import * as lossView from './views/loss.js';
import * as moveView from './views/move.js';
import * as receiveView from './views/receive.js';
import * as pickView from './views/pick.js';
import * as outboxView from './views/outbox.js';
import { Outbox } from './offline/outbox.js';
import { installServiceWorker } from './offline/install.js';
import { clear as clearDeviceStore, READS } from './offline/device-db.js';
import { time } from './format.js';
import * as historyView from './views/history.js';
import * as reviewView from './views/review.js';
import * as countingView from './views/counting.js';
import * as assignmentsView from './views/assignments.js';
import * as deliveriesView from './views/deliveries.js';
import * as ordersView from './views/orders.js';
import * as changesView from './views/changes.js';
import * as webhooksView from './views/webhooks.js';
import * as clientsView from './views/clients.js';

const VIEWS = {
  stock: stockView,
  list: stockListView,
  count: countView,
  countlist: countListView,
  loss: lossView,
  move: moveView,
  receive: receiveView,
  pick: pickView,
  outbox: outboxView,
  history: historyView,
  review: reviewView,
  counting: countingView,
  assignments: assignmentsView,
  deliveries: deliveriesView,
  orders: ordersView,
  changes: changesView,
  webhooks: webhooksView,
  clients: clientsView,
};
const ROLE_LABELS = { admin: 'administrator', integration: 'integration', store: 'store staff', read: 'read only' };

const main = document.getElementById('main');
const top = document.getElementById('top');
// Below the header, not in it: on a handheld the header stays within the top 15 % of the screen.
const statusLine = document.createElement('p');
statusLine.id = 'status';
statusLine.className = 'status';
statusLine.setAttribute('role', 'status');
statusLine.hidden = true;
top.after(statusLine);
const api = new Api(session.readToken, (failure) => signedOut(failure));

/** Who is signed in and where: set after sign-in. */
const state = { me: null, stores: [], store: null, staleSince: null };

// Actions wait on the device for a token that may do them: one of its stores, not read-only.
const outbox = new Outbox(
  api,
  (action) =>
    state.me !== null && state.me.role !== 'read' && state.stores.some((s) => s.store_number === action.store),
);
outbox.subscribe(() => void showStatus());
window.addEventListener('online', () => void showStatus());
window.addEventListener('offline', () => void showStatus());
api.onStaleRead = (knownAt) => {
  if (!state.staleSince || knownAt < state.staleSince) state.staleSince = knownAt;
  void showStatus();
};

// ---- routing ------------------------------------------------------------------------------

function currentRoute() {
  const match = /^#\/([a-z]+)(?:\?(.*))?$/.exec(window.location.hash);
  const name = match && VIEWS[match[1]] ? match[1] : 'stock';
  return { name, params: new URLSearchParams(match?.[2] ?? '') };
}

function href(name, params = {}) {
  const query = new URLSearchParams(
    Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  ).toString();
  return `#/${name}${query ? `?${query}` : ''}`;
}

function navigate(name, params) {
  const target = href(name, params);
  // The same address again (a second scan of the same code) renders again: fresh figures.
  if (window.location.hash === target) renderView({ moveFocus: true });
  else window.location.hash = target;
}

function renderView({ moveFocus }) {
  if (!state.me) return;
  const { name, params } = currentRoute();
  for (const link of top.querySelectorAll('nav a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!state.store) {
    replace(
      main,
      h(
        'section',
        { class: 'view' },
        h('h1', {}, 'No store to show'),
        h(
          'p',
          { class: 'notice info' },
          `Your token (${state.me.name}) may see no store. Ask for a token with a store list.`,
        ),
      ),
    );
    return;
  }
  state.staleSince = null;
  void showStatus();
  const ctx = {
    api,
    outbox,
    me: state.me,
    store: state.store,
    storeLabel: storeLabel(state.store),
    canWrite: state.me.role !== 'read',
    // Results take focus when the user asked for them (a look-up, a link), not when the
    // store picker re-draws the view under the user's hands.
    moveFocus,
    navigate,
    href,
  };
  const { element, focus } = VIEWS[name].render(ctx, params);
  replace(main, element);
  document.title = `${VIEWS[name].title} · ${ctx.storeLabel} · Store console`;
  if (moveFocus) (focus ?? element.querySelector('h1'))?.focus();
}

window.addEventListener('hashchange', () => renderView({ moveFocus: true }));

// ---- signing in and out -------------------------------------------------------------------

async function start() {
  if (!session.readToken()) return showSignIn();
  const messages = messageArea();
  replace(main, messages.element);
  messages.loading('Signing in…');
  try {
    await enter(await api.get('/tokens/current'));
  } catch (failure) {
    if (failure.kind === 'unauthorized') return; // signedOut() has shown the sign-in form
    replace(
      main,
      h(
        'section',
        { class: 'view' },
        h('h1', {}, 'The console could not start'),
        messages.element,
        h('button', { type: 'button', class: 'primary', onclick: start }, 'Try again'),
      ),
    );
    messages.error(failure, { focus: true });
  }
}

function showSignIn(reason) {
  state.me = null;
  top.hidden = true;
  replace(top);
  document.title = 'Sign in · Store console';
  const { element, focus } = signInView.render({
    reason,
    async signIn(token) {
      // Checked before it is kept: a refused token never reaches session storage.
      const me = await api.call('GET', '/tokens/current', { token });
      session.keepToken(token);
      // Kept for a start without a network (a reload in the stockroom): the last known answer.
      await clearDeviceStore(READS).catch(() => undefined);
      await api.remember('/tokens/current', undefined, me);
      await enter(me);
    },
  });
  replace(main, element);
  focus.focus();
}

function signedOut(failure) {
  session.forget();
  showSignIn(failure);
}

async function enter(me) {
  const page = await api.get('/stores', { page_size: 1000 });
  state.me = me;
  state.stores = page.list;
  const kept = session.readStore();
  state.store = state.stores.find((store) => store.store_number === kept) ?? state.stores[0] ?? null;
  if (state.store) session.keepStore(state.store.store_number);
  renderHeader(page.total_count);
  renderView({ moveFocus: true });
  outbox.flushSoon();
}

// ---- header -------------------------------------------------------------------------------

function storeLabel(store) {
  return store.store_name ? `${store.store_number} ${store.store_name}` : store.store_number;
}

function renderHeader(totalStores) {
  const me = state.me;
  const picker = h(
    'select',
    {
      id: 'store-select',
      onchange: (event) => {
        state.store = state.stores.find((store) => store.store_number === event.target.value) ?? state.store;
        session.keepStore(state.store.store_number);
        renderView({ moveFocus: false });
      },
    },
    state.stores.map((store) =>
      h('option', { value: store.store_number, selected: store === state.store }, storeLabel(store)),
    ),
  );
  const scope =
    me.role === 'store'
      ? ` for ${me.stores.length === 1 ? 'store' : 'stores'} ${me.stores.join(', ') || '(none)'}`
      : '';
  replace(
    top,
    h(
      'div',
      { class: 'top-row' },
      h('p', { class: 'brand' }, 'Store console'),
      h(
        'p',
        { class: 'who' },
        'Signed in as ',
        h('strong', {}, me.name),
        ` (${ROLE_LABELS[me.role] ?? me.role}${scope})`,
      ),
    ),
    h(
      'div',
      { class: 'top-row' },
      h(
        'div',
        { class: 'store-picker' },
        h('label', { for: 'store-select' }, 'Store'),
        state.stores.length > 0 ? picker : h('span', {}, 'none'),
      ),
      h(
        'button',
        { type: 'button', class: 'quiet', onclick: signOut, 'aria-label': `Sign out ${me.name}` },
        'Sign out',
      ),
      totalStores > state.stores.length
        ? h('p', { class: 'meta' }, `The first ${state.stores.length} of ${totalStores} stores.`)
        : null,
    ),
    h(
      'nav',
      { 'aria-label': 'Views' },
      h(
        'ul',
        {},
        Object.entries(VIEWS).map(([name, view]) =>
          h('li', {}, h('a', { href: href(name), 'data-view': name }, view.title)),
        ),
      ),
    ),
  );
  top.hidden = false;
}

function signOut() {
  session.forget();
  // What was read is gone with the sign-in; what waits to be sent stays for the next one.
  void clearDeviceStore(READS).catch(() => undefined);
  void outbox.forgetSent();
  history.replaceState(null, '', window.location.pathname);
  showSignIn();
}

// ---- network and outbox status -------------------------------------------------------------

/** One line under the header: offline or not, what waits on the device, how old the figures shown are. */
async function showStatus() {
  const line = statusLine;
  if (!state.me) {
    line.hidden = true;
    return;
  }
  const counts = await outbox.counts().catch(() => ({ waiting: 0, refused: 0 }));
  const parts = [];
  if (!navigator.onLine) parts.push('Offline');
  if (counts.waiting > 0) parts.push(`${counts.waiting} waiting to be sent`);
  if (counts.refused > 0) parts.push(`${counts.refused} refused: see Outbox`);
  if (state.staleSince) parts.push(`figures as known at ${time(state.staleSince)}`);
  line.textContent = parts.join(' · ');
  line.dataset.offline = String(!navigator.onLine);
  line.dataset.waiting = String(counts.waiting);
  line.dataset.refused = String(counts.refused);
  line.classList.toggle('alert', counts.refused > 0);
  line.hidden = parts.length === 0;
}

// ---- keyboard -----------------------------------------------------------------------------

// A scanner types into whatever has focus. When a view has a scan field and focus is on
// something that takes no typing (a heading, a link, a button), the first character moves
// focus to the field, cleared for the new code, and lands there.
document.addEventListener('keydown', (event) => {
  if (event.key.length !== 1 || event.key === ' ' || event.ctrlKey || event.metaKey || event.altKey) return;
  const active = document.activeElement;
  if (active && (active.matches('input, select, textarea') || active.isContentEditable)) return;
  const field = main.querySelector('[data-scan-target]');
  if (!field) return;
  field.value = '';
  field.focus();
});

document.getElementById('skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

document.getElementById('boot')?.remove();
installServiceWorker();
// Not awaited: start() shows its own failures (the sign-in form or a Try again page).
void start();
