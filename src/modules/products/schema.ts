import { Type, type Static, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import {
  BulkArray,
  DateTime,
  FlushQuery,
  Int,
  Money,
  Num,
  Quantity,
  SmallArray,
  Str,
  TextId,
} from '../../shared/schemas.js';

export const PRODUCT_NUMBER_MAX = 64;
export const BARCODE_MAX = 64;

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const ProductNumber = () => TextId(PRODUCT_NUMBER_MAX, { minLength: 1 });
const Barcode = () => TextId(BARCODE_MAX);

/** Free field as written (interface §4.9, products and /products/freefields). */
export const FreeFieldInput = Type.Object({
  sort_order: Int(),
  key: opt(Str(255)),
  value: opt(Str(1000)),
});

/**
 * Plain string attributes with their maximum length — also the whitelist of what
 * PUT /products/attributes may replace (attributes.ts), so the two never disagree.
 */
export const STRING_ATTRIBUTES = {
  base_unit_name: 64,
  brand_code: 64,
  brand_description: 255,
  category_code: 64,
  color: 64,
  color_code: 64,
  default_location_tag: 64,
  margin_category: 64,
  price_compare_unit: 32,
  product_status: 64,
  product_type: 64,
  promotion_week: 32,
  purchase_unit_name: 64,
  size: 64,
  size_code: 64,
  supplier_name: 255,
  supplier_number: 64,
  supplier_product_number: 64,
  variant_code: 64,
  variant_family: 64,
  volume: 64,
} as const;
export type StringAttribute = keyof typeof STRING_ATTRIBUTES;

/** Attributes that are codes or numbers-as-text: a JSON integer is taken as its text (TextId). */
const CODE_ATTRIBUTES: ReadonlySet<StringAttribute> = new Set([
  'brand_code',
  'category_code',
  'color_code',
  'margin_category',
  'promotion_week',
  'size_code',
  'supplier_number',
  'supplier_product_number',
  'variant_code',
]);

const stringAttributeProperties = Object.fromEntries(
  Object.entries(STRING_ATTRIBUTES).map(([name, max]) => [
    name,
    opt(CODE_ATTRIBUTES.has(name as StringAttribute) ? TextId(max) : Str(max)),
  ]),
) as { [K in StringAttribute]: TOptional<TString> };

const StringList = (itemMax: number, maxItems: number) => opt(SmallArray(Str(itemMax), maxItems));
/** Store numbers and codes listed in an array: integers taken as their text, like the fields. */
const CodeList = (itemMax: number, maxItems: number) => opt(SmallArray(TextId(itemMax), maxItems));

/** One product as the ERP sends it (interface §4.9). */
export const ProductInput = Type.Object({
  product_number: ProductNumber(),
  product_name: Str(255, { minLength: 1 }),
  carrier_item_quantity: Quantity({ minimum: 0 }),
  is_counted: Type.Boolean(),
  price_compare_multiplier: Num({ minimum: 0 }),
  allow_decimal: opt(Type.Boolean()),
  is_active: opt(Type.Boolean()),
  is_adr: opt(Type.Boolean()),
  is_deleted: opt(
    Type.Boolean({
      description: 'true: the product is soft-deleted (as DELETE /products would); its other fields are not stored',
    }),
  ),
  is_edit_min_max: opt(Type.Boolean()),
  is_edit_replenishment: opt(Type.Boolean()),
  is_expiration: opt(Type.Boolean()),
  is_markdown_allowed: opt(Type.Boolean()),
  is_order_manually: opt(Type.Boolean()),
  is_ordering: opt(Type.Boolean()),
  is_promotion: opt(Type.Boolean()),
  is_reset_store_stock: opt(Type.Boolean({ description: 'Stored and read back as reset_store_stock' })),
  is_set: opt(Type.Boolean()),
  is_stock: opt(Type.Boolean()),
  is_store_product: opt(Type.Boolean()),
  is_template: opt(Type.Boolean()),
  is_theft: opt(Type.Boolean()),
  average_weight: opt(Num({ minimum: 0 })),
  expiration_min_range: opt(Int({ minimum: 0, maximum: 1_000_000 })),
  general_ledger_account_number: opt(Int({ minimum: 0 })),
  ioq: opt(Quantity({ minimum: 0 })),
  moq: opt(Quantity({ minimum: 0 })),
  price: opt(Money({ minimum: 0 })),
  promotion_price: opt(Money({ minimum: 0 })),
  purchase_price: opt(Money({ minimum: 0 })),
  purchase_unit_quantity: opt(Quantity({ minimum: 0 })),
  smallest_quantity: opt(Quantity({ minimum: 0 })),
  barcode: opt(Barcode()),
  ...stringAttributeProperties,
  country_code: opt(Str(3, { default: 'NL', description: 'ISO 3166 country code; defaults to NL' })),
  deprecation_date: opt(Str(40, { description: 'Stored and read back as sent' })),
  image_url: opt(Str(2000)),
  ledger_dimension_value: opt(Str(255)),
  price_lines: opt(TextId(1000, { description: 'Comma-separated price line identifiers' })),
  product_description: opt(Str(1000)),
  product_details: opt(Str(4000)),
  product_reference_number: opt(TextId(64)),
  product_url: opt(Str(2000)),
  promotion_text: opt(Str(1000)),
  purchase_unit_barcode: opt(Barcode()),
  purchase_unit_product_number: opt(TextId(PRODUCT_NUMBER_MAX)),
  purchbook_free_txt: opt(Str(1000)),
  referral_product_number: opt(TextId(PRODUCT_NUMBER_MAX)),
  smallest_product_number: opt(TextId(PRODUCT_NUMBER_MAX)),
  store_number: opt(TextId(64)),
  attention_code: CodeList(64, 100),
  countries_allowed: StringList(3, 300),
  countries_not_allowed: StringList(3, 300),
  promo_stores_allowed: CodeList(64, 5000),
  promo_stores_not_allowed: CodeList(64, 5000),
  stores_allowed: CodeList(64, 5000),
  stores_not_allowed: CodeList(64, 5000),
  barcodes_array: opt(SmallArray(Type.Object({ barcode: opt(Barcode()) }), 100)),
  free_fields: opt(SmallArray(FreeFieldInput, 200)),
  set_products: opt(
    SmallArray(
      Type.Object({ set_item_quantity: opt(TextId(32)), set_product_number: opt(TextId(PRODUCT_NUMBER_MAX)) }),
      100,
    ),
  ),
  shelf_labels: opt(
    SmallArray(
      Type.Object({
        shelflabel_1: opt(Str(255)),
        shelflabel_2: opt(Str(255)),
        shelflabel_3: opt(Str(255)),
        shelflabel_4: opt(Str(255)),
        shelflabel_5: opt(Str(255)),
        shelflabel_6: opt(Str(255)),
      }),
      20,
    ),
  ),
  units: opt(
    SmallArray(
      Type.Object({
        unit_barcode: TextId(BARCODE_MAX, { minLength: 1 }),
        unit_name: Str(64),
        unit_quantity: Quantity({ minimum: 0.001, description: 'Items one scan of unit_barcode counts' }),
      }),
      100,
    ),
  ),
});
export type ProductInput = Static<typeof ProductInput>;

export const ProductsBody = Type.Object({ products: BulkArray(ProductInput) });
export type ProductsBody = Static<typeof ProductsBody>;
export const ProductsImportQuery = FlushQuery;

const Bool = () => opt(Type.Boolean());
const Text = () => opt(Type.String());
const Number_ = () => opt(Type.Number());
const Texts = () => opt(Type.Array(Type.String()));

/** One product as read (interface §2.12 ProductItem, PRODUCT §6 mappings). */
export const ProductItem = Type.Object({
  barcode: Type.String(),
  product_name: Type.String(),
  product_number: Type.String(),
  carrier_item_quantity: Type.Number(),
  edit_min_max_percentage: Type.Number(),
  price_compare_multiplier: Type.Number(),
  shelf_label_quantity: Type.Number(),
  allow_decimal: Bool(),
  is_active: Bool(),
  is_counted: Bool(),
  is_edit_min_max: Bool(),
  is_edit_replenishment: Bool(),
  is_expiration: Bool(),
  is_order_manually: Bool(),
  is_promotion: Bool(),
  is_set: Bool(),
  is_stock: Bool(),
  is_store_product: Bool(),
  is_template: Bool(),
  reset_store_stock: Bool(),
  shelf_label: Bool(),
  shelf_label_barcode: Bool(),
  shelf_label_price: Bool(),
  attention_code: Text(),
  barcodes_array: Text(),
  base_unit_name: Text(),
  brand_code: Text(),
  brand_description: Text(),
  category_code: Text(),
  color: Text(),
  color_code: Text(),
  country_code: Text(),
  deprecation_date: Text(),
  general_ledger: Text(),
  image_url: Text(),
  margin_category: Text(),
  price_compare_unit: Text(),
  price_lines: Text(),
  product_details: Text(),
  product_type: Text(),
  product_url: Text(),
  promotion: Text(),
  promotion_week: Text(),
  purchase_unit_barcode: Text(),
  purchase_unit_name: Text(),
  purchase_unit_product_number: Text(),
  referral_product_id: Text(),
  size: Text(),
  size_code: Text(),
  smallest_product_number: Text(),
  supplier_id: Text(),
  supplier_name: Text(),
  supplier_product_number: Text(),
  variant_code: Text(),
  variant_family: Text(),
  volume: Text(),
  average_weight: Number_(),
  expiration_min_range: Number_(),
  moq: Number_(),
  old_price: Number_(),
  price: Number_(),
  promotion_price: Number_(),
  purchase_price: Number_(),
  purchase_unit_quantity: Number_(),
  shelf_label_layout: Number_(),
  smallest_quantity: Number_(),
  special_price: Number_(),
  variant_factor: Number_(),
  countries_allowed: Texts(),
  countries_not_allowed: Texts(),
  promo_stores_allowed: Texts(),
  promo_stores_not_allowed: Texts(),
  stores_allowed: Texts(),
  stores_not_allowed: Texts(),
  free_fields: opt(Type.Array(Type.Object({ sort_order: Type.Number(), key: Text(), value: Text() }))),
  set_product: opt(Type.Array(Type.Object({ set_item_quantity: Text(), set_product_number: Text() }))),
  units: opt(Type.Array(Type.Object({ unit_quantity: Type.Number(), unit_barcode: Text(), unit_name: Text() }))),
});
export type ProductItem = Static<typeof ProductItem>;

/** The products list envelope (interface §2.12), not a PagedResponse. */
export const ProductsEnvelope = Type.Object({
  page_number: Type.Integer(),
  page_size: Type.Integer(),
  total_record_count: Type.Integer(),
  records: Type.Array(ProductItem),
});
export type ProductsEnvelope = Static<typeof ProductsEnvelope>;

export const ProductsQuery = Type.Object({
  page_size: opt(Int({ description: 'Items per page; default 100, clamped to 1..1000' })),
  page_start: opt(Int({ description: '1-based page number; default 1' })),
  product_number: opt(
    Type.Array(Str(PRODUCT_NUMBER_MAX), {
      maxItems: 1000,
      description: 'Repeat the parameter to ask for several products',
    }),
  ),
  store_number: opt(
    Str(64, {
      description:
        'Extension: price and special_price as effective in this store (store > price group > country > chain)',
    }),
  ),
  last_modified_date: opt(
    DateTime({
      description:
        'Extension (PRODUCT §9): products whose record changed at or after this (prices and discounts are their own records; deletions show in the change feed)',
    }),
  ),
});
export type ProductsQuery = Static<typeof ProductsQuery>;

export const DeleteProductsBody = Type.Object({ product_number: BulkArray(TextId(PRODUCT_NUMBER_MAX)) });
export type DeleteProductsBody = Static<typeof DeleteProductsBody>;

export const ReplaceAttributeBody = Type.Object({
  attribute: Str(64, { description: `One of: ${Object.keys(STRING_ATTRIBUTES).join(', ')}` }),
  new_value: TextId(255, { description: 'A JSON integer is taken as its text (codes)' }),
  old_value: TextId(255, { description: 'A JSON integer is taken as its text (codes)' }),
});
export type ReplaceAttributeBody = Static<typeof ReplaceAttributeBody>;

export const FreeFieldsBody = Type.Object({
  free_fields: BulkArray(
    Type.Object({
      country_code: Str(3),
      product_number: ProductNumber(),
      free_fields: SmallArray(
        Type.Object({
          key: Str(255, { description: 'Required here: free fields merge by key' }),
          sort_order: opt(Int()),
          value: opt(Str(1000)),
        }),
        200,
      ),
      entity_type: opt(Str(64)),
    }),
  ),
});
export type FreeFieldsBody = Static<typeof FreeFieldsBody>;
