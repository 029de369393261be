import { sql, type Transaction } from 'kysely';
import type { DbHandle, Dialect } from '../../../db/dialect/types.js';
import { inListChunks, KEYS_PER_QUERY } from '../../../db/in-list.js';
import { insertRows, tableColumns, type InsertRow } from '../../../db/insert-many.js';
import type { Database, ReceiptLineTable } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import type { DeliveryRow } from '../rows.js';

/**
 * The receipts clock (docs/decisions.md Receipts "incremental pulls"). Every receipt write
 * bumps one row first, which holds it until the write commits (PostgreSQL's row lock;
 * SQLite's write transaction holds the whole database), and stamps `updated_on` only
 * after that. A listing takes the same row before it reads the moment it hands out as
 * `server_time`, so it waits for writes in flight: a receipt committed after a
 * server_time was handed out is stamped at or after it, and an ERP that asks for
 * `last_modified_date` = the last server_time misses nothing.
 */
export async function receiptStamp(trx: Transaction<Database>): Promise<number> {
  await trx
    .updateTable('resource_versions')
    .set({ version: sql<number>`version + 1` })
    .where('resource', '=', 'receipts')
    .execute();
  return Date.now();
}

/** A moment no receipt write in flight can still commit before (see receiptStamp). */
export function receiptsWatermark(handle: DbHandle): Promise<number> {
  return inTransaction(handle, async (trx) => {
    await handle.dialect
      .lockForUpdate(trx.selectFrom('resource_versions').select('version').where('resource', '=', 'receipts'))
      .execute();
    return Date.now();
  });
}

/** A delivery's header changed: its receipt, which shows that header and type, changes with it (after the delivery's update). */
export async function touchReceipts(
  trx: Transaction<Database>,
  deliveryIds: readonly number[],
  actor: string,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const stamp = await receiptStamp(trx);
  for (const part of inListChunks([...new Set(deliveryIds)], KEYS_PER_QUERY)) {
    await trx
      .updateTable('receipt_orders')
      .set((eb) => ({
        updated_on: stamp,
        modified_by: actor,
        order_type_id: eb
          .selectFrom('delivery_orders as d')
          .select('d.order_type')
          .whereRef('d.id', '=', 'receipt_orders.delivery_id'),
      }))
      .where('delivery_id', 'in', part)
      .execute();
  }
}

/**
 * The receipt of each delivery (PRODUCT §7: one per delivery, made by its first receipt),
 * stamped `stamp`; `submitted` marks those the store submitted. Returns receipt ids by
 * delivery id.
 */
export async function upsertReceipts(
  trx: Transaction<Database>,
  deliveries: readonly DeliveryRow[],
  submitted: ReadonlySet<number>,
  actor: string,
  stamp: number,
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  if (deliveries.length === 0) return ids;
  const existing = await trx
    .selectFrom('receipt_orders')
    .select(['id', 'delivery_id'])
    .where(
      'delivery_id',
      'in',
      deliveries.map((d) => d.id),
    )
    .execute();
  for (const row of existing) ids.set(row.delivery_id, row.id);
  for (const delivery of deliveries) {
    const isSubmitted = submitted.has(delivery.id) ? 1 : 0;
    const id = ids.get(delivery.id);
    if (id !== undefined) {
      await trx
        .updateTable('receipt_orders')
        .set({ updated_on: stamp, modified_by: actor, ...(isSubmitted ? { is_submitted: 1 as const } : {}) })
        .where('id', '=', id)
        .execute();
      continue;
    }
    const row = await trx
      .insertInto('receipt_orders')
      .values({
        delivery_id: delivery.id,
        store_id: delivery.store_id,
        store_number: delivery.store_number,
        order_number: delivery.order_number,
        order_type_id: delivery.order_type,
        is_submitted: isSubmitted,
        datetime_created_at: stamp,
        created_on: stamp,
        updated_on: stamp,
        created_by: actor,
        modified_by: actor,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.set(delivery.id, Number(row.id));
  }
  return ids;
}

/** receipt_lines' columns, as its insert lists them. */
const RECEIPT_LINE_COLUMNS = tableColumns<ReceiptLineTable>()([
  'receipt_id',
  'store_id',
  'delivery_line_id',
  'log_id',
  'log_at',
  'line_number',
  'product_id',
  'product_number',
  'barcode',
  'container_barcode',
  'description',
  'received_quantity',
  'shipped_quantity',
  'purchase_price',
  'store_products_price',
  'created_on',
  'updated_on',
]);

export async function insertReceiptLines(
  trx: Transaction<Database>,
  dialect: Dialect,
  rows: ReadonlyArray<InsertRow<'receipt_lines'>>,
): Promise<void> {
  await insertRows(trx, dialect, 'receipt_lines', RECEIPT_LINE_COLUMNS, rows);
}
