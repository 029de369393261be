import type { Selectable } from 'kysely';
import type { LocationTable } from '../../db/schema.js';

// The rows this module's repository returns, in one place: mapping turns them into API shapes.

export type LocationRow = Selectable<LocationTable>;

/** One balance at a location, with the product it is of. */
export interface LocatedBalance {
  location_id: number;
  product_id: number;
  product_number: string;
  product_name: string;
  order_key: string;
  pool: number;
  quantity: number;
}

/** Customer order line details of order-bound stock, from the latest log entry that booked it. */
export interface OrderDetails {
  customer_order_line_number: number | null;
  customer_order_shipment_number: string | null;
  customer_order_shipment_line_number: number | null;
}

/** One (product, customer order or none) with stock at the resolved locations. */
export interface LocationProductRow {
  id: number;
  product_id: number;
  order_key: string;
  quantity: number;
  product_number: string;
  product_name: string;
  barcode: string | null;
  image_url: string | null;
}
