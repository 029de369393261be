import type { Kysely, Selectable } from 'kysely';
import type { Database, ProductPriceTable } from '../../../db/schema.js';
import { chunk } from '../../../shared/bulk.js';

export type PriceRow = Selectable<ProductPriceTable>;

/** What the effective-price rule reads of a price record. */
export const PRICE_CANDIDATE_COLUMNS = ['id', 'product_id', 'price', 'valid_from', 'valid_to', 'store_number', 'price_group', 'country_code'] as const;
export type PriceCandidateRow = Pick<PriceRow, (typeof PRICE_CANDIDATE_COLUMNS)[number]>;

const KEYS_PER_QUERY = 10_000;

/** The live stores among `numbers` (a store-scoped price must name a known store). */
export async function liveStoreNumbers(db: Kysely<Database>, numbers: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const numberChunk of chunk([...new Set(numbers)], KEYS_PER_QUERY)) {
    const rows = await db.selectFrom('stores').select('store_number').where('store_number', 'in', numberChunk).where('deleted_on', 'is', null).execute();
    for (const row of rows) found.add(row.store_number);
  }
  return found;
}

/** Price records of these products whose validity window contains `now`, in one query per chunk. */
export async function pricesValidAt(db: Kysely<Database>, productIds: readonly number[], now: number): Promise<PriceCandidateRow[]> {
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
