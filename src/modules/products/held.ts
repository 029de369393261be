import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import type { Executor } from '../../db/schema.js';
import type { MasterRef } from '../../shared/held-references.js';
import type { BookingProductRow } from './rows.js';

/**
 * Products as the records that name them see them: live or deleted since (a deleted product
 * is hidden from reads, never from what refers to it; shared/held-references.ts). The live
 * flag decides whether a new or changed record may name it.
 */

export type HeldProduct = BookingProductRow & MasterRef;

/** product_number → the product's booking columns and whether it is live, deleted ones included. */
export async function heldProductsByNumbers(
  db: Executor,
  numbers: readonly string[],
): Promise<Map<string, HeldProduct>> {
  const found = new Map<string, HeldProduct>();
  for (const part of inListChunks([...new Set(numbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('products')
      .select(['id', 'product_number', 'barcode', 'price', 'purchase_price', 'purchase_unit_quantity', 'deleted_on'])
      .where('product_number', 'in', part)
      .execute();
    for (const { deleted_on, ...row } of rows)
      found.set(row.product_number, { ...row, id: Number(row.id), live: deleted_on === null });
  }
  return found;
}

/** barcode → its owner (a barcode has one, live or deleted), with the live flag. */
export async function heldProductsByBarcodes(
  db: Executor,
  barcodes: readonly string[],
): Promise<Map<string, { id: number; product_number: string; live: boolean }>> {
  const found = new Map<string, { id: number; product_number: string; live: boolean }>();
  for (const part of inListChunks([...new Set(barcodes)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('product_barcodes as b')
      .innerJoin('products as p', 'p.id', 'b.product_id')
      .select(['b.barcode', 'p.id', 'p.product_number', 'p.deleted_on'])
      .where('b.barcode', 'in', part)
      .execute();
    for (const row of rows)
      found.set(row.barcode, { id: Number(row.id), product_number: row.product_number, live: row.deleted_on === null });
  }
  return found;
}
