import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { POOLS } from '../../domain/stock-rules.js';
import {
  BulkArray,
  DateTime,
  Int,
  Money,
  PageQueryProperties,
  PagedResponse,
  PoolNumber,
  Quantity,
  Str,
  StoreNumberParams,
  TextId,
} from '../../shared/schemas.js';
import { StoreRef } from '../../shared/access.js';

/** PRODUCT §7: 1 new, 2 claimed, 3 picking, 4 picked, 5 collected, 6 rejected, 7 cancelled. */
export const STATUS = { new: 1, claimed: 2, picking: 3, picked: 4, collected: 5, rejected: 6, cancelled: 7 } as const;
/** After these nothing changes (PRODUCT §7: 409). */
export const FINAL_STATUSES: ReadonlySet<number> = new Set([STATUS.collected, STATUS.rejected, STATUS.cancelled]);
/** Reason codes of this type reject customer orders (PRODUCT §7). */
export const REJECTION_REASON_TYPE = 2;
export const MAX_ORDER_LINES = 10_000;

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

const OrderLineInput = Type.Object({
  line_number: Int({ minimum: 0, description: 'Unique within the order; updates name lines by it' }),
  product_number: TextId(64),
  quantity: Quantity({ minimum: 0, description: 'Ordered quantity' }),
  price: optional(Money()),
  stock_pool: optional(PoolNumber({ description: 'Pool the line is picked from and bound in; default 1' })),
  barcode: optional(TextId(64)),
  description: optional(Str(2000)),
  delivery_date: optional(DateTime()),
  preferred_location_code: optional(TextId(64, { description: 'Where to pick from unless the picker says otherwise' })),
  reference: optional(TextId(255)),
});

const orderFields = {
  order_number: TextId(64, {
    description: 'Unique across the chain: a re-send with the same number updates the order',
  }),
  order_type_code: optional(TextId(64)),
  description: optional(Str(2000)),
  customer_name: optional(Str(255)),
  comment: optional(Str(2000)),
  reference: optional(TextId(255)),
  pickup_date: optional(DateTime()),
  sales_order_id: optional(TextId(64)),
  stores_allowed: optional(Str(2000)),
  lines: optional(
    Type.Array(OrderLineInput, {
      maxItems: MAX_ORDER_LINES,
      description:
        'The whole set of lines: lines absent are removed (a line with picked stock cannot be); absent = lines unchanged',
    }),
  ),
};

export const StoreOrderInput = Type.Object({
  ...orderFields,
  store_number: optional(TextId(64, { description: 'Ignored: the path names the store' })),
});
export const CrossStoreOrderInput = Type.Object({
  ...orderFields,
  store_number: StoreRef({ description: 'The store the customer collects from' }),
});
export type OrderInput = Static<typeof StoreOrderInput>;
export type OrderLineInput = Static<typeof OrderLineInput>;

export const StoreOrdersBody = Type.Object({ orders: BulkArray(StoreOrderInput) });
export type StoreOrdersBody = Static<typeof StoreOrdersBody>;
export const CrossStoreOrdersBody = Type.Object({ orders: BulkArray(CrossStoreOrderInput) });
export type CrossStoreOrdersBody = Static<typeof CrossStoreOrdersBody>;

/** PUT /stores/{s}/orders/customerorder (PRODUCT §7 update). */
export const OrderUpdateBody = Type.Object({
  order_number: TextId(64),
  status_id: optional(Int({ minimum: 1, maximum: 7, description: 'Forward only; 5 is set by clearance' })),
  is_claimed: optional(Type.Boolean({ description: 'true claims the order for picking (status 2)' })),
  picked_username: optional(Str(255)),
  is_picked: optional(Type.Boolean({ description: 'true: picking is complete (status 4), also when short' })),
  is_rejected: optional(
    Type.Boolean({
      description: 'true rejects the order (status 6) and releases its bound stock; needs rejection_reason_code',
    }),
  ),
  rejection_reason_code: optional(Int({ description: 'A reason code of type 2' })),
  comment: optional(Str(2000)),
  pickup_date: optional(DateTime()),
  lines: optional(
    Type.Array(
      Type.Object({
        line_number: Int({ minimum: 0 }),
        picked_quantity: optional(
          Quantity({
            minimum: 0,
            description: "The line's new picked total: the difference is bound (or released) through the ledger",
          }),
        ),
        stock_location: optional(
          TextId(64, {
            description:
              'Where this pick comes from (and a release goes back to); default the preferred location, else unlocated',
          }),
        ),
        stock_pool: optional(PoolNumber({ description: 'Pool to pick from; can change only while nothing is picked' })),
      }),
      { maxItems: MAX_ORDER_LINES },
    ),
  ),
});
export type OrderUpdateBody = Static<typeof OrderUpdateBody>;

export const ClearanceBody = Type.Object({
  store_number: StoreRef({ description: 'The store of the order' }),
  order_number: TextId(64),
});
export type ClearanceBody = Static<typeof ClearanceBody>;

const StoreLocation = Type.Object({
  location_order: Type.Integer(),
  quantity: Type.Number({ description: 'Free stock of the product at the location' }),
  location_code: optional(Type.String()),
  default_stock_pool: optional(Type.String()),
  tags: optional(Type.Array(Type.String())),
  ...Object.fromEntries(POOLS.map((n) => [`most_likely_pool_${n}`, optional(Type.Number())])),
});

export const CustomerOrderLine = Type.Object({
  id: Type.Integer(),
  explicit_order: Type.Boolean(),
  is_picked: Type.Boolean({ description: 'picked_quantity reached quantity' }),
  is_template: Type.Boolean(),
  line_number: Type.Integer(),
  picked_quantity: Type.Number({ description: 'Bound to the order now' }),
  price: Type.Number(),
  quantity: Type.Number(),
  stock_pool: Type.Integer(),
  store_walking_order: Type.Integer({ description: 'location_order of the first location holding the product' }),
  barcode: optional(Type.String()),
  delivery_date: optional(Type.String()),
  description: optional(Type.String()),
  picked_username: optional(Type.String()),
  pickup_date: optional(Type.String()),
  preferred_location_code: optional(Type.String()),
  product_number: optional(Type.String()),
  reference: optional(Type.String()),
  stock_location: optional(Type.String()),
  store_locations: optional(Type.Array(StoreLocation)),
});
export type CustomerOrderLine = Static<typeof CustomerOrderLine>;

export const CustomerOrder = Type.Object({
  is_active: Type.Boolean({ description: 'false once collected, rejected or cancelled' }),
  is_claimed: Type.Boolean(),
  is_picked: Type.Boolean(),
  is_rejected: Type.Boolean(),
  status_id: Type.Integer({
    description: '1 new, 2 claimed, 3 picking, 4 picked, 5 collected, 6 rejected, 7 cancelled',
  }),
  total_lines: Type.Integer(),
  total_quantity: Type.Number(),
  comment: optional(Type.String()),
  customer_name: optional(Type.String()),
  description: optional(Type.String()),
  order_number: optional(Type.String()),
  order_type_code: optional(Type.String()),
  pickup_date: optional(Type.String()),
  reference: optional(Type.String()),
  rejection_reason_code: optional(Type.String()),
  rejection_reason_code_description: optional(Type.String()),
  sales_order_id: optional(Type.String()),
  store_number: optional(Type.String()),
  stores_allowed: optional(Type.String()),
  total_delivery_quantity: optional(Type.Number({ description: 'Picked (bound) quantity over all lines' })),
  lines: optional(Type.Array(CustomerOrderLine)),
});
export type CustomerOrder = Static<typeof CustomerOrder>;

export const OrdersQuery = Type.Object({
  status_id: optional(Int({ minimum: 1, maximum: 7 })),
  order_number: optional(Str(64)),
  is_active: optional(Type.Boolean({ description: 'true: not yet collected, rejected or cancelled' })),
  last_modified_date: optional(DateTime({ description: 'Orders with updated_on at or after this' })),
  pickup_date: optional(
    Str(40, { description: 'A day (YYYY-MM-DD) or a date-time: orders to be picked up on that UTC day' }),
  ),
  ...PageQueryProperties,
});
export type OrdersQuery = Static<typeof OrdersQuery>;
export const OrdersPage = PagedResponse(CustomerOrder);

export const StoreParams = StoreNumberParams;
