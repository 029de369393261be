import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { chunk } from '../shared/bulk.js';
import { inListChunks, KEYS_PER_QUERY } from '../db/in-list.js';
import type { BookingProduct, BookingStore, Ledger } from './ledger.js';

async function storeProductIds(
  trx: Transaction<Database>,
  storeId: number,
  productIds: readonly number[],
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const idChunk of inListChunks(productIds, KEYS_PER_QUERY)) {
    const rows = await trx
      .selectFrom('store_products')
      .select(['id', 'product_id'])
      .where('store_id', '=', storeId)
      .where('product_id', 'in', idChunk)
      .execute();
    for (const row of rows) ids.set(Number(row.product_id), Number(row.id));
  }
  return ids;
}

/**
 * The store product of each product in `store`, creating the missing ones as the
 * `newStoreProduct` policy says (PRODUCT §5 "Store products exist once created … by the first
 * stock change"). Safe under concurrent callers: a row another transaction created first is
 * taken as it is. Returns product id → store product id.
 */
export async function ensureStoreProducts(
  trx: Transaction<Database>,
  ledger: Ledger,
  store: BookingStore,
  products: ReadonlyArray<Pick<BookingProduct, 'id' | 'product_number'>>,
  now: number,
  actor: string,
): Promise<Map<number, number>> {
  const distinct = new Map(products.map((p) => [p.id, p]));
  const ids = await storeProductIds(trx, store.id, [...distinct.keys()]);
  const missing = [...distinct.values()].filter((p) => !ids.has(p.id));
  if (missing.length === 0) return ids;
  const rows = missing.map((p) => ledger.policies.newStoreProduct(store, p, now, actor));
  for (const batch of chunk(
    rows,
    Math.max(1, Math.floor(ledger.dialect.maxParameters / Object.keys(rows[0]!).length)),
  )) {
    await trx
      .insertInto('store_products')
      .values(batch)
      .onConflict((oc) => oc.columns(['store_id', 'product_id']).doNothing())
      .execute();
  }
  const created = await storeProductIds(
    trx,
    store.id,
    missing.map((p) => p.id),
  );
  for (const [productId, id] of created) ids.set(productId, id);
  return ids;
}
