import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 28: the ERP's log pull (`GET /products/stock/storeproductlogs?last_modified_date=…`)
// counted its window for every page — 0.93 s over 7M entries — and its first page walked the
// id index through every entry older than the window. `stock_log_hours` holds, per hour of
// `updated_on`, how many entries it has and the smallest id among them, kept by the database
// itself (triggers, so no write path — nor an older build during an upgrade — can leave it
// behind), in the same transaction as the entries:
// - total_count of a window = the whole hours inside it, summed from this table, plus the
//   entries of the hours at its edges, counted from the updated_on index;
// - the smallest id of the window's hours is a lower bound of its ids, where its first page starts.
// PostgreSQL: one statement trigger per insert, update or delete appends delta rows (no row
// every writer updates, so concurrent writers never wait on each other); the service merges
// each hour's rows from time to time (ledger/log-hours.ts). SQLite (one writer at a time):
// one row per hour, updated in place.
// Every change of an entry's updated_on (a review outcome) also bumps the `stock_log_moves`
// resource version: the pull's remembered page positions hold only while no entry moved.

const HOUR = 3_600_000;

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.insertInto('resource_versions').values({ resource: 'stock_log_moves', version: 0 }).execute();
  if (dialect === 'postgres') {
    await db.schema
      .createTable('stock_log_hours')
      .addColumn('hour', 'bigint', (col) => col.notNull())
      .addColumn('entries', 'bigint', (col) => col.notNull())
      .addColumn('min_id', 'bigint', (col) => col.notNull())
      .execute();
    await db.schema.createIndex('stock_log_hours_hour').on('stock_log_hours').column('hour').execute();
    await sql`
      create function count_stock_log_hours() returns trigger language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          insert into stock_log_hours (hour, entries, min_id)
            select updated_on / ${sql.lit(HOUR)}, count(*), min(id) from new_rows group by 1;
        elsif TG_OP = 'DELETE' then
          insert into stock_log_hours (hour, entries, min_id)
            select updated_on / ${sql.lit(HOUR)}, -count(*), min(id) from old_rows group by 1;
          update resource_versions set version = version + 1 where resource = 'stock_log_moves';
        elsif exists (select 1 from old_rows o join new_rows n on n.id = o.id where n.updated_on <> o.updated_on) then
          insert into stock_log_hours (hour, entries, min_id)
            select hour, sum(entries), min(id) from (
              select o.updated_on / ${sql.lit(HOUR)} as hour, -1 as entries, o.id from old_rows o join new_rows n on n.id = o.id
                where n.updated_on / ${sql.lit(HOUR)} <> o.updated_on / ${sql.lit(HOUR)}
              union all
              select n.updated_on / ${sql.lit(HOUR)}, 1, n.id from old_rows o join new_rows n on n.id = o.id
                where n.updated_on / ${sql.lit(HOUR)} <> o.updated_on / ${sql.lit(HOUR)}
            ) moved
            group by hour;
          update resource_versions set version = version + 1 where resource = 'stock_log_moves';
        end if;
        return null;
      end
      $$`.execute(db);
    await sql`create trigger stock_logs_hours_insert after insert on stock_logs referencing new table as new_rows
      for each statement execute function count_stock_log_hours()`.execute(db);
    await sql`create trigger stock_logs_hours_update after update on stock_logs referencing old table as old_rows new table as new_rows
      for each statement execute function count_stock_log_hours()`.execute(db);
    await sql`create trigger stock_logs_hours_delete after delete on stock_logs referencing old table as old_rows
      for each statement execute function count_stock_log_hours()`.execute(db);
  } else {
    await db.schema
      .createTable('stock_log_hours')
      .addColumn('hour', 'integer', (col) => col.primaryKey())
      .addColumn('entries', 'integer', (col) => col.notNull())
      .addColumn('min_id', 'integer', (col) => col.notNull())
      .execute();
    const add = (row: 'new') => sql`
      insert into stock_log_hours (hour, entries, min_id) values (${sql.raw(row)}.updated_on / ${sql.lit(HOUR)}, 1, ${sql.raw(row)}.id)
      on conflict (hour) do update set entries = entries + 1, min_id = min(min_id, excluded.min_id);`;
    const remove = (row: 'old') =>
      sql`update stock_log_hours set entries = entries - 1 where hour = ${sql.raw(row)}.updated_on / ${sql.lit(HOUR)};`;
    const moved = sql`update resource_versions set version = version + 1 where resource = 'stock_log_moves';`;
    await sql`create trigger stock_logs_hours_insert after insert on stock_logs begin ${add('new')} end`.execute(db);
    await sql`create trigger stock_logs_hours_update after update of updated_on on stock_logs when old.updated_on <> new.updated_on
      begin ${remove('old')} ${add('new')} ${moved} end`.execute(db);
    await sql`create trigger stock_logs_hours_delete after delete on stock_logs begin ${remove('old')} ${moved} end`.execute(
      db,
    );
  }
  await sql`
    insert into stock_log_hours (hour, entries, min_id)
    select updated_on / ${sql.lit(HOUR)}, count(*), min(id) from stock_logs group by updated_on / ${sql.lit(HOUR)}`.execute(
    db,
  );
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) {
    const name = `stock_logs_hours_${event}`;
    if (dialect === 'postgres') await sql`drop trigger if exists ${sql.id(name)} on stock_logs`.execute(db);
    else await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
  }
  if (dialect === 'postgres') await sql`drop function if exists count_stock_log_hours()`.execute(db);
  await db.schema.dropTable('stock_log_hours').execute();
  await db.deleteFrom('resource_versions').where('resource', '=', 'stock_log_moves').execute();
}
