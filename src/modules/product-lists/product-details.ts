import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import type { Database } from '../../db/schema.js';
import { readVersions } from '../../db/versions.js';

/** What a list line shows of its product (PRODUCT §8), read from the master and its category. */
export interface ProductDetails {
  product_number: string;
  product_name: string;
  barcode: string | null;
  carrier_item_quantity: number;
  allow_decimal: number | null;
  category_code: string | null;
  parent_category_code: string | null;
}

/** About 200 bytes each: at most some 40 MB per process; the least recently used go first (issue 40). */
export const MAX_PRODUCT_DETAILS = 200_000;
/** The limit a new cache gets (tests lower it to see the eviction). */
export const productDetailsLimit = { max: MAX_PRODUCT_DETAILS };

interface Cache {
  /** The products and categories versions the entries were read at. */
  versions: string;
  entries: LRUCache<number, ProductDetails>;
}

/** One cache per database handle (per app): tests and processes never share one. */
const caches = new WeakMap<object, Cache>();

/**
 * The details of the products, read live from the master as a list line must show them —
 * through a per-process cache that holds while the `products` and `categories` versions
 * hold. Those versions are bumped by database triggers on every change of a product, its
 * barcodes or a category, from any process (db/versions.ts), and are read fresh by every
 * call, so a cached entry is exactly what the tables say at the version read. A 5,000-line
 * list then costs 5,000 small line rows instead of as many reads of wide product rows.
 *
 * Entries fetched after the versions were read are kept only if the cache is still at those
 * versions: a request that read the old versions must not store rows it may have read before
 * a change under the new ones.
 */
export async function productDetails(
  db: Kysely<Database>,
  owner: object,
  productIds: readonly number[],
): Promise<Map<number, ProductDetails>> {
  const versions = await readVersions(db, ['products', 'categories']);
  let cache = caches.get(owner);
  if (!cache || cache.versions !== versions) {
    cache = { versions, entries: new LRUCache<number, ProductDetails>({ max: productDetailsLimit.max }) };
    caches.set(owner, cache);
  }
  const found = new Map<number, ProductDetails>();
  const missing: number[] = [];
  for (const id of new Set(productIds)) {
    const entry = cache.entries.get(id);
    if (entry) found.set(id, entry);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const fetched = await fetchDetails(db, missing);
  const current = caches.get(owner);
  const keep = current !== undefined && current.versions === versions;
  for (const [id, details] of fetched) {
    found.set(id, details);
    if (keep) current.entries.set(id, details);
  }
  return found;
}

/** How many products' details an app keeps (tests). */
export const keptProductDetailsOf = (owner: object): number => caches.get(owner)?.entries.size ?? 0;

async function fetchDetails(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, ProductDetails>> {
  const details = new Map<number, ProductDetails>();
  for (const part of inListChunks(ids, KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('products as p')
      .leftJoin('categories as c', (join) =>
        join.onRef('c.category_code', '=', 'p.category_code').on('c.deleted_on', 'is', null),
      )
      .select([
        'p.id',
        'p.product_number',
        'p.product_name',
        'p.barcode',
        'p.carrier_item_quantity',
        'p.allow_decimal',
        'p.category_code',
        'c.parent_category_code',
      ])
      .where('p.id', 'in', part)
      .execute();
    for (const { id, ...row } of rows)
      details.set(Number(id), {
        ...row,
        carrier_item_quantity: Number(row.carrier_item_quantity),
        allow_decimal: row.allow_decimal === null ? null : Number(row.allow_decimal),
      });
  }
  return details;
}
