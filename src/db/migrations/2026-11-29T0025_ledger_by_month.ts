import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 28: on PostgreSQL the ledger — stock_logs (one row per entry, migration 0022) and
// stock_log_parts — is partitioned by month of the entry's moment (`modification_at`, the
// parts' `at`), declaratively. Why the moment and not the server's clock: a balance's history
// is read by moment (a late entry reads its balance's rows from its moment on, the first count
// after it closes the stretch), so those reads prune to the months from that moment on; and a
// month can later be archived behind a balance snapshot at its end, which only has a meaning
// along the moment (docs/stock.md "Months and archiving").
// Layout per table: `<table>_before` for every moment before the first month, one partition
// per month (`<table>_yYYYYmMM`) from the month of the oldest entry to two months after the
// newest entry or now, and `<table>_later` (DEFAULT) as a safety net for moments after the
// last month. The service creates the coming months ahead (db/dialect/postgres-partitions.ts),
// moving any rows the DEFAULT partition caught into them.
// What partitioning changes:
// - the primary key of stock_logs is (id, modification_at): PostgreSQL requires the partition
//   key in every unique constraint. Ids still come from one sequence (stock_logs_id_seq, the
//   identity's own sequence taken over: identity columns on partitioned tables need PG 17);
// - no foreign key can name stock_logs(id) any more, so receipt_lines.log_id and
//   stock_log_parts.log_id lose theirs; `store-ops verify` checks both relations instead;
// - every index is partitioned (one per month), the view stock_ledger and the hour-count
//   triggers are made again on the new tables, unchanged.
// The rows are copied once, in one transaction (Kysely runs each migration in one on
// PostgreSQL): about a minute per few million entries, the tables locked meanwhile.
// SQLite stays one file: nothing changes there.

const LOG_INDEXES = [
  sql`create index stock_logs_store on stock_logs (store_id, id)`,
  sql`create index stock_logs_product on stock_logs (product_id, id)`,
  sql`create index stock_logs_updated_on on stock_logs (updated_on)`,
  sql`create index stock_logs_reference_id on stock_logs (reference_id) where reference_id is not null`,
  sql`create index stock_logs_reference on stock_logs (reference) where reference is not null`,
  sql`create index stock_logs_customer_order on stock_logs (customer_order_number) where customer_order_number is not null`,
  sql`create index stock_logs_review on stock_logs (review_status, id) where review_status <> 0`,
  sql`create index stock_logs_balance_time on stock_logs (balance_id, modification_at, id) where balance_id is not null`,
  sql`create index stock_logs_balance_counts on stock_logs (balance_id, modification_at, id) where is_count = 1 and balance_id is not null`,
];

const LOG_INDEX_NAMES = [
  'stock_logs_store',
  'stock_logs_product',
  'stock_logs_updated_on',
  'stock_logs_reference_id',
  'stock_logs_reference',
  'stock_logs_customer_order',
  'stock_logs_review',
  'stock_logs_balance_time',
  'stock_logs_balance_counts',
];

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await atomically(db, partition);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') await atomically(db, flatten);
}

/** The Migrator runs each migration in a transaction already; a direct call (tests) gets one here, as LOCK TABLE needs. */
async function atomically(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<void>): Promise<void> {
  if (db.isTransaction) await work(db);
  else await db.transaction().execute(work);
}

async function partition(db: Kysely<any>): Promise<void> {
  await sql`lock table stock_logs, stock_log_parts in access exclusive mode`.execute(db);
  await dropDependents(db);
  const last = await takeOverSequence(db);

  // The entries.
  await sql`alter table stock_logs rename to stock_logs_flat`.execute(db);
  await sql`alter index stock_logs_pkey rename to stock_logs_flat_pkey`.execute(db);
  for (const index of LOG_INDEX_NAMES) await sql`drop index ${sql.id(index)}`.execute(db);
  await sql`create table stock_logs (like stock_logs_flat including defaults) partition by range (modification_at)`.execute(
    db,
  );
  await sql`create sequence stock_logs_id_seq owned by stock_logs.id`.execute(db);
  await sql`select setval('stock_logs_id_seq', ${last.value}, ${last.called})`.execute(db);
  await sql`alter table stock_logs alter column id set default nextval('stock_logs_id_seq')`.execute(db);
  await sql`alter table stock_logs add primary key (id, modification_at)`.execute(db);

  // The parts of split entries.
  await sql`alter table stock_log_parts rename to stock_log_parts_flat`.execute(db);
  await sql`alter index stock_log_parts_pkey rename to stock_log_parts_flat_pkey`.execute(db);
  await sql`drop index stock_log_parts_log`.execute(db);
  await sql`create table stock_log_parts (like stock_log_parts_flat) partition by range (at)`.execute(db);
  await sql`alter table stock_log_parts add primary key (balance_id, at, seq)`.execute(db);

  const months = await monthsToCover(db);
  for (const table of ['stock_logs', 'stock_log_parts']) await createPartitions(db, table, months);

  const logColumns = await columnsOf(db, 'stock_logs_flat');
  await sql`insert into stock_logs (${sql.join(logColumns.map((c) => sql.id(c)))}) select ${sql.join(logColumns.map((c) => sql.id(c)))} from stock_logs_flat`.execute(
    db,
  );
  await sql`insert into stock_log_parts (log_id, seq, balance_id, at, delta, is_count, counted, expected)
    select log_id, seq, balance_id, at, delta, is_count, counted, expected from stock_log_parts_flat`.execute(db);
  await sql`drop table stock_logs_flat`.execute(db);
  await sql`drop table stock_log_parts_flat`.execute(db);

  // Indexes after the rows: each built in one pass per month.
  await indexAndRelate(db);
  await createDependents(db);
  await sql`analyze stock_logs`.execute(db);
  await sql`analyze stock_log_parts`.execute(db);
}

async function flatten(db: Kysely<any>): Promise<void> {
  await sql`lock table stock_logs, stock_log_parts in access exclusive mode`.execute(db);
  await dropDependents(db);
  const { rows } = await sql<{
    v: string;
    called: boolean;
  }>`select last_value as v, is_called as called from stock_logs_id_seq`.execute(db);
  await sql`alter table stock_logs rename to stock_logs_months`.execute(db);
  await sql`alter index stock_logs_pkey rename to stock_logs_months_pkey`.execute(db);
  for (const index of LOG_INDEX_NAMES) await sql`drop index ${sql.id(index)}`.execute(db);
  await sql`alter table stock_logs_months alter column id drop default`.execute(db);
  await sql`drop sequence stock_logs_id_seq`.execute(db);
  await sql`create table stock_logs (like stock_logs_months)`.execute(db);
  await sql`alter table stock_logs alter column id add generated by default as identity`.execute(db);
  await sql`select setval(pg_get_serial_sequence('stock_logs', 'id'), ${Number(rows[0]?.v ?? 1)}, ${rows[0]?.called ?? false})`.execute(
    db,
  );
  const logColumns = await columnsOf(db, 'stock_logs_months');
  await sql`insert into stock_logs (${sql.join(logColumns.map((c) => sql.id(c)))}) select ${sql.join(logColumns.map((c) => sql.id(c)))} from stock_logs_months`.execute(
    db,
  );
  await sql`drop table stock_logs_months`.execute(db);
  await sql`alter table stock_logs add primary key (id)`.execute(db);

  await sql`alter table stock_log_parts rename to stock_log_parts_months`.execute(db);
  await sql`alter index stock_log_parts_pkey rename to stock_log_parts_months_pkey`.execute(db);
  await sql`drop index stock_log_parts_log`.execute(db);
  await sql`create table stock_log_parts (like stock_log_parts_months)`.execute(db);
  await sql`insert into stock_log_parts select * from stock_log_parts_months`.execute(db);
  await sql`drop table stock_log_parts_months`.execute(db);
  await sql`alter table stock_log_parts add primary key (balance_id, at, seq)`.execute(db);

  await indexAndRelate(db);
  await sql`alter table stock_log_parts add constraint stock_log_parts_log_id_fkey foreign key (log_id) references stock_logs (id)`.execute(
    db,
  );
  await sql`alter table receipt_lines add constraint receipt_lines_log_id_fkey foreign key (log_id) references stock_logs (id)`.execute(
    db,
  );
  await createDependents(db);
}

/** Both tables' indexes and foreign keys, made after their rows are in (either way). */
async function indexAndRelate(db: Kysely<any>): Promise<void> {
  for (const index of LOG_INDEXES) await index.execute(db);
  await sql`create index stock_log_parts_log on stock_log_parts (log_id)`.execute(db);
  await sql`alter table stock_logs add constraint stock_logs_store_id_fkey foreign key (store_id) references stores (id)`.execute(
    db,
  );
  await sql`alter table stock_logs add constraint stock_logs_product_id_fkey foreign key (product_id) references products (id)`.execute(
    db,
  );
  await sql`alter table stock_logs add constraint stock_logs_balance_id_fkey foreign key (balance_id) references stock_balances (id)`.execute(
    db,
  );
  await sql`alter table stock_log_parts add constraint stock_log_parts_balance_id_fkey foreign key (balance_id) references stock_balances (id)`.execute(
    db,
  );
}

/** What names the tables: the ledger view, the hour-count triggers, the foreign keys to stock_logs(id). */
async function dropDependents(db: Kysely<any>): Promise<void> {
  await sql`drop view stock_ledger`.execute(db);
  for (const trigger of ['stock_logs_hours_insert', 'stock_logs_hours_update', 'stock_logs_hours_delete']) {
    await sql`drop trigger ${sql.id(trigger)} on stock_logs`.execute(db);
  }
  await sql`alter table receipt_lines drop constraint if exists receipt_lines_log_id_fkey`.execute(db);
  await sql`alter table stock_log_parts drop constraint if exists stock_log_parts_log_id_fkey`.execute(db);
}

/** The view and triggers as migrations 0020 and 0022 made them (the trigger function is kept). */
async function createDependents(db: Kysely<any>): Promise<void> {
  await sql`create view stock_ledger as
  select id, log_id, balance_id, at, delta, is_count, counted, expected from (
    select id, id as log_id, balance_id, modification_at as at, delta, is_count, counted_quantity as counted, expected from stock_logs
    union all
    select seq as id, log_id, balance_id, at, delta, is_count, counted, expected from stock_log_parts
  ) postings
  where balance_id is not null`.execute(db);
  await sql`create trigger stock_logs_hours_insert after insert on stock_logs referencing new table as new_rows
    for each statement execute function count_stock_log_hours()`.execute(db);
  await sql`create trigger stock_logs_hours_update after update on stock_logs referencing old table as old_rows new table as new_rows
    for each statement execute function count_stock_log_hours()`.execute(db);
  await sql`create trigger stock_logs_hours_delete after delete on stock_logs referencing old table as old_rows
    for each statement execute function count_stock_log_hours()`.execute(db);
}

/** The identity's position, then the identity dropped (with its sequence): the new table's own sequence goes on from it. */
async function takeOverSequence(db: Kysely<any>): Promise<{ value: number; called: boolean }> {
  const { rows } = await sql<{ v: string; called: boolean }>`
    select last_value as v, is_called as called from stock_logs_id_seq`.execute(db);
  await sql`alter table stock_logs alter column id drop identity`.execute(db);
  return { value: Number(rows[0]?.v ?? 1), called: rows[0]?.called ?? false };
}

async function columnsOf(db: Kysely<any>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select attname as name from pg_attribute
    where attrelid = ${table}::regclass and attnum > 0 and not attisdropped order by attnum`.execute(db);
  return rows.map((r) => r.name);
}

/** First day (UTC, epoch ms) of each month from the oldest entry's to two months after the newest or now. */
async function monthsToCover(db: Kysely<any>): Promise<number[]> {
  const { rows } = await sql<{ first: string | null; last: string | null }>`
    select least((select min(modification_at) from stock_logs_flat), (select min(at) from stock_log_parts_flat)) as first,
      greatest((select max(modification_at) from stock_logs_flat), (select max(at) from stock_log_parts_flat)) as last`.execute(
    db,
  );
  const now = Date.now();
  const first = monthStart(
    rows[0]?.first === null || rows[0]?.first === undefined ? now : Math.min(Number(rows[0].first), now),
  );
  const last = monthStart(
    Math.max(rows[0]?.last === null || rows[0]?.last === undefined ? now : Number(rows[0].last), now),
  );
  const months: number[] = [];
  for (let m = first; m <= addMonths(last, 2); m = addMonths(m, 1)) months.push(m);
  return months;
}

async function createPartitions(db: Kysely<any>, table: string, months: number[]): Promise<void> {
  await sql`create table ${sql.id(`${table}_before`)} partition of ${sql.id(table)} for values from (minvalue) to (${sql.lit(months[0]!)})`.execute(
    db,
  );
  for (const month of months) {
    const name = `${table}_${monthName(month)}`;
    await sql`create table ${sql.id(name)} partition of ${sql.id(table)} for values from (${sql.lit(month)}) to (${sql.lit(addMonths(month, 1))})`.execute(
      db,
    );
  }
  await sql`create table ${sql.id(`${table}_later`)} partition of ${sql.id(table)} default`.execute(db);
}

function monthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

function addMonths(month: number, n: number): number {
  const d = new Date(month);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
}

function monthName(month: number): string {
  const d = new Date(month);
  return `y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}
