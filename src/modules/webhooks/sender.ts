import type { FastifyBaseLogger } from 'fastify';
import type { DbHandle } from '../../db/dialect/types.js';
import { purgedThrough, readEvents, type EventRow } from '../events/repository.js';
import { eventOf } from '../events/service.js';
import {
  acknowledgeBatch,
  fixBatch,
  recordFailure,
  releaseLease,
  renewLease,
  skipTo,
  type HeldBatch,
} from './delivery-state.js';
import type { DeliveryClient } from './delivery.js';
import { filterOf, findSubscription, type SubscriptionRow } from './repository.js';
import { failureAfter, type WebhookTiming } from './retry.js';

/** Most events one delivery carries (PRODUCT §9 batches; large enough for ≥ 5,000 events/s to one receiver). */
export const BATCH_SIZE = 500;
/** Sequences one batch looks through at most: a narrow filter costs a bounded read, and the cursor moves over what matched nothing. */
const SCAN_WINDOW = 50_000;
/** A sender with more to send gives its lease back after this long, so other subscriptions get this process's turns too. */
const MAX_RUN_MS = 10_000;

export interface Sender {
  handle: DbHandle;
  /** Who holds the leases this sender takes: one per process (dispatcher.ts). */
  owner: string;
  timing: WebhookTiming;
  client: DeliveryClient;
  /** Aborted when the process stops. */
  signal: AbortSignal;
  log: FastifyBaseLogger;
}

/** The batch to send next, fixed in the database; or why there is none now. */
type Next = { batch: HeldBatch; events: EventRow[] } | 'moved' | 'idle';

/**
 * Delivers one subscription's batches, in order, while this process holds its lease (taken by
 * the dispatcher) and it has something due: each batch is fixed before it is sent, sent until
 * acknowledged or failed, then the next. Stops at the first failure (recorded with its retry,
 * or the pause), when caught up, when the lease or the batch is no longer this sender's, or
 * after MAX_RUN_MS; the lease is given back in every case.
 */
export async function deliverWhileDue(sender: Sender, id: number): Promise<void> {
  const runUntil = Date.now() + MAX_RUN_MS;
  try {
    while (!sender.signal.aborted && Date.now() < runUntil) {
      const row = await findSubscription(sender.handle.db, id);
      if (
        row === undefined ||
        row.lease_owner !== sender.owner ||
        row.status !== 'active' ||
        row.next_attempt_at > Date.now()
      )
        return;
      const next = await nextBatch(sender, row);
      if (next === 'idle') return;
      if (next === 'moved') continue;
      if (!(await sendBatch(sender, row, next.batch, next.events))) return;
    }
  } finally {
    await releaseLease(sender.handle.db, id, sender.owner).catch((error) =>
      sender.log.warn({ err: error, webhook: id }, 'giving back a webhook lease failed'),
    );
  }
}

async function nextBatch(sender: Sender, row: SubscriptionRow): Promise<Next> {
  const { db, dialect } = sender.handle;
  const filter = filterOf(row);
  const after = row.after_sequence;
  // Retention (PRODUCT §9, 30 days) may have deleted what a long-paused subscription had not
  // received: delivery goes on from the oldest event kept, and last_error says what was lost.
  const purged = await purgedThrough(db);
  if (after < purged) {
    const note = `events ${after + 1} to ${purged} were deleted by retention before they were delivered; delivery goes on from ${purged + 1}`;
    sender.log.warn({ webhook: row.id }, note);
    return (await skipTo(db, row.id, sender.owner, after, purged, Date.now(), note)) ? 'moved' : 'idle';
  }
  const leaseUntil = Date.now() + sender.timing.leaseMs;
  if (row.batch_through !== null) {
    // A retry, or a batch another process was sending when it died: exactly the same events.
    const events = await readEvents(db, { after, through: row.batch_through, limit: BATCH_SIZE, ...filter });
    if (events.length > 0)
      return { batch: { id: row.id, owner: sender.owner, after, through: row.batch_through }, events };
    return (await skipTo(db, row.id, sender.owner, after, row.batch_through, Date.now())) ? 'moved' : 'idle';
  }
  const last = await dialect.events.lastSequence(db);
  if (after >= last) return 'idle';
  const through = Math.min(last, after + SCAN_WINDOW);
  const events = await readEvents(db, { after, through, limit: BATCH_SIZE, ...filter });
  if (events.length === 0)
    return (await skipTo(db, row.id, sender.owner, after, through, Date.now())) ? 'moved' : 'idle';
  const batch = {
    id: row.id,
    owner: sender.owner,
    after,
    through: events.length === BATCH_SIZE ? events[events.length - 1]!.sequence : through,
  };
  return (await fixBatch(db, batch, leaseUntil)) ? { batch, events } : 'moved';
}

/**
 * Sends a fixed batch and records what came of it; true when the receiver acknowledged it and
 * this sender may go on. While the request is out the lease is renewed every third of its
 * length; a renewal that finds the lease gone (or fails) aborts the request, so two processes
 * never send one subscription's batches at once.
 */
async function sendBatch(sender: Sender, row: SubscriptionRow, batch: HeldBatch, events: EventRow[]): Promise<boolean> {
  const { db } = sender.handle;
  const { timing } = sender;
  const attempt = new AbortController();
  const stop = () => attempt.abort();
  sender.signal.addEventListener('abort', stop, { once: true });
  const renewal = setInterval(() => {
    renewLease(db, row.id, sender.owner, Date.now() + timing.leaseMs)
      .then((held) => held || stop())
      .catch(stop);
  }, timing.leaseMs / 3);
  let outcome;
  try {
    outcome = await sender.client.send({
      url: row.url,
      // Stable across retries of the batch, by any process: its subscription and its first and last events.
      webhookId: `msg_${row.id}_${events[0]!.sequence}_${events[events.length - 1]!.sequence}`,
      body: JSON.stringify({ events: events.map(eventOf) }),
      secret: row.secret,
      timeoutMs: timing.answerTimeoutMs,
      signal: attempt.signal,
    });
  } finally {
    clearInterval(renewal);
    sender.signal.removeEventListener('abort', stop);
  }
  // Stopped or no longer the holder: the batch stays fixed, and its next sender re-sends it.
  if ('aborted' in outcome) return false;
  const now = Date.now();
  if (outcome.ok) return acknowledgeBatch(db, batch, events.length, now, now + timing.leaseMs);
  const failure = failureAfter({ attempts: row.attempts, failingSince: row.failing_since }, outcome.error, now, timing);
  if (await recordFailure(db, batch, failure)) {
    if (failure.pause)
      sender.log.warn(
        { webhook: row.id, url: row.url, error: failure.error },
        'webhook paused: its deliveries failed for the whole retry window',
      );
    else
      sender.log.info(
        { webhook: row.id, attempts: failure.attempts, error: failure.error },
        'webhook delivery failed; it will be retried',
      );
  }
  return false;
}
