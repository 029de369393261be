import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/dialect/types.js';
import { formatDateTime, formatOptionalDateTime } from '../../domain/datetime.js';
import type { Principal } from '../../shared/access.js';
import { AppError, notFound, unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { purgedThrough } from '../events/repository.js';
import { EVENT_TYPES } from '../events/schema.js';
import { sequencePending } from '../events/service.js';
import * as subscriptions from './repository.js';
import {
  PENDING_COUNT_CAP,
  type CreatedSubscription,
  type CreateWebhookBody,
  type Subscription,
  type SubscriptionList,
} from './schema.js';
import { generateSecret, refusedSecret } from './secret.js';
import { checkWebhookUrl } from './url-check.js';

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

const unique = (values: readonly string[]) => [...new Set(values)];

/**
 * POST /webhooks (PRODUCT §9). What the request alone can refute — the URL (scheme, and every
 * address its host resolves to), the secret, the event types — is one 400 naming every
 * failing field; stores that do not exist are then a 422 naming each (PRODUCT §3). The
 * subscription starts at the feed's current end: it receives what happens after it exists
 * (an event committing while it is made may come along — never the other way round). The
 * secret is answered here and never again.
 */
export async function createSubscription(
  handle: DbHandle,
  config: Config,
  principal: Principal,
  body: CreateWebhookBody,
): Promise<CreatedSubscription> {
  const problems: FieldError[] = [];
  const urlProblem = await checkWebhookUrl(body.url, { allowPrivate: config.webhooksAllowPrivate ?? false });
  if (urlProblem !== undefined) problems.push({ path: 'url', message: urlProblem });
  if (body.secret !== undefined) {
    const secretProblem = refusedSecret(body.secret);
    if (secretProblem !== undefined) problems.push({ path: 'secret', message: secretProblem });
  }
  (body.types ?? []).forEach((type, index) => {
    if (!KNOWN_TYPES.has(type))
      problems.push({
        path: `types[${index}]`,
        message: `unknown event type '${type}': must be one of ${EVENT_TYPES.join(', ')}`,
      });
  });
  if (problems.length > 0) throw validationFailed('The webhook subscription is not valid', problems);

  const stores = body.stores == null ? null : unique(body.stores);
  if (stores !== null) {
    const live = await subscriptions.liveStores(handle.db, stores);
    const unknown = (body.stores ?? []).flatMap((store, index) =>
      live.has(store) ? [] : [{ path: `stores[${index}]`, message: `unknown store '${store}'` }],
    );
    if (unknown.length > 0) throw unprocessable('The webhook subscription names unknown stores', unknown);
  }
  const secret = body.secret ?? generateSecret();
  if (handle.requestScope === undefined) await numberCommitted(handle);
  const afterSequence = await handle.dialect.events.lastSequence(handle.db);
  const row = await subscriptions.insertSubscription(handle.db, {
    url: body.url,
    types: body.types == null ? null : unique(body.types),
    stores,
    secret,
    afterSequence,
    now: Date.now(),
    createdBy: principal.name,
  });
  return { ...subscriptionOf(row, 0), secret };
}

export async function listSubscriptions(handle: DbHandle): Promise<SubscriptionList> {
  const rows = await subscriptions.listSubscriptionRows(handle.db);
  const last = await handle.dialect.events.lastSequence(handle.db);
  return {
    webhooks: await Promise.all(rows.map(async (row) => subscriptionOf(row, await pendingEvents(handle, row, last)))),
  };
}

export async function getSubscription(handle: DbHandle, id: number): Promise<Subscription> {
  const row = await requireSubscription(handle, id);
  return subscriptionOf(row, await pendingEvents(handle, row, await handle.dialect.events.lastSequence(handle.db)));
}

export async function deleteSubscription(handle: DbHandle, id: number): Promise<{ success: true; message: string }> {
  if (!(await subscriptions.deleteSubscription(handle.db, id))) throw missing(id);
  return { success: true, message: `deleted webhook subscription ${id}` };
}

/** POST /webhooks/{id}/resume and `store-ops webhooks resume`: active, its failures forgotten, due now. */
export async function resumeSubscription(handle: DbHandle, id: number): Promise<Subscription> {
  if (!(await subscriptions.resumeSubscription(handle.db, id, Date.now()))) throw missing(id);
  return getSubscription(handle, id);
}

/**
 * `store-ops webhooks replay <id> --from <sequence>`: the subscription's next batch starts with
 * the first matching event whose sequence is `from` or more (its cursor moves to from − 1),
 * whether that is back (redeliver) or ahead (skip). The batch in flight is dropped; the status
 * stays (a paused subscription still needs resume). `from` may be at most one past the feed's
 * last sequence, and not before the oldest event retention kept.
 */
export async function replaySubscription(handle: DbHandle, id: number, from: number): Promise<Subscription> {
  await requireSubscription(handle, id);
  const purged = await purgedThrough(handle.db);
  const last = await handle.dialect.events.lastSequence(handle.db);
  if (from - 1 < purged)
    throw validationFailed(
      `Events before ${purged + 1} are no longer kept (retention): --from must be at least ${purged + 1}`,
    );
  if (from - 1 > last)
    throw validationFailed(
      `No event has sequence ${from - 1} yet: the last one is ${last}, so --from may be at most ${last + 1}`,
    );
  await subscriptions.moveCursor(handle.db, id, from - 1, Date.now());
  return getSubscription(handle, id);
}

/**
 * Numbers what committed before this request (PostgreSQL), so it lies behind the new cursor.
 * Inside a request's own transaction (an Idempotency-Key) the sequencer's pass sees only what
 * that transaction's snapshot saw: events of the moments before the subscription may then
 * come along.
 */
const numberCommitted = (handle: DbHandle): Promise<void> => sequencePending(handle, { waitForTurn: true });

async function requireSubscription(handle: DbHandle, id: number): Promise<subscriptions.SubscriptionRow> {
  const row = await subscriptions.findSubscription(handle.db, id);
  if (row === undefined) throw missing(id);
  return row;
}

const missing = (id: number): AppError => notFound(`No webhook subscription ${id}`);

function pendingEvents(handle: DbHandle, row: subscriptions.SubscriptionRow, last: number): Promise<number> {
  return subscriptions.countMatchingEvents(
    handle.db,
    row.after_sequence,
    last,
    subscriptions.filterOf(row),
    PENDING_COUNT_CAP,
  );
}

/** A row as the API shows it: everything but the secret and the lease. */
export function subscriptionOf(row: subscriptions.SubscriptionRow, pending: number): Subscription {
  return {
    id: row.id,
    url: row.url,
    types: row.types === null ? null : (JSON.parse(row.types) as string[]),
    stores: row.stores === null ? null : (JSON.parse(row.stores) as string[]),
    status: row.status === 'paused' ? 'paused' : 'active',
    after_sequence: row.after_sequence,
    pending_events: pending,
    last_error: row.last_error,
    last_error_at: formatOptionalDateTime(row.last_error_at) ?? null,
    failing_since: formatOptionalDateTime(row.failing_since) ?? null,
    last_delivered_at: formatOptionalDateTime(row.last_delivered_at) ?? null,
    delivered_events: row.delivered_events,
    next_attempt_at: formatDateTime(row.next_attempt_at),
    created_at: formatDateTime(row.created_on),
    created_by: row.created_by,
  };
}
