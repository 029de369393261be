import { sql, type Transaction } from 'kysely';
import type { DbHandle } from '../db/dialect/types.js';
import { addMonths, monthLabel, monthStart } from '../db/months.js';
import type { Database } from '../db/schema.js';
import type { Violation } from '../db/verify-types.js';
import { MAX_LISTED } from './invariants.js';
import { HOUR_MS } from './log-hours.js';

/**
 * Archiving old months of the ledger (`store-ops ledger archive --before <month>`, PostgreSQL;
 * docs/stock.md "Months and archiving"). A chain's ledger grows by millions of entries a day;
 * old months are never read by the engine (a late entry reads its balance from its own moment
 * on) and rarely by anyone else, so an operator moves them out, to dump and drop.
 *
 * What stays is exact: per balance, everything before the boundary summed into a snapshot row
 * (level, latest moment, latest count's moment) that the ledger view reads as postings, so the
 * ledger still adds up to every balance and `verify` still holds — and the archived rows can be
 * checked against the snapshots on either side of them while they are kept (archiveViolations).
 * Entries dated before the boundary are refused from then on (the database refuses the row).
 *
 * Refused: a boundary that is not a month's first moment, one within the last two months (late
 * entries still land there), one not after the last archive; and any month holding an entry
 * still awaiting review or stock still bound to a customer order, which live on in the ledger.
 */

export class ArchiveRefused extends Error {}

export interface ArchiveReport {
  boundary: number;
  entries: number;
  parts: number;
  balances: number;
  tables: string[];
}

export async function archiveLedgerBefore(
  handle: DbHandle,
  boundary: number,
  by: string,
  now = Date.now(),
): Promise<ArchiveReport> {
  const archive = handle.dialect.ledgerArchive;
  if (!archive)
    throw new ArchiveRefused(
      'this database keeps the whole ledger in one table (SQLite): archiving old months needs PostgreSQL',
    );
  if (boundary !== monthStart(boundary))
    throw new ArchiveRefused('the boundary must be the first moment of a month (UTC)');
  const latest = addMonths(monthStart(now), -1);
  if (boundary > latest)
    throw new ArchiveRefused(
      `the current and the previous month stay in the ledger: archive before ${monthLabel(latest)} at the latest`,
    );

  const report = await handle.db.transaction().execute(async (trx) => {
    await archive.lock(trx);
    const previous = await previousBoundary(trx);
    if (previous !== null && boundary <= previous)
      throw new ArchiveRefused(`the ledger is archived before ${monthLabel(previous)} already`);
    await refuseLiving(trx, boundary);

    // The new snapshot, from the ledger view (which reads the current snapshot as postings), in
    // a work table first: the current snapshot then moves to the history and the new one takes
    // its place.
    await sql`create temporary table next_snapshot on commit drop as
      select balance_id, max(at) as at, 0 as is_count, sum(delta) as delta from stock_ledger where at < ${boundary} group by balance_id
      union all
      select balance_id, max(at), 1, 0 from stock_ledger where at < ${boundary} and is_count = 1 group by balance_id`.execute(
      trx,
    );
    await sql`insert into stock_ledger_snapshot_history select * from stock_ledger_snapshots`.execute(trx);
    await sql`delete from stock_ledger_snapshots`.execute(trx);
    const snapshot = await sql`
      insert into stock_ledger_snapshots (boundary_at, balance_id, at, is_count, delta)
      select ${boundary}, balance_id, at, is_count, delta from next_snapshot where is_count = 0`.execute(trx);
    await sql`
      insert into stock_ledger_snapshots (boundary_at, balance_id, at, is_count, delta)
      select ${boundary}, balance_id, at, is_count, delta from next_snapshot where is_count = 1`.execute(trx);
    const entries = await countBefore(trx, 'stock_logs', 'modification_at', boundary);
    const parts = await countBefore(trx, 'stock_log_parts', 'at', boundary);
    // The log pull's hour counts lose the archived entries (the triggers do not see a detach).
    await sql`
      insert into stock_log_hours (hour, entries, min_id)
      select updated_on / ${sql.lit(HOUR_MS)}, -count(*), min(id) from stock_logs where modification_at < ${boundary}
      group by updated_on / ${sql.lit(HOUR_MS)}`.execute(trx);
    // Stamps that will name no entry left in the ledger are kept (stamp check, ERP delta pull).
    // A never-booked store product's stamp is its creation (PRODUCT §3.1): it names no entry
    // and needs no copy.
    await sql`
      insert into stock_stamps_archived (store_id, product_id, stamp)
      select store_id, product_id, stock_modified_at from (
        select store_id, product_id, stock_modified_at from store_products
        where stock_modified_at is not null and not (stock_version = 0 and stock_modified_at = created_on)
        except
        select store_id, product_id, updated_on from stock_logs where modification_at >= ${boundary}
      ) gone
      on conflict (store_id, product_id) do update set stamp = excluded.stamp`.execute(trx);
    const tables = await archive.detachBefore(trx, boundary);
    const balances = Number(snapshot.numAffectedRows ?? 0);
    await trx
      .insertInto('ledger_archives')
      .values({
        boundary_at: boundary,
        archived_on: now,
        archived_by: by,
        entries,
        parts,
        balances,
        tables: JSON.stringify(tables),
      })
      .execute();
    return { boundary, entries, parts, balances, tables };
  });
  // Every archive's tables, this one's and any an interrupted run left with their keys.
  const kept = await handle.db.selectFrom('ledger_archives').select('tables').execute();
  await archive.release(
    handle.db,
    kept.flatMap((row) => JSON.parse(row.tables) as string[]),
  );
  return report;
}

async function previousBoundary(trx: Transaction<Database>): Promise<number | null> {
  const row = await trx
    .selectFrom('ledger_archives')
    .select((eb) => eb.fn.max('boundary_at').as('at'))
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? null : Number(row.at);
}

/** Entries awaiting review and stock bound to an order still live in the ledger: their months stay. */
async function refuseLiving(trx: Transaction<Database>, boundary: number): Promise<void> {
  const pending = await trx
    .selectFrom('stock_logs')
    .select('id')
    .where('review_status', '<>', 0)
    .where('review_status', '=', 1)
    .where('modification_at', '<', boundary)
    .limit(1)
    .executeTakeFirst();
  if (pending)
    throw new ArchiveRefused(`entry ${pending.id}, before ${monthLabel(boundary)}, awaits review: review it first`);
  const bound = await trx
    .selectFrom('stock_balances as b')
    .select(['b.order_key', 'b.store_id'])
    .where('b.order_key', '<>', '')
    .where('b.quantity', '<>', 0)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('stock_ledger as g')
          .select('g.balance_id')
          .whereRef('g.balance_id', '=', 'b.id')
          .where('g.at', '<', boundary),
      ),
    )
    .limit(1)
    .executeTakeFirst();
  if (bound)
    throw new ArchiveRefused(
      `stock bound to customer order ${bound.order_key} was booked before ${monthLabel(boundary)}: pick, ship or release it first`,
    );
}

async function countBefore(
  trx: Transaction<Database>,
  table: 'stock_logs' | 'stock_log_parts',
  column: string,
  boundary: number,
): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} < ${boundary}`.execute(trx);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Each archive whose tables are all still in the database, checked against the snapshots on
 * either side of it: the snapshot before it plus its archived rows add up, per balance, to
 * the snapshot at its boundary — level, latest moment and latest count. An archive whose
 * tables were dropped after their export is not checked (nothing is left to check).
 */
export async function archiveViolations(handle: DbHandle): Promise<Violation[]> {
  const archives = await handle.db
    .selectFrom('ledger_archives')
    .select(['boundary_at', 'tables'])
    .orderBy('boundary_at')
    .execute();
  const violations: Violation[] = [];
  let previous: number | null = null;
  for (const archive of archives) {
    const boundary = Number(archive.boundary_at);
    const tables = JSON.parse(archive.tables) as string[];
    if (await allPresent(handle, tables))
      violations.push(...(await archiveDisagreements(handle, boundary, previous, tables)));
    previous = boundary;
  }
  return violations;
}

async function allPresent(handle: DbHandle, tables: readonly string[]): Promise<boolean> {
  for (const table of tables) {
    const { rows } = await sql<{ found: string | null }>`select to_regclass(${table})::text as found`.execute(
      handle.db,
    );
    if (!rows[0]?.found) return false;
  }
  return true;
}

async function archiveDisagreements(
  handle: DbHandle,
  boundary: number,
  previous: number | null,
  tables: readonly string[],
): Promise<Violation[]> {
  const branches = tables.map((table) =>
    table.startsWith('archived_stock_log_parts_')
      ? sql`select balance_id, delta, at, is_count from ${sql.table(table)}`
      : sql`select balance_id, delta, modification_at as at, is_count from ${sql.table(table)} where balance_id is not null`,
  );
  if (previous !== null)
    branches.push(
      sql`select balance_id, delta, at, is_count from stock_ledger_snapshot_history where boundary_at = ${previous}`,
    );
  if (branches.length === 0) return [];
  const { rows } = await sql<{
    balance_id: number;
    total: number | null;
    last_at: number | null;
    last_count_at: number | null;
    quantity: number | null;
    snapshot_last_at: number | null;
    snapshot_last_count_at: number | null;
  }>`
    with archived as (${sql.join(branches, sql` union all `)}),
    sums as (
      select balance_id, sum(delta) as total, max(at) as last_at, max(case when is_count = 1 then at end) as last_count_at
      from archived group by balance_id
    ),
    snapshot as (
      select balance_id, sum(delta) as quantity, max(at) as last_at, max(case when is_count = 1 then at end) as last_count_at
      from (select * from stock_ledger_snapshots union all select * from stock_ledger_snapshot_history) both_kept
      where boundary_at = ${boundary} group by balance_id
    )
    select coalesce(s.balance_id, n.balance_id) as balance_id, s.total, s.last_at, s.last_count_at,
      n.quantity, n.last_at as snapshot_last_at, n.last_count_at as snapshot_last_count_at
    from sums s full join snapshot n on n.balance_id = s.balance_id
    where s.total is distinct from n.quantity or s.last_at is distinct from n.last_at or s.last_count_at is distinct from n.last_count_at
    limit ${MAX_LISTED}`.execute(handle.db);
  const figure = (value: number | null) => (value === null ? 'none' : String(Number(value) / 1000));
  return rows.map((row) => ({
    check: 'stock ledger',
    detail: `archive before ${monthLabel(boundary)}: balance ${row.balance_id} snapshot ${figure(row.quantity)}, the archived rows and the snapshot before add up to ${figure(row.total)}${
      Number(row.last_at ?? -1) !== Number(row.snapshot_last_at ?? -1) ||
      Number(row.last_count_at ?? -1) !== Number(row.snapshot_last_count_at ?? -1)
        ? ' (latest moments differ)'
        : ''
    }`,
  }));
}
