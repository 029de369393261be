import { sql, type Kysely } from 'kysely';
import type { DbHandle } from '../db/dialect/types.js';
import type { Database } from '../db/schema.js';
import { inListChunks } from '../db/in-list.js';
import type { SinceFindings, Violation } from '../db/verify-types.js';
import {
  balanceViolation,
  disagrees,
  logHourViolations,
  MAX_LISTED,
  missingBalanceViolations,
  postingViolations,
  type BalanceAgainstLedger,
  type FigureColumns,
} from './invariants.js';

/**
 * The ledger check of invariants.ts over the balances touched since a moment
 * (`store-ops verify --since`, the nightly run): what it costs follows what changed, not
 * the size of the ledger.
 *
 * Touched since T: a balance with a ledger row of an entry whose updated_on is T or later.
 * Every booking writes its entries' updated_on with its `now`, a review approval included
 * (service.ts reviewStockLogs), so no balance changed since T is left out. Each touched
 * balance is checked against its whole ledger history, not only the recent rows: a sum is
 * right only if every row under it is. A touched balance that does not exist (no foreign key
 * stops it on SQLite) is reported as the full check reports it; the entries updated since
 * are checked to have ledger rows exactly when applied.
 */

/** Entries whose ledger rows are looked up per statement: through the view, by stock_logs' primary key and stock_log_parts' log_id index. */
const ENTRIES_PER_WINDOW = 5_000;
/** Touched balances checked per statement: each one's history read by the balance index. */
const KEYS_PER_BATCH = 1_000;

/**
 * Where the touched balances gather, each once (its primary key: the balance's id). A table
 * of the connection, not a set in the process: there may be millions of them. Filled from
 * windows of entries and read back in id order, each step a look-up through an index with a
 * bounded list of ids — one statement joining every entry since T to the ledger would be
 * planned as a pass over the whole ledger once the window is large.
 */
const TOUCHED = 'verify_touched_balances';

export async function ledgerViolationsSince(handle: DbHandle, since: number): Promise<SinceFindings> {
  // Pinned: a temporary table exists on its own connection only (PostgreSQL's pool).
  const balanceFindings = await handle.db.connection().execute(async (db) => {
    await sql`create temporary table ${sql.table(TOUCHED)} (balance_id bigint primary key)`.execute(db);
    try {
      await gatherTouched(db, since);
      return await checkTouched(db);
    } finally {
      await sql`drop table ${sql.table(TOUCHED)}`.execute(db);
    }
  });
  const violations = [
    ...balanceFindings.violations,
    ...(await postingViolations(handle, since)),
    ...(await logHourViolations(handle, since)),
  ];
  return { violations, balances: balanceFindings.balances };
}

/** The entries updated since, a window at a time by (updated_on, id), and the balances of their ledger rows. */
async function gatherTouched(db: Kysely<Database>, since: number): Promise<void> {
  let after = { updatedOn: since, id: 0 };
  for (;;) {
    const entries = await db
      .selectFrom('stock_logs')
      .select(['id', 'updated_on'])
      .where('updated_on', '>=', after.updatedOn)
      .where((eb) => eb(eb.refTuple('updated_on', 'id'), '>', eb.tuple(after.updatedOn, after.id)))
      .orderBy('updated_on')
      .orderBy('id')
      .limit(ENTRIES_PER_WINDOW)
      .execute();
    if (entries.length === 0) return;
    for (const ids of inListChunks(
      entries.map((e) => e.id),
      ENTRIES_PER_WINDOW,
    )) {
      await sql`
        insert into ${sql.table(TOUCHED)} (balance_id)
        select distinct g.balance_id from stock_ledger g where g.log_id in (${sql.join(ids)})
        on conflict do nothing
      `.execute(db);
    }
    if (entries.length < ENTRIES_PER_WINDOW) return;
    const last = entries[entries.length - 1]!;
    after = { updatedOn: Number(last.updated_on), id: Number(last.id) };
  }
}

/** The figures of a batch's touched balance `t` (`b` its row, if any), each ledger figure its own look-up by the balance's id (see checkTouched). */
const FIGURES = sql`
  b.quantity as balance,
  (select sum(g.delta) from stock_ledger g where g.balance_id = t.balance_id) as ledger,
  b.last_at,
  (select max(g.at) from stock_ledger g where g.balance_id = t.balance_id) as ledger_last_at,
  b.last_count_at,
  (select max(g.at) from stock_ledger g where g.balance_id = t.balance_id and g.is_count = 1) as ledger_last_count_at`;

const X: FigureColumns = {
  balance: 'x.balance',
  ledger: 'x.ledger',
  last_at: 'x.last_at',
  ledger_last_at: 'x.ledger_last_at',
  last_count_at: 'x.last_count_at',
  ledger_last_count_at: 'x.ledger_last_count_at',
};

/**
 * The touched balances in id order, a batch at a time, each against its whole ledger
 * history. Every ledger figure is a look-up of its own through the stock_ledger view (by the
 * balance's history indexes: stock_logs (balance_id, modification_at, id), its partial one of
 * counts, and stock_log_parts' primary key), the balance a probe of its primary key: a join of
 * a batch to the ledger is one the planner may turn into a pass over the whole table once a
 * batch looks large to it. Materialized, so each look-up runs once
 * however often the rule names its figure; every row comes back (a batch is bounded) with
 * the rule's verdict, and the last one is where the next batch starts.
 */
async function checkTouched(db: Kysely<Database>): Promise<{ violations: Violation[]; balances: number }> {
  const violations: Violation[] = [];
  let balances = 0;
  let after = 0;
  while (violations.length < MAX_LISTED) {
    const { rows } = await sql<
      BalanceAgainstLedger & { balance_id: number; present: number | null; disagrees: number }
    >`
      with x as materialized (
        select t.balance_id, b.id as present, b.store_id, b.product_id, b.location_id, b.pool, b.order_key, ${FIGURES}
        from ${sql.table(TOUCHED)} t left join stock_balances b on b.id = t.balance_id
        where t.balance_id > ${after}
        order by t.balance_id
        limit ${KEYS_PER_BATCH}
      )
      select x.*, case when x.present is null or ${disagrees(X)} then 1 else 0 end as disagrees from x
    `.execute(db);
    const missing: Array<{ balance_id: number; ledger: number | null }> = [];
    for (const row of rows) {
      if (row.present === null) missing.push({ balance_id: Number(row.balance_id), ledger: row.ledger });
      else if (Number(row.disagrees) === 1) violations.push(balanceViolation(row));
    }
    violations.push(...(await missingBalanceViolations(db, missing)));
    balances += rows.length;
    if (rows.length < KEYS_PER_BATCH) break;
    after = Number(rows[rows.length - 1]!.balance_id);
  }
  return { violations: violations.slice(0, MAX_LISTED), balances };
}
