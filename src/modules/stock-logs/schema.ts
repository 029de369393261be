import { Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';
import {
  BulkArray,
  DateTime,
  EventDateTime,
  Int,
  PageQueryProperties,
  PagedResponse,
  PoolNumber,
  Quantity,
  Str,
  StoreNumberParams,
  TextId,
} from '../../shared/schemas.js';
import { POOLS } from '../../domain/stock-rules.js';

function perPool<T extends TSchema>(prefix: string, make: () => T) {
  return Object.fromEntries(POOLS.map((n) => [`${prefix}${n}`, Type.Optional(make())])) as Record<string, TOptional<T>>;
}

/** One stock log entry as a handheld or the ERP posts it (interface §4.8). */
export const StockLogInput = Type.Object({
  customer_order_line_number: Int({
    minimum: 0,
    description: 'Required by the interface; 0 when the entry is not about an order line',
  }),
  modification_datetime: EventDateTime({ description: 'When the change happened; counts are levels at this moment' }),
  quantity: Quantity({ description: 'Signed delta; with is_counted_quantity=true the counted level' }),
  product_number: Type.Optional(TextId(64, { description: 'Required in practice: the product the entry is about' })),
  app_user_name: Type.Optional(Str(255)),
  customer_order_number: Type.Optional(
    TextId(64, { description: 'Books stock bound to this customer order (PRODUCT §5)' }),
  ),
  location_code: Type.Optional(TextId(64, { description: 'A known location of the store; none = unlocated stock' })),
  loss_comment: Type.Optional(Str(2000)),
  loss_image: Type.Optional(Str(2000)),
  loss_order_number: Type.Optional(TextId(64)),
  order_after_date: Type.Optional(DateTime()),
  reference: Type.Optional(TextId(255)),
  scanned_datetime: Type.Optional(EventDateTime({ description: 'When the product was scanned' })),
  source: Type.Optional(Str(255)),
  counted_quantity: Type.Optional(
    Quantity({ description: 'Accepted and ignored: a count is `quantity` with is_counted_quantity=true' }),
  ),
  expected_quantity: Type.Optional(
    Quantity({ description: 'Accepted and ignored: the service records the level it expected' }),
  ),
  pool_location: Type.Optional(
    PoolNumber({ description: 'Pool of the whole quantity; default the location default pool, else 1' }),
  ),
  reason_code: Type.Optional(Int({ description: 'A known reason code: loss codes subtract, gain codes add' })),
  ...perPool('stock_pool_', () => Quantity({ description: 'Per-pool part; all given parts must add up to quantity' })),
});
export type StockLogInput = Static<typeof StockLogInput> & Partial<Record<`stock_pool_${number}`, number>>;

export const StockLogsBody = Type.Object({ storeproductlog: BulkArray(StockLogInput) });
export type StockLogsBody = Static<typeof StockLogsBody>;

export const StockLogsPostQuery = Type.Object({
  appUserName: Type.Optional(Str(255, { description: 'Fills app_user_name where an entry has none' })),
  is_counted_quantity: Type.Optional(Type.Boolean({ default: false, description: 'Quantities are counted levels' })),
  is_from_receipt: Type.Optional(
    Type.Boolean({ default: false, description: 'Entries come from receiving a delivery' }),
  ),
});
export type StockLogsPostQuery = Static<typeof StockLogsPostQuery>;

export const StockLogsAck = Type.Object({
  success: Type.Boolean(),
  data: Type.Array(Type.Integer(), { description: 'New entry ids, in input order' }),
  message: Type.String(),
});

export const StoreParams = StoreNumberParams;

export const ReviewBody = Type.Object({
  ids: Type.Array(Int({ minimum: 1 }), { minItems: 1, maxItems: 10_000 }),
  approve: Type.Boolean({ description: 'true applies the entries, false rejects them (never applied)' }),
});
export type ReviewBody = Static<typeof ReviewBody>;

/** A store product log entry as listed (interface §2.8). */
export const StockLog = Type.Object({
  id: Type.Integer(),
  created_on: Type.String(),
  price: Type.Number(),
  purchase_unit_quantity: Type.Number(),
  purged_to_most_likely: Type.Boolean(),
  quantity: Type.Number(),
  updated_on: Type.String(),
  app_user_name: Type.Optional(Type.String()),
  barcode: Type.Optional(Type.String()),
  cost_center: Type.Optional(Type.String()),
  customer_order_number: Type.Optional(Type.String()),
  customer_order_shipment_number: Type.Optional(Type.String()),
  exception_image: Type.Optional(Type.String()),
  general_ledger_credit: Type.Optional(Type.String()),
  general_ledger_debit: Type.Optional(Type.String()),
  location_code: Type.Optional(Type.String()),
  location_tag: Type.Optional(Type.String()),
  moved_on: Type.Optional(Type.String()),
  orderno: Type.Optional(Type.String()),
  product_number: Type.Optional(Type.String()),
  reason_code_description: Type.Optional(Type.String()),
  reference: Type.Optional(Type.String()),
  remarks: Type.Optional(Type.String()),
  review_status: Type.Optional(Type.String({ description: '0 none needed, 1 pending, 2 approved, 3 rejected' })),
  source: Type.Optional(Type.String()),
  stock_pool: Type.Optional(Type.String({ description: 'The pool, when the entry touched exactly one' })),
  store_number: Type.Optional(Type.String()),
  updated_by: Type.Optional(Type.String()),
  counted_quantity: Type.Optional(Type.Number()),
  counting_assignment_id: Type.Optional(Type.Number()),
  counting_lines_remaining: Type.Optional(Type.Number()),
  counting_lines_remaining_stockpool: Type.Optional(
    Type.Object(Object.fromEntries(POOLS.map((n) => [`stock_pool_${n}`, Type.Number()])), {
      description:
        'Interface §2.8; never filled: the service has no counting assignments (like counting_lines_remaining)',
    }),
  ),
  customer_order_line_number: Type.Optional(Type.Number()),
  customer_order_shipment_number_line_number: Type.Optional(Type.Number()),
  expected_quantity: Type.Optional(Type.Number()),
  location: Type.Optional(Type.Number({ description: 'Internal id of the location' })),
  purchase_price: Type.Optional(Type.Number()),
  reason_code: Type.Optional(Type.Number()),
  reference_id: Type.Optional(Type.Number()),
  ...perPool('stock_pool_', () => Type.Number()),
  store_products_price: Type.Optional(Type.Number()),
});
export type StockLog = Static<typeof StockLog> & Partial<Record<`stock_pool_${number}`, number>>;

export const StockLogsQuery = Type.Object({
  article_number: Type.Optional(Str(64, { description: 'product_number' })),
  customer_order_number: Type.Optional(Str(64)),
  reference: Type.Optional(Str(255)),
  store_number: Type.Optional(Str(64)),
  last_modified_date: Type.Optional(DateTime({ description: 'Entries with updated_on at or after this' })),
  to_modified_date: Type.Optional(DateTime({ description: 'Entries with updated_on at or before this' })),
  from_id: Type.Optional(Int()),
  to_id: Type.Optional(Int()),
  reason_code: Type.Optional(Int()),
  reference_id: Type.Optional(Int()),
  review_status: Type.Optional(Type.Integer({ minimum: 0, maximum: 3 })),
  is_historic: Type.Optional(
    Type.Boolean({ description: 'true: applied entries; false: entries not applied (pending or rejected)' }),
  ),
  is_reviewed: Type.Optional(
    Type.Boolean({ description: 'true: approved or rejected; false: not reviewed (none needed or pending)' }),
  ),
  ...PageQueryProperties,
});
export type StockLogsQuery = Static<typeof StockLogsQuery>;

export const StockLogsPage = PagedResponse(StockLog);
