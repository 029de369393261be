import { formatDateTime } from '../../domain/datetime.js';
import { fromQuantity } from '../../domain/decimal.js';
import type { ProductDetails } from './product-details.js';
import type { LineReadRow, ListReadRow } from './rows.js';
import type { ProductList, ProductListLine } from './schema.js';

export interface FreeField {
  key: string;
  value: string;
}

const present = (text: string | null): string | undefined => (text === null || text === '' ? undefined : text);

/** A line as read (interface §2.1 "Product list line"), enriched from the master (PRODUCT §8). */
export function toListLine(row: LineReadRow, product: ProductDetails): ProductListLine {
  return {
    quantity: fromQuantity(Number(row.quantity)),
    barcode: present(product.barcode),
    category_code: present(product.category_code),
    colli: fromQuantity(product.carrier_item_quantity),
    is_decimal: product.allow_decimal === 1,
    parent_category_code: present(product.parent_category_code),
    product_name: product.product_name,
    product_number: product.product_number,
    stock_pool: row.stock_pool === null ? undefined : String(row.stock_pool),
    store_walking_order: row.store_walking_order === null ? 0 : Number(row.store_walking_order),
  };
}

/** A list as read (interface §2.1); `lines` only when asked for. */
export function toProductList(row: ListReadRow, lines: ProductListLine[] | undefined): ProductList {
  return {
    id: Number(row.id),
    line_count: Number(row.line_count),
    type: Number(row.type),
    app_username: row.app_username,
    free_fields: JSON.parse(row.free_fields) as FreeField[],
    lines,
    modified_on: formatDateTime(Number(row.updated_on)),
    name: row.name,
    type_description: row.type_description ?? undefined,
    is_archived: row.archived_on !== null,
    module_id: row.module_id === null ? undefined : Number(row.module_id),
    created_on: formatDateTime(Number(row.created_on)),
  };
}
