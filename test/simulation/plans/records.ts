import { productInput, reasonCodeInput, storeInput } from '../../helpers/factories.js';
import { BARCODES, REASONS, UNIT_BARCODE, WAREHOUSES, type ProductNo, type StoreNo } from '../chain.js';

// The master-data records of the chain (chain.ts), as the set-up, re-imports and flushes send
// them: the shared factories, typed by the module schemas, with the chain's own values.

/** The store record every sequence imports (a flush leaves one out, a re-send restores it). */
export function storeRecord(store: StoreNo) {
  return storeInput(store, { is_warehouse: WAREHOUSES.includes(store), area_id: 'north' });
}

/** The chain's reason codes (chain.ts REASONS), each under the kind the model knows it by. */
export const REASON_RECORDS = [
  ['plain', reasonCodeInput(REASONS.plain)],
  ['loss', reasonCodeInput(REASONS.loss, { is_loss: true })],
  ['gain', reasonCodeInput(REASONS.gain, { is_gain: true })],
  ['review', reasonCodeInput(REASONS.review, { default_review_status: 1 })],
  ['rejection', reasonCodeInput(REASONS.rejection, { reason_code_type: 2 })],
  ['movement', reasonCodeInput(REASONS.movement, { reason_code_type: 3 })],
  ['count', reasonCodeInput(REASONS.count, { reason_code_type: 6 })],
  ['countReview', reasonCodeInput(REASONS.countReview, { reason_code_type: 6, default_review_status: 1 })],
] as const;

/** The product master record every sequence imports (and a re-import restores). */
export function productRecord(product: ProductNo) {
  return productInput(product, {
    barcode: BARCODES[product],
    ...(product === UNIT_BARCODE.product
      ? { units: [{ unit_barcode: UNIT_BARCODE.barcode, unit_name: 'box', unit_quantity: UNIT_BARCODE.items }] }
      : {}),
  });
}
