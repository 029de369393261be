import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database, WebhookSubscriptionTable } from '../../db/schema.js';

/**
 * Webhook subscriptions as stored (migration 0027). Every number comes back as a JS number
 * (PostgreSQL's bigint columns arrive as text). The delivery state's conditional updates —
 * the lease and the batch in flight — are in delivery-state.ts.
 */

export type SubscriptionRow = Selectable<WebhookSubscriptionTable>;

const NUMERIC = [
  'id',
  'after_sequence',
  'batch_through',
  'attempts',
  'next_attempt_at',
  'failing_since',
  'last_error_at',
  'last_delivered_at',
  'delivered_events',
  'lease_until',
  'created_on',
  'updated_on',
] as const;

export function numericRow(row: SubscriptionRow): SubscriptionRow {
  const converted: Record<string, unknown> = { ...row };
  for (const column of NUMERIC) {
    const value = row[column];
    converted[column] = value === null ? null : Number(value);
  }
  return converted as SubscriptionRow;
}

export interface NewSubscription {
  url: string;
  types: readonly string[] | null;
  stores: readonly string[] | null;
  secret: string;
  afterSequence: number;
  now: number;
  createdBy: string;
}

export async function insertSubscription(db: Kysely<Database>, input: NewSubscription): Promise<SubscriptionRow> {
  const row = await db
    .insertInto('webhook_subscriptions')
    .values({
      url: input.url,
      types: input.types === null ? null : JSON.stringify(input.types),
      stores: input.stores === null ? null : JSON.stringify(input.stores),
      secret: input.secret,
      status: 'active',
      after_sequence: input.afterSequence,
      batch_through: null,
      attempts: 0,
      next_attempt_at: input.now,
      failing_since: null,
      last_error: null,
      last_error_at: null,
      last_delivered_at: null,
      lease_owner: null,
      lease_until: null,
      created_on: input.now,
      created_by: input.createdBy,
      updated_on: input.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return numericRow(row);
}

export async function findSubscription(db: Kysely<Database>, id: number): Promise<SubscriptionRow | undefined> {
  const row = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : numericRow(row);
}

export async function listSubscriptionRows(db: Kysely<Database>): Promise<SubscriptionRow[]> {
  return (await db.selectFrom('webhook_subscriptions').selectAll().orderBy('id').execute()).map(numericRow);
}

export async function deleteSubscription(db: Kysely<Database>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Active again and due now, its run of failures forgotten. The batch in flight stays: the
 * next attempt re-sends it under the same webhook-id. The lease is left to its holder.
 */
export async function resumeSubscription(db: Kysely<Database>, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({ status: 'active', attempts: 0, failing_since: null, next_attempt_at: now, updated_on: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Moves the cursor (store-ops webhooks replay): the next batch starts after `afterSequence`.
 * The batch in flight is dropped, and with it the sender's right to acknowledge it
 * (delivery-state.ts acknowledges only the batch it fixed); the status stays as it is.
 */
export async function moveCursor(
  db: Kysely<Database>,
  id: number,
  afterSequence: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set({
      after_sequence: afterSequence,
      batch_through: null,
      attempts: 0,
      failing_since: null,
      next_attempt_at: now,
      updated_on: now,
    })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The live stores among `storeNumbers` (a subscription may name only those: 422 otherwise). */
export async function liveStores(db: Kysely<Database>, storeNumbers: readonly string[]): Promise<Set<string>> {
  if (storeNumbers.length === 0) return new Set();
  const rows = await db
    .selectFrom('stores')
    .select('store_number')
    .where('store_number', 'in', storeNumbers)
    .where('deleted_on', 'is', null)
    .execute();
  return new Set(rows.map((row) => row.store_number));
}

/** What a subscription receives: its types (undefined: all) and stores (undefined: all; chain-wide events always). */
export interface EventFilter {
  types?: readonly string[];
  stores?: readonly string[];
}

/** A subscription's filter as stored: JSON arrays, null for every type or store. */
export function filterOf(row: Pick<SubscriptionRow, 'types' | 'stores'>): EventFilter {
  return {
    types: row.types === null ? undefined : (JSON.parse(row.types) as string[]),
    stores: row.stores === null ? undefined : (JSON.parse(row.stores) as string[]),
  };
}

/** The feed's rule for a filter (events/repository.ts readEvents applies the same): chain-wide events pass every store filter. */
function matching<O>(query: SelectQueryBuilder<Database, 'events', O>, filter: EventFilter) {
  let filtered = query;
  if (filter.types !== undefined) filtered = filtered.where('type', 'in', filter.types);
  const stores = filter.stores;
  if (stores !== undefined)
    filtered = filtered.where((eb) => eb.or([eb('store_number', 'is', null), eb('store_number', 'in', stores)]));
  return filtered;
}

/** Matching events in (after, through], counted up to `cap` (one index range scan, stopped at the cap). */
export async function countMatchingEvents(
  db: Kysely<Database>,
  after: number,
  through: number,
  filter: EventFilter,
  cap: number,
): Promise<number> {
  if (through <= after) return 0;
  const window = matching(
    db.selectFrom('events').select('sequence').where('sequence', '>', after).where('sequence', '<=', through),
    filter,
  ).limit(cap);
  const row = await db
    .selectFrom(window.as('w'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
