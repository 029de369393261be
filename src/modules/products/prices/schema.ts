import { Type, type Static } from '@sinclair/typebox';
import { BulkArray, DateTime, Int, Money, Quantity, Str, TextId } from '../../../shared/schemas.js';
import { PRODUCT_NUMBER_MAX } from '../schema.js';

/** One price record (interface §4.9 POST /products/prices). */
export const PriceInput = Type.Object({
  price: Money({ minimum: 0 }),
  price_id: TextId(64, { minLength: 1 }),
  price_type: Int(),
  product_number: TextId(PRODUCT_NUMBER_MAX, { minLength: 1 }),
  valid_from: DateTime(),
  valid_to: DateTime({ description: 'Exclusive; must be after valid_from' }),
  country_code: Type.Optional(Str(3, { description: 'Country scope (empty = none)' })),
  price_group: Type.Optional(
    TextId(64, { description: "Price-group scope: matches a store's price_line_id (empty = none)" }),
  ),
  price_unit: Type.Optional(Str(32)),
  store_number: Type.Optional(TextId(64, { description: 'Store scope: a known store (empty = none)' })),
  price_quantity: Type.Optional(Quantity({ minimum: 0 })),
});
export type PriceInput = Static<typeof PriceInput>;

export const PricesBody = Type.Object({ prices: BulkArray(PriceInput) });
export type PricesBody = Static<typeof PricesBody>;
