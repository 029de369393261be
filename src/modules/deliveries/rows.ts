import type { Selectable } from 'kysely';
import { tableColumns } from '../../db/insert-many.js';
import type { DeliveryOrderLineTable, DeliveryOrderTable } from '../../db/schema.js';

// The rows the deliveries repositories return, in one place: mapping turns them into API shapes.

export type DeliveryRow = Selectable<DeliveryOrderTable>;
export type DeliveryLineRow = Selectable<DeliveryOrderLineTable>;

/** A delivery as listed: its row and the store's GLN. */
export type DeliveryReadRow = DeliveryRow & { store_gln: string | null };

/** A delivery line as read: its row enriched from the product master and the store product. */
export type DeliveryLineReadRow = DeliveryLineRow & {
  master_barcode: string | null;
  category_code: string | null;
  base_unit_name: string | null;
  purchase_unit_quantity: number | null;
  group_code: string | null;
};

/**
 * delivery_orders' columns in the table's order: the insert's column list, and the order of a
 * header's columns (mapping.ts headerOf), which its content hash has always followed.
 */
export const DELIVERY_ORDER_COLUMNS = tableColumns<DeliveryOrderTable>()([
  'store_id',
  'store_number',
  'order_number',
  'order_type',
  'status',
  'datetime_created_at',
  'datetime_expected_at',
  'no_of_containers',
  'reason_code',
  'description',
  'reference',
  'store_origin',
  'supplier_code',
  'supplier_name',
  'tracing_url',
  'content_hash',
  'created_on',
  'updated_on',
  'created_by',
  'modified_by',
]);

/** delivery_order_lines' columns as an insert lists them: its ids and received total, then what an import writes. */
export const DELIVERY_LINE_COLUMNS = tableColumns<DeliveryOrderLineTable>()([
  'delivery_id',
  'store_id',
  'received_quantity',
  'line_number',
  'product_id',
  'product_number',
  'quantity',
  'ordered_quantity',
  'target_stock_pool',
  'customer_order_line_number',
  'customer_order_shipment_line_number',
  'secondary_order_line_number',
  'purchase_price',
  'barcode',
  'container_barcode',
  'customer_order_number',
  'customer_order_shipment_number',
  'description',
  'product_description',
  'reference',
  'secondary_order_number',
]);
