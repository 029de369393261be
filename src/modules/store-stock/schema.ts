import { Type, type Static, type TNumber, type TOptional } from '@sinclair/typebox';
import { POOLS } from '../../domain/stock-rules.js';
import { DateTime, Int, PageQueryProperties, PagedResponse, Str, StoreNumberParams } from '../../shared/schemas.js';
import { LOCATION_CODE_MAX } from '../locations/schema.js';
import { BARCODE_MAX, PRODUCT_NUMBER_MAX } from '../products/schema.js';

type PoolFields<P extends string> = Record<`${P}${(typeof POOLS)[number]}`, TOptional<TNumber>>;

/** Ten optional per-pool quantities; the spelling differs per resource (interface §2.5). */
const poolFields = <P extends string>(prefix: P) =>
  Object.fromEntries(
    POOLS.map((n) => [`${prefix}${n}`, Type.Optional(Type.Number({ description: `Quantity in stock pool ${n}` }))]),
  ) as PoolFields<P>;

const OptionalString = () => Type.Optional(Type.String());
const OptionalNumber = () => Type.Optional(Type.Number());

/** Store location stock entry (interface §2.5): the stock of one product at one location. */
export const StoreLocationStock = Type.Object({
  quantity: Type.Number(),
  carrier_code: OptionalString(),
  default_stock_pool: Type.Optional(
    Type.String({ description: "The store's name of the location's default pool, else its number" }),
  ),
  ...poolFields('stock_pool_'),
  store_location_code: Type.Optional(
    Type.String({ description: 'Absent on the line of stock booked without a location' }),
  ),
  tags: Type.Optional(Type.Array(Type.String())),
});
export type StoreLocationStock = Static<typeof StoreLocationStock>;

/** Store product with stock (interface §2.5), item of GET /storeproducts/stock. */
export const StoreProductStock = Type.Object({
  id: Type.Integer(),
  is_replenishment: Type.Boolean(),
  is_stock: Type.Boolean(),
  most_likely_quantity: Type.Number(),
  ...poolFields('most_likely_pool_'),
  adjusted_order_level: OptionalNumber(),
  category_order: OptionalNumber(),
  demand_until_delivery: OptionalNumber(),
  forecast: OptionalNumber(),
  max: OptionalNumber(),
  min: OptionalNumber(),
  order_level: OptionalNumber(),
  original_max: OptionalNumber(),
  original_min: OptionalNumber(),
  price: Type.Optional(
    Type.Number({
      description: 'Store product price, else the effective price in the store, else the master price (PRODUCT §6)',
    }),
  ),
  purchase_unit_quantity: OptionalNumber(),
  smallest_item_quantity: OptionalNumber(),
  attention_codes: Type.Optional(Type.String({ description: 'Product attention codes joined by ","' })),
  average_array: Type.Optional(Type.String({ description: 'Values joined by ","' })),
  barcode: OptionalString(),
  category_code: OptionalString(),
  category_name: OptionalString(),
  forecast_array: Type.Optional(Type.String({ description: 'Values joined by ","' })),
  group_code: OptionalString(),
  history_array: Type.Optional(Type.String({ description: 'Values joined by ","' })),
  last_counted_datetime: OptionalString(),
  last_expiry_datetime: OptionalString(),
  last_expiry_updatedby: OptionalString(),
  last_loss_updatedby: OptionalString(),
  last_minmax_updatedby: OptionalString(),
  last_receipt_updatedby: OptionalString(),
  most_likely_datetime: Type.Optional(Type.String({ description: 'When the stock of the store product last changed' })),
  next_delivery_datetime: OptionalString(),
  next_ordering_datetime: OptionalString(),
  product_description: OptionalString(),
  product_number: OptionalString(),
  promotion_week: OptionalString(),
  purchase_unit_name: OptionalString(),
  referral_product: OptionalString(),
  smallest_product_number: OptionalString(),
  store_number: OptionalString(),
  storeproduct_attention_codes: Type.Optional(
    Type.String({ description: 'Store product attention codes joined by ","' }),
  ),
  validate_expiry_datetime: OptionalString(),
  delivery_datetimes: Type.Optional(Type.Array(Type.String())),
  ordering_datetimes: Type.Optional(Type.Array(Type.String())),
  store_locations: Type.Optional(Type.Array(StoreLocationStock)),
});
export type StoreProductStock = Static<typeof StoreProductStock>;

const excludeOrderStock = Type.Optional(
  Type.Boolean({ description: 'true leaves stock bound to customer orders out of every quantity (PRODUCT §5)' }),
);
const includeLocations = Type.Optional(
  Type.Boolean({ description: 'true adds store_locations: the stock per location' }),
);

/**
 * The filters of the stock list (interface §4.4) and of its CSV export, declared once: the
 * interface's own, then three added for the store's stock list (issue 43,
 * docs/decisions.md "Stock list filters and CSV export"). Optional like every filter, so
 * integrations that never send them get the list they always got.
 */
const stockListFilterProperties = {
  article_no: Type.Optional(Str(PRODUCT_NUMBER_MAX, { description: 'Product number (same as product_number)' })),
  barcode: Type.Optional(
    Str(BARCODE_MAX, { description: 'Any barcode of the product: its own, barcodes_array or a unit barcode' }),
  ),
  category_code: Type.Optional(Str(64)),
  parent_category_code: Type.Optional(Str(64, { description: 'Products whose category has this parent' })),
  last_modified_date: Type.Optional(
    DateTime({ description: 'Store products whose properties changed at or after this' }),
  ),
  last_stock_modified_datetime: Type.Optional(
    DateTime({ description: 'Store products whose stock changed at or after this' }),
  ),
  product_number: Type.Optional(Str(PRODUCT_NUMBER_MAX)),
  search_text: Type.Optional(
    Str(200, {
      description: 'Case-insensitive literal substring of the product number, name, description or any barcode',
    }),
  ),
  from_id: Type.Optional(Int({ description: 'Smallest id, inclusive' })),
  to_id: Type.Optional(Int({ description: 'Largest id, inclusive' })),
  location_code: Type.Optional(
    Str(LOCATION_CODE_MAX, {
      minLength: 1,
      description:
        'Extension: store products with stock at the location of this code in their store — the ones whose ' +
        'store_locations (include_locations=true) would show it: some pool there is not zero',
    }),
  ),
  below_zero: Type.Optional(
    Type.Boolean({
      description:
        'Extension: true lists the store products with a pool below zero (a most_likely_pool_N < 0, so also ' +
        'every one whose most_likely_quantity is); false those with none',
    }),
  ),
  not_counted_since: Type.Optional(
    DateTime({
      description:
        'Extension: store products with no count at or after this moment (last_counted_datetime before it, ' +
        'or never counted)',
    }),
  ),
  exclude_customer_order_stock: excludeOrderStock,
};

export const StoreProductStockQuery = Type.Object({
  ...stockListFilterProperties,
  store_number: Type.Optional(Str(64)),
  include_locations: includeLocations,
  ...PageQueryProperties,
});
export type StoreProductStockQuery = Static<typeof StoreProductStockQuery>;

export const StoreProductStockPage = PagedResponse(StoreProductStock);

/**
 * GET /stores/{store_number}/storeproducts/stock.csv: the store's whole filtered list, so
 * the list's filters without its paging (the export reads every page itself) and without
 * store_number (the path names the store).
 */
export const StockCsvQuery = Type.Object(stockListFilterProperties);
export type StockCsvQuery = Static<typeof StockCsvQuery>;
export const StockCsvParams = StoreNumberParams;
export type StockCsvParams = Static<typeof StockCsvParams>;
/** What the OpenAPI document says of the export's 200 answer (docs/stock.md "The stock list as CSV"). */
export const StockCsvResponse = {
  description: 'RFC 4180 CSV (CRLF, a header row), UTF-8, as an attachment stock-<store>-<date>.csv',
  content: { 'text/csv': { schema: Type.String() } },
};

export const ProductStockParams = Type.Object({
  store_number: Str(64),
  product_number: Str(Math.max(PRODUCT_NUMBER_MAX, BARCODE_MAX), {
    description: 'A product number or any barcode of the product',
  }),
});
export type ProductStockParams = Static<typeof ProductStockParams>;

/** Single-product stock entry (interface §2.5). */
export const SingleProductStock = Type.Object({
  most_likely_stock: Type.Number(),
  ...poolFields('stock_pool_'),
  product_number: OptionalString(),
  store_number: OptionalString(),
  next_delivery_datetime: OptionalString(),
  next_ordering_datetime: OptionalString(),
  delivery_datetimes: Type.Optional(Type.Array(Type.String())),
  ordering_datetimes: Type.Optional(Type.Array(Type.String())),
  store_locations: Type.Optional(Type.Array(StoreLocationStock)),
});
export type SingleProductStock = Static<typeof SingleProductStock>;

export const SingleProductStockQuery = Type.Object({
  exclude_customer_order_stock: excludeOrderStock,
  include_locations: includeLocations,
  include_zero_lines: Type.Optional(
    Type.Boolean({ description: 'true keeps pool and location lines with zero quantity (default false, PRODUCT §5)' }),
  ),
});
export type SingleProductStockQuery = Static<typeof SingleProductStockQuery>;

export const SingleProductStockResponse = Type.Object({ products: Type.Array(SingleProductStock) });
export type SingleProductStockResponse = Static<typeof SingleProductStockResponse>;

/** Surrounding stock entry (interface §2.5). */
export const SurroundingStock = Type.Object({
  is_warehouse: Type.Boolean(),
  most_likely_quantity: Type.Number(),
  ...poolFields('most_likely_pool_'),
  area_description: OptionalString(),
  area_id: OptionalString(),
  store_name: OptionalString(),
  store_number: OptionalString(),
});
export type SurroundingStock = Static<typeof SurroundingStock>;

export const SurroundingStockQuery = Type.Object({
  exclude_customer_order_stock: Type.Optional(
    Type.Boolean({
      description: 'Extension: true leaves stock bound to customer orders out (as on the other stock reads)',
    }),
  ),
});
export type SurroundingStockQuery = Static<typeof SurroundingStockQuery>;

export const SurroundingStockList = Type.Array(SurroundingStock);
