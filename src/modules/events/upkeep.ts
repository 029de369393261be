import type { FastifyBaseLogger } from 'fastify';
import { inTransaction } from '../../db/transaction.js';
import type { DbHandle } from '../../db/dialect/types.js';
import { sequencePending } from './service.js';

/** How often each process looks for committed events to number (PostgreSQL): events are readable within 1 s (PRODUCT §9). */
export const SEQUENCE_EVERY_MS = 100;
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** Oldest events one purge step deletes at most: a short transaction, whatever the backlog. */
const PURGE_STEP = 10_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes events older than the retention (PRODUCT §9: 30 days unless EVENTS_RETENTION_DAYS
 * says otherwise), oldest first, and records the last sequence deleted, so a cursor before it
 * is answered 410 rather than silently skipping what was deleted. Stops at the first event
 * still kept: the feed stays a contiguous run of sequences. Returns how many it deleted.
 */
export async function purgeExpiredEvents(handle: DbHandle, now: number, retentionDays: number): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  let deleted = 0;
  for (;;) {
    const step = await inTransaction(handle, async (trx) => {
      const counter = await handle.dialect
        .lockForUpdate(trx.selectFrom('event_counter').select('purged_through').where('id', '=', 1))
        .executeTakeFirstOrThrow();
      const oldest = await trx
        .selectFrom('events')
        .select(['sequence', 'occurred_at'])
        .where('sequence', '>', Number(counter.purged_through))
        .orderBy('sequence')
        .limit(PURGE_STEP)
        .execute();
      let through: number | undefined;
      for (const row of oldest) {
        if (Number(row.occurred_at) >= cutoff) break;
        through = Number(row.sequence);
      }
      if (through === undefined) return { count: 0, more: false };
      const result = await trx.deleteFrom('events').where('sequence', '<=', through).executeTakeFirst();
      await trx.updateTable('event_counter').set({ purged_through: through }).where('id', '=', 1).execute();
      return { count: Number(result.numDeletedRows), more: through === Number(oldest[oldest.length - 1]!.sequence) };
    });
    deleted += step.count;
    if (!step.more) return deleted;
  }
}

/**
 * The feed's background work in every service process: numbering committed events
 * (PostgreSQL; one process at a time does a pass) and the retention purge. Stopped by `stop`.
 */
export function startEventUpkeep(
  handle: DbHandle,
  retentionDays: number,
  log: FastifyBaseLogger,
): { stop(): Promise<void> } {
  let pass: Promise<void> | undefined;
  let stopped = false;
  // One pass at a time per process: a tick that finds the last one still running skips.
  const sequence = setInterval(() => {
    if (pass !== undefined || stopped) return;
    pass = sequencePending(handle)
      .catch((error) => log.warn({ err: error }, 'numbering the change feed failed'))
      .finally(() => (pass = undefined));
  }, SEQUENCE_EVERY_MS);
  const purge = setInterval(() => {
    purgeExpiredEvents(handle, Date.now(), retentionDays)
      .then((count) => count > 0 && log.info({ events: count }, 'purged change-feed events past their retention'))
      .catch((error) => log.warn({ err: error }, 'purging the change feed failed'));
  }, PURGE_EVERY_MS);
  sequence.unref();
  purge.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(sequence);
      clearInterval(purge);
      await pass;
    },
  };
}
