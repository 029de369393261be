import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { BulkArray, DateTime, Money, Num, Quantity, SmallArray, Str, TextId } from '../../shared/schemas.js';

/**
 * A field that may be sent, left out (the stored value stays) or sent as null (the stored
 * value is cleared): POST and PUT both merge into the stored store product (PRODUCT §5).
 */
const Field = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** Keyed arrays hold one value per key (a week, a period…); 1,000 covers years of weeks. */
const MAX_KEYED = 1000;
const KeyList = () => SmallArray(Str(64), MAX_KEYED);
const ValueList = () => SmallArray(Num(), MAX_KEYED);
const DateList = () => SmallArray(DateTime(), 366);

/** Fields both POST and PUT take (interface §4.4). */
const commonFields = {
  product_number: TextId(64, { minLength: 1 }),
  min: Field(Quantity()),
  max: Field(Quantity()),
  order_level: Field(Quantity()),
  demand_until_delivery: Field(Quantity()),
  price: Field(Money()),
  discount_price: Field(Money()),
  default_salesorder_type: Field(Str(64)),
  expiry_date_time: Field(DateTime()),
  next_delivery_date: Field(DateTime()),
  next_ordering_date: Field(DateTime()),
  validate_expiry_date_time: Field(DateTime()),
  is_promotion: Field(Type.Boolean()),
  is_replenishment: Field(Type.Boolean()),
  attention_codes: Field(SmallArray(Str(64), 100)),
  average_keys: Field(KeyList()),
  average_array: Field(ValueList()),
  forecast_keys: Field(KeyList()),
  forecast_array: Field(ValueList()),
  history_keys: Field(KeyList()),
  history_array: Field(ValueList()),
  delivery_datetimes: Field(DateList()),
  ordering_datetimes: Field(DateList()),
};

/** Fields only PUT takes (interface §4.4); POST ignores them like any unknown field. */
const putOnlyFields = {
  adjustment_level_decrease: Field(Quantity()),
  adjustment_level_increase: Field(Quantity()),
  forecast: Field(Quantity()),
  counting_assignment_code: Field(TextId(64)),
  group_code: Field(TextId(64)),
  replenishment_action: Field(Str(64)),
};

export const StoreProductPostInput = Type.Object(commonFields);
export const StoreProductPutInput = Type.Object({ ...commonFields, ...putOnlyFields });
/** The union of both: what the service merges. */
export type StoreProductInput = Static<typeof StoreProductPutInput>;

export const StoreProductsPostBody = Type.Object({ products: BulkArray(StoreProductPostInput) });
export const StoreProductsPutBody = Type.Object({ products: BulkArray(StoreProductPutInput) });
export type StoreProductsBody = { products: StoreProductInput[] };
