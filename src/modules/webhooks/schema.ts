import { Type, type Static } from '@sinclair/typebox';
import { DateTime, NULL_MEANS_ABSENT, Str, TextId } from '../../shared/schemas.js';
import { EVENT_TYPES } from '../events/schema.js';
import { MAX_URL_LENGTH } from './url-check.js';

/** Most event types or stores one subscription lists. */
const MAX_FILTER_ITEMS = 1000;
/** pending_events counts up to this many (PRODUCT §9: a backlog's size, not an exact figure past it). */
export const PENDING_COUNT_CAP = 10_000;

export const CreateWebhookBody = Type.Object({
  url: Str(MAX_URL_LENGTH, {
    minLength: 1,
    description:
      'Where deliveries are POSTed: http or https; private, loopback and link-local addresses are refused unless WEBHOOKS_ALLOW_PRIVATE=true',
  }),
  types: Type.Optional(
    Type.Union([Type.Array(Str(64), { minItems: 1, maxItems: MAX_FILTER_ITEMS }), Type.Null()], {
      description: `Event types to deliver (null or absent: every type). Known types: ${EVENT_TYPES.join(', ')}`,
      [NULL_MEANS_ABSENT]: true,
    }),
  ),
  stores: Type.Optional(
    Type.Union([Type.Array(TextId(64), { minItems: 1, maxItems: MAX_FILTER_ITEMS }), Type.Null()], {
      description:
        'Store numbers whose events to deliver, besides chain-wide master data (store_number null); null or absent: every store',
      [NULL_MEANS_ABSENT]: true,
    }),
  ),
  secret: Type.Optional(
    Str(200, {
      description:
        "Signing secret: 'whsec_' and the standard base64 of 24 to 64 bytes. Absent: one is generated (32 bytes). Shown only in this answer",
    }),
  ),
});
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

/** Path values are text: the id is checked as digits and read as a number. */
export const WebhookParams = Type.Object({
  id: Str(15, { pattern: '^[1-9][0-9]*$', description: 'The subscription id' }),
});

const OptionalDateTime = (description: string) => Type.Union([DateTime(), Type.Null()], { description });

/** A subscription as the API and the console show it: never its secret (PRODUCT §9). */
export const Subscription = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  types: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Event types delivered; null: every type',
  }),
  stores: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Stores whose events are delivered (and chain-wide master data); null: every store',
  }),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused')], {
    description:
      'paused: deliveries failed for 24 h; nothing is sent until it is resumed (POST /webhooks/{id}/resume or store-ops webhooks resume)',
  }),
  after_sequence: Type.Integer({
    description: 'Every matching event up to this sequence has been acknowledged by the receiver',
  }),
  pending_events: Type.Integer({
    description: `Matching events after after_sequence up to the feed's last sequence, counted up to ${PENDING_COUNT_CAP.toLocaleString('en')}: that figure means at least as many`,
  }),
  last_error: Type.Union([Type.String(), Type.Null()], {
    description: 'The last failed attempt: HTTP status and the start of the answer, a timeout or a connection error',
  }),
  last_error_at: OptionalDateTime('When the last failed attempt ended'),
  failing_since: OptionalDateTime(
    'The first failure of the current run of failures (null: the last attempt succeeded); 24 h of them pause the subscription',
  ),
  last_delivered_at: OptionalDateTime('When the receiver last acknowledged a batch'),
  delivered_events: Type.Integer({ description: 'Events acknowledged by the receiver so far' }),
  next_attempt_at: DateTime({ description: 'When the next delivery is due (retries wait with exponential backoff)' }),
  created_at: DateTime(),
  created_by: Type.String({ description: 'The token that created it' }),
});
export type Subscription = Static<typeof Subscription>;

export const CreatedSubscription = Type.Composite([
  Subscription,
  Type.Object({ secret: Type.String({ description: 'The signing secret, shown only in this answer' }) }),
]);
export type CreatedSubscription = Static<typeof CreatedSubscription>;

export const SubscriptionList = Type.Object({ webhooks: Type.Array(Subscription) });
export type SubscriptionList = Static<typeof SubscriptionList>;
