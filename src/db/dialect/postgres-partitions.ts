import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import { addMonths, monthName, monthStart } from '../months.js';

/**
 * The months of the ledger on PostgreSQL (migration 0025): stock_logs and stock_log_parts are
 * partitioned by the month of the entry's moment, with `<table>_before` below the first month
 * and `<table>_later` (DEFAULT) above the last. The service keeps the coming months made ahead
 * of time (at start and every hour), so an entry's month always exists when it is written and
 * the DEFAULT partition stays empty; should it catch rows anyway (the service was down for
 * months), making their month moves them there. Several processes may run this at once: one
 * advisory lock per schema makes them take turns, and each makes only what is still missing.
 */

/** The partitioned ledger tables and the column each is partitioned by. */
export const LEDGER_TABLES = [
  { table: 'stock_logs', key: 'modification_at' },
  { table: 'stock_log_parts', key: 'at' },
] as const;

/** How many months after the current one are made ahead. */
export const MONTHS_AHEAD = 2;

export interface Partition {
  name: string;
  /** First moment of the range (epoch ms), null for MINVALUE or the DEFAULT partition. */
  from: number | null;
  /** First moment after the range, null for the DEFAULT partition. */
  to: number | null;
  isDefault: boolean;
}

/**
 * Making months and archiving take turns, until the transaction ends: an advisory lock per
 * schema, as the ledger's own locks are (deployments sharing a database never wait on each other).
 */
async function takeMaintenanceTurn(trx: Kysely<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ':ledger months'))`.execute(trx);
}

const BOUND = /^FOR VALUES FROM \((MINVALUE|'?(-?\d+)'?)\) TO \((MAXVALUE|'?(-?\d+)'?)\)$/;

/** The partitions of `table` with their ranges, in range order (DEFAULT last); empty when it is not partitioned. */
export async function partitionsOf(db: Kysely<Database>, table: string): Promise<Partition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass(${table})`.execute(db);
  const partitions = rows.map((row): Partition => {
    if (row.bound === 'DEFAULT') return { name: row.name, from: null, to: null, isDefault: true };
    const match = BOUND.exec(row.bound);
    if (!match)
      throw new Error(`partition ${row.name} of ${table} has a bound this service does not know: ${row.bound}`);
    return {
      name: row.name,
      from: match[2] === undefined ? null : Number(match[2]),
      to: match[4] === undefined ? null : Number(match[4]),
      isDefault: false,
    };
  });
  return partitions.sort((a, b) =>
    a.isDefault ? 1 : b.isDefault ? -1 : (a.from ?? -Infinity) - (b.from ?? -Infinity),
  );
}

/**
 * Makes every month of the ledger from the last one made up to MONTHS_AHEAD after `now`'s, and,
 * given `from`, back to `from`'s month while nothing is stored before the first month (the
 * generator, on an empty ledger). Returns the partitions made. A no-op on a ledger that is not
 * partitioned (a database migrated only to before 0025 cannot reach here).
 */
export async function ensureLedgerMonths(db: Kysely<Database>, now: number, from?: number): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await takeMaintenanceTurn(trx);
    const made: string[] = [];
    for (const { table, key } of LEDGER_TABLES) {
      const partitions = await partitionsOf(trx, table);
      const months = partitions.filter((p) => p.from !== null && p.to !== null);
      if (months.length === 0) continue;
      let last = months[months.length - 1]!.from!;
      const until = addMonths(monthStart(now), MONTHS_AHEAD);
      while (last < until) {
        last = addMonths(last, 1);
        made.push(
          await makeMonth(
            trx,
            table,
            key,
            last,
            partitions.find((p) => p.isDefault),
          ),
        );
      }
      if (from !== undefined) made.push(...(await extendBack(trx, table, partitions, monthStart(from))));
    }
    return made;
  });
}

/** One month's partition, with the rows the DEFAULT partition holds for it moved in before it is attached. */
async function makeMonth(
  trx: Kysely<Database>,
  table: string,
  key: string,
  month: number,
  fallback: Partition | undefined,
): Promise<string> {
  const name = `${table}_${monthName(month)}`;
  const next = addMonths(month, 1);
  await sql`create table ${sql.id(name)} (like ${sql.id(table)} including defaults)`.execute(trx);
  if (fallback) {
    // The statement triggers (hour counts) are the parent's: rows moved between partitions
    // directly are neither counted again nor uncounted.
    await sql`with moved as (delete from ${sql.id(fallback.name)} where ${sql.ref(key)} >= ${month} and ${sql.ref(key)} < ${next} returning *)
      insert into ${sql.id(name)} select * from moved`.execute(trx);
  }
  await sql`alter table ${sql.id(table)} attach partition ${sql.id(name)} for values from (${sql.lit(month)}) to (${sql.lit(next)})`.execute(
    trx,
  );
  return name;
}

/** Months before the first one, when `<table>_before` holds nothing: it is made again below them. */
async function extendBack(
  trx: Kysely<Database>,
  table: string,
  partitions: Partition[],
  from: number,
): Promise<string[]> {
  const before = partitions.find((p) => p.from === null && !p.isDefault);
  const first = partitions.find((p) => p.from !== null);
  if (!before || !first || from >= first.from!) return [];
  // After an archive the range below the first month refuses every entry: it stays so.
  const archives = await sql<{ one: number }>`select 1 as one from ledger_archives limit 1`.execute(trx);
  if (archives.rows.length > 0) return [];
  const { rows } = await sql<{ one: number }>`select 1 as one from ${sql.id(before.name)} limit 1`.execute(trx);
  if (rows.length > 0)
    throw new Error(
      `${before.name} holds entries: months before ${new Date(first.from!).toISOString().slice(0, 7)} cannot be made`,
    );
  await sql`alter table ${sql.id(table)} detach partition ${sql.id(before.name)}`.execute(trx);
  await sql`drop table ${sql.id(before.name)}`.execute(trx);
  const made: string[] = [];
  for (let month = from; month < first.from!; month = addMonths(month, 1)) {
    const name = `${table}_${monthName(month)}`;
    await sql`create table ${sql.id(name)} partition of ${sql.id(table)} for values from (${sql.lit(month)}) to (${sql.lit(addMonths(month, 1))})`.execute(
      trx,
    );
    made.push(name);
  }
  await sql`create table ${sql.id(before.name)} partition of ${sql.id(table)} for values from (minvalue) to (${sql.lit(from)})`.execute(
    trx,
  );
  return made;
}

/** Maintenance and archiving take turns per schema; an archive also holds off every write to the ledger (reads go on). */
async function lockForArchive(trx: Transaction<Database>): Promise<void> {
  await takeMaintenanceTurn(trx);
  await sql`lock table stock_logs, stock_log_parts in exclusive mode`.execute(trx);
}

/**
 * Detaches every partition wholly before `boundary` (a month's first moment) from both ledger
 * tables, renamed `archived_<name>` (the one before the first month `archived_<table>_before_<month>`);
 * then the range below `boundary` gets a partition that refuses every
 * row (`<table>_archived`, CHECK false): an entry dated there fails instead of landing in
 * months that are gone. Returns the archived tables. The caller holds lockForArchive.
 */
async function detachBefore(trx: Transaction<Database>, boundary: number): Promise<string[]> {
  const archived: string[] = [];
  for (const { table } of LEDGER_TABLES) {
    const partitions = await partitionsOf(trx, table);
    if (!partitions.some((p) => p.from === boundary)) {
      const months = partitions.filter((p) => p.from !== null && p.to !== null);
      throw new Error(
        `${table} has no month starting at ${new Date(boundary).toISOString()}: its months run from ${months.length > 0 ? new Date(months[0]!.from!).toISOString().slice(0, 7) : 'none'}`,
      );
    }
    for (const partition of partitions.filter((p) => !p.isDefault && p.to !== null && p.to <= boundary)) {
      const name =
        partition.from === null ? `archived_${table}_before_${monthName(partition.to!)}` : `archived_${partition.name}`;
      await sql`alter table ${sql.id(table)} detach partition ${sql.id(partition.name)}`.execute(trx);
      await sql`alter table ${sql.id(partition.name)} rename to ${sql.id(name)}`.execute(trx);
      archived.push(name);
    }
    const refusing = `${table}_before`;
    await sql`create table ${sql.id(refusing)} (like ${sql.id(table)} including defaults)`.execute(trx);
    await sql`alter table ${sql.id(refusing)} add constraint ${sql.id(`${table}_archived`)} check (false)`.execute(trx);
    await sql`alter table ${sql.id(table)} attach partition ${sql.id(refusing)} for values from (minvalue) to (${sql.lit(boundary)})`.execute(
      trx,
    );
  }
  return archived;
}

/** The ledger's partitions, in range order per table, with their estimated rows (the planner's, refreshed by ANALYZE). */
async function months(db: Kysely<Database>): Promise<LedgerMonth[]> {
  const listed: LedgerMonth[] = [];
  for (const { table } of LEDGER_TABLES) {
    for (const partition of await partitionsOf(db, table)) {
      const { rows } = await sql<{
        estimate: number;
      }>`select greatest(reltuples, 0)::bigint as estimate from pg_class where oid = to_regclass(${partition.name})`.execute(
        db,
      );
      listed.push({ table, ...partition, rows: Number(rows[0]?.estimate ?? 0) });
    }
  }
  return listed;
}

export interface LedgerMonth extends Partition {
  table: string;
  rows: number;
}

/**
 * Frees archived tables of the foreign keys they kept from the ledger (an archived row must
 * never stop a balance, store or product from being deleted later). Each drop in a transaction
 * of its own, after the archive committed: dropping a foreign key locks the table it names
 * (stock_balances, stores, products) exclusively, and taking that lock while the archive held
 * the ledger's deadlocked with readers holding a balance and waiting for the ledger (seen on the
 * 10M chain: a `verify --since` was the victim). Alone, it only waits for the readers in flight.
 */
async function release(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await sql<{ name: string }>`
      select conname as name from pg_constraint where conrelid = to_regclass(${table}) and contype = 'f'`.execute(db);
    for (const constraint of rows)
      await sql`alter table ${sql.id(table)} drop constraint ${sql.id(constraint.name)}`.execute(db);
  }
}

/** What a dialect that can archive old ledger months offers (Dialect.ledgerArchive). */
export const postgresLedgerArchive = { lock: lockForArchive, detachBefore, release, months };
