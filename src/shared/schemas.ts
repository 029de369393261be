import { Type, type TSchema, type StringOptions } from '@sinclair/typebox';
import { MAX_QUANTITY_MILLI, MONEY_DECIMALS, QUANTITY_DECIMALS } from '../domain/decimal.js';

/**
 * Building blocks every route schema is made of. Each states its limits, so hostile
 * input (over-long strings, unsafe integers, non-finite numbers, huge arrays) fails
 * validation with a 400 and the published limit shows in the OpenAPI document.
 */

export const MAX_BULK_ITEMS = 10_000;
export const DEFAULT_MAX_STRING = 255;

/**
 * Largest magnitude of a quantity: at most 15 significant digits with its decimals, the
 * most a JSON number carries exactly, and scaled it still fits a safe integer. The same
 * range bounds every quantity the service keeps (sums included: domain/decimal.ts).
 */
const MAX_DECIMAL_MAGNITUDE = MAX_QUANTITY_MILLI / 1000;
/** Money has one decimal more, so one integer digit less (15 significant digits). */
const MAX_MONEY_MAGNITUDE = 99_999_999_999;

export const Str = (maxLength = DEFAULT_MAX_STRING, options: StringOptions = {}) =>
  Type.String({ maxLength, ...options });

/**
 * Marks a text field that also takes a JSON integer. The spec types ids and codes as strings
 * (product_number, store_number, barcodes, §4.11's movement reason_code), but ERPs often send
 * them as numbers; PRODUCT §3 coerces text parts of a request, and for these fields the body
 * does the same: the body validator (shared/validation.ts) turns a non-negative safe integer
 * into its decimal text before the field is checked, so what is stored and echoed is always
 * the string. Decimals, negatives and integers beyond 2^53 stay refused ("must be string"):
 * JSON.parse has already altered a 17-digit number, and `1.10` has no single text form.
 * Never the reverse: a number field does not take a string. Where it applies: docs/decisions.md.
 */
export const INTEGER_AS_TEXT = 'x-integer-as-text';

/** An id or code: text of at most `maxLength` characters, or a JSON integer taken as its text. */
export const TextId = (maxLength = 64, options: StringOptions = {}) =>
  Type.String({ maxLength, ...options, [INTEGER_AS_TEXT]: true });

export const Int = (options: { minimum?: number; maximum?: number; description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, ...options });

/** A quantity, exact to 3 decimals (PRODUCT §3). */
export const Quantity = (options: { minimum?: number; description?: string } = {}) =>
  Type.Number({
    minimum: -MAX_DECIMAL_MAGNITUDE,
    maximum: MAX_DECIMAL_MAGNITUDE,
    maxDecimals: QUANTITY_DECIMALS,
    ...options,
  });

/** An amount of money, exact to 4 decimals (PRODUCT §3). */
export const Money = (options: { minimum?: number; description?: string } = {}) =>
  Type.Number({ minimum: -MAX_MONEY_MAGNITUDE, maximum: MAX_MONEY_MAGNITUDE, maxDecimals: MONEY_DECIMALS, ...options });

/** A plain finite number with a stated range (e.g. weights, multipliers). */
export const Num = (options: { minimum?: number; maximum?: number; description?: string } = {}) =>
  Type.Number({ minimum: -MAX_DECIMAL_MAGNITUDE, maximum: MAX_DECIMAL_MAGNITUDE, ...options });

/** What the OpenAPI document says of every date-time (`format: date-time` alone implies RFC 3339's required offset). */
const DATE_TIME_TEXT = 'ISO 8601; without Z or an offset it is read as UTC; emitted as YYYY-MM-DDTHH:mm:ss.sssZ';
const withDateTimeText = (description: string | undefined) =>
  description ? `${description}. ${DATE_TIME_TEXT}` : DATE_TIME_TEXT;

/**
 * A date-time (PRODUCT §3): ISO 8601 with `Z`, an offset, or neither (then read as UTC:
 * `2026-06-15T06:30:24.557`), within 0001-01-01 … 9999-12-31 once in UTC — the strict
 * `date-time` format (domain/datetime.ts parseDateTime) refuses the rest. Emitted with `Z`.
 */
export const DateTime = (options: StringOptions = {}) =>
  Type.String({ format: 'date-time', maxLength: 40, ...options, description: withDateTimeText(options.description) });

/**
 * Marks an optional field that takes `null` where the API reads `null` exactly as the field
 * left out (webhook filters: "null or absent: every type"). The idempotency hash then counts
 * the two as one request (plugins/request-meaning.ts); where `null` means something of its
 * own (a store product's field: null clears, absent keeps) the field is not marked.
 */
export const NULL_MEANS_ABSENT = 'x-null-means-absent';

/** Marks a date-time that names the moment an event happened (see EventDateTime). */
export const EVENT_TIME = 'eventTime';

/**
 * The moment an event happened (PRODUCT §3 "Date-times"): a stock entry's
 * `modification_datetime` and `scanned_datetime`, a count's `CountingDateTime`. Besides being
 * a date-time it may lie at most 5 minutes after the server's clock, judged when the request
 * is validated (the `eventTime` keyword, shared/validation.ts): a future count would absorb
 * every entry booked before its moment. Every event-time field is declared with this, so the
 * rule has one place; which fields are event times: docs/decisions.md.
 */
export const EventDateTime = (options: StringOptions = {}) =>
  Type.String({
    format: 'date-time',
    maxLength: 40,
    ...options,
    [EVENT_TIME]: true,
    description: `${withDateTimeText(options.description)}. An event time: at most 5 minutes after the server's clock`,
  });

/** Stock pool numbers 1 to 10 (interface §1). */
export const PoolNumber = (options: { description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: 1, maximum: 10, ...options });

/** A bulk array: at most 10,000 items per request (PRODUCT §3 Limits). */
export const BulkArray = <T extends TSchema>(item: T, options: { minItems?: number; description?: string } = {}) =>
  Type.Array(item, { maxItems: MAX_BULK_ITEMS, ...options });

/** A small nested array inside one record. */
export const SmallArray = <T extends TSchema>(item: T, maxItems = 100) => Type.Array(item, { maxItems });

export const Ack = Type.Object(
  {
    success: Type.Boolean(),
    data: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  },
  { $id: undefined, description: 'Ack envelope (interface §1.2)' },
);

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { description: 'Error envelope (PRODUCT §3), Ack-compatible' },
);

/**
 * `flush=true` replaces the whole set (PRODUCT §3). The default is declared, so a request
 * without `flush` and one with `flush=false` validate alike: one request by meaning (Idempotency-Key).
 */
export const FlushQuery = Type.Object({
  flush: Type.Optional(
    Type.Boolean({ default: false, description: 'true: records absent from the request are soft-deleted' }),
  ),
});

export const PageQueryProperties = {
  page_size: Type.Optional(Int({ description: 'Items per page; default 100, clamped to 1..1000' })),
  page_start: Type.Optional(Int({ description: '1-based page number; default 1' })),
  scroll_id: Type.Optional(Str(512, { description: 'Opaque cursor from a previous page; continues after it' })),
};

/** PagedResponse of X (interface §1.1, PRODUCT §3.1). */
export const PagedResponse = <T extends TSchema>(item: T) =>
  Type.Object({
    page_size: Type.Integer(),
    page_start: Type.Integer(),
    total_count: Type.Integer(),
    list: Type.Array(item),
    list_body: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    list_filters: Type.Record(Type.String(), Type.Array(Type.String())),
    next_page: Type.Union([Type.Integer(), Type.Null()]),
    previous_page: Type.Union([Type.Integer(), Type.Null()]),
    project_last_modified_date: Type.Union([Type.String(), Type.Null()]),
    scroll_id: Type.Union([Type.String(), Type.Null()]),
    server_time: Type.String(),
    sort_column: Type.String(),
    sort_order: Type.String(),
    task_last_modified_date: Type.Union([Type.String(), Type.Null()]),
  });

export const StoreNumberParams = Type.Object({ store_number: Str(64) });

/**
 * `Accept-Language` (interface §4.2 location product reads): accepted so clients that send it
 * see it documented; answers carry no translated text, so it changes nothing.
 */
export const AcceptLanguageHeaders = Type.Object({
  'accept-language': Type.Optional(Str(255, { description: 'Accepted; the answer is the same in every language' })),
});
