import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Int, PageQueryProperties, PagedResponse, Str } from '../../../shared/schemas.js';

/** A receipt line as read (interface §2.4): one receiving entry. */
export const ReceiptLine = Type.Object({
  id: Type.Number(),
  purchase_price: Type.Number(),
  received_quantity: Type.Number({ description: 'What this receiving entry booked' }),
  shipped_quantity: Type.Number({ description: "The delivery line's announced quantity when it was received" }),
  store_products_price: Type.Number(),
  updated_on: Type.String(),
  barcode: Type.Optional(Type.String()),
  category_code: Type.Optional(Type.String()),
  container_barcode: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  group_code: Type.Optional(Type.String()),
  line_number: Type.Optional(Type.Number()),
  product_number: Type.Optional(Type.String()),
});
export type ReceiptLine = Static<typeof ReceiptLine>;

/** A receipt order as read (interface §2.4). */
export const ReceiptOrder = Type.Object({
  datetime_created: Type.String({ description: 'When the first receipt of the delivery was booked' }),
  datetime_expected: Type.String({ description: "The delivery's" }),
  import_id: Type.Number({ description: 'Internal id of the receipt' }),
  order_type_id: Type.Number({ description: "The delivery's order_type" }),
  updated_on: Type.String(),
  order_number: Type.Optional(Type.String()),
  status: Type.Optional(Type.String({ description: 'receiving, or received once submitted' })),
  store_gln: Type.Optional(Type.String()),
  store_number: Type.Optional(Type.String()),
  supplier_code: Type.Optional(Type.String()),
  supplier_name: Type.Optional(Type.String()),
  receipt_lines: Type.Optional(Type.Array(ReceiptLine)),
});
export type ReceiptOrder = Static<typeof ReceiptOrder>;

const receiptFilters = {
  receipt_type: Int({ description: "Required: the delivery's order_type the receipts are of" }),
  from_id: Type.Optional(Int({ description: 'Receipts with import_id at or above this' })),
  to_id: Type.Optional(Int({ description: 'Receipts with import_id at or below this' })),
  is_submitted: Type.Optional(Type.Boolean()),
  last_modified_date: Type.Optional(
    DateTime({
      description:
        'Receipts with updated_on at or after this. Pass the server_time of the previous pull (docs/decisions.md Receipts)',
    }),
  ),
  order_number: Type.Optional(Str(64)),
};

export const ReceiptsQuery = Type.Object({
  store_number: Type.Optional(Str(64)),
  ...receiptFilters,
  ...PageQueryProperties,
});
export type ReceiptsQuery = Static<typeof ReceiptsQuery>;
export const StoreReceiptsQuery = Type.Object({ ...receiptFilters, ...PageQueryProperties });
export type StoreReceiptsQuery = Static<typeof StoreReceiptsQuery>;

export const ReceiptsPage = PagedResponse(ReceiptOrder);
