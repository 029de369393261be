import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 44, PRODUCT §10: counting assignments (docs/counting.md).
// - `counting_assignments`: one per store, with its scope as sent (JSON), its rules, its status
//   and its progress kept as counters (lines total and counted, variance so far in thousandths
//   and in money to 4 decimals), so the feed's trigger and the lists read them without a sum.
//   The ERP's `counting_assignment_code` is unique per store while the assignment is not closed
//   or cancelled (a partial unique index; the service names the holder first).
// - `counting_lines`: fixed when counting starts, one per balance in scope (store product ×
//   location × pool; location_id 0: no location), with the level expected at that moment and
//   the purchase price then; a count fills `counted`, `counted_at`, `app_user_name`; the
//   submission fills the entry it booked (`log_id`, `log_at`: the entry's key, migration 0025).
// - `counting_claims`: the products of the store that a `counting` assignment holds. Its
//   primary key (store_id, product_id) is the rule that a product is in at most one counting
//   assignment at a time; rows go when the assignment is submitted or cancelled.
// - `stock_logs` gains `counting_assignment_id` and `counting_lines_remaining` (interface §2.8),
//   filled on the entries an assignment books.
// - Events: `counting_assignment.changed` by triggers on counting_assignments (insert, and an
//   update that moves `updated_on`), with status and progress, as 0027 does for other tables.
// - A review of an assignment's pending entry (stock-logs review) updates the line's status
//   and closes a submitted assignment whose last pending entry it decided: a trigger on
//   stock_logs' review_status, so no review path can forget it.

const STATUS_OPEN = "('open', 'counting', 'submitted')";

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await withId(dialect, db.schema.createTable('counting_assignments'))
    .addColumn('store_id', 'bigint', (col) => col.notNull().references('stores.id'))
    .addColumn('store_number', 'text', (col) => col.notNull())
    .addColumn('counting_assignment_code', 'text')
    .addColumn('description', 'text')
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('blind', 'integer', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('zero_reason_code', 'integer')
    .addColumn('max_variance_quantity', 'bigint')
    .addColumn('max_variance_value', 'bigint')
    .addColumn('max_variance_percent', 'bigint')
    .addColumn('due_at', 'bigint')
    .addColumn('allow_extra_lines', 'integer', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('lines_total', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('lines_counted', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('lines_pending', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('variance_quantity', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('variance_value', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('started_at', 'bigint')
    .addColumn('submitted_at', 'bigint')
    .addColumn('closed_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('modified_by', 'text', (col) => col.notNull())
    .execute();
  await sql`create index counting_assignments_store on counting_assignments (store_id, id)`.execute(db);
  await sql`create unique index counting_assignments_open_code on counting_assignments (store_id, counting_assignment_code)
    where counting_assignment_code is not null and status in ${sql.raw(STATUS_OPEN)}`.execute(db);

  await withId(dialect, db.schema.createTable('counting_lines'))
    .addColumn('assignment_id', 'bigint', (col) => col.notNull().references('counting_assignments.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull())
    .addColumn('location_id', 'bigint', (col) => col.notNull())
    .addColumn('pool', 'integer', (col) => col.notNull())
    .addColumn('is_extra', 'integer', (col) => col.notNull())
    .addColumn('expected', 'bigint', (col) => col.notNull())
    .addColumn('purchase_price', 'bigint')
    .addColumn('counted', 'bigint')
    .addColumn('counted_at', 'bigint')
    .addColumn('app_user_name', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('log_id', 'bigint')
    .addColumn('log_at', 'bigint')
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('updated_on', 'bigint', (col) => col.notNull())
    .execute();
  await sql`create unique index counting_lines_balance on counting_lines (assignment_id, product_id, location_id, pool)`.execute(
    db,
  );
  await sql`create index counting_lines_page on counting_lines (assignment_id, id)`.execute(db);
  await sql`create index counting_lines_log on counting_lines (log_id) where log_id is not null`.execute(db);

  await db.schema
    .createTable('counting_claims')
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull())
    .addColumn('assignment_id', 'bigint', (col) => col.notNull().references('counting_assignments.id'))
    .addPrimaryKeyConstraint('counting_claims_pkey', ['store_id', 'product_id'])
    .execute();
  await sql`create index counting_claims_assignment on counting_claims (assignment_id)`.execute(db);

  await sql`alter table stock_logs add column counting_assignment_id bigint`.execute(db);
  await sql`alter table stock_logs add column counting_lines_remaining integer`.execute(db);
  await sql`create index stock_logs_counting_assignment on stock_logs (counting_assignment_id, review_status)
    where counting_assignment_id is not null`.execute(db);

  if (dialect === 'postgres') await upPostgres(db);
  else await upSqlite(db);
}

/** The event's data over the row `r` (PostgreSQL): quantities in units, money in currency. */
const PG_DATA = `json_build_object(
  'counting_assignment_id', r.id,
  'counting_assignment_code', r.counting_assignment_code,
  'status', r.status,
  'blind', r.blind = 1,
  'progress', json_build_object(
    'lines_total', r.lines_total,
    'lines_counted', r.lines_counted,
    'lines_remaining', r.lines_total - r.lines_counted,
    'lines_pending', r.lines_pending,
    'variance_quantity', round(r.variance_quantity::numeric / 1000, 3),
    'variance_value', round(r.variance_value::numeric / 10000, 4)))::text`;

async function upPostgres(db: Kysely<any>): Promise<void> {
  await sql`
    create function counting_assignments_event() returns trigger language plpgsql as $$
    declare r counting_assignments;
    begin
      r := new;
      insert into events (type, store_number, occurred_at, data)
      values ('counting_assignment.changed', r.store_number,
        (extract(epoch from clock_timestamp()) * 1000)::bigint, ${sql.raw(PG_DATA)});
      return null;
    end
    $$`.execute(db);
  await sql`create trigger counting_assignments_event_insert after insert on counting_assignments
    for each row execute function counting_assignments_event()`.execute(db);
  await sql`create trigger counting_assignments_event_update after update of updated_on on counting_assignments
    for each row when (old.updated_on is distinct from new.updated_on) execute function counting_assignments_event()`.execute(
    db,
  );
  await sql`
    create function stock_logs_counting_review() returns trigger language plpgsql as $$
    declare now_ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
    begin
      update counting_lines set
        status = case new.review_status when 2 then 'approved' when 3 then 'rejected' else status end,
        updated_on = now_ms
      where log_id = new.id and log_at = new.modification_at;
      update counting_assignments a set
        lines_pending = (select count(*) from stock_logs s
          where s.counting_assignment_id = a.id and s.review_status = 1),
        status = case when a.status = 'submitted' and not exists (select 1 from stock_logs s
          where s.counting_assignment_id = a.id and s.review_status = 1) then 'closed' else a.status end,
        closed_at = case when a.status = 'submitted' and not exists (select 1 from stock_logs s
          where s.counting_assignment_id = a.id and s.review_status = 1) then now_ms else a.closed_at end,
        updated_on = greatest(a.updated_on + 1, now_ms),
        modified_by = new.modified_by
      where a.id = new.counting_assignment_id;
      return null;
    end
    $$`.execute(db);
  await sql`create trigger stock_logs_counting_review after update of review_status on stock_logs
    for each row when (new.counting_assignment_id is not null and old.review_status = 1 and new.review_status <> 1)
    execute function stock_logs_counting_review()`.execute(db);
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  const nowMs = `cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
  const data = (row: string) => `json_object(
    'counting_assignment_id', ${row}.id,
    'counting_assignment_code', ${row}.counting_assignment_code,
    'status', ${row}.status,
    'blind', json(case when ${row}.blind = 1 then 'true' else 'false' end),
    'progress', json_object(
      'lines_total', ${row}.lines_total,
      'lines_counted', ${row}.lines_counted,
      'lines_remaining', ${row}.lines_total - ${row}.lines_counted,
      'lines_pending', ${row}.lines_pending,
      'variance_quantity', ${row}.variance_quantity / 1000.0,
      'variance_value', ${row}.variance_value / 10000.0))`;
  for (const operation of ['insert', 'update'] as const) {
    const event = operation === 'update' ? 'update of updated_on' : 'insert';
    const when = operation === 'update' ? 'when old.updated_on is not new.updated_on' : '';
    await sql`
      create trigger ${sql.id(`counting_assignments_event_${operation}`)}
      after ${sql.raw(event)} on counting_assignments
      for each row ${sql.raw(when)}
      begin
        insert into events (type, store_number, occurred_at, data)
        values ('counting_assignment.changed', new.store_number, ${sql.raw(nowMs)}, ${sql.raw(data('new'))});
      end`.execute(db);
  }
  const pending = `(select count(*) from stock_logs s where s.counting_assignment_id = new.counting_assignment_id and s.review_status = 1)`;
  await sql`
    create trigger stock_logs_counting_review after update of review_status on stock_logs
    for each row when new.counting_assignment_id is not null and old.review_status = 1 and new.review_status <> 1
    begin
      update counting_lines set
        status = case new.review_status when 2 then 'approved' when 3 then 'rejected' else status end,
        updated_on = ${sql.raw(nowMs)}
      where log_id = new.id and log_at = new.modification_at;
      update counting_assignments set
        lines_pending = ${sql.raw(pending)},
        status = case when status = 'submitted' and ${sql.raw(pending)} = 0 then 'closed' else status end,
        closed_at = case when status = 'submitted' and ${sql.raw(pending)} = 0 then ${sql.raw(nowMs)} else closed_at end,
        updated_on = max(updated_on + 1, ${sql.raw(nowMs)}),
        modified_by = new.modified_by
      where id = new.counting_assignment_id;
    end`.execute(db);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  const on = (table: string) => sql.raw(dialect === 'postgres' ? ` on ${table}` : '');
  await sql`drop trigger if exists stock_logs_counting_review${on('stock_logs')}`.execute(db);
  await sql`drop trigger if exists counting_assignments_event_insert${on('counting_assignments')}`.execute(db);
  await sql`drop trigger if exists counting_assignments_event_update${on('counting_assignments')}`.execute(db);
  if (dialect === 'postgres') {
    await sql`drop function if exists stock_logs_counting_review()`.execute(db);
    await sql`drop function if exists counting_assignments_event()`.execute(db);
  }
  await sql`drop index if exists stock_logs_counting_assignment`.execute(db);
  await sql`alter table stock_logs drop column counting_lines_remaining`.execute(db);
  await sql`alter table stock_logs drop column counting_assignment_id`.execute(db);
  await db.schema.dropTable('counting_claims').execute();
  await db.schema.dropTable('counting_lines').execute();
  await db.schema.dropTable('counting_assignments').execute();
}
