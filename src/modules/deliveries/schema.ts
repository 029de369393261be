import { Type, type Static, type TSchema } from '@sinclair/typebox';
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

/** Delivery statuses (PRODUCT §7): open → receiving → received, or cancelled. */
export const DELIVERY_STATUSES = ['open', 'receiving', 'received', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Most lines one delivery may carry (the body limit bounds a request as a whole). */
export const MAX_DELIVERY_LINES = 10_000;

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** Fields of a delivery line as the ERP sends it (interface §4.3), but its product number. */
const lineFields = {
  line_number: Int({ minimum: 0, description: 'Unique within the order; receiving names lines by it' }),
  quantity: Quantity({ minimum: 0, description: 'Announced (shipped) quantity' }),
  target_stock_pool: PoolNumber({ description: 'Pool the received stock is booked into (1-10)' }),
  barcode: optional(
    TextId(64, { description: 'Any barcode of the product; resolves the product when product_number is absent' }),
  ),
  container_barcode: optional(TextId(64, { description: 'Container (roll cage, pallet) the line travels in' })),
  customer_order_number: optional(TextId(64)),
  customer_order_shipment_number: optional(TextId(64)),
  description: optional(Str(2000)),
  product_description: optional(Str(2000)),
  reference: optional(TextId(255)),
  secondary_order_number: optional(TextId(64)),
  customer_order_line_number: optional(Int({ minimum: 0 })),
  customer_order_shipment_number_line_number: optional(Int({ minimum: 0 })),
  ordered_quantity: optional(
    Quantity({ minimum: 0, description: 'What the store ordered, when it differs from what is shipped' }),
  ),
  purchase_price: optional(Money({ minimum: 0 })),
  secondary_order_line_number: optional(Int({ minimum: 0 })),
};
const productNumber = () =>
  TextId(64, { description: 'The product; on the cross-store path a line may name it by barcode instead' });

/** The store path requires `product_number`; the cross-store path lets a line name its product by `barcode` alone. */
const StoreLineInput = Type.Object({ ...lineFields, product_number: productNumber() });
const CrossStoreLineInput = Type.Object({ ...lineFields, product_number: optional(productNumber()) });

const lineList = <T extends TSchema>(line: T) =>
  optional(
    Type.Array(line, {
      maxItems: MAX_DELIVERY_LINES,
      description:
        'The whole set of lines: lines of a stored delivery absent here are removed (a line that received something cannot be); absent = lines unchanged',
    }),
  );

/** Fields of a delivery order as the ERP sends it (interface §4.3), but those whose requiredness differs per path. */
const orderFields = {
  datetime_expected: DateTime({ description: 'When the delivery is expected' }),
  no_of_containers: Int({
    minimum: 0,
    description:
      'Kept as sent when no line carries a container_barcode or the container_override header is true; else the number of distinct container barcodes',
  }),
  order_number: TextId(64, {
    description: 'Unique across the chain: a re-send with the same number updates the delivery',
  }),
  order_type: Int({
    minimum: 0,
    maximum: 2_147_483_647,
    description: 'For example 1 = purchase, 2 = transfer; read back as a decimal string',
  }),
  datetime_created: optional(DateTime({ description: 'Default: when the delivery is first stored by the service' })),
  description: optional(Str(2000)),
  reference: optional(TextId(255, { description: 'Read back as external_reference_number' })),
  store_origin: optional(
    StoreRef({
      description:
        'Origin store of an inter-store transfer (docs/decisions.md Deliveries "transfers"); a store token must hold it; fixed once anything is received',
    }),
  ),
  supplier_code: optional(TextId(64)),
  tracing_url: optional(Str(2000)),
  reason_code: optional(Int()),
  status: optional(
    Type.Union([Type.Literal('open'), Type.Literal('cancelled')], {
      description:
        'Added (docs/decisions.md): "cancelled" cancels a delivery nothing was received of; "open" (or absent) leaves the status to receiving',
    }),
  ),
};
const supplierName = () => Str(255);

export const StoreDeliveryInput = Type.Object({
  ...orderFields,
  supplier_name: optional(supplierName()),
  order_lines: lineList(StoreLineInput),
});
export type StoreDeliveryInput = Static<typeof StoreDeliveryInput>;
export const CrossStoreDeliveryInput = Type.Object({
  ...orderFields,
  store_number: StoreRef({ description: 'The store the goods go to' }),
  supplier_name: supplierName(),
  order_lines: lineList(CrossStoreLineInput),
});
export type CrossStoreDeliveryInput = Static<typeof CrossStoreDeliveryInput>;
/** What the service works on: either path's order, the store filled from the path. */
export type DeliveryInput = Omit<CrossStoreDeliveryInput, 'store_number' | 'supplier_name'> & {
  store_number?: string;
  supplier_name?: string;
};
export type DeliveryLineInput = NonNullable<DeliveryInput['order_lines']>[number];

export const StoreDeliveriesBody = Type.Object({ orders: BulkArray(StoreDeliveryInput) });
export type StoreDeliveriesBody = Static<typeof StoreDeliveriesBody>;
export const CrossStoreDeliveriesBody = Type.Object({ orders: BulkArray(CrossStoreDeliveryInput) });
export type CrossStoreDeliveriesBody = Static<typeof CrossStoreDeliveriesBody>;

export const ContainerOverrideHeaders = Type.Object({
  container_override: optional(
    Type.Boolean({ description: 'true: keep no_of_containers as sent instead of counting container barcodes' }),
  ),
});

/** A delivery line as read (interface §2.3 "Delivery order line (read)"). */
export const DeliveryLine = Type.Object({
  line_number: Type.Number(),
  quantity: Type.Number({ description: 'Announced (shipped)' }),
  received_quantity: Type.Number({ description: 'Received so far; over- and under-receipt are allowed' }),
  target_stock_pool: Type.Number(),
  barcode: optional(Type.String()),
  base_unit: optional(Type.String()),
  category_code: optional(Type.String()),
  container_barcode: optional(Type.String()),
  customer_order_number: optional(Type.String()),
  customer_order_shipment_number: optional(Type.String()),
  customer_order_shipment_number_line_number: optional(Type.Number()),
  description: optional(Type.String()),
  group_code: optional(Type.String()),
  product_number: optional(Type.String()),
  purchase_unit_barcode: optional(Type.String()),
  purchase_unit_product_number: optional(Type.String()),
  purchase_unit_quantity: optional(Type.Number()),
  rounded_quantity: optional(Type.Number()),
  secondary_order_number: optional(Type.String()),
});
export type DeliveryLine = Static<typeof DeliveryLine>;

/** A delivery order as read (interface §2.3). */
export const DeliveryOrder = Type.Object({
  datetime_created: Type.String(),
  datetime_expected: Type.String(),
  import_id: Type.Number({ description: 'Internal id of the delivery' }),
  is_downloaded: Type.Boolean({ description: 'true once the store started receiving it' }),
  updated_on: Type.String(),
  external_reference_number: optional(Type.String({ description: 'The reference sent with the order' })),
  no_of_containers: optional(Type.Number()),
  order_lines: optional(Type.Array(DeliveryLine)),
  order_number: optional(Type.String()),
  order_type: optional(Type.String({ description: 'The order type as a decimal string ("1")' })),
  status: optional(Type.String({ description: 'open, receiving, received or cancelled' })),
  store_gln: optional(Type.String()),
  store_number: optional(Type.String()),
  store_origin: optional(Type.String()),
  supplier_code: optional(Type.String()),
  supplier_name: optional(Type.String()),
  tracing_url: optional(Type.String()),
});
export type DeliveryOrder = Static<typeof DeliveryOrder>;

export const DeliveriesQuery = Type.Object({
  delivery_date: optional(
    Str(40, { description: 'A day (YYYY-MM-DD) or a date-time: deliveries expected on that UTC day' }),
  ),
  group_code: optional(Str(64, { description: 'Deliveries with a line of a store product in this group' })),
  is_submitted: optional(Type.Boolean({ description: 'true: received (submitted); false: every other status' })),
  last_modified_date: optional(DateTime({ description: 'Deliveries with updated_on at or after this' })),
  order_number: optional(Str(64)),
  secondary_order_number: optional(Str(64, { description: 'Deliveries with a line of this secondary order number' })),
  status: optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
  store_number: optional(Str(64)),
  supplier_code: optional(Str(64)),
  supplier_name: optional(Str(255, { description: 'Case-insensitive substring' })),
  ...PageQueryProperties,
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const DeliveriesPage = PagedResponse(DeliveryOrder);

export const StoreParams = StoreNumberParams;
export const DeliveryParams = Type.Object({ store_number: Str(64), order_number: Str(64) });

/** PRODUCT §7 Receive endpoint body. */
export const ReceiveBody = Type.Object({
  lines: Type.Array(
    Type.Object({
      line_number: Int({ minimum: 0 }),
      received_quantity: Quantity({
        description:
          'What arrived in this call, added to the line total; negative corrects a mis-scan (the total stays ≥ 0)',
      }),
      target_stock_pool: optional(PoolNumber({ description: "Default: the line's target_stock_pool" })),
    }),
    { maxItems: MAX_DELIVERY_LINES },
  ),
  submit: optional(
    Type.Boolean({
      description: 'true: the store is done receiving; the delivery becomes received and its receipt submitted',
    }),
  ),
});
export type ReceiveBody = Static<typeof ReceiveBody>;

export const ReceiveQuery = Type.Object({
  appUserName: optional(Str(255, { description: 'The app user receiving: app_user_name of the entries' })),
});
export type ReceiveQuery = Static<typeof ReceiveQuery>;
