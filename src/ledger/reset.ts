import type { Transaction } from 'kysely';
import type { Ledger } from './ledger.js';
import type { Database } from '../db/schema.js';
import type { PoolNumber } from '../domain/stock-rules.js';
import { bookEntries, type EntryDraft } from './book.js';
import { logRecord } from '../db/log-record.js';
import { inListChunks } from '../db/in-list.js';
import type { Principal } from '../shared/access.js';

const SOURCE = 'reset_store_stock';

/**
 * `is_reset_store_stock=true` on a product import (interface §4.9): every non-zero balance
 * of the product in every store is counted to zero at the moment of the import — through
 * the ledger like any other change, so the history shows what was reset and why.
 */
export async function resetProductStock(
  trx: Transaction<Database>,
  ledger: Ledger,
  productIds: readonly number[],
  by: Principal,
  now: number,
): Promise<number> {
  if (productIds.length === 0) return 0;
  let reset = 0;
  for (const ids of inListChunks(productIds, 5_000)) {
    const balances = await trx
      .selectFrom('stock_balances as b')
      .innerJoin('stores as s', 's.id', 'b.store_id')
      .innerJoin('products as p', 'p.id', 'b.product_id')
      .leftJoin('locations as l', 'l.id', 'b.location_id')
      .select([
        'b.store_id',
        's.store_number',
        'b.product_id',
        'b.location_id',
        'l.location_code',
        'b.pool',
        'b.order_key',
        'p.product_number',
        'p.barcode',
        'p.price',
        'p.purchase_price',
        'p.purchase_unit_quantity',
      ])
      .where('b.product_id', 'in', ids)
      .where('b.quantity', '<>', 0)
      .orderBy('b.store_id')
      .orderBy('b.id')
      .execute();
    const byStore = new Map<number, { store: { id: number; store_number: string }; drafts: EntryDraft[] }>();
    for (const b of balances) {
      const group = byStore.get(b.store_id) ?? { store: { id: b.store_id, store_number: b.store_number }, drafts: [] };
      group.drafts.push({
        product: {
          id: b.product_id,
          product_number: b.product_number,
          barcode: b.barcode,
          price: b.price,
          purchase_price: b.purchase_price,
          purchase_unit_quantity: b.purchase_unit_quantity,
        },
        location:
          b.location_id === 0 || b.location_code === null
            ? undefined
            : { id: b.location_id, location_code: b.location_code },
        at: now,
        onArrival: true,
        isCount: true,
        poolParts: [{ pool: b.pool as PoolNumber, quantityMilli: 0 }],
        pending: false,
        customerOrderNumber: b.order_key || undefined,
        record: logRecord({ source: SOURCE }),
      });
      byStore.set(b.store_id, group);
    }
    for (const { store, drafts } of byStore.values()) {
      await bookEntries(trx, ledger, store, drafts, by, now);
      reset += drafts.length;
    }
  }
  return reset;
}
