import { BARCODES, REASONS, UNIT_BARCODE, WAREHOUSES, type ProductNo, type StoreNo } from '../chain.js';

/** The master-data records of the chain (chain.ts), as the set-up, re-imports and flushes send them. */
/** The store record every sequence imports (a flush leaves one out, a re-send restores it). */
export function storeRecord(store: StoreNo): Record<string, unknown> {
  return { store_number: store, store_name: `Store ${store}`, is_active: true, is_active_data_exchange: true, is_warehouse: WAREHOUSES.includes(store), area_id: 'north' };
}

/** A reason code record of §4.5 with the flags of its kind. */
function reasonRecord(code: number, type: number, flags: Record<string, unknown>): Record<string, unknown> {
  return {
    reason_code: code,
    reason_code_description: `Reason ${code}`,
    reason_code_type: type,
    default_review_status: 0,
    is_comment_mandatory: false,
    is_gain: false,
    is_image_mandatory: false,
    is_loss: false,
    is_order_number_mandatory: false,
    is_picking_list: false,
    is_sales_order_discount: false,
    is_store: false,
    ...flags,
  };
}

/** The chain's reason codes (chain.ts REASONS), each under the kind the model knows it by. */
export const REASON_RECORDS: Array<[string, Record<string, unknown>]> = [
  ['plain', reasonRecord(REASONS.plain, 1, {})],
  ['loss', reasonRecord(REASONS.loss, 1, { is_loss: true })],
  ['gain', reasonRecord(REASONS.gain, 1, { is_gain: true })],
  ['review', reasonRecord(REASONS.review, 1, { default_review_status: 1 })],
  ['rejection', reasonRecord(REASONS.rejection, 2, {})],
  ['movement', reasonRecord(REASONS.movement, 3, {})],
];

/** The product master record every sequence imports (and a re-import restores). */
export function productRecord(product: ProductNo): Record<string, unknown> {
  return {
    product_number: product,
    product_name: `Product ${product}`,
    carrier_item_quantity: 1,
    is_counted: true,
    price_compare_multiplier: 1,
    barcode: BARCODES[product],
    ...(product === UNIT_BARCODE.product ? { units: [{ unit_barcode: UNIT_BARCODE.barcode, unit_name: 'box', unit_quantity: UNIT_BARCODE.items }] } : {}),
  };
}
