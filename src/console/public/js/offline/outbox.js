// The outbox (issue 43, docs/console.md "Offline"): every floor action is written here first,
// on the device, with its own Idempotency-Key and the moment it was scanned, and only then
// sent. It is sent in the order it was done, one action at a time, whenever the network is
// there; a reload or a closed tab loses nothing, because the action is on the device before
// the employee is told it is queued.
//
// Exactly once, even with two tabs or a tab closed mid-send: only the tab holding the Web
// Lock sends, and an action is re-read from the device before each send; if a send's answer
// was lost, the next try carries the same Idempotency-Key, so the service replays its first
// answer instead of booking again (PRODUCT §3). The ledger books a count or a loss at the
// moment in its body (PRODUCT §5), so an action sent an hour late lands where it was scanned.

import { ApiFailure } from '../failures.js';
import * as deviceDb from './device-db.js';

const LOCK = 'store-console-outbox';
const CHANNEL = 'store-console-outbox';
/** Sent actions kept to show "sent" in the Outbox view; older ones are dropped. */
const KEEP_SENT = 30;
/** Waits between tries while the service cannot be reached (the last one repeats). */
const RETRY_MS = [1000, 3000, 10000, 30000];
/**
 * Failures that say nothing about the action itself: the network, the service's load, a token
 * that must be renewed, an answer lost on the way. The action waits and goes again with its key.
 */
const TRY_LATER = new Set(['network', 'unavailable', 'rate-limited', 'unauthorized', 'unreadable']);

/** What an employee can do about a refused action, by the kind of refusal. */
const WHAT_TO_DO = {
  'not-found':
    'Something it names is not known to the service (any more): check the product, location or order, book it again if it is still needed, then discard this one.',
  refused: 'Correct what the service names, book it again if it is still needed, then discard this one.',
  conflict:
    'The stock or the order changed meanwhile. Look at it again, book what is right now, then discard this one.',
  forbidden: 'Your token may not do this. Ask for a token that may, or discard it.',
};

export class Outbox {
  /**
   * @param {import('../api.js').Api} api
   * @param {(action: object) => boolean} maySend whether the signed-in token may send an action
   *   (its store is one of the token's): others wait for a token that may
   */
  constructor(api, maySend) {
    this.api = api;
    this.maySend = maySend;
    this.listeners = new Set();
    this.failedTurns = 0;
    this.retryTimer = undefined;
    this.sending = false;
    this.notifyTimer = undefined;
    // Another tab's change (queued, sent, refused) redraws this tab's counts too.
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
    if (this.channel) this.channel.onmessage = () => this.notify(false);
    window.addEventListener('online', () => this.flushSoon());
  }

  /** `listener()` after every change of the outbox, in this tab or another. Returns the unsubscribe. */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners hear of changes at most every 100 ms: a replay of a thousand actions redraws ten times a second, not a thousand. */
  notify(broadcast = true) {
    if (broadcast) this.channel?.postMessage('changed');
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      for (const listener of this.listeners) listener();
    }, 100);
  }

  /**
   * Queues an action and starts sending. Resolves once the action is on the device.
   * @param {{ store: string, kind: string, label: string, method: string, route: string,
   *   query?: object, body?: object, raw?: Blob, contentType?: string, scannedAt: string, by?: string }} action
   */
  async add(action) {
    const entry = {
      ...action,
      key: crypto.randomUUID(),
      queuedAt: new Date().toISOString(),
      state: 'waiting',
      attempts: 0,
    };
    entry.id = await deviceDb.put(deviceDb.OUTBOX, entry);
    this.notify();
    this.flushSoon();
    return entry;
  }

  /** Every action on the device, oldest first. */
  async list() {
    const all = await deviceDb.getAll(deviceDb.OUTBOX);
    return all.sort((a, b) => a.id - b.id);
  }

  async counts() {
    const all = await this.list();
    const count = (state) => all.filter((action) => action.state === state).length;
    return { waiting: count('waiting'), refused: count('refused'), sent: count('sent') };
  }

  async discard(id) {
    await deviceDb.remove(deviceDb.OUTBOX, id);
    this.notify();
  }

  /**
   * A refused action sent again as it is (after the cause was put right elsewhere), under a new
   * key: the service keeps a refusal under the old one and would only replay it.
   */
  async retry(id) {
    const action = await deviceDb.get(deviceDb.OUTBOX, id);
    if (!action || action.state !== 'refused') return;
    await deviceDb.put(deviceDb.OUTBOX, { ...action, state: 'waiting', failure: undefined, key: crypto.randomUUID() });
    this.notify();
    this.flushSoon();
  }

  /** Starts a sending turn unless one is running; failures of a turn are kept on the actions. */
  flushSoon() {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    void this.flush().catch((error) => console.warn('The outbox could not send', error));
  }

  /** One sending turn, in the tab that gets the lock; a tab without it leaves the turn to the other. */
  async flush() {
    if (this.sending) return;
    this.sending = true;
    try {
      if (!navigator.locks) return await this.sendAll();
      const held = await navigator.locks.request(LOCK, { ifAvailable: true }, async (lock) => {
        if (lock) await this.sendAll();
        return lock !== null;
      });
      // Another tab is sending; look again later, in case that tab is closed before it is done.
      if (!held) this.retryTimer = setTimeout(() => this.flushSoon(), RETRY_MS[RETRY_MS.length - 1]);
    } finally {
      this.sending = false;
    }
  }

  async sendAll() {
    // Actions go in id order, so each look starts after the last one sent; one last look from
    // the start catches an action sent again (retry) meanwhile.
    let after;
    for (;;) {
      // Re-read from the device before each send: another tab may have sent or discarded it.
      const next = await deviceDb.first(
        deviceDb.OUTBOX,
        (action) => action.state === 'waiting' && this.maySend(action),
        after,
      );
      if (!next && after !== undefined) {
        after = undefined;
        continue;
      }
      if (!next) {
        this.failedTurns = 0;
        await this.dropOldSent();
        return;
      }
      after = next.id;
      if ((await this.send(next)) === 'later') {
        this.retryTimer = setTimeout(() => this.flushSoon(), RETRY_MS[Math.min(this.failedTurns, RETRY_MS.length - 1)]);
        this.failedTurns += 1;
        return;
      }
    }
  }

  async send(action) {
    const tried = { ...action, attempts: action.attempts + 1, triedAt: new Date().toISOString() };
    try {
      const answer = await this.api.call(action.method, action.route, {
        query: action.query,
        body: action.body,
        // A photo is kept on the device as a Blob and sent as its bytes (photo.js).
        raw: action.raw,
        contentType: action.contentType,
        headers: { 'idempotency-key': action.key },
      });
      // Relaxed: if the device loses this mark, the action goes again with its key and is replayed.
      await deviceDb.putRelaxed(deviceDb.OUTBOX, {
        ...tried,
        state: 'sent',
        sentAt: new Date().toISOString(),
        entryIds: Array.isArray(answer?.data) ? answer.data : undefined,
        lastTry: undefined,
      });
      this.notify();
      return 'sent';
    } catch (failure) {
      if (!(failure instanceof ApiFailure)) throw failure;
      if (TRY_LATER.has(failure.kind)) {
        await deviceDb.put(deviceDb.OUTBOX, { ...tried, lastTry: failure.sentence });
        this.notify();
        return 'later';
      }
      await deviceDb.put(deviceDb.OUTBOX, {
        ...tried,
        state: 'refused',
        refusedAt: new Date().toISOString(),
        failure: {
          sentence: failure.sentence,
          fields: failure.fields,
          kind: failure.kind,
          whatToDo: WHAT_TO_DO[failure.kind] ?? WHAT_TO_DO.refused,
        },
      });
      this.notify();
      return 'refused';
    }
  }

  async dropOldSent() {
    const sent = (await this.list()).filter((action) => action.state === 'sent');
    for (const action of sent.slice(0, Math.max(0, sent.length - KEEP_SENT)))
      await deviceDb.remove(deviceDb.OUTBOX, action.id);
  }

  /** Signing out: the sent history goes; waiting and refused actions stay for the next sign-in. */
  async forgetSent() {
    for (const action of await this.list())
      if (action.state === 'sent') await deviceDb.remove(deviceDb.OUTBOX, action.id);
    this.notify();
  }
}
