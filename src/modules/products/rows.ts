import type { Selectable } from 'kysely';
import type { ProductDiscountTable, ProductPriceTable, ProductTable } from '../../db/schema.js';
import type { PRODUCT_READ_COLUMNS } from './mapping.js';
import type { PRICE_CANDIDATE_COLUMNS } from './prices/repository.js';

// The rows the product repositories (with prices/ and discounts/) return, in one place: mapping turns them into API shapes.

export type ProductRow = Selectable<ProductTable>;

export type ProductReadRow = Pick<ProductRow, (typeof PRODUCT_READ_COLUMNS)[number]>;

/** What booking a stock entry needs of a product (stock-logs/book.ts BookingProduct): a narrow select. */
export interface BookingProductRow {
  id: number;
  product_number: string;
  barcode: string | null;
  price: number | null;
  purchase_price: number | null;
  purchase_unit_quantity: number | null;
}

export type PriceRow = Selectable<ProductPriceTable>;

export type PriceCandidateRow = Pick<PriceRow, (typeof PRICE_CANDIDATE_COLUMNS)[number]>;

export type DiscountRow = Selectable<ProductDiscountTable>;
