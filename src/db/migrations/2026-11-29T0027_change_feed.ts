import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 30, PRODUCT §9: the change feed and its webhooks.
// - `events`: the outbox. Every change writes its event in its own transaction: the stock
//   engine writes `stock.changed` itself (ledger/stock-events.ts), and the triggers below write
//   the events of every other table, so no write path, present or future, can forget one.
//   - SQLite: `sequence` is the AUTOINCREMENT key, given at insert. The file has one writer at a
//     time, so insert order is commit order, and a rolled-back insert gives its number back
//     (sqlite_sequence rolls back with it): dense, and never reused after a purge.
//   - PostgreSQL: concurrent writers commit in another order than they insert, so an event is
//     numbered only once its transaction has committed. `id` is insert order; `sequence` is
//     null until the one sequencer of the database (dialect/postgres-events.ts, under an
//     advisory lock) numbers the committed events it sees, in id order, after `event_counter`'s
//     last number, and stamps `occurred_at` with its commit. A reader never sees a sequence
//     before every smaller one is visible: they commit together.
// - `event_counter`: the last sequence given (PostgreSQL) and the last one purged by retention
//   (both): a cursor at or before it is answered 410.
// - The triggers fire on a real change only: `update of updated_on, deleted_on`, and only when
//   one of them moved. The engine's stamps on store_products (stock_version, stock_modified_at)
//   are not a store product change, and an identical re-import writes no row at all.
// - `webhook_subscriptions`: the webhooks (modules/webhooks), each with its cursor, the batch in
//   flight (so a retry re-sends the same events under the same webhook-id) and its lease (one
//   sender per subscription across processes).

/** How a table's rows become events: their type, store and data (as SQL over the row `r`). */
interface EventSource {
  table: string;
  /** `resource`: `<resource>.upserted` / `.deleted` (soft delete through deleted_on, or a row delete). */
  resource?: string;
  /** Fixed types instead: on insert, on update (and on delete, if it can happen). */
  types?: { insert: string; update: string; delete?: string };
  softDelete: boolean;
  /** The store the row belongs to (its store_number), or null for chain-wide records. */
  store: string | null;
  /** Data fields: name → SQL expression over `r` (the new row, or the old one on delete). */
  data: Record<string, string>;
}

const productNumber = '(select p.product_number from products p where p.id = r.product_id)';

const SOURCES: EventSource[] = [
  {
    table: 'stores',
    resource: 'store',
    softDelete: true,
    store: 'r.store_number',
    data: { store_number: 'r.store_number' },
  },
  {
    table: 'products',
    resource: 'product',
    softDelete: true,
    store: null,
    data: { product_number: 'r.product_number' },
  },
  {
    table: 'categories',
    resource: 'category',
    softDelete: true,
    store: null,
    data: { category_code: 'r.category_code' },
  },
  {
    table: 'reason_codes',
    resource: 'reason_code',
    softDelete: true,
    store: null,
    data: { reason_code: 'r.reason_code' },
  },
  {
    table: 'product_prices',
    resource: 'price',
    softDelete: true,
    store: 'r.store_number',
    data: { price_id: 'r.price_id', product_number: productNumber },
  },
  {
    table: 'product_discounts',
    resource: 'discount',
    softDelete: true,
    store: null,
    data: { discount_id: 'r.discount_id', product_number: productNumber, line_number: 'r.line_number' },
  },
  {
    table: 'locations',
    resource: 'location',
    softDelete: true,
    store: 'r.store_number',
    data: { location_code: 'r.location_code' },
  },
  {
    table: 'store_products',
    resource: 'store_product',
    softDelete: true,
    store: 'r.store_number',
    data: { product_number: 'r.product_number' },
  },
  {
    table: 'product_lists',
    resource: 'product_list',
    softDelete: false,
    store: 'r.store_number',
    data: { product_list_id: 'r.id', name: 'r.name', is_archived: 'r.archived_on is not null' },
  },
  {
    table: 'delivery_orders',
    types: { insert: 'delivery.changed', update: 'delivery.changed', delete: 'delivery.changed' },
    softDelete: false,
    store: 'r.store_number',
    data: { order_number: 'r.order_number', status: 'r.status' },
  },
  {
    table: 'customer_orders',
    types: { insert: 'customer_order.changed', update: 'customer_order.changed', delete: 'customer_order.changed' },
    softDelete: false,
    store: 'r.store_number',
    data: { order_number: 'r.order_number', status_id: 'r.status_id' },
  },
  {
    table: 'receipt_orders',
    types: { insert: 'receipt.created', update: 'receipt.changed' },
    softDelete: false,
    store: 'r.store_number',
    data: { order_number: 'r.order_number', is_submitted: 'r.is_submitted = 1' },
  },
];

/** The booleans among the data expressions (SQLite's json_object needs them as JSON). */
const BOOLEAN_FIELDS = new Set(['is_archived', 'is_submitted']);

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`
      create table events (
        id bigint generated always as identity primary key,
        sequence bigint,
        type text not null,
        store_number text,
        occurred_at bigint not null,
        data text not null
      )`.execute(db);
    await sql`create unique index events_sequence on events (sequence)`.execute(db);
    // The sequencer's queue: small, as it holds only what committed since its last pass.
    await sql`create index events_unsequenced on events (id) where sequence is null`.execute(db);
  } else {
    await sql`
      create table events (
        sequence integer primary key autoincrement,
        type text not null,
        store_number text,
        occurred_at integer not null,
        data text not null
      )`.execute(db);
  }
  await db.schema
    .createTable('event_counter')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('last_sequence', 'bigint', (col) => col.notNull())
    .addColumn('purged_through', 'bigint', (col) => col.notNull())
    .execute();
  await db.insertInto('event_counter').values({ id: 1, last_sequence: 0, purged_through: 0 }).execute();

  for (const source of SOURCES) await createTriggers(db, dialect, source);

  await sql`
    create table webhook_subscriptions (
      id ${sql.raw(dialect === 'postgres' ? 'bigint generated by default as identity primary key' : 'integer primary key autoincrement')},
      url text not null,
      types text,
      stores text,
      secret text not null,
      status text not null,
      after_sequence bigint not null,
      batch_through bigint,
      attempts integer not null default 0,
      next_attempt_at bigint not null,
      failing_since bigint,
      last_error text,
      last_error_at bigint,
      last_delivered_at bigint,
      delivered_events bigint not null default 0,
      lease_owner text,
      lease_until bigint,
      created_on bigint not null,
      created_by text not null,
      updated_on bigint not null
    )`.execute(db);
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema.dropTable('webhook_subscriptions').execute();
  for (const source of SOURCES) {
    for (const operation of ['insert', 'update', 'delete']) {
      await sql`drop trigger if exists ${sql.id(`${source.table}_event_${operation}`)}${sql.raw(dialect === 'postgres' ? ` on "${source.table}"` : '')}`.execute(
        db,
      );
    }
    if (dialect === 'postgres') await sql`drop function if exists ${sql.id(`${source.table}_event`)}()`.execute(db);
  }
  await db.schema.dropTable('event_counter').execute();
  await db.schema.dropTable('events').execute();
}

/** The event's type as SQL over `r`, for a row written by `operation`. */
function typeOf(source: EventSource, operation: 'insert' | 'update' | 'delete'): string {
  if (source.types) return `'${source.types[operation] ?? source.types.update}'`;
  if (operation === 'delete') return `'${source.resource}.deleted'`;
  if (!source.softDelete) return `'${source.resource}.upserted'`;
  return `case when r.deleted_on is null then '${source.resource}.upserted' else '${source.resource}.deleted' end`;
}

/** What makes an update an event: the row's write stamp or its deletion moved (see the header). */
function updateCondition(source: EventSource): { columns: string; when: string } {
  const columns = source.softDelete ? ['updated_on', 'deleted_on'] : ['updated_on'];
  return {
    columns: columns.join(', '),
    when: columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or '),
  };
}

async function createTriggers(db: Kysely<any>, dialect: MigrationDialect, source: EventSource): Promise<void> {
  const operations = (['insert', 'update', 'delete'] as const).filter(
    (op) => op !== 'delete' || source.types === undefined || source.types.delete !== undefined,
  );
  const update = updateCondition(source);
  if (dialect === 'postgres') {
    const data = `json_build_object(${Object.entries(source.data)
      .map(([name, expr]) => `'${name}', ${expr}`)
      .join(', ')})::text`;
    const insertFor = (operation: 'insert' | 'update' | 'delete') =>
      `insert into events (type, store_number, occurred_at, data)
         values (${typeOf(source, operation)}, ${source.store ?? 'null'}, (extract(epoch from clock_timestamp()) * 1000)::bigint, ${data});`;
    await sql`
      create function ${sql.id(`${source.table}_event`)}() returns trigger language plpgsql as $$
      declare r ${sql.id(source.table)};
      begin
        if tg_op = 'DELETE' then
          r := old;
          ${sql.raw(operations.includes('delete') ? insertFor('delete') : 'null;')}
        elsif tg_op = 'INSERT' then
          r := new;
          ${sql.raw(insertFor('insert'))}
        else
          r := new;
          ${sql.raw(insertFor('update'))}
        end if;
        return null;
      end
      $$`.execute(db);
    for (const operation of operations) {
      const event = operation === 'update' ? `update of ${update.columns}` : operation;
      const when = operation === 'update' ? `when (${update.when})` : '';
      await sql`
        create trigger ${sql.id(`${source.table}_event_${operation}`)}
        after ${sql.raw(event)} on ${sql.id(source.table)}
        for each row ${sql.raw(when)} execute function ${sql.id(`${source.table}_event`)}()`.execute(db);
    }
    return;
  }
  for (const operation of operations) {
    const row = operation === 'delete' ? 'old' : 'new';
    const over = (expr: string) => expr.replace(/\br\./g, `${row}.`);
    const fields = Object.entries(source.data).map(([name, expr]) =>
      BOOLEAN_FIELDS.has(name)
        ? `'${name}', json(case when ${over(expr)} then 'true' else 'false' end)`
        : `'${name}', ${over(expr)}`,
    );
    const event = operation === 'update' ? `update of ${update.columns}` : operation;
    const when = operation === 'update' ? `when ${update.when}` : '';
    await sql`
      create trigger ${sql.id(`${source.table}_event_${operation}`)}
      after ${sql.raw(event)} on ${sql.id(source.table)}
      for each row ${sql.raw(when)}
      begin
        insert into events (type, store_number, occurred_at, data)
        values (${sql.raw(over(typeOf(source, operation)))}, ${sql.raw(source.store === null ? 'null' : over(source.store))},
          cast((julianday('now') - 2440587.5) * 86400000 as integer), json_object(${sql.raw(fields.join(', '))}));
      end`.execute(db);
  }
}
