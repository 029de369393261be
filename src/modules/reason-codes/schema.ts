import { Type, type Static } from '@sinclair/typebox';
import { BulkArray, FlushQuery, Str } from '../../shared/schemas.js';

/** reason_code_type values (interface §2.6). */
export const REASON_CODE_TYPES = {
  loss: 1,
  rejection: 2,
  movement: 3,
  salesOrderDiscount: 4,
  locationTags: 5,
  count: 6,
  gainLoss: 7,
  salesOrderType: 8,
  deliveryOrderType: 9,
} as const;

/** Reason codes are positive int32 numbers in the ERPs that send them. */
export const MAX_REASON_CODE = 2_147_483_647;

/** One reason code as the ERP sends it (interface §4.5): all required but code_description. */
export const ReasonCodeInput = Type.Object({
  reason_code: Type.Integer({ minimum: 0, maximum: MAX_REASON_CODE, description: 'Natural key of the upsert' }),
  reason_code_description: Str(250, { minLength: 1 }),
  code_description: Type.Optional(Str(500)),
  reason_code_type: Type.Integer({
    minimum: 1,
    maximum: 9,
    description:
      '1 Loss, 2 Rejection, 3 Movement, 4 SalesOrderDiscount, 5 LocationTags, 6 Count, 7 GainLoss, 8 SalesOrderType, 9 DeliveryOrderType',
  }),
  default_review_status: Type.Integer({
    minimum: 0,
    maximum: 1,
    description: '0: entries with this code apply at once; 1: they wait for review (PRODUCT §5)',
  }),
  is_comment_mandatory: Type.Boolean(),
  is_gain: Type.Boolean({ description: 'Entries always add |quantity| (PRODUCT §5); not together with is_loss' }),
  is_image_mandatory: Type.Boolean(),
  is_loss: Type.Boolean({ description: 'Entries always subtract |quantity| (PRODUCT §5); not together with is_gain' }),
  is_order_number_mandatory: Type.Boolean(),
  is_picking_list: Type.Boolean(),
  is_sales_order_discount: Type.Boolean({
    description: 'Read back as is_sales_order_discsount (interface §2.6 spelling)',
  }),
  is_store: Type.Boolean(),
  is_rollback_allowed: Type.Optional(
    Type.Boolean({ description: 'Extension (read field with no input in §4.5); default false' }),
  ),
  function_key: Type.Optional(
    Str(64, { description: 'Extension (read field with no input in §4.5); filterable on GET' }),
  ),
  store_type: Type.Optional(
    Str(64, { description: 'Extension (read field with no input in §4.5); filterable on GET' }),
  ),
});
export type ReasonCodeInput = Static<typeof ReasonCodeInput>;

export const ReasonCodesBody = Type.Object({ reason_codes: BulkArray(ReasonCodeInput) });
export type ReasonCodesBody = Static<typeof ReasonCodesBody>;
export const ReasonCodesImportQuery = FlushQuery;

/** One reason code as read (interface §2.6, PRODUCT §6 mappings, misspelling included). */
export const ReasonCode = Type.Object({
  code: Type.Integer({ description: '← reason_code' }),
  description: Type.Optional(Type.String({ description: '← reason_code_description' })),
  code_description: Type.Optional(Type.String()),
  function_key: Type.Optional(Type.String()),
  store_type: Type.Optional(Type.String()),
  reason_code_type: Type.Integer(),
  review_status: Type.Integer({ description: '← default_review_status' }),
  is_comment_mandatory: Type.Boolean(),
  is_gain: Type.Boolean(),
  is_image_mandatory: Type.Boolean(),
  is_loss: Type.Boolean(),
  is_order_number_mandatory: Type.Boolean(),
  is_picking_list: Type.Boolean(),
  is_rollback_allowed: Type.Boolean(),
  is_sales_order_discsount: Type.Boolean({
    description: '← is_sales_order_discount; spelled so by the interface (§2.6)',
  }),
  is_store: Type.Boolean(),
});
export type ReasonCode = Static<typeof ReasonCode>;

export const ReasonCodeList = Type.Array(ReasonCode, {
  description: 'Every live reason code matching the filters, by code',
});

export const ReasonCodesQuery = Type.Object({
  code: Type.Optional(
    Str(10, { pattern: '^[0-9]+$', description: 'Exact reason code (digits only; anything else is a 400)' }),
  ),
  code_description: Type.Optional(Str(200, { description: 'Case-insensitive literal substring of code_description' })),
  function_key: Type.Optional(Str(64, { description: 'Exact function_key' })),
  store_type: Type.Optional(Str(64, { description: 'Extension: exact store_type' })),
  is_gain: Type.Optional(Type.Boolean()),
  is_loss: Type.Optional(Type.Boolean()),
  is_store: Type.Optional(Type.Boolean()),
});
export type ReasonCodesQuery = Static<typeof ReasonCodesQuery>;
