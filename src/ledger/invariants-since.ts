import { sql, type Kysely } from 'kysely';
import type { DbHandle } from '../db/dialect/types.js';
import type { Database } from '../db/schema.js';
import { inListChunks } from '../db/in-list.js';
import type { SinceFindings, Violation } from '../db/verify-types.js';
import {
  BALANCE_KEY,
  balanceViolation,
  disagrees,
  logHourViolations,
  MAX_LISTED,
  sameKey,
  unappliedViolations,
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
 * right only if every row under it is.
 */

/** Entries whose ledger rows are looked up per statement, by the log_id index. */
const ENTRIES_PER_WINDOW = 5_000;
/** Touched balances checked per statement: each one's history read by the balance index. */
const KEYS_PER_BATCH = 1_000;

/**
 * Where the touched keys gather, each once (its primary key). A table of the connection,
 * not a set in the process: there may be millions of them. Filled from windows of
 * entries and read back in key order, each step a look-up through an index with a bounded
 * list of ids or keys — one statement joining every entry since T to the ledger would be
 * planned as a pass over the whole ledger once the window is large.
 */
const TOUCHED = 'verify_touched_balances';

type BalanceKey = Pick<BalanceAgainstLedger, (typeof BALANCE_KEY)[number]>;

const columns = (alias?: string) => sql.join(BALANCE_KEY.map((c) => sql.ref(alias ? `${alias}.${c}` : c)));
const keyValues = (key: BalanceKey) => sql.join(BALANCE_KEY.map((c) => sql`${key[c]}`));

export async function ledgerViolationsSince(handle: DbHandle, since: number): Promise<SinceFindings> {
  // Pinned: a temporary table exists on its own connection only (PostgreSQL's pool).
  const balanceFindings = await handle.db.connection().execute(async (db) => {
    await sql`create temporary table ${sql.table(TOUCHED)} (
      store_id bigint not null, product_id bigint not null, location_id bigint not null, pool integer not null, order_key text not null,
      primary key (${columns()})
    )`.execute(db);
    try {
      await gatherTouched(db, since);
      return await checkTouched(db);
    } finally {
      await sql`drop table ${sql.table(TOUCHED)}`.execute(db);
    }
  });
  const violations = [...balanceFindings.violations, ...(await unappliedViolations(handle, since)), ...(await logHourViolations(handle, since))];
  return { violations, balances: balanceFindings.balances };
}

/** The entries updated since, a window at a time by (updated_on, id), and the keys of their ledger rows. */
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
    for (const ids of inListChunks(entries.map((e) => e.id), ENTRIES_PER_WINDOW)) {
      await sql`
        insert into ${sql.table(TOUCHED)} (${columns()})
        select distinct ${columns('g')} from stock_ledger g where g.log_id in (${sql.join(ids)})
        on conflict do nothing
      `.execute(db);
    }
    if (entries.length < ENTRIES_PER_WINDOW) return;
    const last = entries[entries.length - 1]!;
    after = { updatedOn: Number(last.updated_on), id: Number(last.id) };
  }
}

/** The figures of a batch's balance `t`, each its own look-up by the balance key (see checkTouched). */
const FIGURES = sql`
  (select b.quantity from stock_balances b where ${sameKey('b', 't')}) as balance,
  (select sum(g.delta) from stock_ledger g where ${sameKey('g', 't')}) as ledger,
  (select b.last_at from stock_balances b where ${sameKey('b', 't')}) as last_at,
  (select max(g.at) from stock_ledger g where ${sameKey('g', 't')}) as ledger_last_at,
  (select b.last_count_at from stock_balances b where ${sameKey('b', 't')}) as last_count_at,
  (select max(g.at) from stock_ledger g where ${sameKey('g', 't')} and g.is_count = 1) as ledger_last_count_at`;

const X: FigureColumns = {
  balance: 'x.balance', ledger: 'x.ledger', last_at: 'x.last_at', ledger_last_at: 'x.ledger_last_at', last_count_at: 'x.last_count_at', ledger_last_count_at: 'x.ledger_last_count_at',
};

/**
 * The touched balances in key order, a batch at a time, each against its whole ledger
 * history. Every figure is a look-up of its own (the balance by its unique key, the ledger
 * by the (key, at, id) index: two of the three figures read one index entry): a join of a
 * batch to the ledger or the balances is one the planner may turn into a pass over the
 * whole table once a batch looks large to it. Materialized, so each look-up runs once
 * however often the rule names its figure; every row comes back (a batch is bounded) with
 * the rule's verdict, and the last one is where the next batch starts.
 */
async function checkTouched(db: Kysely<Database>): Promise<{ violations: Violation[]; balances: number }> {
  const violations: Violation[] = [];
  let balances = 0;
  let after: BalanceKey | undefined;
  while (violations.length < MAX_LISTED) {
    const { rows } = await sql<BalanceAgainstLedger & { disagrees: number }>`
      with x as materialized (
        select ${columns('t')}, ${FIGURES}
        from ${sql.table(TOUCHED)} t
        ${after === undefined ? sql`` : sql`where (${columns('t')}) > (${keyValues(after)})`}
        order by ${columns('t')}
        limit ${KEYS_PER_BATCH}
      )
      select x.*, case when x.balance is null or ${disagrees(X)} then 1 else 0 end as disagrees from x
    `.execute(db);
    for (const row of rows) if (Number(row.disagrees) === 1) violations.push(balanceViolation(row));
    balances += rows.length;
    if (rows.length < KEYS_PER_BATCH) break;
    after = rows[rows.length - 1]!;
  }
  return { violations: violations.slice(0, MAX_LISTED), balances };
}
