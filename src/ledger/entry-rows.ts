import { sql, type Transaction } from 'kysely';
import type { Dialect, RowsSourceColumn } from '../db/dialect/types.js';
import { insertMany, insertManyReturningIds } from '../db/insert-many.js';
import type { Database } from '../db/schema.js';
import type { EntryBooking, Figures, NewLogRow, Placed, Posting } from './posting-types.js';

/**
 * The entries' rows as the posting engine writes them (postings.ts): new entries with their
 * postings, the parts of split ones, the postings of approved ones, and re-based counts.
 */

const PART_COLUMNS = ['log_id', 'seq', 'balance_id', 'at', 'delta', 'is_count', 'counted', 'expected'];
/** A one-balance entry's posting, in its own stock_logs row. */
const POSTING_COLUMNS = ['balance_id', 'delta', 'expected'] as const;

/**
 * The rows of the new entries, each with its posting when it has exactly one (`figures`: per
 * posting of the flat list, in order), and the parts of split entries; returns each entry's
 * id (undefined for approved entries, which have a row already).
 */
export async function writeEntries(
  trx: Transaction<Database>,
  dialect: Dialect,
  entries: readonly EntryBooking[],
  figures: readonly Figures[],
): Promise<number[]> {
  // The row's own columns, then its posting's: values in arrays, no copy of each row object.
  const fresh: Array<{ index: number; row: NewLogRow; first: number; posting: readonly unknown[] }> = [];
  let first = 0;
  entries.forEach((entry, index) => {
    if (entry.row !== undefined) {
      const one = entry.postings.length === 1 ? figures[first]! : undefined;
      fresh.push({
        index,
        first,
        row: entry.row,
        posting: [one?.balanceId ?? null, one?.deltaMilli ?? null, one?.expectedMilli ?? null],
      });
    }
    first += entry.postings.length;
  });
  const ids: number[] = [];
  if (fresh.length === 0) return ids;
  const own = Object.keys(fresh[0]!.row) as Array<keyof NewLogRow>;
  const columns = [...own, ...POSTING_COLUMNS];
  const written = await insertManyReturningIds(
    trx,
    dialect,
    'stock_logs',
    columns,
    fresh.map(({ row, posting }) => [...own.map((column) => row[column]), ...posting]),
  );
  fresh.forEach(({ index }, at) => (ids[index] = written[at]!));
  const parts = fresh.flatMap(({ index, first }) => {
    const entry = entries[index]!;
    return entry.postings.length > 1
      ? entry.postings.map((posting, part) => partRow(ids[index]!, posting, figures[first + part]!))
      : [];
  });
  if (parts.length > 0) await insertMany(trx, dialect, 'stock_log_parts', PART_COLUMNS, parts);
  return ids;
}

/** A part of a split entry: its place among the moment's entries is its entry's id. */
const partRow = (logId: number, posting: Posting, figures: Figures) => [
  logId,
  logId,
  figures.balanceId,
  posting.at,
  figures.deltaMilli,
  posting.isCount ? 1 : 0,
  posting.isCount ? posting.quantityMilli : null,
  figures.expectedMilli ?? null,
];

/**
 * The postings of approved entries, into the rows they were written with while pending (a
 * split one's as parts): one statement for the one-balance entries, however many a review
 * approves.
 */
export async function fillApproved(
  trx: Transaction<Database>,
  dialect: Dialect,
  entries: readonly EntryBooking[],
  placed: readonly Placed[],
  figures: readonly Figures[],
): Promise<void> {
  const parts: unknown[][] = [];
  const inline: Array<[number, number, number, number | null]> = [];
  for (const [index, entry] of entries.entries()) {
    if (entry.logId === undefined) continue;
    const own = placed.flatMap(({ entry: of }, at) => (of === index ? [at] : []));
    if (own.length === 1) {
      const { balanceId, deltaMilli, expectedMilli } = figures[own[0]!]!;
      inline.push([entry.logId, balanceId, deltaMilli, expectedMilli ?? null]);
    } else {
      for (const at of own) parts.push(partRow(entry.logId, placed[at]!.posting, figures[at]!));
    }
  }
  if (inline.length > 0) {
    await sql`
      update stock_logs set balance_id = v.balance_id, delta = v.delta, expected = v.expected
      from ${dialect.rowsSource('v', APPROVED_COLUMNS, inline)}
      where stock_logs.id = v.id`.execute(trx);
  }
  if (parts.length > 0) await insertMany(trx, dialect, 'stock_log_parts', PART_COLUMNS, parts);
}

const APPROVED_COLUMNS: readonly RowsSourceColumn[] = [
  { name: 'id', type: 'bigint' },
  { name: 'balance_id', type: 'bigint' },
  { name: 'delta', type: 'bigint' },
  { name: 'expected', type: 'bigint' },
];

/** A recorded count the request re-based: where its posting lives and its new figures. */
export interface Rebased {
  id: number;
  balanceId: number;
  row: { logId: number; at: number };
  deltaMilli: number;
  expectedMilli: number;
}

/**
 * A re-based count's posting is the ledger's one update in place (docs/stock.md): in its log
 * row when the count moved one balance, else its part on this balance.
 */
export async function rebaseCounts(trx: Transaction<Database>, rebased: readonly Rebased[]): Promise<void> {
  for (const count of rebased) {
    const figures = { delta: count.deltaMilli, expected: count.expectedMilli };
    const inline = await trx
      .updateTable('stock_logs')
      .set(figures)
      .where('id', '=', count.row.logId)
      .where('balance_id', '=', count.balanceId)
      .executeTakeFirst();
    if (Number(inline.numUpdatedRows) === 1) continue;
    const part = await trx
      .updateTable('stock_log_parts')
      .set(figures)
      .where('balance_id', '=', count.balanceId)
      .where('at', '=', count.row.at)
      .where('seq', '=', count.id)
      .executeTakeFirst();
    if (Number(part.numUpdatedRows) !== 1)
      throw new Error(`re-based count ${count.id} of balance ${count.balanceId} was not found`);
  }
}
