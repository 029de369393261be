import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int, Quantity, Str } from '../../shared/schemas.js';

/** Master data whose records are upserted and deleted (PRODUCT §9): `<resource>.upserted` / `.deleted`. */
export const MASTER_RESOURCES = [
  'store',
  'product',
  'category',
  'reason_code',
  'price',
  'discount',
  'location',
  'store_product',
  'product_list',
] as const;

/** Every event type the feed carries (migration 0027's triggers and ledger/stock-events.ts write them). */
export const EVENT_TYPES = [
  'stock.changed',
  'receipt.created',
  'receipt.changed',
  'delivery.changed',
  'customer_order.changed',
  'counting_assignment.changed',
  ...MASTER_RESOURCES.flatMap((resource) => [`${resource}.upserted`, `${resource}.deleted`]),
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Most events one page carries (PRODUCT §9). */
export const MAX_EVENTS_PAGE = 1000;

/** A comma-separated list of event types: checked against EVENT_TYPES by the service (400 naming `types`). */
export const TypesFilter = Str(2000, {
  pattern: '^[a-z_.]+(,[a-z_.]+)*$',
  description: 'Comma-separated event types, e.g. stock.changed,product.upserted',
});

export const EventsQuery = Type.Object({
  after: Type.Optional(
    Int({ minimum: 0, description: 'The last sequence already seen (0, the default: from the oldest event kept)' }),
  ),
  limit: Type.Optional(Int({ minimum: 1, maximum: MAX_EVENTS_PAGE, default: 100 })),
  types: Type.Optional(TypesFilter),
});
export type EventsQuery = Static<typeof EventsQuery>;

/** `stock.changed` data (PRODUCT §9): one balance after a booking. */
export const StockChangedData = Type.Object({
  product_number: Type.String(),
  location_code: Type.Union([Type.String(), Type.Null()]),
  pool: Type.Integer(),
  customer_order_number: Type.Union([Type.String(), Type.Null()]),
  quantity: Quantity({ description: 'The balance after the change' }),
  log_entry_ids: Type.Array(Type.Integer(), { description: 'The stock log entries that changed it, in booking order' }),
});

export const Event = Type.Object({
  sequence: Type.Integer({ description: 'Position in the feed: ascending in commit order, without gaps' }),
  type: Type.String({ description: `One of: ${EVENT_TYPES.join(', ')}` }),
  occurred_at: DateTime({ description: 'When the change committed (UTC)' }),
  store_number: Type.Union([Type.String(), Type.Null()], {
    description: 'The store of a store-scoped record; null for chain-wide master data',
  }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'stock.changed: {product_number, location_code, pool, customer_order_number, quantity, log_entry_ids}; other types: the natural keys of the record (docs/events.md)',
  }),
});
export type Event = Static<typeof Event>;

export const EventsPage = Type.Object({
  events: Type.Array(Event),
  next_after: Type.Integer({
    description: 'Pass as `after` for the next page; may move past events a filter left out',
  }),
  server_time: DateTime(),
});
export type EventsPage = Static<typeof EventsPage>;
