/**
 * The change feed's bench helpers (issue 30, PRODUCT §9; scenarios/change-feed*.ts): the
 * feed-off setting, how many `stock.changed` events a stock post must write, and the cheap
 * SQL checks of what the service wrote, on its own database, after a run (untimed).
 */
import { bookEntry, levelKey, type StockMaster } from '../baselines/stock-booking.js';
import type { BenchDatabase } from './ledger-db.js';
import type { StockEntry } from './stock.js';

/** The feed-off side: a service process started with this writes no `stock.changed` events (src/config.ts). */
export const FEED_OFF_ENV: Record<string, string> = { BENCH_WITHOUT_STOCK_EVENTS: 'true' };

/**
 * The balances one stock post moves: one `stock.changed` per balance per request (PRODUCT §9),
 * so this is the number of events the post must write. A balance is store, product, location
 * and pool (none of the bench's entries is bound to a customer order).
 */
export function balancesMoved(master: StockMaster, storeNumber: string, entries: readonly StockEntry[]): number {
  const keys = new Set<string>();
  for (const entry of entries) {
    const { locationCode, pool } = bookEntry(master, entry);
    keys.add(levelKey(storeNumber, entry.product_number, locationCode, pool));
  }
  return keys.size;
}

/** What the service's tables hold of the stock writes and their events. */
export interface FeedCounts {
  /** stock_logs rows (one per entry applied). */
  logs: number;
  /** `stock.changed` events. */
  events: number;
  /** Entry ids named by those events, counted with repeats, and without. */
  ids: number;
  distinctIds: number;
  /** stock_logs rows whose id no event names. */
  missing: number;
  /** Events of any type not yet numbered (PostgreSQL's sequencer; 0 on SQLite). */
  unsequenced: number;
}

function countsQuery(dialect: BenchDatabase['dialect']): string {
  const ids =
    dialect === 'postgres'
      ? `select j.value::bigint as id from events e cross join lateral jsonb_array_elements_text(e.data::jsonb -> 'log_entry_ids') j(value) where e.type = 'stock.changed'`
      : `select j.value as id from events e, json_each(e.data, '$.log_entry_ids') j where e.type = 'stock.changed'`;
  const missing =
    dialect === 'postgres'
      ? 'select count(*) from stock_logs l where not exists (select 1 from ids where ids.id = l.id)'
      : 'select count(*) from stock_logs l where l.id not in (select id from ids)';
  return `with ids as materialized (${ids})
    select (select count(*) from stock_logs) as logs,
           (select count(*) from events where type = 'stock.changed') as events,
           (select count(*) from ids) as ids,
           (select count(distinct id) from ids) as distinct_ids,
           (${missing}) as missing,
           (select count(*) from events where ${dialect === 'postgres' ? 'sequence is null' : '0'}) as unsequenced`;
}

export async function readFeedCounts(db: BenchDatabase): Promise<FeedCounts> {
  const [row] = await db.query<Record<string, unknown>>(countsQuery(db.dialect));
  return {
    logs: Number(row?.logs),
    events: Number(row?.events),
    ids: Number(row?.ids),
    distinctIds: Number(row?.distinct_ids),
    missing: Number(row?.missing),
    unsequenced: Number(row?.unsequenced),
  };
}

/**
 * Feed on: one stock log row per entry posted, exactly `expectedEvents` stock.changed events
 * (one per balance per request), every entry id named by exactly one event, and (PostgreSQL)
 * every event numbered by the sequencer within `sequencedWithinMs`. Throws otherwise.
 */
export async function checkFeedOn(
  db: BenchDatabase,
  expected: { logs: number; events: number },
  sequencedWithinMs = 10_000,
): Promise<FeedCounts> {
  const deadline = Date.now() + sequencedWithinMs;
  let counts = await readFeedCounts(db);
  while (counts.unsequenced > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    counts = await readFeedCounts(db);
  }
  const problems: string[] = [];
  if (counts.logs !== expected.logs) problems.push(`${counts.logs} stock log rows for ${expected.logs} entries posted`);
  if (counts.events !== expected.events)
    problems.push(
      `${counts.events} stock.changed events for ${expected.events} balances moved (one per balance per request)`,
    );
  if (counts.ids !== counts.logs || counts.distinctIds !== counts.logs || counts.missing !== 0) {
    problems.push(
      `the events name ${counts.ids} entry ids (${counts.distinctIds} distinct) of ${counts.logs} entries, ${counts.missing} entries named by none`,
    );
  }
  if (counts.unsequenced !== 0)
    problems.push(`${counts.unsequenced} events still unnumbered ${sequencedWithinMs / 1000} s after the run`);
  if (problems.length > 0) throw new Error(`feed on: ${problems.join('; ')}`);
  return counts;
}

/** Feed off: the stock log rows are all there, and not one stock.changed event. */
export async function checkFeedOff(db: BenchDatabase, expectedLogs: number): Promise<void> {
  const [row] = await db.query<{ logs: unknown; events: unknown }>(
    `select (select count(*) from stock_logs) as logs, (select count(*) from events where type = 'stock.changed') as events`,
  );
  if (Number(row?.logs) !== expectedLogs || Number(row?.events) !== 0) {
    throw new Error(
      `feed off: ${row?.logs} stock log rows for ${expectedLogs} entries posted, and ${row?.events} stock.changed events (none expected)`,
    );
  }
}
