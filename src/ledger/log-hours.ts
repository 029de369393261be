import type { DbHandle } from '../db/dialect/types.js';
import { inTransaction } from '../db/transaction.js';

// stock_log_hours (migration 0020) holds, per hour of updated_on, the entries and their smallest
// id: written by triggers in the entries' own transaction, read by the ERP's log pull
// (modules/stock-logs/log-pull.ts) and checked by verify (invariants.ts logHourViolations).

/** An hour of updated_on, as stock_log_hours counts it (`updated_on / HOUR_MS`, truncated). */
export const HOUR_MS = 3_600_000;

const HOURS_PER_MERGE = 500;

/**
 * Merges each hour's delta rows of stock_log_hours into one (PostgreSQL: the triggers append
 * a row per statement; SQLite keeps one row per hour already, so there is nothing to merge).
 * Run every few seconds by the server and after `store-ops generate`. Safe beside writers and
 * other mergers: a delete takes only the rows committed when it runs (a row a concurrent
 * writer adds stays, to be merged next time), and rows another merger deleted first are not
 * returned twice. Returns the hours merged.
 */
export async function mergeLogHours(handle: DbHandle): Promise<number> {
  const split = await handle.db
    .selectFrom('stock_log_hours')
    .select('hour')
    .groupBy('hour')
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('hour')
    .limit(HOURS_PER_MERGE)
    .execute();
  if (split.length === 0) return 0;
  await inTransaction(handle, async (trx) => {
    const gone = await trx
      .deleteFrom('stock_log_hours')
      .where(
        'hour',
        'in',
        split.map((row) => row.hour),
      )
      .returning(['hour', 'entries', 'min_id'])
      .execute();
    const merged = new Map<number, { entries: number; min_id: number }>();
    for (const row of gone) {
      const hour = Number(row.hour);
      const sum = merged.get(hour);
      if (sum) {
        sum.entries += Number(row.entries);
        sum.min_id = Math.min(sum.min_id, Number(row.min_id));
      } else merged.set(hour, { entries: Number(row.entries), min_id: Number(row.min_id) });
    }
    if (merged.size > 0)
      await trx
        .insertInto('stock_log_hours')
        .values([...merged].map(([hour, sum]) => ({ hour, ...sum })))
        .execute();
  });
  return split.length;
}
