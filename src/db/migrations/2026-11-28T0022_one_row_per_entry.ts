import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// The ledger folds into the log: one append-only row per entry. An applied entry was a
// stock_logs row plus a stock_ledger row per balance it moved — two inserts, and a table of
// its own with three indexes (balance and moment, counts, log) that cost ~165 bytes an entry at
// 10M entries. Nearly every entry moves exactly one balance, so its posting (balance, delta,
// expected level) now lives in its own stock_logs row; only an entry split over pools keeps one
// row per pool, in stock_log_parts. A view named stock_ledger unions the two, so the readers'
// SQL (history stretches, counts, verify's sums) stays as it was.
//
// The order of a balance's entries at one moment is now the log id they were posted under (the
// view's `id`: the stock_logs id, or a part's `seq`); it was the ledger id. The two disagree only
// where a later entry was posted first at the same moment (a concurrent count, an approved
// pending entry): there each row takes as `seq` the log id whose place among the group's log ids
// is the place its ledger id had, so the old order holds, and goes to stock_log_parts, because a
// stock_logs row can only stand at its own id. A posting that does not say what its entry's row
// says (moment, count or not, counted level) goes there too, so the view gives back exactly the
// rows the ledger held.
//
// A ledger row without its entry or its balance stops the migration with their count: such a
// database fails `store-ops verify` already and needs a look before its ledger moves.
//
// Set-based throughout: the ledger is ranked once into a work table, then one update fills the
// entries' rows and one insert the parts. On PostgreSQL that update writes a new version of every
// applied entry's row, so stock_logs and its indexes about double in size until VACUUM FULL (or
// pg_repack) gives the space back; a plain VACUUM leaves it for new entries (1M entries: up in
// about a minute, stock_logs 268 → 591 MB with the new indexes).

const POSTING_COLUMNS = ['log_id', 'balance_id', 'at', 'delta', 'is_count', 'counted', 'expected'];

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await refuseOrphans(db);
  await addPostingColumns(db);
  await createParts(db);
  await rankLedger(db, dialect);
  await moveLedger(db, dialect);
  await db.schema.dropTable('stock_ledger_moved').execute();
  await db.schema.dropTable('stock_ledger').execute();
  await createLedgerView(db);
  await indexPostings(db);
  if (dialect === 'postgres') {
    // Added after the rows are filled: one check of them all, not one per updated row. SQLite
    // has none: it cannot DROP a column that is in a foreign key, so `down` could not remove
    // balance_id again; verify checks that relation there instead.
    await sql`alter table stock_logs add constraint stock_logs_balance_id_fkey foreign key (balance_id) references stock_balances (id)`.execute(
      db,
    );
    // The new column has no statistics until autovacuum comes by; the partial indexes' plans need them.
    await sql`analyze stock_logs`.execute(db);
    await sql`analyze stock_log_parts`.execute(db);
  }
}

async function refuseOrphans(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ no_entry: number | string; no_balance: number | string }>`
    select
      (select count(*) from stock_ledger g where not exists (select 1 from stock_logs l where l.id = g.log_id)) as no_entry,
      (select count(*) from stock_ledger g where not exists (select 1 from stock_balances b where b.id = g.balance_id)) as no_balance`.execute(
    db,
  );
  const noEntry = Number(rows[0]?.no_entry ?? 0);
  const noBalance = Number(rows[0]?.no_balance ?? 0);
  if (noEntry + noBalance > 0) {
    throw new Error(
      `ledger rows without their stock log entry: ${noEntry}, without their balance: ${noBalance}: run store-ops verify and repair before migrating`,
    );
  }
}

/**
 * The posting of a one-balance entry, on its stock_logs row (null while pending or rejected,
 * and for an entry split over pools). Nullable columns without a default: on PostgreSQL
 * adding them rewrites nothing. (One statement each: SQLite adds one column at a time.)
 */
async function addPostingColumns(db: Kysely<any>): Promise<void> {
  for (const column of ['balance_id', 'delta', 'expected'])
    await db.schema.alterTable('stock_logs').addColumn(column, 'bigint').execute();
}

/**
 * The parts of an entry split over pools, one per balance, and the migrated postings that need
 * a place of their own. Keyed the way a balance's history is read: by balance, moment and seq.
 */
async function createParts(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stock_log_parts')
    .addColumn('log_id', 'bigint', (col) => col.notNull().references('stock_logs.id'))
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('balance_id', 'bigint', (col) => col.notNull().references('stock_balances.id'))
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('is_count', 'integer', (col) => col.notNull())
    .addColumn('counted', 'bigint')
    .addColumn('expected', 'bigint')
    .addPrimaryKeyConstraint('stock_log_parts_pkey', ['balance_id', 'at', 'seq'])
    .execute();
  // The entry's parts, for the log listing and a review.
  await db.schema.createIndex('stock_log_parts_log').on('stock_log_parts').column('log_id').execute();
}

/**
 * Every ledger row once, in a work table (unlogged on PostgreSQL: nothing of it outlives the
 * migration), with its place among its balance's rows of the same moment by ledger id
 * (`by_id`) and by log id (`by_log`), its `seq` and whether it `fits` its entry's row: the
 * entry's only ledger row, at its moment, of its kind and counted level. A row with seq = its
 * log id that fits goes inline; every other row becomes a part.
 */
async function rankLedger(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await sql`
    create ${sql.raw(dialect === 'postgres' ? 'unlogged' : 'temp')} table stock_ledger_moved as
    select g.log_id, g.balance_id, g.at, g.delta, g.is_count, g.counted, g.expected,
      row_number() over (partition by g.balance_id, g.at order by g.id) as by_id,
      row_number() over (partition by g.balance_id, g.at order by g.log_id, g.id) as by_log,
      g.log_id as seq,
      case when count(*) over (partition by g.log_id) = 1
        and g.at = l.modification_at
        and g.is_count = l.is_count
        and (g.counted = l.counted_quantity or (g.counted is null and l.counted_quantity is null))
      then 1 else 0 end as fits
    from stock_ledger g join stock_logs l on l.id = g.log_id`.execute(db);
  // Its statistics, so the planner sees how few rows the next statement reads again and joins
  // the update of stock_logs by hash rather than row by row.
  if (dialect === 'postgres') await sql`analyze stock_ledger_moved`.execute(db);
  // Where the two orders disagree, seq is the log id that stands at the row's old place (a
  // permutation of the group's log ids: unique within the group, in the old order). Only
  // the groups with such a row, rare, are read again.
  await sql`
    update stock_ledger_moved as m set seq = r.log_id
    from (
      select balance_id, at, by_log, log_id from stock_ledger_moved
      where (balance_id, at) in (select balance_id, at from stock_ledger_moved where by_id <> by_log)
    ) r
    where m.by_id <> m.by_log and r.balance_id = m.balance_id and r.at = m.at and r.by_log = m.by_id`.execute(db);
}

/** Each posting to its place: into its entry's row (one set-based update), or a parts row. */
async function moveLedger(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await withoutHourCounts(db, dialect, () =>
    sql`
      update stock_logs set balance_id = m.balance_id, delta = m.delta, expected = m.expected
      from stock_ledger_moved m
      where m.log_id = stock_logs.id and m.fits = 1 and m.seq = m.log_id`.execute(db),
  );
  await sql`
    insert into stock_log_parts (log_id, seq, balance_id, at, delta, is_count, counted, expected)
    select log_id, seq, balance_id, at, delta, is_count, counted, expected from stock_ledger_moved
    where not (fits = 1 and seq = log_id)
    order by balance_id, at, seq`.execute(db);
}

/**
 * Runs `work`, an update of stock_logs that changes no updated_on, without 0020's hour counts
 * on PostgreSQL. Their update trigger runs once per statement and looks for rows whose
 * updated_on changed by joining the statement's old and new rows, which is quadratic in the
 * rows updated (measured: 20,000 rows 112 s, 40,000 rows 451 s): over every entry it would run
 * for days, and here it has nothing to count. (SQLite's trigger fires only on an update of
 * updated_on.) Disabling a trigger is part of the migration's transaction.
 */
async function withoutHourCounts(
  db: Kysely<any>,
  dialect: MigrationDialect,
  work: () => Promise<unknown>,
): Promise<void> {
  if (dialect !== 'postgres') {
    await work();
    return;
  }
  await sql`alter table stock_logs disable trigger stock_logs_hours_update`.execute(db);
  try {
    await work();
  } finally {
    await sql`alter table stock_logs enable trigger stock_logs_hours_update`.execute(db);
  }
}

/**
 * The ledger as its readers know it: one row per posting, a balance's history in (at, id)
 * order. Read only; the engine writes stock_logs and stock_log_parts. The filter stands outside
 * the union, not in its first arm: PostgreSQL folds a union's arms into one append only when
 * they have no WHERE of their own, and only then does a query's order reach their indexes —
 * with the filter in the arm, the first count after a moment read and sorted every later count
 * of the balance instead of stopping at the first (EXPLAIN, PostgreSQL 15). Same rows either way.
 */
async function createLedgerView(db: Kysely<any>): Promise<void> {
  await sql`create view stock_ledger as
  select id, log_id, balance_id, at, delta, is_count, counted, expected from (
    select id, id as log_id, balance_id, modification_at as at, delta, is_count, counted_quantity as counted, expected from stock_logs
    union all
    select seq as id, log_id, balance_id, at, delta, is_count, counted, expected from stock_log_parts
  ) postings
  where balance_id is not null`.execute(db);
}

/** After the data is in: built in one pass each rather than grown row by row. */
async function indexPostings(db: Kysely<any>): Promise<void> {
  // A balance's history from a moment on, in order — the stretch a late entry lands in:
  // `where balance_id = ? and at >= ? order by at, id` through the view — and verify's sum and
  // latest moment of each balance it checks (`verify --since`).
  await db.schema
    .createIndex('stock_logs_balance_time')
    .on('stock_logs')
    .columns(['balance_id', 'modification_at', 'id'])
    .where(sql.ref('balance_id'), 'is not', null)
    .execute();
  // The first count after a moment, which closes a late entry's stretch (`where balance_id = ?
  // and is_count = 1 and at > ? order by at, id limit 1`: one probe however long the history),
  // and verify's latest count of a balance.
  await db.schema
    .createIndex('stock_logs_balance_counts')
    .on('stock_logs')
    .columns(['balance_id', 'modification_at', 'id'])
    .where(sql<boolean>`is_count = 1 and balance_id is not null`)
    .execute();
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  // The ledger table as 0021 left it, filled from the view: fresh ids in the view's (id,
  // balance) order keep the order of each balance's entries at one moment.
  await withId(dialect, db.schema.createTable('stock_ledger_next'))
    .addColumn('log_id', 'bigint', (col) => col.notNull().references('stock_logs.id'))
    .addColumn('balance_id', 'bigint', (col) => col.notNull().references('stock_balances.id'))
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('is_count', 'integer', (col) => col.notNull())
    .addColumn('counted', 'bigint')
    .addColumn('expected', 'bigint')
    .execute();
  const columns = sql.join(POSTING_COLUMNS.map((c) => sql.ref(c)));
  await sql`insert into stock_ledger_next (${columns}) select ${columns} from stock_ledger order by id, balance_id`.execute(
    db,
  );
  await sql`drop view stock_ledger`.execute(db);
  await db.schema.dropTable('stock_log_parts').execute();
  await db.schema.alterTable('stock_ledger_next').renameTo('stock_ledger').execute();
  if (dialect === 'postgres') {
    await sql`alter table stock_ledger rename constraint stock_ledger_next_pkey to stock_ledger_pkey`.execute(db);
    await sql`alter table stock_ledger rename constraint stock_ledger_next_log_id_fkey to stock_ledger_log_id_fkey`.execute(
      db,
    );
    await sql`alter table stock_ledger rename constraint stock_ledger_next_balance_id_fkey to stock_ledger_balance_id_fkey`.execute(
      db,
    );
    await sql`alter sequence stock_ledger_next_id_seq rename to stock_ledger_id_seq`.execute(db);
    await sql`select setval('stock_ledger_id_seq', greatest((select max(id) from stock_ledger), 1))`.execute(db);
  }
  await db.schema
    .createIndex('stock_ledger_balance_time')
    .on('stock_ledger')
    .columns(['balance_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('stock_ledger_balance_counts')
    .on('stock_ledger')
    .columns(['balance_id', 'at', 'id'])
    .where(sql.ref('is_count'), '=', 1)
    .execute();
  await db.schema.createIndex('stock_ledger_log').on('stock_ledger').column('log_id').execute();
  // SQLite cannot drop an indexed column: the indexes go first. (On PostgreSQL dropping
  // balance_id drops its foreign key with it.)
  await db.schema.dropIndex('stock_logs_balance_counts').execute();
  await db.schema.dropIndex('stock_logs_balance_time').execute();
  for (const column of ['expected', 'delta', 'balance_id'])
    await db.schema.alterTable('stock_logs').dropColumn(column).execute();
}
