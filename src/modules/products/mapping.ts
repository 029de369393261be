import type { Bool } from '../../db/schema.js';
import { fromMoney, fromQuantity, toMoney, toQuantity } from '../../domain/decimal.js';
import { contentHash } from '../../shared/bulk.js';
import type { ProductInput, ProductItem } from './schema.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import type { ProductReadRow, ProductRow } from './rows.js';
import { valuesOf } from '../../shared/column-access.js';

/** Columns written from input; content_hash covers exactly these, in this order. */
export type ProductRecord = Omit<
  ProductRow,
  | 'id'
  | 'created_on'
  | 'updated_on'
  | 'created_by'
  | 'modified_by'
  | 'deleted_on'
  | 'content_hash'
  | 'old_price'
  | 'read_document'
>;

type FreeFieldTriple = [sortOrder: number, key: string | null, value: string | null];
type UnitTriple = [barcode: string, name: string, quantityMilli: number];

const flag = (value: boolean | undefined): Bool | null => (value === undefined ? null : value ? 1 : 0);
const readFlag = (value: Bool | null): boolean | undefined => (value === null ? undefined : value === 1);
const scaled = (value: number | undefined, scale: (v: number) => number): number | null =>
  value === undefined ? null : scale(value);
const list = (values: readonly string[] | undefined) => JSON.stringify(values ?? []);

/** Free fields in sort_order (stable), as [sort_order, key, value]. */
export function sortFreeFields(fields: readonly FreeFieldTriple[]): FreeFieldTriple[] {
  return [...fields].sort((a, b) => a[0] - b[0]);
}

/** Barcodes of barcodes_array as stored: empty entries carry no barcode and are dropped. */
export function arrayBarcodes(input: Pick<ProductInput, 'barcodes_array'>): string[] {
  return (input.barcodes_array ?? []).map((entry) => entry.barcode ?? '').filter((barcode) => barcode !== '');
}

/** Input → columns, normalised so that equal input gives an equal content hash. */
export function toProductRecord(input: ProductInput): ProductRecord {
  return {
    product_number: input.product_number,
    product_name: input.product_name,
    carrier_item_quantity: toQuantity(input.carrier_item_quantity),
    is_counted: input.is_counted ? 1 : 0,
    price_compare_multiplier: input.price_compare_multiplier,
    average_weight: orNull(input.average_weight),
    allow_decimal: flag(input.allow_decimal),
    is_active: flag(input.is_active),
    is_adr: flag(input.is_adr),
    is_edit_min_max: flag(input.is_edit_min_max),
    is_edit_replenishment: flag(input.is_edit_replenishment),
    is_expiration: flag(input.is_expiration),
    is_markdown_allowed: flag(input.is_markdown_allowed),
    is_order_manually: flag(input.is_order_manually),
    is_ordering: flag(input.is_ordering),
    is_promotion: flag(input.is_promotion),
    is_reset_store_stock: flag(input.is_reset_store_stock),
    is_set: flag(input.is_set),
    is_stock: flag(input.is_stock),
    is_store_product: flag(input.is_store_product),
    is_template: flag(input.is_template),
    is_theft: flag(input.is_theft),
    expiration_min_range: orNull(input.expiration_min_range),
    general_ledger_account_number: orNull(input.general_ledger_account_number),
    ioq: scaled(input.ioq, toQuantity),
    moq: scaled(input.moq, toQuantity),
    purchase_unit_quantity: scaled(input.purchase_unit_quantity, toQuantity),
    smallest_quantity: scaled(input.smallest_quantity, toQuantity),
    price: scaled(input.price, toMoney),
    promotion_price: scaled(input.promotion_price, toMoney),
    purchase_price: scaled(input.purchase_price, toMoney),
    product_description: orNull(input.product_description),
    barcode: input.barcode === undefined || input.barcode === '' ? null : input.barcode,
    base_unit_name: orNull(input.base_unit_name),
    brand_code: orNull(input.brand_code),
    brand_description: orNull(input.brand_description),
    category_code: orNull(input.category_code),
    color: orNull(input.color),
    color_code: orNull(input.color_code),
    country_code: input.country_code ?? 'NL',
    default_location_tag: orNull(input.default_location_tag),
    deprecation_date: orNull(input.deprecation_date),
    image_url: orNull(input.image_url),
    ledger_dimension_value: orNull(input.ledger_dimension_value),
    margin_category: orNull(input.margin_category),
    price_compare_unit: orNull(input.price_compare_unit),
    price_lines: orNull(input.price_lines),
    product_details: orNull(input.product_details),
    product_reference_number: orNull(input.product_reference_number),
    product_status: orNull(input.product_status),
    product_type: orNull(input.product_type),
    product_url: orNull(input.product_url),
    promotion_text: orNull(input.promotion_text),
    promotion_week: orNull(input.promotion_week),
    purchase_unit_barcode: orNull(input.purchase_unit_barcode),
    purchase_unit_name: orNull(input.purchase_unit_name),
    purchase_unit_product_number: orNull(input.purchase_unit_product_number),
    purchbook_free_txt: orNull(input.purchbook_free_txt),
    referral_product_number: orNull(input.referral_product_number),
    size: orNull(input.size),
    size_code: orNull(input.size_code),
    smallest_product_number: orNull(input.smallest_product_number),
    store_number: orNull(input.store_number),
    supplier_name: orNull(input.supplier_name),
    supplier_number: orNull(input.supplier_number),
    supplier_product_number: orNull(input.supplier_product_number),
    variant_code: orNull(input.variant_code),
    variant_family: orNull(input.variant_family),
    volume: orNull(input.volume),
    attention_code: list(input.attention_code),
    countries_allowed: list(input.countries_allowed),
    countries_not_allowed: list(input.countries_not_allowed),
    promo_stores_allowed: list(input.promo_stores_allowed),
    promo_stores_not_allowed: list(input.promo_stores_not_allowed),
    stores_allowed: list(input.stores_allowed),
    stores_not_allowed: list(input.stores_not_allowed),
    barcodes_array: JSON.stringify(arrayBarcodes(input)),
    free_fields: JSON.stringify(
      sortFreeFields((input.free_fields ?? []).map((f) => [f.sort_order, orNull(f.key), orNull(f.value)])),
    ),
    set_products: JSON.stringify(
      (input.set_products ?? []).map((s) => [orNull(s.set_item_quantity), orNull(s.set_product_number)]),
    ),
    shelf_labels: JSON.stringify(
      (input.shelf_labels ?? []).map((l) =>
        [l.shelflabel_1, l.shelflabel_2, l.shelflabel_3, l.shelflabel_4, l.shelflabel_5, l.shelflabel_6].map(orNull),
      ),
    ),
    units: JSON.stringify(
      (input.units ?? []).map((u): UnitTriple => [u.unit_barcode, u.unit_name, toQuantity(u.unit_quantity)]),
    ),
  };
}

/** Every hashed column, in record order: the hash of a stored row is computed the same way. */
export const PRODUCT_RECORD_COLUMNS = Object.keys(
  toProductRecord({
    product_number: '',
    product_name: '',
    carrier_item_quantity: 0,
    is_counted: false,
    price_compare_multiplier: 0,
  }),
) as Array<keyof ProductRecord>;

const hashedValues = valuesOf(PRODUCT_RECORD_COLUMNS);

/** content_hash of a record or of a stored row (PRODUCT §3: identical re-send changes nothing). */
export function productHash(columns: ProductRecord | ProductRow): string {
  return contentHash(hashedValues(columns));
}

export function parseFreeFields(row: Pick<ProductRow, 'free_fields'>): FreeFieldTriple[] {
  return JSON.parse(row.free_fields) as FreeFieldTriple[];
}

export function parseUnits(row: Pick<ProductRow, 'units'>): UnitTriple[] {
  return JSON.parse(row.units) as UnitTriple[];
}

// Most list columns hold `[]`: not parsing those halves readDocument's parsing on an import.
const NO_VALUES: readonly never[] = Object.freeze([]);
const parsedList = <T>(text: string): readonly T[] => (text === '[]' ? NO_VALUES : (JSON.parse(text) as T[]));
const strings = (text: string) => parsedList<string>(text);
const optionalList = (text: string): string[] | undefined => {
  const values = strings(text);
  // Not empty, so parsed for this call alone: the item may own it.
  return values.length === 0 ? undefined : (values as string[]);
};
const joined = (text: string) => {
  const values = strings(text);
  return values.length === 0 ? undefined : values.join(',');
};

/** Prices of the read that depend on price records and discounts, in ten-thousandths. */
export interface ProductPricing {
  /** Effective price (a valid price record, else the master price); null when neither exists. */
  priceMoney: number | null;
  specialPriceMoney?: number;
}

/** The ProductItem fields that depend on the product row alone (all but the prices). */
type StaticItem = Omit<ProductItem, 'price' | 'old_price' | 'special_price'>;

/**
 * Columns → the static part of ProductItem (interface §2.12) with the PRODUCT §6 read
 * mappings, as JSON: stored with the row (read_document) so a read parses one text
 * column instead of selecting seventy. Every writer of product columns rewrites it.
 */
export function readDocument(row: ProductRecord): string {
  const arrayCodes = strings(row.barcodes_array);
  const quantity = (value: number | null) => (value === null ? undefined : fromQuantity(value));
  const money = (value: number | null) => (value === null ? undefined : fromMoney(value));
  const item: StaticItem = {
    // Required on read, optional on input: fall back to the first barcodes_array barcode, else "".
    barcode: row.barcode ?? arrayCodes[0] ?? '',
    product_name: row.product_name,
    product_number: row.product_number,
    carrier_item_quantity: fromQuantity(row.carrier_item_quantity),
    // Required read numbers with no input field default to 0 (PRODUCT §6).
    edit_min_max_percentage: 0,
    price_compare_multiplier: row.price_compare_multiplier,
    shelf_label_quantity: 0,
    allow_decimal: readFlag(row.allow_decimal),
    is_active: readFlag(row.is_active),
    is_counted: row.is_counted === 1,
    is_edit_min_max: readFlag(row.is_edit_min_max),
    is_edit_replenishment: readFlag(row.is_edit_replenishment),
    is_expiration: readFlag(row.is_expiration),
    is_order_manually: readFlag(row.is_order_manually),
    is_promotion: readFlag(row.is_promotion),
    is_set: readFlag(row.is_set),
    is_stock: readFlag(row.is_stock),
    is_store_product: readFlag(row.is_store_product),
    is_template: readFlag(row.is_template),
    reset_store_stock: readFlag(row.is_reset_store_stock),
    attention_code: joined(row.attention_code),
    barcodes_array: arrayCodes.length === 0 ? undefined : arrayCodes.join(','),
    base_unit_name: orUndefined(row.base_unit_name),
    brand_code: orUndefined(row.brand_code),
    brand_description: orUndefined(row.brand_description),
    category_code: orUndefined(row.category_code),
    color: orUndefined(row.color),
    color_code: orUndefined(row.color_code),
    country_code: orUndefined(row.country_code),
    deprecation_date: orUndefined(row.deprecation_date),
    general_ledger: row.general_ledger_account_number === null ? undefined : String(row.general_ledger_account_number),
    image_url: orUndefined(row.image_url),
    margin_category: orUndefined(row.margin_category),
    price_compare_unit: orUndefined(row.price_compare_unit),
    price_lines: orUndefined(row.price_lines),
    product_details: orUndefined(row.product_details),
    product_type: orUndefined(row.product_type),
    product_url: orUndefined(row.product_url),
    promotion: orUndefined(row.promotion_text),
    promotion_week: orUndefined(row.promotion_week),
    purchase_unit_barcode: orUndefined(row.purchase_unit_barcode),
    purchase_unit_name: orUndefined(row.purchase_unit_name),
    purchase_unit_product_number: orUndefined(row.purchase_unit_product_number),
    referral_product_id: orUndefined(row.referral_product_number),
    size: orUndefined(row.size),
    size_code: orUndefined(row.size_code),
    smallest_product_number: orUndefined(row.smallest_product_number),
    supplier_id: orUndefined(row.supplier_number),
    supplier_name: orUndefined(row.supplier_name),
    supplier_product_number: orUndefined(row.supplier_product_number),
    variant_code: orUndefined(row.variant_code),
    variant_family: orUndefined(row.variant_family),
    volume: orUndefined(row.volume),
    average_weight: orUndefined(row.average_weight),
    expiration_min_range: orUndefined(row.expiration_min_range),
    moq: quantity(row.moq),
    promotion_price: money(row.promotion_price),
    purchase_price: money(row.purchase_price),
    purchase_unit_quantity: quantity(row.purchase_unit_quantity),
    smallest_quantity: quantity(row.smallest_quantity),
    countries_allowed: optionalList(row.countries_allowed),
    countries_not_allowed: optionalList(row.countries_not_allowed),
    promo_stores_allowed: optionalList(row.promo_stores_allowed),
    promo_stores_not_allowed: optionalList(row.promo_stores_not_allowed),
    stores_allowed: optionalList(row.stores_allowed),
    stores_not_allowed: optionalList(row.stores_not_allowed),
    free_fields: parsedList<FreeFieldTriple>(row.free_fields).map(([sort_order, key, value]) => ({
      sort_order,
      key: orUndefined(key),
      value: orUndefined(value),
    })),
    set_product: parsedList<[string | null, string | null]>(row.set_products).map(
      ([set_item_quantity, set_product_number]) => ({
        set_item_quantity: orUndefined(set_item_quantity),
        set_product_number: orUndefined(set_product_number),
      }),
    ),
    units: parsedList<UnitTriple>(row.units).map(([unit_barcode, unit_name, quantityMilli]) => ({
      unit_quantity: fromQuantity(quantityMilli),
      unit_barcode,
      unit_name,
    })),
  };
  return JSON.stringify(item);
}

/** Row → ProductItem: the stored document plus the prices of the moment (PRODUCT §6). */
export function toProductItem(row: ProductReadRow, pricing: ProductPricing): ProductItem {
  const item = JSON.parse(row.read_document) as ProductItem;
  if (pricing.priceMoney !== null) item.price = fromMoney(pricing.priceMoney);
  if (row.old_price !== null) item.old_price = fromMoney(row.old_price);
  if (pricing.specialPriceMoney !== undefined) item.special_price = fromMoney(pricing.specialPriceMoney);
  return item;
}
