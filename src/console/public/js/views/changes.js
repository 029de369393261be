// The change feed followed live (PRODUCT §9): every change the token may see, newest on
// top, as an integration reads it from GET /events. The view opens at the feed's end (found
// by js/feed.js without paging through the retention), shows the last few changes and then
// asks for what is new every second.

import { dataRow, h, messageArea, replace, tableFrame } from '../dom.js';
import {
  EVENTS_PATH,
  EVENT_TYPES,
  findEnd,
  findOldestKept,
  isGone,
  isPastEnd,
  summary,
  TYPE_GROUPS,
  typeChoice,
} from '../feed.js';
import { momentToSecond, time } from '../format.js';

export const title = 'Changes';

/** Sequences before the end the view opens with: the last few changes, not an empty table. */
const OPENING_BACKLOG = 200;
/** Rows kept: the oldest go as new ones come. */
const MAX_ROWS = 500;
const PAGE_LIMIT = 1000;
/** Pages one turn reads at most; a feed further ahead than that is skipped to its end (and said so). */
const MAX_PAGES_PER_TURN = 10;
const EVERY_MS = 1000;
/** A tab in the background asks less often. */
const HIDDEN_EVERY_MS = 10_000;
const MAX_WAIT_AFTER_FAILURE_MS = 30_000;

/** The furthest sequence this tab has read: the next opening searches for the end from there (a call or two). */
let furthest = 0;

const COLUMNS = [
  { label: 'Sequence', numeric: true, cell: (event) => String(event.sequence) },
  { label: 'Time', cell: (event) => h('time', { datetime: event.occurred_at }, momentToSecond(event.occurred_at)) },
  { label: 'Type', cell: (event) => h('code', {}, event.type) },
  { label: 'Store', cell: (event) => event.store_number ?? 'chain-wide' },
  { label: 'Change', cell: (event) => summary(event) },
];

export function render(ctx, params) {
  const choice = typeChoice(params.get('types'));
  const allStores = params.get('stores') === 'all';
  const storeNumber = ctx.store.store_number;
  const shows = allStores ? () => true : (event) => event.store_number === null || event.store_number === storeNumber;
  const types = choice.types?.join(',');

  const messages = messageArea();
  const go = (change) =>
    ctx.navigate('changes', { types: params.get('types'), stores: params.get('stores'), ...change });
  const typeSelect = h(
    'select',
    {
      id: 'changes-types',
      onchange: (event) => go({ types: event.target.value === 'all' ? undefined : event.target.value }),
    },
    TYPE_GROUPS.map((group) =>
      h('option', { value: group.value, selected: group.value === choice.value }, group.label),
    ),
    h(
      'optgroup',
      { label: 'One type' },
      EVENT_TYPES.map((type) => h('option', { value: type, selected: type === choice.value }, type)),
    ),
  );
  const storeSelect = h(
    'select',
    { id: 'changes-stores', onchange: (event) => go({ stores: event.target.value === 'all' ? 'all' : undefined }) },
    h('option', { value: 'store', selected: !allStores }, `${ctx.storeLabel} and chain-wide`),
    h(
      'option',
      { value: 'all', selected: allStores },
      ctx.me.role === 'store' ? 'All stores of your token' : 'All stores',
    ),
  );
  const pauseButton = h(
    'button',
    { type: 'button', id: 'changes-pause', onclick: () => (follow.paused ? follow.resume() : follow.pause()) },
    'Pause',
  );
  const state = h('p', { class: 'meta feed-state' }, 'Finding the newest changes…');
  const { element: table, body } = tableFrame({ caption: 'Changes, newest first', columns: COLUMNS });
  const empty = h('p', { class: 'empty' }, 'No changes yet. New ones appear here as they happen.');
  table.hidden = true;
  const results = h('div', { class: 'results feed', 'aria-busy': 'true' }, state, empty, table);

  const view = h(
    'section',
    { class: 'view', 'aria-labelledby': 'view-title' },
    h(
      'h1',
      { id: 'view-title', tabindex: '-1' },
      allStores ? 'Changes in every store' : `Changes in ${ctx.storeLabel}`,
    ),
    h(
      'p',
      { class: 'intro' },
      'Every change the service commits, as integrations read it from the change feed, newest first. The view opens with the last few and follows the feed live.',
    ),
    h(
      'div',
      { class: 'filters' },
      h('label', { for: 'changes-types' }, 'Show'),
      typeSelect,
      h('label', { for: 'changes-stores' }, 'Stores'),
      storeSelect,
      pauseButton,
    ),
    messages.element,
    results,
  );

  const follow = follower({
    // Live, never the device's last known answer: a kept page of the feed would show its events twice.
    get: (route, query) => ctx.api.call('GET', route, { query }),
    types,
    alive: () => view.isConnected,
    onEvents(events, { opening }) {
      const kept = events.filter(shows).slice(-MAX_ROWS);
      if (kept.length === 0) return;
      // Oldest first in the page, newest on top in the table.
      body.prepend(
        ...kept.reverse().map((event) => {
          const row = dataRow(COLUMNS, { ...event, rowClass: opening ? 'event' : 'event fresh' });
          row.dataset.sequence = String(event.sequence);
          return row;
        }),
      );
      while (body.rows.length > MAX_ROWS) body.lastElementChild.remove();
      table.hidden = false;
      empty.hidden = true;
    },
    onState(now) {
      results.setAttribute('aria-busy', 'false');
      pauseButton.textContent = now.paused ? 'Resume' : 'Pause';
      const rows = body.rows.length;
      const shown = `${rows} ${rows === 1 ? 'change' : 'changes'} shown`;
      let said;
      if (now.cursor === null)
        said = now.paused ? 'Paused before the feed was reached.' : 'The feed is not reached yet; trying again.';
      else if (now.paused) said = `Paused at sequence ${now.cursor}. ${shown}.`;
      else if (now.checkedAt === null) said = `Catching up from sequence ${now.cursor}…`;
      else said = `Following live: up to sequence ${now.cursor}, checked at ${time(now.checkedAt)}. ${shown}.`;
      replace(state, said);
    },
    onNotice: (text) => messages.info(text),
    onFailure: (failure) => messages.error(failure),
    onRecovered: () => messages.clear(),
  });
  follow.start();
  return { element: view };
}

/**
 * Reads the feed from its end on, one turn a second: each turn follows `next_after` until it
 * stops moving. Stops for good once `alive()` is false (the view was left or re-drawn).
 */
function follower({ get, types, alive, onEvents, onState, onNotice, onFailure, onRecovered }) {
  const self = {
    paused: false,
    cursor: null,
    checkedAt: null,
    timer: null,
    running: false,
    failures: 0,
    // After the shell has put the view on the page: until then it is not alive.
    start: () => queueMicrotask(turn),
    pause() {
      self.paused = true;
      clearTimeout(self.timer);
      onState(self);
    },
    resume() {
      self.paused = false;
      onState(self);
      // Not awaited (here and below): a turn catches its own failures and recover() shows them.
      if (!self.running) void turn();
    },
  };
  let opening = true;
  // Back in front: ask now rather than at the end of the background wait.
  const onVisible = () => {
    if (!alive()) document.removeEventListener('visibilitychange', onVisible);
    else if (!document.hidden && !self.paused) void turn();
  };
  document.addEventListener('visibilitychange', onVisible);

  const read = async () => {
    if (self.cursor === null) {
      self.cursor = Math.max(0, (await findEnd(get, furthest)) - OPENING_BACKLOG);
    }
    for (let pages = 0; ; pages++) {
      if (pages === MAX_PAGES_PER_TURN) return skipToEnd();
      const after = self.cursor;
      const page = await get(EVENTS_PATH, { after, limit: PAGE_LIMIT, types });
      if (!alive()) return;
      if (self.failures > 0) {
        self.failures = 0;
        onRecovered();
      }
      onEvents(page.events, { opening });
      self.cursor = page.next_after;
      furthest = Math.max(furthest, self.cursor);
      if (page.next_after === after) return;
    }
  };

  async function skipToEnd() {
    const from = self.cursor;
    const end = await findEnd(get, from);
    self.cursor = Math.max(from, end - OPENING_BACKLOG);
    furthest = Math.max(furthest, end);
    onNotice(
      `The feed moved on faster than this page reads it: sequences ${from + 1} to ${self.cursor} are skipped here. ` +
        'Integrations that follow the feed get every one of them.',
    );
  }

  async function turn() {
    clearTimeout(self.timer);
    if (!alive()) return document.removeEventListener('visibilitychange', onVisible);
    if (self.paused || self.running) return;
    self.running = true;
    let wait = document.hidden ? HIDDEN_EVERY_MS : EVERY_MS;
    try {
      await read();
      self.checkedAt = new Date();
      opening = false;
    } catch (failure) {
      wait = await recover(failure);
    } finally {
      self.running = false;
    }
    if (!alive()) return;
    onState(self);
    if (!self.paused && wait !== null) self.timer = setTimeout(turn, wait);
  }

  /** What a failed turn does next: how long to wait (null: stop). */
  async function recover(failure) {
    if (isGone(failure) && self.cursor !== null) {
      // Older than retention: go on from the oldest event kept. At the opening that is only
      // where the last few start; later it means changes went by unseen, and the user is told.
      const gone = self.cursor;
      try {
        self.cursor = await findOldestKept(get, failure, gone);
      } catch (again) {
        return recover(again);
      }
      if (!opening) {
        onNotice(
          `The feed no longer keeps the changes after sequence ${gone}: they are older than its retention. ` +
            `Following on from the oldest change kept, sequence ${self.cursor + 1}; the ones in between are not shown.`,
        );
      }
      return 0;
    }
    if (isPastEnd(failure)) {
      // The feed is behind what this tab read (another database): find its end again.
      furthest = 0;
      self.cursor = null;
      return 0;
    }
    if (failure.kind === 'unauthorized') return null; // the sign-in form has taken over
    onFailure(failure);
    if (failure.kind === 'forbidden') {
      // Asking again will not help: wait for the user to resume.
      self.paused = true;
      return null;
    }
    self.failures += 1;
    return Math.min(MAX_WAIT_AFTER_FAILURE_MS, EVERY_MS * 2 ** (self.failures - 1));
  }

  return self;
}
