import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/dialect/types.js';
import { anyDue, dueSubscriptionIds, takeLease } from './delivery-state.js';
import { DeliveryClient } from './delivery.js';
import { POLL_EVERY_MS, timingOf } from './retry.js';
import { deliverWhileDue, type Sender } from './sender.js';

/** Subscriptions one process sends for at once; the rest wait for a free turn (or another process). */
export const MAX_SENDERS = 8;

export interface WebhookDispatcher {
  /** Stops polling, aborts the requests in flight and gives their leases back: another process re-sends those batches. */
  stop(): Promise<void>;
}

/**
 * The webhook deliveries of one service process (PRODUCT §9), started by buildApp in every
 * process. Every POLL_EVERY_MS it reads which subscriptions are due and free, takes the lease
 * of as many as it has free turns (a conditional UPDATE: of several processes polling at once,
 * one wins each subscription), and delivers each in its own run (sender.ts). Polling only
 * reads, so idle processes cost the database a select each.
 */
export function startWebhookDispatcher(handle: DbHandle, config: Config, log: FastifyBaseLogger): WebhookDispatcher {
  const stopping = new AbortController();
  const sender: Sender = {
    handle,
    // Unique per process start: a restarted process never mistakes a dead one's lease for its own.
    owner: `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`,
    timing: timingOf(config),
    client: new DeliveryClient({ allowPrivate: config.webhooksAllowPrivate ?? false }),
    signal: stopping.signal,
    log,
  };
  const running = new Map<number, Promise<void>>();
  let polling: Promise<void> | undefined;

  async function poll(): Promise<void> {
    const free = MAX_SENDERS - running.size;
    if (free <= 0) return;
    const now = Date.now();
    // A process with no subscription due reads one small table, not the feed's end as well.
    if (!(await anyDue(handle.db, now))) return;
    const last = await handle.dialect.events.lastSequence(handle.db);
    const due = (await dueSubscriptionIds(handle.db, now, last, MAX_SENDERS + running.size)).filter(
      (id) => !running.has(id),
    );
    for (const id of due.slice(0, free)) {
      if (stopping.signal.aborted) return;
      if (!(await takeLease(handle.db, id, sender.owner, now, now + sender.timing.leaseMs))) continue;
      const run = deliverWhileDue(sender, id)
        .catch((error) => log.warn({ err: error, webhook: id }, 'webhook delivery run failed'))
        .finally(() => running.delete(id));
      running.set(id, run);
    }
  }

  const timer = setInterval(() => {
    if (polling !== undefined || stopping.signal.aborted) return;
    polling = poll()
      .catch((error) => log.warn({ err: error }, 'looking for due webhooks failed'))
      .finally(() => (polling = undefined));
  }, POLL_EVERY_MS);
  timer.unref();

  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await polling;
      await Promise.allSettled([...running.values()]);
      sender.client.close();
    },
  };
}
