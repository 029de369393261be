import type { AppContext } from '../../app-context.js';
import type { DbHandle } from '../../db/dialect/types.js';
import { formatDateTime } from '../../domain/datetime.js';
import { visibleStores, type Principal } from '../../shared/access.js';
import { AppError, validationFailed } from '../../shared/errors.js';
import { purgedThrough, readEvents, type EventRow } from './repository.js';
import { EVENT_TYPES, type Event, type EventsPage, type EventsQuery } from './schema.js';

/**
 * Sequences one page looks through at most: a narrow filter (one type, one store) costs a
 * bounded read per page, and the page answers what it found with `next_after` at the end of
 * the stretch it read — possibly no events at all.
 */
export const SCAN_WINDOW = 10_000;

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

/** The `types` filter as a list, every word a known type (400 naming `types` otherwise). */
export function parseTypes(text: string | undefined, path = 'query.types'): string[] | undefined {
  if (text === undefined) return undefined;
  const types = [...new Set(text.split(','))];
  const unknown = types.filter((type) => !KNOWN_TYPES.has(type));
  if (unknown.length > 0) {
    throw validationFailed(`Unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, [
      { path, message: `must name event types among: ${EVENT_TYPES.join(', ')}` },
    ]);
  }
  return types;
}

/**
 * Numbers what committed since the sequencer's last pass (PostgreSQL; nothing to do on
 * SQLite). With `waitForTurn` (a read, a new webhook's cursor), every write committed before
 * the call is numbered when it returns: when another process holds the sequencer's turn, its
 * pass may have taken its snapshot before that commit, so this waits for the turn and makes a
 * pass of its own (dialect `events.sequence`). The background pass (events/upkeep.ts) leaves a
 * taken turn to its holder and comes back in 100 ms.
 */
export async function sequencePending(handle: DbHandle, options: { waitForTurn?: boolean } = {}): Promise<void> {
  const { events } = handle.dialect;
  if (await events.pending(handle.db)) await events.sequence(handle.db, { wait: options.waitForTurn === true });
}

/** One page of the feed after `after` (PRODUCT §9). */
export async function listEvents(ctx: AppContext, principal: Principal, query: EventsQuery): Promise<EventsPage> {
  const after = query.after ?? 0;
  const limit = query.limit ?? 100;
  const types = parseTypes(query.types);
  await sequencePending(ctx.handle, { waitForTurn: true });
  const last = await ctx.dialect.events.lastSequence(ctx.db);
  if (after > last) {
    throw validationFailed(`No event has sequence ${after} yet: the last one is ${last}`, [
      { path: 'query.after', message: `must be at most ${last}, the last sequence given` },
    ]);
  }
  const through = Math.min(last, after + SCAN_WINDOW);
  const rows = await readEvents(ctx.db, {
    after,
    through,
    limit,
    types,
    stores: visibleStores(principal) ?? undefined,
  });
  // Read after the rows: a purge that committed before them is seen here (and is a 410).
  const purged = await purgedThrough(ctx.db);
  if (after < purged) throw gone(after, purged);
  return {
    events: rows.map((row) => asReadBy(eventOf(row), principal)),
    next_after: rows.length === limit ? rows[rows.length - 1]!.sequence : through,
    server_time: formatDateTime(Date.now()),
  };
}

/**
 * A blind counting assignment's variance is not a store token's to see until it is submitted
 * (PRODUCT §10 Blind): left out of its `counting_assignment.changed` payloads for them.
 */
function asReadBy(event: Event, principal: Principal): Event {
  if (event.type !== 'counting_assignment.changed' || principal.role !== 'store') return event;
  const data = event.data as { blind?: boolean; status?: string; progress?: Record<string, unknown> };
  if (data.blind !== true || data.status === 'submitted' || data.status === 'closed' || !data.progress) return event;
  const { variance_quantity: _quantity, variance_value: _value, ...progress } = data.progress;
  return { ...event, data: { ...data, progress } };
}

export function gone(after: number, purged: number): AppError {
  return new AppError(
    'GONE',
    `Events after ${after} are no longer kept: the oldest event kept is sequence ${purged + 1}; read on from after=${purged}`,
    [{ path: 'query.after', message: `must be at least ${purged}: the oldest event kept is sequence ${purged + 1}` }],
  );
}

export function eventOf(row: EventRow): Event {
  return {
    sequence: row.sequence,
    type: row.type,
    occurred_at: formatDateTime(row.occurred_at),
    store_number: row.store_number,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
