import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  BulkArray,
  DateTime,
  Int,
  PageQueryProperties,
  PagedResponse,
  PoolNumber,
  Quantity,
  Str,
  StoreNumberParams,
} from '../../shared/schemas.js';
import { inputProperties } from '../../shared/fields.js';
import { DeliveryOrder, LINE_FIELDS, ORDER_FIELDS } from './fields.js';

/** Delivery statuses (PRODUCT §7): open → receiving → received, or cancelled. */
export const DELIVERY_STATUSES = ['open', 'receiving', 'received', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Most lines one delivery may carry (the body limit bounds a request as a whole). */
export const MAX_DELIVERY_LINES = 10_000;

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** The store path requires `product_number`; the cross-store path lets a line name its product by `barcode` alone. */
const StoreLineInput = Type.Object(inputProperties(LINE_FIELDS));
const CrossStoreLineInput = Type.Object(inputProperties(LINE_FIELDS, { optional: ['product_number'] }));

const lineList = <T extends TSchema>(line: T) =>
  optional(
    Type.Array(line, {
      maxItems: MAX_DELIVERY_LINES,
      description:
        'The whole set of lines: lines of a stored delivery absent here are removed (a line that received something cannot be); absent = lines unchanged',
    }),
  );

/** The store path takes the store from the path and lets an order leave its supplier's name out. */
export const StoreDeliveryInput = Type.Object({
  ...inputProperties(ORDER_FIELDS, { omit: ['store_number'], optional: ['supplier_name'] }),
  order_lines: lineList(StoreLineInput),
});
export type StoreDeliveryInput = Static<typeof StoreDeliveryInput>;
export const CrossStoreDeliveryInput = Type.Object({
  ...inputProperties(ORDER_FIELDS),
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

export { DeliveryLine, DeliveryOrder } from './fields.js';

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
