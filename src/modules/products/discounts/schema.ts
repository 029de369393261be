import { Type, type Static } from '@sinclair/typebox';
import { BulkArray, DateTime, Int, Money, Str, TextId } from '../../../shared/schemas.js';
import { PRODUCT_NUMBER_MAX } from '../schema.js';

/**
 * One discount line (interface §4.9 POST /products/discountprices). Natural key:
 * (discount_id, product_number, line_number), absent parts counting as empty / 0.
 */
export const DiscountInput = Type.Object({
  is_delete: Type.Boolean({
    description: 'true: soft-deletes the stored discounts matching the key fields this line gives',
  }),
  discount_description: Type.Optional(Str(255)),
  discount_group: Type.Optional(TextId(64)),
  discount_id: Type.Optional(TextId(64)),
  product_number: Type.Optional(TextId(PRODUCT_NUMBER_MAX, { description: 'Required unless is_delete' })),
  valid_from: Type.Optional(DateTime()),
  valid_to: Type.Optional(DateTime({ description: 'Exclusive; after valid_from' })),
  discount_type: Type.Optional(Int()),
  line_number: Type.Optional(Int({ minimum: 0 })),
  price: Type.Optional(
    Money({ minimum: 0, description: 'The discounted unit price (not an amount off); required unless is_delete' }),
  ),
});
export type DiscountInput = Static<typeof DiscountInput>;

export const DiscountsBody = Type.Object({ discounts: BulkArray(DiscountInput) });
export type DiscountsBody = Static<typeof DiscountsBody>;

export const DiscountsHeaders = Type.Object({
  is_flush: Type.Optional(
    Type.Boolean({ default: false, description: 'true: live discounts absent from the request are removed' }),
  ),
  is_expire_discounts: Type.Optional(
    Type.Boolean({ default: false, description: 'true: first removes every discount whose valid_to has passed' }),
  ),
});
export type DiscountsHeaders = Static<typeof DiscountsHeaders>;
