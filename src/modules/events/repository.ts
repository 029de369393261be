import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface EventRow {
  sequence: number;
  type: string;
  store_number: string | null;
  occurred_at: number;
  data: string;
}

export interface EventRange {
  /** Events after this sequence … */
  after: number;
  /** … up to and including this one. */
  through: number;
  limit: number;
  /** Only these types (undefined: every type). */
  types?: readonly string[];
  /** Only events of these stores and chain-wide ones (undefined: every store). */
  stores?: readonly string[];
}

/** Numbered events of a range in sequence order, filtered (one index range scan on `sequence`). */
export async function readEvents(db: Kysely<Database>, range: EventRange): Promise<EventRow[]> {
  let query = db
    .selectFrom('events')
    .select(['sequence', 'type', 'store_number', 'occurred_at', 'data'])
    .where('sequence', '>', range.after)
    .where('sequence', '<=', range.through);
  if (range.types !== undefined) query = query.where('type', 'in', range.types);
  const stores = range.stores;
  if (stores !== undefined) {
    query = query.where((eb) =>
      stores.length === 0
        ? eb('store_number', 'is', null)
        : eb.or([eb('store_number', 'is', null), eb('store_number', 'in', stores)]),
    );
  }
  const rows = await query.orderBy('sequence').limit(range.limit).execute();
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence), occurred_at: Number(row.occurred_at) }));
}

/** The last sequence purged by retention (a cursor before it is gone). */
export async function purgedThrough(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('event_counter').select('purged_through').where('id', '=', 1).executeTakeFirst();
  return Number(row?.purged_through ?? 0);
}
