import type { Kysely, UpdateQueryBuilder, UpdateResult } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * A subscription's delivery state, changed only by conditional UPDATEs (PRODUCT §9: one sender
 * per subscription across all processes). The lease is taken only when free or expired;
 * everything its holder writes afterwards names the holder and the batch it fixed, so a sender
 * that lost its lease (it stalled past lease_until and another took over) or whose batch was
 * replaced (store-ops webhooks replay) writes nothing. Times are epoch ms of the writing
 * process's clock: the processes' clocks must agree to well within a lease.
 */

const updated = (result: UpdateResult) => Number(result.numUpdatedRows) > 0;

/** The lease holder's batch: (after, through] as fixed. */
export interface HeldBatch {
  id: number;
  owner: string;
  after: number;
  through: number;
}

function ofHeldBatch(
  query: UpdateQueryBuilder<Database, 'webhook_subscriptions', 'webhook_subscriptions', UpdateResult>,
  batch: HeldBatch,
) {
  return query
    .where('id', '=', batch.id)
    .where('lease_owner', '=', batch.owner)
    .where('after_sequence', '=', batch.after)
    .where('batch_through', '=', batch.through);
}

/** Whether any active subscription is due now with its lease free or expired: the poll reads no further when none is. */
export async function anyDue(db: Kysely<Database>, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select('id')
    .where('status', '=', 'active')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Active subscriptions due now whose lease is free or expired and which have something to
 * send: a batch in flight, or a cursor before the feed's last sequence. Oldest due first.
 */
export async function dueSubscriptionIds(
  db: Kysely<Database>,
  now: number,
  lastSequence: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .select('id')
    .where('status', '=', 'active')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .where((eb) => eb.or([eb('batch_through', 'is not', null), eb('after_sequence', '<', lastSequence)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => Number(row.id));
}

/** Takes the lease if it is free or expired and the subscription is still active and due; true when taken. */
export async function takeLease(
  db: Kysely<Database>,
  id: number,
  owner: string,
  now: number,
  until: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return updated(result);
}

/** Extends the holder's lease; false when it is no longer the holder (then it must stop sending). */
export async function renewLease(db: Kysely<Database>, id: number, owner: string, until: number): Promise<boolean> {
  return updated(
    await db
      .updateTable('webhook_subscriptions')
      .set({ lease_until: until })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst(),
  );
}

/** Gives the lease back (a no-op for one that is not the holder). */
export async function releaseLease(db: Kysely<Database>, id: number, owner: string): Promise<void> {
  await db
    .updateTable('webhook_subscriptions')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/**
 * Fixes the next batch as (after, through] before it is sent: a retry, by this process or
 * another after a crash, re-sends exactly these events under the same webhook-id.
 */
export async function fixBatch(db: Kysely<Database>, batch: HeldBatch, leaseUntil: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ batch_through: batch.through, lease_until: leaseUntil })
    .where('id', '=', batch.id)
    .where('lease_owner', '=', batch.owner)
    .where('after_sequence', '=', batch.after)
    .where('batch_through', 'is', null)
    .executeTakeFirst();
  return updated(result);
}

/**
 * Moves the cursor over events it will not send: a stretch without a matching event, or
 * events retention deleted before they were sent (`note` then records which, as last_error).
 */
export async function skipTo(
  db: Kysely<Database>,
  id: number,
  owner: string,
  from: number,
  to: number,
  now: number,
  note?: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({
      after_sequence: to,
      batch_through: null,
      ...(note === undefined ? {} : { last_error: note, last_error_at: now }),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('after_sequence', '=', from)
    .executeTakeFirst();
  return updated(result);
}

/** The receiver acknowledged the batch: the cursor moves to its end, the failures are over, the next batch is due now. */
export async function acknowledgeBatch(
  db: Kysely<Database>,
  batch: HeldBatch,
  events: number,
  now: number,
  leaseUntil: number,
): Promise<boolean> {
  const result = await ofHeldBatch(
    db.updateTable('webhook_subscriptions').set((eb) => ({
      after_sequence: batch.through,
      batch_through: null,
      attempts: 0,
      failing_since: null,
      next_attempt_at: now,
      last_delivered_at: now,
      delivered_events: eb('delivered_events', '+', events),
      lease_until: leaseUntil,
    })),
    batch,
  ).executeTakeFirst();
  return updated(result);
}

export interface Failure {
  attempts: number;
  failingSince: number;
  error: string;
  at: number;
  nextAttemptAt: number;
  /** The retry window is over: the subscription pauses (PRODUCT §9). */
  pause: boolean;
}

/** A failed attempt of the batch: recorded with when to try again (or the pause), and the lease given back. */
export async function recordFailure(db: Kysely<Database>, batch: HeldBatch, failure: Failure): Promise<boolean> {
  const result = await ofHeldBatch(
    db.updateTable('webhook_subscriptions').set({
      attempts: failure.attempts,
      failing_since: failure.failingSince,
      last_error: failure.error,
      last_error_at: failure.at,
      next_attempt_at: failure.nextAttemptAt,
      ...(failure.pause ? { status: 'paused' } : {}),
      lease_owner: null,
      lease_until: null,
    }),
    batch,
  ).executeTakeFirst();
  return updated(result);
}
