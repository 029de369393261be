import type { Selectable } from 'kysely';
import type { CustomerOrderLineTable, CustomerOrderTable } from '../../db/schema.js';

// The rows the customer-orders repository returns, in one place: mapping turns them into API shapes.

export type OrderRow = Selectable<CustomerOrderTable>;
export type OrderLineRow = Selectable<CustomerOrderLineTable>;

/** An order as listed: its row and its rejection reason's description. */
export type OrderReadRow = OrderRow & { rejection_reason_code_description: string | null };

/** A line as listed: its row and what the product master adds. */
export type OrderLineReadRow = OrderLineRow & { master_barcode: string | null; product_name: string | null };

/** Free stock of a product at one location of the store, per pool (thousandths). */
export interface StoreLocationRow {
  product_id: number;
  location_code: string;
  location_order: number;
  default_stock_pool: number | null;
  tags: string[];
  pools: number[];
}
