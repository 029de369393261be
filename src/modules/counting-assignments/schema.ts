import { Type, type Static } from '@sinclair/typebox';
import { ASSIGNMENT_STATUSES } from '../../domain/counting.js';
import {
  BulkArray,
  DateTime,
  EventDateTime,
  Int,
  Money,
  PageQueryProperties,
  PagedResponse,
  PoolNumber,
  Quantity,
  SmallArray,
  Str,
  StoreNumberParams,
  TextId,
} from '../../shared/schemas.js';

/** PRODUCT §10: which store products an assignment counts (any of them; whole_store alone). */
export const Scope = Type.Object(
  {
    counting_assignment_code: Type.Optional(
      TextId(64, { description: 'Store products carrying this counting_assignment_code' }),
    ),
    product_numbers: Type.Optional(BulkArray(TextId(64), { minItems: 1 })),
    category_codes: Type.Optional(SmallArray(TextId(64), 1000)),
    location_codes: Type.Optional(SmallArray(TextId(64), 1000)),
    whole_store: Type.Optional(Type.Boolean()),
  },
  {
    description:
      'Products by code, number or category (their union), restricted to the given locations when any are given; ' +
      'or the locations alone; or whole_store: true alone',
  },
);
export type Scope = Static<typeof Scope>;

export const AssignmentBody = Type.Object({
  counting_assignment_code: Type.Optional(
    TextId(64, { description: "The ERP's key, unique per store while the assignment is not closed or cancelled" }),
  ),
  description: Type.Optional(Str(500)),
  scope: Scope,
  blind: Type.Optional(Type.Boolean({ default: false })),
  kind: Type.Optional(
    Type.Union([Type.Literal('spot'), Type.Literal('full')], {
      default: 'spot',
      description: 'spot: uncounted lines stay as they are; full: uncounted lines are counted as zero at submission',
    }),
  ),
  zero_reason_code: Type.Optional(
    Int({ minimum: 0, description: 'Required for full: a count reason code (type 6) the zeroing entries carry' }),
  ),
  max_variance_quantity: Type.Optional(Quantity({ minimum: 0 })),
  max_variance_value: Type.Optional(Money({ minimum: 0, description: 'At purchase price' })),
  max_variance_percent: Type.Optional(Quantity({ minimum: 0, description: 'Of the level at the count’s moment' })),
  due_datetime: Type.Optional(DateTime()),
  allow_extra_lines: Type.Optional(Type.Boolean({ default: false })),
});
export type AssignmentBody = Static<typeof AssignmentBody>;

const VarianceFields = {
  variance_quantity: Type.Optional(Type.Number({ description: 'Counted − expected over the counted lines' })),
  variance_value: Type.Optional(Type.Number({ description: 'The variance at purchase price' })),
};

export const Progress = Type.Object({
  lines_total: Type.Integer(),
  lines_counted: Type.Integer(),
  lines_remaining: Type.Integer(),
  lines_pending: Type.Integer({ description: 'Lines booked pending review' }),
  ...VarianceFields,
});

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Assignment = Type.Object({
  counting_assignment_id: Type.Integer(),
  counting_assignment_code: Nullable(Type.String()),
  description: Nullable(Type.String()),
  store_number: Type.String(),
  scope: Scope,
  blind: Type.Boolean(),
  kind: Type.String(),
  zero_reason_code: Type.Union([Type.Integer(), Type.Null()]),
  max_variance_quantity: Type.Union([Type.Number(), Type.Null()]),
  max_variance_value: Type.Union([Type.Number(), Type.Null()]),
  max_variance_percent: Type.Union([Type.Number(), Type.Null()]),
  due_datetime: Nullable(Type.String()),
  allow_extra_lines: Type.Boolean(),
  status: Type.String({ description: ASSIGNMENT_STATUSES.join(' | ') }),
  progress: Progress,
  started_datetime: Nullable(Type.String()),
  submitted_datetime: Nullable(Type.String()),
  closed_datetime: Nullable(Type.String()),
  cancelled_datetime: Nullable(Type.String()),
  created_on: Type.String(),
  updated_on: Type.String(),
  created_by: Type.String(),
  updated_by: Type.String(),
});
export type Assignment = Static<typeof Assignment>;

export const Line = Type.Object({
  line_id: Type.Integer(),
  product_number: Type.String(),
  location_code: Nullable(Type.String()),
  pool: Type.Integer(),
  expected_quantity: Type.Optional(Type.Number({ description: 'Absent for a store token while blind' })),
  counted_quantity: Type.Union([Type.Number(), Type.Null()]),
  variance_quantity: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], { description: 'Absent for a store token while blind' }),
  ),
  counted_at: Nullable(Type.String()),
  app_user_name: Nullable(Type.String()),
  status: Type.String({ description: 'not_counted | counted | booked | pending | approved | rejected' }),
  is_extra: Type.Boolean(),
  log_entry_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The stock log entry the submission booked' }),
});
export type Line = Static<typeof Line>;

export const StatusFilter = Type.Union(
  ASSIGNMENT_STATUSES.map((status) => Type.Literal(status)),
  { description: ASSIGNMENT_STATUSES.join(' | ') },
);

export const ListQuery = Type.Object({ status: Type.Optional(StatusFilter), ...PageQueryProperties });
export type ListQuery = Static<typeof ListQuery>;

export const LINE_STATUSES = ['not_counted', 'counted', 'booked', 'pending', 'approved', 'rejected'] as const;
export const LinesQuery = Type.Object({
  status: Type.Optional(Type.Union(LINE_STATUSES.map((status) => Type.Literal(status)))),
  ...PageQueryProperties,
});
export type LinesQuery = Static<typeof LinesQuery>;

export const AssignmentsPage = PagedResponse(Assignment);
export const LinesPage = PagedResponse(Line);

export const StoreParams = StoreNumberParams;
export const AssignmentParams = Type.Object({
  store_number: Str(64),
  id: Str(15, { pattern: '^[1-9][0-9]*$', description: 'The counting_assignment_id' }),
});
export type AssignmentParams = Static<typeof AssignmentParams>;

export const CountInput = Type.Object({
  product_number: Type.Optional(TextId(64)),
  barcode: Type.Optional(
    TextId(64, { description: 'Any barcode of the product; a unit barcode counts its unit each' }),
  ),
  location_code: Type.Optional(Type.Union([TextId(64), Type.Null()], { description: 'Absent or null: no location' })),
  pool: Type.Optional(PoolNumber({ description: "Default: the location's default pool, else 1" })),
  counted_quantity: Quantity({ minimum: 0 }),
  counted_at: EventDateTime({ description: 'The moment scanned' }),
  app_user_name: Type.Optional(Str(255)),
  mode: Type.Optional(
    Type.Union([Type.Literal('replace'), Type.Literal('add')], {
      default: 'replace',
      description: 'replace: a recount; add: added to what the line has counted',
    }),
  ),
});
export type CountInput = Static<typeof CountInput>;

export const CountsBody = Type.Object({ counts: BulkArray(CountInput, { minItems: 1 }) });
export type CountsBody = Static<typeof CountsBody>;

export const SubmitAck = Type.Object({
  success: Type.Boolean(),
  data: Type.Array(Type.Integer(), { description: 'The booked entry ids' }),
  message: Type.String(),
});
