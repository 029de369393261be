import { sql } from 'kysely';
import type { DbHandle } from '../db/dialect/types.js';
import type { Violation } from '../db/verify-types.js';
import { MAX_LISTED } from './invariants.js';

/**
 * Every store product has a stock moment (PRODUCT §3.1): until its first stock change (its
 * stock_version still 0: only the posting engine moves it) the moment it was created, stamped
 * at its insert (migration 0030); from then on a stamp that names an entry.
 * Every other stock_modified_at stamp names an entry: the store product has a stock log entry
 * updated at that very moment. The posting engine stamps its booking's `now`
 * (store-product-stamps.ts), which is also the updated_on of the entries it writes or
 * reviews — and the ERP's pull of the store products whose stock changed since a moment
 * relies on it: it finds them through the entries updated since (store-stock/repository.ts
 * `filtered`), so a stamp without its entry would be missing from that pull.
 * Without `since`, every stamp (the full check: one set difference against every entry). With
 * it, the stamps from then on: PostgreSQL keeps no index on stock_modified_at (migration 0019: stamps
 * stay HOT updates), so there this reads store_products through once, where SQLite can walk
 * its (store, stock_modified_at) index; each stamp found is then one look-up in the
 * updated_on index of stock_logs. A stamp whose entry an archive moved out names its kept
 * copy in stock_stamps_archived (ledger/archive.ts).
 */
export async function stampViolations(handle: DbHandle, since?: number): Promise<Violation[]> {
  const [{ rows }, unstamped] = await Promise.all([
    since === undefined ? allStampsWithoutEntry(handle) : stampsWithoutEntrySince(handle, since),
    withoutStockMoment(handle, since),
  ]);
  return [
    ...unstamped.map((row) => ({
      check: 'store product stamps',
      detail:
        `store product '${row.product_number}' of store '${row.store_number}' has no stock_modified_at: until its first stock change its stock moment ` +
        'is its creation (the ERP pull of stock changed since a moment would never list it)',
    })),
    ...rows.map((row) => ({
      check: 'store product stamps',
      detail:
        `store product '${row.product_number}' of store '${row.store_number}' has stock_modified_at ${new Date(Number(row.stock_modified_at)).toISOString()}, ` +
        'the updated_on of none of its stock log entries (the ERP pull of stock changed since then would miss it)',
    })),
  ];
}

type StampRow = { store_number: string; product_number: string; stock_modified_at: number };

/** Store products without a stock moment: all of them, or those created from `since` on (the created_on index). */
async function withoutStockMoment(handle: DbHandle, since: number | undefined) {
  let query = handle.db
    .selectFrom('store_products')
    .select(['store_number', 'product_number'])
    .where('stock_modified_at', 'is', null);
  if (since !== undefined) query = query.where('created_on', '>=', since);
  return query.limit(MAX_LISTED).execute();
}

/**
 * Every stamp: one set difference of (store, product, stamp) against (store, product,
 * updated_on) of every entry — sorted or hashed by the database, spilling to disk, on either
 * database. A per-stamp probe is no option here: all the entries of one booking share one
 * updated_on (a generated chain's 2M opening counts share one), so a probe by updated_on for an
 * old stamp walks all of them (the probe plan ran for more than 9 minutes at 10M entries; this
 * one takes 19 s on PostgreSQL).
 */
function allStampsWithoutEntry(handle: DbHandle) {
  return sql<StampRow>`
    select sp.store_number, sp.product_number, sp.stock_modified_at
    from (
      select store_id, product_id, stock_modified_at from store_products where stock_modified_at is not null
      except
      select store_id, product_id, updated_on from stock_logs
      except
      select store_id, product_id, stamp from stock_stamps_archived
      except
      select store_id, product_id, created_on from store_products where stock_version = 0
    ) missing
    join store_products sp on sp.store_id = missing.store_id and sp.product_id = missing.product_id
    limit ${MAX_LISTED}
  `.execute(handle.db);
}

/** The stamps from `since` on, each one look-up in the updated_on index of stock_logs. */
function stampsWithoutEntrySince(handle: DbHandle, since: number) {
  return sql<StampRow>`
    select sp.store_number, sp.product_number, sp.stock_modified_at
    from store_products sp
    where sp.stock_modified_at >= ${since}
      and not (sp.stock_version = 0 and sp.stock_modified_at = sp.created_on)
      and not exists (
        select 1 from stock_logs l
        where l.updated_on = sp.stock_modified_at and l.store_id = sp.store_id and l.product_id = sp.product_id
      )
      and not exists (
        select 1 from stock_stamps_archived a
        where a.store_id = sp.store_id and a.product_id = sp.product_id and a.stamp = sp.stock_modified_at
      )
    limit ${MAX_LISTED}
  `.execute(handle.db);
}
