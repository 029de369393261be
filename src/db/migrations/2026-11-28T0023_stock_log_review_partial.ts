import { sql, type Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Only entries whose reason code asks for a review (PRODUCT §5 Review) ever leave review
// status 0, yet every entry wrote a key into (review_status, id): at 10.6M entries the
// index was 320 MB, ~30 bytes an entry, written by every booking. The queries it serves —
// the log list filtered by `review_status` 1, 2 or 3, or by `reviewed=true` (2 or 3) — are
// about entries that needed a review, so the index keeps only those. A filter on status 0
// (nearly every entry) never used it: a scan in id order serves it as well. Neither
// planner proves `review_status = 1` implies `review_status <> 0` in the same way (SQLite
// matches a partial index's terms literally), so the list query states the term itself
// (stock-logs/repository.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('stock_logs_review').execute();
  await db.schema
    .createIndex('stock_logs_review')
    .on('stock_logs')
    .columns(['review_status', 'id'])
    .where(sql.ref('review_status'), '<>', 0)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('stock_logs_review').execute();
  await db.schema.createIndex('stock_logs_review').on('stock_logs').columns(['review_status', 'id']).execute();
}
