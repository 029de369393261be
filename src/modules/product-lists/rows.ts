import type { Selectable } from 'kysely';
import type { ProductListTable } from '../../db/schema.js';

// The rows the product-lists repository returns, in one place: mapping turns them into API shapes.

export type ListRow = Selectable<ProductListTable>;

/** A list as listed: its row, its line count and its type's configured name. */
export type ListReadRow = ListRow & { line_count: number; type_description: string | null };

/** A line as read: its row and where the product is in the store (PRODUCT §8). */
export interface LineReadRow {
  list_id: number;
  product_id: number;
  quantity: number;
  stock_pool: number | null;
  store_walking_order: number | null;
}
