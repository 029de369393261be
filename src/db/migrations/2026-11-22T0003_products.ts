import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withAudit, withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.

const PRODUCT_FLAGS = [
  'allow_decimal',
  'is_active',
  'is_adr',
  'is_edit_min_max',
  'is_edit_replenishment',
  'is_expiration',
  'is_markdown_allowed',
  'is_order_manually',
  'is_ordering',
  'is_promotion',
  'is_reset_store_stock',
  'is_set',
  'is_stock',
  'is_store_product',
  'is_template',
  'is_theft',
];

/** Scaled integers: quantities in thousandths, money in ten-thousandths, plain integers. */
const PRODUCT_INTEGERS = [
  'expiration_min_range',
  'general_ledger_account_number',
  'ioq',
  'moq',
  'price',
  'promotion_price',
  'purchase_price',
  'purchase_unit_quantity',
  'smallest_quantity',
  'old_price',
];

const PRODUCT_TEXTS = [
  'product_description',
  'barcode',
  'base_unit_name',
  'brand_code',
  'brand_description',
  'category_code',
  'color',
  'color_code',
  'country_code',
  'default_location_tag',
  'deprecation_date',
  'image_url',
  'ledger_dimension_value',
  'margin_category',
  'price_compare_unit',
  'price_lines',
  'product_details',
  'product_reference_number',
  'product_status',
  'product_type',
  'product_url',
  'promotion_text',
  'promotion_week',
  'purchase_unit_barcode',
  'purchase_unit_name',
  'purchase_unit_product_number',
  'purchbook_free_txt',
  'referral_product_number',
  'size',
  'size_code',
  'smallest_product_number',
  'store_number',
  'supplier_name',
  'supplier_number',
  'supplier_product_number',
  'variant_code',
  'variant_family',
  'volume',
];

/** Nested arrays read back whole: JSON text. */
const PRODUCT_JSON = [
  'attention_code',
  'countries_allowed',
  'countries_not_allowed',
  'promo_stores_allowed',
  'promo_stores_not_allowed',
  'stores_allowed',
  'stores_not_allowed',
  'barcodes_array',
  'free_fields',
  'set_products',
  'shelf_labels',
  'units',
];

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  let products = withId(dialect, db.schema.createTable('products'))
    .addColumn('product_number', 'text', (col) => col.notNull().unique())
    .addColumn('product_name', 'text', (col) => col.notNull())
    .addColumn('carrier_item_quantity', 'bigint', (col) => col.notNull())
    .addColumn('is_counted', 'integer', (col) => col.notNull())
    .addColumn('price_compare_multiplier', 'double precision', (col) => col.notNull())
    .addColumn('average_weight', 'double precision');
  for (const column of PRODUCT_FLAGS) products = products.addColumn(column, 'integer');
  for (const column of PRODUCT_INTEGERS) products = products.addColumn(column, 'bigint');
  for (const column of PRODUCT_TEXTS) products = products.addColumn(column, 'text');
  for (const column of PRODUCT_JSON) products = products.addColumn(column, 'text', (col) => col.notNull());
  // The static part of the read shape, derived from the columns above on every write:
  // a read selects one text column instead of seventy.
  products = products.addColumn('read_document', 'text', (col) => col.notNull());
  await withAudit(products).execute();
  await db.schema.createIndex('products_updated_on').on('products').column('updated_on').execute();
  await db.schema.createIndex('products_category_code').on('products').column('category_code').execute();

  // Every barcode a product answers to (its own, barcodes_array, unit barcodes): one
  // owner per barcode, so barcode look-ups (stock, external counting) resolve to one product.
  await db.schema
    .createTable('product_barcodes')
    .addColumn('barcode', 'text', (col) => col.primaryKey())
    .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('unit_quantity', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('product_barcodes_product_id').on('product_barcodes').column('product_id').execute();

  await withAudit(
    withId(dialect, db.schema.createTable('product_prices'))
      .addColumn('price_id', 'text', (col) => col.notNull().unique())
      .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
      .addColumn('price', 'bigint', (col) => col.notNull())
      .addColumn('price_type', 'bigint', (col) => col.notNull())
      .addColumn('valid_from', 'bigint', (col) => col.notNull())
      .addColumn('valid_to', 'bigint', (col) => col.notNull())
      .addColumn('country_code', 'text')
      .addColumn('price_group', 'text')
      .addColumn('price_unit', 'text')
      .addColumn('store_number', 'text')
      .addColumn('price_quantity', 'bigint'),
  ).execute();
  await db.schema
    .createIndex('product_prices_product_id')
    .on('product_prices')
    .columns(['product_id', 'valid_from'])
    .execute();

  await withAudit(
    withId(dialect, db.schema.createTable('product_discounts'))
      .addColumn('discount_key', 'text', (col) => col.notNull().unique())
      .addColumn('discount_id', 'text')
      .addColumn('product_id', 'bigint', (col) => col.notNull().references('products.id'))
      .addColumn('line_number', 'bigint')
      .addColumn('price', 'bigint', (col) => col.notNull())
      .addColumn('discount_type', 'bigint')
      .addColumn('discount_description', 'text')
      .addColumn('discount_group', 'text')
      .addColumn('valid_from', 'bigint')
      .addColumn('valid_to', 'bigint'),
  ).execute();
  await db.schema.createIndex('product_discounts_product_id').on('product_discounts').column('product_id').execute();
  await db.schema.createIndex('product_discounts_discount_id').on('product_discounts').column('discount_id').execute();
  await db.schema.createIndex('product_discounts_valid_to').on('product_discounts').column('valid_to').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['product_discounts', 'product_prices', 'product_barcodes', 'products']) {
    await db.schema.dropTable(table).execute();
  }
}
