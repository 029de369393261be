import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { chunk } from '../../../shared/bulk.js';
import { KEYS_PER_QUERY } from '../../../db/in-list.js';
import type { MasterRef } from '../../../shared/held-references.js';
import { PRICE_CANDIDATE_COLUMNS, type PriceCandidateRow } from '../rows.js';

/** The live stores among `numbers`. */
export async function liveStoreNumbers(db: Kysely<Database>, numbers: readonly string[]): Promise<Set<string>> {
  const held = await heldStoreNumbers(db, numbers);
  return new Set([...held].flatMap(([number, ref]) => (ref.live ? [number] : [])));
}

/**
 * The stores among `numbers`, live or deleted (a store-scoped price must name a known store;
 * a written one a live store, an unchanged one may keep a deleted one: shared/held-references.ts).
 */
export async function heldStoreNumbers(
  db: Kysely<Database>,
  numbers: readonly string[],
): Promise<Map<string, MasterRef>> {
  const found = new Map<string, MasterRef>();
  for (const numberChunk of chunk([...new Set(numbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('stores')
      .select(['id', 'store_number', 'deleted_on'])
      .where('store_number', 'in', numberChunk)
      .execute();
    for (const row of rows) found.set(row.store_number, { id: Number(row.id), live: row.deleted_on === null });
  }
  return found;
}

/** Price records of these products whose validity window contains `now`, in one query per chunk. */
export async function pricesValidAt(
  db: Kysely<Database>,
  productIds: readonly number[],
  now: number,
): Promise<PriceCandidateRow[]> {
  const rows: PriceCandidateRow[] = [];
  for (const ids of chunk(productIds, KEYS_PER_QUERY)) {
    rows.push(
      ...(await db
        .selectFrom('product_prices')
        .select(PRICE_CANDIDATE_COLUMNS)
        .where('product_id', 'in', ids)
        .where('deleted_on', 'is', null)
        .where('valid_from', '<=', now)
        .where('valid_to', '>', now)
        .execute()),
    );
  }
  return rows;
}

/**
 * The next moment after `now` at which a price or discount of these products starts or
 * ends: until then, every product's effective and special price stays what it is now.
 */
export async function nextPricingChange(
  db: Kysely<Database>,
  productIds: readonly number[],
  now: number,
): Promise<number | null> {
  if (productIds.length === 0) return null;
  const ids = [...productIds];
  const bound = (table: 'product_prices' | 'product_discounts', column: 'valid_from' | 'valid_to') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.min(column).as('at'))
      .where('product_id', 'in', ids)
      .where('deleted_on', 'is', null)
      .where(column, '>', now)
      .executeTakeFirst();
  const bounds = await Promise.all([
    bound('product_prices', 'valid_from'),
    bound('product_prices', 'valid_to'),
    bound('product_discounts', 'valid_from'),
    bound('product_discounts', 'valid_to'),
  ]);
  const moments = bounds
    .map((b) => (b?.at === null || b?.at === undefined ? null : Number(b.at)))
    .filter((m): m is number => m !== null);
  return moments.length === 0 ? null : Math.min(...moments);
}
