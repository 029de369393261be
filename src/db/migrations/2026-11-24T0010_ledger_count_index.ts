import { sql, type Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 11: a late entry before a count needs the first count after its moment. With counts
// rare among a balance's ledger rows, walking the balance's time index from that moment
// would pass every delta in between; this partial index holds only the counts, so the next
// count is one index look-up however long the balance's history is.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('stock_ledger_balance_counts')
    .on('stock_ledger')
    .columns(['store_id', 'product_id', 'location_id', 'pool', 'order_key', 'at', 'id'])
    .where(sql.ref('is_count'), '=', 1)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('stock_ledger_balance_counts').execute();
}
