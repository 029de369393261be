import { Type, type Static } from '@sinclair/typebox';
import { BulkArray, Int, PoolNumber, Quantity, Str, StoreNumberParams, TextId } from '../../shared/schemas.js';

/** One side of a move (interface §4.11): no location_code = the store's unlocated stock. */
const MovementLocation = Type.Object({
  location_code: Type.Optional(TextId(64)),
  stock_pool: Type.Optional(PoolNumber({ description: 'Default: the location default pool, else 1' })),
  customer_order_number: Type.Optional(TextId(64, { description: 'Stock bound to this customer order (PRODUCT §5)' })),
  customer_order_line_number: Type.Optional(Int({ minimum: 0 })),
  customer_order_shipment_number: Type.Optional(TextId(64)),
  customer_order_shipment_line_number: Type.Optional(Int({ minimum: 0 })),
});
export type MovementLocation = Static<typeof MovementLocation>;

export const MovementInput = Type.Object({
  quantity: Quantity({ description: 'How much moves; more than 0' }),
  product_number: Type.Optional(TextId(64, { description: 'Required in practice: the product that moves' })),
  allow_overage: Type.Optional(Type.Boolean({ default: false, description: 'Allow taking the source below zero' })),
  /** A string in §4.11 (reason codes are numbers elsewhere): digits, or a JSON integer taken as its text. */
  reason_code: Type.Optional(
    TextId(10, {
      pattern: '^[0-9]+$',
      description: 'A movement reason code (type 3), as digits; a JSON integer is accepted',
    }),
  ),
  reference: Type.Optional(TextId(255)),
  source: Type.Optional(Str(255)),
  from_location: Type.Optional(MovementLocation),
  to_location: Type.Optional(MovementLocation),
});
export type MovementInput = Static<typeof MovementInput>;

export const MovementBody = Type.Object({ body: BulkArray(MovementInput) });
export type MovementBody = Static<typeof MovementBody>;

export const MovementQuery = Type.Object({
  AppUserName: Type.Optional(Str(255, { description: 'The app user performing the movement' })),
});
export type MovementQuery = Static<typeof MovementQuery>;

export const MovementParams = StoreNumberParams;
