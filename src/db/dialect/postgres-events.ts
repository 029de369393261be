import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { EventSequencing } from './types.js';

/** Events one pass numbers at most: a pass is one short transaction, whatever the backlog. */
const PASS_SIZE = 10_000;

/**
 * The change feed's sequencer on PostgreSQL (migration 0027, PRODUCT §9). Concurrent writers
 * insert their events in one order (`id`) and commit in another, so an event is numbered only
 * once its transaction has committed: a pass numbers the committed, unnumbered events it
 * sees, in id order, after the counter's last number, in one statement that also moves the
 * counter — so a reader that sees the counter at N sees every event up to N.
 *
 * Why this is commit order: a pass sees every transaction that committed before its snapshot,
 * so a transaction committed later is numbered in the same pass or a later one, never an
 * earlier one. Within one pass, events are numbered in insert order. Two changes of the same
 * row cannot be out of commit order there either: the second writer waited for the first's
 * row lock, which is held to its commit, before it wrote the row and its event, so its event
 * has the higher id (the engine writes stock.changed after taking its balances' turns). Only
 * changes of different records that commit within one pass may be numbered in either order,
 * which nobody can tell from their effects.
 *
 * One sequencer at a time in the database schema (an advisory lock; a process that finds it
 * taken leaves the pass to the holder).
 */
export const postgresEventSequencing: EventSequencing = {
  async sequence(db: Kysely<Database>, options: { wait?: boolean } = {}): Promise<number> {
    let total = 0;
    // A full pass may leave events that committed before it: passes go on until one is not full.
    for (;;) {
      const numbered = await pass(db, options.wait === true);
      total += numbered;
      if (numbered < PASS_SIZE) return total;
    }
  },

  async lastSequence(db: Kysely<Database>): Promise<number> {
    const row = await db.selectFrom('event_counter').select('last_sequence').where('id', '=', 1).executeTakeFirst();
    return Number(row?.last_sequence ?? 0);
  },

  async pending(db: Kysely<Database>): Promise<boolean> {
    const { rows } = await sql`select 1 from events where sequence is null limit 1`.execute(db);
    return rows.length > 0;
  },
};

/**
 * One pass in its own transaction: numbers at most PASS_SIZE events. Without `wait` it leaves
 * a turn another process holds to that process (0); with it, it waits for the turn (a pass is
 * one short statement), so its own snapshot, taken after the wait, sees every commit before
 * the call.
 */
async function pass(db: Kysely<Database>, wait: boolean): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (wait) {
      await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ':event sequencer'))`.execute(trx);
    } else {
      const { rows: turn } = await sql<{
        taken: boolean;
      }>`select pg_try_advisory_xact_lock(hashtext(current_schema() || ':event sequencer')) as taken`.execute(trx);
      if (!turn[0]?.taken) return 0;
    }
    const { rows } = await sql<{ numbered: string }>`
      with pending as (
        select id, row_number() over (order by id) as n from events where sequence is null order by id limit ${PASS_SIZE}
      ), counter as (
        select last_sequence from event_counter where id = 1
      ), numbered as (
        update events e set sequence = counter.last_sequence + pending.n, occurred_at = (extract(epoch from clock_timestamp()) * 1000)::bigint
        from pending, counter where e.id = pending.id
        returning e.sequence
      )
      update event_counter set last_sequence = coalesce((select max(sequence) from numbered), last_sequence)
      where id = 1
      returning (select count(*) from numbered) as numbered`.execute(trx);
    return Number(rows[0]?.numbered ?? 0);
  });
}
