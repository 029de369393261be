import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { formatDateTime, requireDateTime } from '../../domain/datetime.js';
import { fromQuantity, toMoney, toQuantity } from '../../domain/decimal.js';
import { StoreRef } from '../../shared/access.js';
import { fieldsOf, outputProperties, reader, type ColumnsAgree, type RecordOf } from '../../shared/fields.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import { DateTime, Int, Money, PoolNumber, Quantity, Str, TextId } from '../../shared/schemas.js';
import type { DeliveryLineReadRow, DeliveryLineRow, DeliveryReadRow, DeliveryRow } from './rows.js';

// Every field of a delivery and of its lines, declared once (shared/fields.ts): the import's
// schema (interface §4.3), the column an import stores it in, the read's schema (§2.3) and
// where the read takes it from. schema.ts builds the TypeBox objects, mapping.ts the records
// and the reads from these; rows.ts checks the records against the Kysely tables. Fields are
// declared in the import's order (the interface's); the read lists its own in §2.3's order.

const optional = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** What a line's record needs besides the line: its product, resolved by number or barcode. */
export interface LineContext {
  product: { id: number; product_number: string };
}

const line = fieldsOf<LineContext, DeliveryLineReadRow>();

/** A delivery line: what the ERP sends, stores and reads back. */
export const LINE_FIELDS = {
  line_number: line({
    input: Int({ minimum: 0, description: 'Unique within the order; receiving names lines by it' }),
    column: 'line_number',
    write: (sent) => sent,
    output: Type.Number(),
    read: (row) => Number(row.line_number),
  }),
  quantity: line({
    input: Quantity({ minimum: 0, description: 'Announced (shipped) quantity' }),
    column: 'quantity',
    write: (sent) => toQuantity(sent),
    output: Type.Number({ description: 'Announced (shipped)' }),
    read: (row) => fromQuantity(row.quantity),
  }),
  received_quantity: line({
    // Only receiving moves it: an import never writes it (a new line starts at 0).
    output: Type.Number({ description: 'Received so far; over- and under-receipt are allowed' }),
    read: (row) => fromQuantity(row.received_quantity),
  }),
  target_stock_pool: line({
    input: PoolNumber({ description: 'Pool the received stock is booked into (1-10)' }),
    column: 'target_stock_pool',
    write: (sent) => sent,
    output: Type.Number(),
    read: (row) => row.target_stock_pool,
  }),
  barcode: line({
    input: optional(
      TextId(64, { description: 'Any barcode of the product; resolves the product when product_number is absent' }),
    ),
    column: 'barcode',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.barcode ?? row.master_barcode),
  }),
  container_barcode: line({
    input: optional(TextId(64, { description: 'Container (roll cage, pallet) the line travels in' })),
    column: 'container_barcode',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.container_barcode),
  }),
  customer_order_number: line({
    input: optional(TextId(64)),
    column: 'customer_order_number',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.customer_order_number),
  }),
  customer_order_shipment_number: line({
    input: optional(TextId(64)),
    column: 'customer_order_shipment_number',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.customer_order_shipment_number),
  }),
  description: line({
    input: optional(Str(2000)),
    column: 'description',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.description ?? row.product_description),
  }),
  product_description: line({ input: optional(Str(2000)), column: 'product_description', write: orNull }),
  reference: line({ input: optional(TextId(255)), column: 'reference', write: orNull }),
  secondary_order_number: line({
    input: optional(TextId(64)),
    column: 'secondary_order_number',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.secondary_order_number),
  }),
  customer_order_line_number: line({
    input: optional(Int({ minimum: 0 })),
    column: 'customer_order_line_number',
    write: orNull,
  }),
  customer_order_shipment_number_line_number: line({
    input: optional(Int({ minimum: 0 })),
    column: 'customer_order_shipment_line_number',
    write: orNull,
    output: optional(Type.Number()),
    read: (row) =>
      row.customer_order_shipment_line_number === null ? undefined : Number(row.customer_order_shipment_line_number),
  }),
  ordered_quantity: line({
    input: optional(
      Quantity({ minimum: 0, description: 'What the store ordered, when it differs from what is shipped' }),
    ),
    column: 'ordered_quantity',
    write: (sent) => (sent === undefined ? null : toQuantity(sent)),
  }),
  purchase_price: line({
    input: optional(Money({ minimum: 0 })),
    column: 'purchase_price',
    write: (sent) => (sent === undefined ? null : toMoney(sent)),
  }),
  secondary_order_line_number: line({
    input: optional(Int({ minimum: 0 })),
    column: 'secondary_order_line_number',
    write: orNull,
  }),
  /** Required on the store path; the cross-store path lets a line name its product by barcode alone (schema.ts). */
  product_number: line({
    input: TextId(64, { description: 'The product; on the cross-store path a line may name it by barcode instead' }),
    column: 'product_number',
    write: (_sent, { product }) => product.product_number,
    output: optional(Type.String()),
    read: (row) => row.product_number,
  }),
  product_id: line({ column: 'product_id', write: (_sent, { product }) => product.id }),
  // From the product master and the store product (repository.ts readLines).
  base_unit: line({ output: optional(Type.String()), read: (row) => orUndefined(row.base_unit_name) }),
  category_code: line({ output: optional(Type.String()), read: (row) => orUndefined(row.category_code) }),
  group_code: line({ output: optional(Type.String()), read: (row) => orUndefined(row.group_code) }),
  purchase_unit_quantity: line({
    output: optional(Type.Number()),
    read: (row) => (row.purchase_unit_quantity === null ? undefined : fromQuantity(row.purchase_unit_quantity)),
  }),
  // Interface §2.3 fields the service has nothing to fill with.
  purchase_unit_barcode: line({ output: optional(Type.String()), read: () => undefined }),
  purchase_unit_product_number: line({ output: optional(Type.String()), read: () => undefined }),
  rounded_quantity: line({ output: optional(Type.Number()), read: (row) => fromQuantity(row.quantity) }),
};

/** A delivery line as read (interface §2.3 "Delivery order line (read)"). */
export const DeliveryLine = Type.Object(outputProperties(LINE_FIELDS));
export type DeliveryLine = Static<typeof DeliveryLine>;

const readLine = reader<typeof LINE_FIELDS, DeliveryLineReadRow, undefined, DeliveryLine>(LINE_FIELDS);

export function toDeliveryLine(row: DeliveryLineReadRow): DeliveryLine {
  return readLine(row, undefined);
}

/** What a header's record needs besides the order: the container count and the stored or default creation moment. */
export interface HeaderContext {
  noOfContainers: number;
  createdAtDefault: number;
}

/** What a read needs besides the delivery's row: its lines. */
export interface DeliveryReadContext {
  lines: readonly DeliveryLineReadRow[];
}

const order = fieldsOf<HeaderContext, DeliveryReadRow, DeliveryReadContext>();

/**
 * A delivery order. The fields with a `column` are its header: what an import stores from the
 * order, hashed to tell a re-send from a change. `order_number`, `store_number` and `status`
 * are stored by the service itself (the key, the path's store, the life of the delivery).
 */
export const ORDER_FIELDS = {
  datetime_expected: order({
    input: DateTime({ description: 'When the delivery is expected' }),
    column: 'datetime_expected_at',
    write: (sent) => requireDateTime(sent),
    output: Type.String(),
    read: (row) => formatDateTime(row.datetime_expected_at),
  }),
  no_of_containers: order({
    input: Int({
      minimum: 0,
      description:
        'Kept as sent when no line carries a container_barcode or the container_override header is true; else the number of distinct container barcodes',
    }),
    column: 'no_of_containers',
    write: (_sent, { noOfContainers }) => noOfContainers,
    output: optional(Type.Number()),
    read: (row) => Number(row.no_of_containers),
  }),
  order_number: order({
    input: TextId(64, { description: 'Unique across the chain: a re-send with the same number updates the delivery' }),
    output: optional(Type.String()),
    read: (row) => row.order_number,
  }),
  order_type: order({
    input: Int({
      minimum: 0,
      maximum: 2_147_483_647,
      description: 'For example 1 = purchase, 2 = transfer; read back as a decimal string',
    }),
    column: 'order_type',
    write: (sent) => sent,
    output: optional(Type.String({ description: 'The order type as a decimal string ("1")' })),
    read: (row) => String(row.order_type),
  }),
  datetime_created: order({
    input: optional(DateTime({ description: 'Default: when the delivery is first stored by the service' })),
    column: 'datetime_created_at',
    write: (sent, { createdAtDefault }) => (sent === undefined ? createdAtDefault : requireDateTime(sent)),
    output: Type.String(),
    read: (row) => formatDateTime(row.datetime_created_at),
  }),
  description: order({ input: optional(Str(2000)), column: 'description', write: orNull }),
  reference: order({
    input: optional(TextId(255, { description: 'Read back as external_reference_number' })),
    column: 'reference',
    write: orNull,
  }),
  store_origin: order({
    input: optional(
      StoreRef({
        description:
          'Origin store of an inter-store transfer (docs/decisions.md Deliveries "transfers"); a store token must hold it; fixed once anything is received',
      }),
    ),
    column: 'store_origin',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.store_origin),
  }),
  supplier_code: order({
    input: optional(TextId(64)),
    column: 'supplier_code',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.supplier_code),
  }),
  tracing_url: order({
    input: optional(Str(2000)),
    column: 'tracing_url',
    write: orNull,
    output: optional(Type.String()),
    read: (row) => orUndefined(row.tracing_url),
  }),
  reason_code: order({ input: optional(Int()), column: 'reason_code', write: orNull }),
  status: order({
    input: optional(
      Type.Union([Type.Literal('open'), Type.Literal('cancelled')], {
        description:
          'Added (docs/decisions.md): "cancelled" cancels a delivery nothing was received of; "open" (or absent) leaves the status to receiving',
      }),
    ),
    output: optional(Type.String({ description: 'open, receiving, received or cancelled' })),
    read: (row) => row.status,
  }),
  /** The cross-store path's (required); the store path takes it from the path (schema.ts). */
  store_number: order({
    input: StoreRef({ description: 'The store the goods go to' }),
    output: optional(Type.String()),
    read: (row) => row.store_number,
  }),
  /** Required on the cross-store path, optional on the store path (schema.ts). */
  supplier_name: order({
    input: Str(255),
    column: 'supplier_name',
    write: (sent: string | undefined) => orNull(sent),
    output: optional(Type.String()),
    read: (row) => orUndefined(row.supplier_name),
  }),
  // Read only.
  external_reference_number: order({
    output: optional(Type.String({ description: 'The reference sent with the order' })),
    read: (row) => orUndefined(row.reference),
  }),
  import_id: order({ output: Type.Number({ description: 'Internal id of the delivery' }), read: (row) => row.id }),
  is_downloaded: order({
    output: Type.Boolean({ description: 'true once the store started receiving it' }),
    read: (row) => row.status !== 'open' && row.status !== 'cancelled',
  }),
  order_lines: order({
    output: optional(Type.Array(DeliveryLine)),
    read: (_row, { lines }) => lines.map(toDeliveryLine),
  }),
  store_gln: order({ output: optional(Type.String()), read: (row) => orUndefined(row.store_gln) }),
  updated_on: order({ output: Type.String(), read: (row) => formatDateTime(row.updated_on) }),
};

/** A delivery order as read (interface §2.3). */
export const DeliveryOrder = Type.Object(outputProperties(ORDER_FIELDS));
export type DeliveryOrder = Static<typeof DeliveryOrder>;

// The records the declarations write are the tables' columns, of the same types (db/schema.ts,
// which cannot import a module): a declared column the table lacks, or of another type, does not compile.
type Agreed<T extends true> = T;
export type HeaderAgrees = Agreed<ColumnsAgree<RecordOf<typeof ORDER_FIELDS>, DeliveryRow>>;
export type LineAgrees = Agreed<ColumnsAgree<RecordOf<typeof LINE_FIELDS>, DeliveryLineRow>>;
