import type { Selectable } from 'kysely';
import type { BookingProduct } from '../../ledger/ledger.js';
import type { ProductDiscountTable, ProductPriceTable, ProductTable } from '../../db/schema.js';

// The rows the product repositories (with prices/ and discounts/) return, in one place: mapping turns them into API shapes.

export type ProductRow = Selectable<ProductTable>;

/** What a read selects: the stored document and the columns prices are resolved from. */
export const PRODUCT_READ_COLUMNS = [
  'id',
  'country_code',
  'price',
  'old_price',
  'read_document',
] as const satisfies ReadonlyArray<keyof ProductRow>;

export type ProductReadRow = Pick<ProductRow, (typeof PRODUCT_READ_COLUMNS)[number]>;

/** What booking a stock entry needs of a product: the kernel says (ledger/book.ts). */
export type BookingProductRow = BookingProduct;

export type PriceRow = Selectable<ProductPriceTable>;

/** What the effective-price rule reads of a price record. */
export const PRICE_CANDIDATE_COLUMNS = [
  'id',
  'product_id',
  'price',
  'valid_from',
  'valid_to',
  'store_number',
  'price_group',
  'country_code',
] as const;

export type PriceCandidateRow = Pick<PriceRow, (typeof PRICE_CANDIDATE_COLUMNS)[number]>;

export type DiscountRow = Selectable<ProductDiscountTable>;
