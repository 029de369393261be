import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import type { Violation } from '../../shared/verify-types.js';
import { MAX_LISTED } from './invariants.js';

/**
 * Every stock_modified_at stamp names an entry: the store product has a stock log entry
 * updated at that very moment. The posting engine stamps its booking's `now`
 * (store-product-stamps.ts), which is also the updated_on of the entries it writes or
 * reviews — and the ERP's pull of the store products whose stock changed since a moment
 * relies on it: it finds them through the entries updated since (store-stock/repository.ts
 * `filtered`), so a stamp without its entry would be missing from that pull.
 * Without `since`, every stamp (the full check: one more pass over stock_logs). With it, the
 * stamps from then on: PostgreSQL keeps no index on stock_modified_at (migration 0019: stamps
 * stay HOT updates), so there this reads store_products through once, where SQLite can walk
 * its (store, stock_modified_at) index; each stamp found is then one look-up in the
 * updated_on index of stock_logs.
 */
export async function stampViolations(handle: DbHandle, since?: number): Promise<Violation[]> {
  const { rows } = await sql<{ store_number: string; product_number: string; stock_modified_at: number }>`
    select sp.store_number, sp.product_number, sp.stock_modified_at
    from store_products sp
    where ${since === undefined ? sql`sp.stock_modified_at is not null` : sql`sp.stock_modified_at >= ${since}`}
      and not exists (
        select 1 from stock_logs l
        where l.updated_on = sp.stock_modified_at and l.store_id = sp.store_id and l.product_id = sp.product_id
      )
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({
    check: 'store product stamps',
    detail:
      `store product '${row.product_number}' of store '${row.store_number}' has stock_modified_at ${new Date(Number(row.stock_modified_at)).toISOString()}, ` +
      'the updated_on of none of its stock log entries (the ERP pull of stock changed since then would miss it)',
  }));
}
