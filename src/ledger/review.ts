import type { Selectable, Transaction } from 'kysely';
import type { Database, StockLogTable } from '../db/schema.js';
import type { Principal } from '../shared/access.js';
import { unprocessable } from '../shared/errors.js';
import { poolPartsFromJson, postingsOf } from './book.js';
import type { Ledger } from './ledger.js';
import { applyEntries } from './postings.js';
import type { BookingStore } from './types.js';

/**
 * Review (PRODUCT §5): an approved entry waiting for review is booked as it was posted — its
 * postings filled into the row it was stored with, in the order the entries happened.
 */

type PendingRow = Pick<
  Selectable<StockLogTable>,
  | 'id'
  | 'store_id'
  | 'product_id'
  | 'location_id'
  | 'customer_order_number'
  | 'modification_at'
  | 'is_count'
  | 'pool_quantities'
  | 'reason_code'
  | 'is_from_receipt'
  | 'app_user_name'
>;

/**
 * An entry naming a customer order imported since it was posted may no longer bind stock to
 * it (PRODUCT §5 never stranded): its approval is a 422 (reject it instead), checked before
 * anything is written.
 */
export async function refuseOrderBoundApprovals(
  trx: Transaction<Database>,
  ledger: Ledger,
  storeId: number,
  rows: ReadonlyArray<{ row: PendingRow; path: string }>,
): Promise<void> {
  const refused = await ledger.policies.orderBinding.refusals(
    trx,
    ledger.dialect,
    storeId,
    rows.map(({ row, path }) => ({ orderNumber: row.customer_order_number, path })),
  );
  if (refused.length > 0)
    throw unprocessable('Some entries name a customer order of this store: reject them instead', refused);
}

/** Books approved entries, in the order they happened whatever order they were listed in; `pathOf` names each. */
export async function applyApproved(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  approved: readonly PendingRow[],
  pathOf: (row: PendingRow) => string,
  by: Principal,
  now: number,
): Promise<void> {
  const rows = [...approved].sort((a, b) => a.modification_at - b.modification_at || a.id - b.id);
  const entries = rows.map((row) => ({
    logId: row.id,
    postings: postingsOf(
      {
        storeId: row.store_id,
        productId: row.product_id,
        locationId: row.location_id,
        customerOrderNumber: row.customer_order_number,
        at: row.modification_at,
        isCount: row.is_count === 1,
        path: pathOf(row),
      },
      poolPartsFromJson(row.pool_quantities),
    ),
  }));
  const reasons = await ledger.policies.lookups.reasonCodes(
    trx,
    rows.flatMap((row) => (row.reason_code === null ? [] : [row.reason_code])),
  );
  const touches = rows.map((row) => ({
    storeId: store.id,
    productId: row.product_id,
    at: row.modification_at,
    isCount: row.is_count === 1,
    isLoss: row.reason_code !== null && reasons.get(row.reason_code)?.is_loss === 1,
    isFromReceipt: row.is_from_receipt === 1,
    by: row.app_user_name ?? by.name,
  }));
  await applyEntries(trx, ledger, entries, new Map([[store.id, store.store_number]]), by, now, touches);
}
