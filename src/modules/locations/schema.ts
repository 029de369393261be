import { Type, type Static } from '@sinclair/typebox';
import {
  AcceptLanguageHeaders,
  BulkArray,
  Int,
  PageQueryProperties,
  PagedResponse,
  PoolNumber,
  SmallArray,
  Str,
  TextId,
} from '../../shared/schemas.js';

export const LOCATION_CODE_MAX = 64;
export const TAG_MAX = 64;

/** One location as sent to the added endpoint of PRODUCT §5 (Locations). */
export const LocationInput = Type.Object({
  location_code: TextId(LOCATION_CODE_MAX, { minLength: 1 }),
  location_order: Type.Optional(Int({ minimum: 0, description: 'Position in walking sequences; 0 when left out' })),
  tags: Type.Optional(SmallArray(Str(TAG_MAX, { minLength: 1 }), 100)),
  default_stock_pool: Type.Optional(
    PoolNumber({ description: 'Pool a log entry at this location books to when it names none' }),
  ),
});
export type LocationInput = Static<typeof LocationInput>;

export const LocationsBody = Type.Object({ locations: BulkArray(LocationInput) });
export type LocationsBody = Static<typeof LocationsBody>;

export const LocationParams = Type.Object({
  store_number: Str(64),
  location_code: Str(LOCATION_CODE_MAX),
});

const poolFields = Object.fromEntries(
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => [
    `mostlikelypool${n}`,
    Type.Number({ description: `Quantity in pool ${n}` }),
  ]),
);

/** Location stock entry (interface §2.2): one per product and customer order (or none). */
export const LocationStockEntry = Type.Object({
  customer_order_line_number: Type.Optional(Type.Integer()),
  customer_order_number: Type.Optional(Type.String()),
  customer_order_shipment_line_number: Type.Optional(Type.Integer()),
  customer_order_shipment_number: Type.Optional(Type.String()),
  ...poolFields,
  product_description: Type.Optional(Type.String()),
  product_number: Type.Optional(Type.String()),
  quantity: Type.Number(),
});
export type LocationStockEntry = Static<typeof LocationStockEntry>;

/** Location (interface §2.2). */
export const Location = Type.Object({
  id: Type.Integer(),
  counter: Type.Integer({ description: 'Distinct products with stock at the location' }),
  created_on: Type.String(),
  location_order: Type.Integer(),
  customer_orders: Type.Array(Type.String()),
  default_stock_pool: Type.Optional(Type.String({ description: "The store's name of the pool, else its number" })),
  location_code: Type.String(),
  quantity: Type.Number(),
  stock: Type.Array(LocationStockEntry),
  tags: Type.Array(Type.String()),
});
export type Location = Static<typeof Location>;

export const LocationsQuery = Type.Object({
  accept_language: Type.Optional(Str(64)),
  app_username: Type.Optional(Str(255)),
  ignore_customerorder_stock: Type.Optional(
    Type.Boolean({ description: 'true leaves stock bound to customer orders out' }),
  ),
  search_text: Type.Optional(Str(200, { description: 'Case-insensitive literal substring of location_code or a tag' })),
  ...PageQueryProperties,
});
export type LocationsQuery = Static<typeof LocationsQuery>;

export const LocationsPage = PagedResponse(Location);

/** Location product (interface §2.2). */
export const LocationProduct = Type.Object({
  barcode: Type.Optional(Type.String()),
  customer_order_line_number: Type.Optional(Type.Integer()),
  customer_order_number: Type.Optional(Type.String()),
  customer_order_shipment_line_number: Type.Optional(Type.Integer()),
  customer_order_shipment_number: Type.Optional(Type.String()),
  image_url: Type.Optional(Type.String()),
  product_description: Type.Optional(Type.String()),
  product_number: Type.Optional(Type.String()),
  quantity: Type.Number(),
});
export type LocationProduct = Static<typeof LocationProduct>;

const locationProductFilters = {
  advance_search: Type.Optional(
    Type.Boolean({ description: 'true: every word of search_text anywhere in number, barcode or description' }),
  ),
  customer_order_number: Type.Optional(Str(64)),
  customer_order_shipment_number: Type.Optional(Str(64)),
  search_text: Type.Optional(Str(200)),
  ...PageQueryProperties,
};

export const LocationProductsQuery = Type.Object(locationProductFilters);
export type LocationProductsQuery = Static<typeof LocationProductsQuery>;

export const TaggedLocationProductsQuery = Type.Object({
  ...locationProductFilters,
  jsonTag: Type.Optional(Str(2000, { description: 'A tag, or a JSON array of tags: locations carrying any of them' })),
  location_code: Type.Optional(Str(LOCATION_CODE_MAX)),
});
export type TaggedLocationProductsQuery = Static<typeof TaggedLocationProductsQuery>;

export const LocationProductsPage = PagedResponse(LocationProduct);
export const LocationProductsHeaders = AcceptLanguageHeaders;
