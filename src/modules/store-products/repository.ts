import { sql, type Insertable, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database, StoreProductTable } from '../../db/schema.js';
import { chunk } from '../../shared/bulk.js';
import { emptyProperties, propertiesHash } from './mapping.js';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import type { StoreProductRow } from './rows.js';

export interface StoreRef {
  id: number;
  store_number: string;
}

/**
 * The stored store products of `productIds` in one store, by product id, locked for the
 * merge that follows (a concurrent PUT of the same product waits instead of losing a field).
 */
export async function lockStoreProducts(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  productIds: readonly number[],
): Promise<Map<number, StoreProductRow>> {
  const rows = new Map<number, StoreProductRow>();
  for (const ids of inListChunks(
    [...productIds].sort((a, b) => a - b),
    KEYS_PER_QUERY,
  )) {
    const query = trx
      .selectFrom('store_products')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('product_id', 'in', ids)
      .orderBy('id');
    for (const row of await dialect.lockForUpdate(query).execute()) rows.set(Number(row.product_id), row);
  }
  return rows;
}

/**
 * A new store product with every property null (PRODUCT §5: created by the first stock change).
 * The ledger creates these through its `newStoreProduct` policy (app-context.ts wires it here).
 */
export function newStoreProductRow(
  store: StoreRef,
  product: { id: number; product_number: string },
  now: number,
  actor: string,
): Insertable<StoreProductTable> {
  const properties = emptyProperties();
  return {
    store_id: store.id,
    store_number: store.store_number,
    product_id: product.id,
    product_number: product.product_number,
    ...properties,
    created_on: now,
    updated_on: now,
    created_by: actor,
    modified_by: actor,
    deleted_on: null,
    content_hash: propertiesHash(properties),
    // PRODUCT §3.1: until its first stock change, its stock moment is its creation.
    stock_modified_at: now,
  };
}

/**
 * Inserts new and rewrites changed store products (full rows, already merged), one
 * multi-row `insert … on conflict (store_id, product_id) do update` per batch. The
 * bookkeeping the ledger fills (last_counted_at…, stock_modified_at) is not in `rows`
 * and so never overwritten — except stock_modified_at of a new row: until its first stock
 * change a store product's stock moment is its creation (PRODUCT §3.1), so an insert stamps
 * created_on, and an update leaves the stamp alone.
 */
export async function writeStoreProducts(
  trx: Transaction<Database>,
  dialect: Dialect,
  given: ReadonlyArray<Insertable<StoreProductTable>>,
): Promise<void> {
  if (given.length === 0) return;
  const rows = given.map((row) => ({ ...row, stock_modified_at: row.created_on }));
  const columns = Object.keys(rows[0]!);
  const updatable = columns.filter(
    (c) => !['store_id', 'product_id', 'created_on', 'created_by', 'stock_modified_at'].includes(c),
  );
  for (const batch of chunk(rows, Math.max(1, Math.floor(dialect.maxParameters / columns.length)))) {
    await trx
      .insertInto('store_products')
      .values(batch as Array<Insertable<StoreProductTable>>)
      .onConflict((oc) =>
        oc
          .columns(['store_id', 'product_id'])
          .doUpdateSet(Object.fromEntries(updatable.map((c) => [c, sql.ref(`excluded.${c}`)])) as never),
      )
      .execute();
  }
}
