import type { Selectable } from 'kysely';
import type { ProductListLineTable, ProductListTable } from '../../db/schema.js';

// The rows the product-lists repository returns, in one place: mapping turns them into API shapes.

export type ListRow = Selectable<ProductListTable>;
export type LineRow = Selectable<ProductListLineTable>;

/** A list as listed: its row, its line count and its type's configured name. */
export type ListReadRow = ListRow & { line_count: number; type_description: string | null };

/** A line as read: what the product master and the store's locations add (PRODUCT §8). */
export interface LineReadRow {
  list_id: number;
  quantity: number;
  stock_pool: number | null;
  product_number: string;
  product_name: string;
  barcode: string | null;
  carrier_item_quantity: number;
  allow_decimal: number | null;
  category_code: string | null;
  parent_category_code: string | null;
  store_walking_order: number | null;
}
