import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 40 item 2, PRODUCT §9: a record that moves between stores tells the store it left.
// Migration 0027's triggers gave an update one event, at the row's new store: a store-scoped
// price re-sent with another store_number showed `price.upserted` to the new store only, and a
// mirror kept from the old store's feed kept the price for ever. Now every table whose events
// carry a store (0027's sources with a store: stores, prices, locations, store products,
// product lists, deliveries, customer orders, receipts) writes, when an update changes the row's
// store_number (null — chain-wide — included), first the event the old store's mirror needs, at
// the old store and over the old row, then the row's usual event at its new store:
// - `<resource>.deleted` for the resources (from the old store's point of view the record is
//   gone), unless the row was deleted already (the old store saw its `.deleted` then);
// - for the fixed types (`delivery.changed`, `customer_order.changed`, `receipt.changed`) their
//   update type: the old store's follower re-reads the record and no longer finds it.
// Both in one transaction, the old store's first: a reader that sees both (a chain-wide token, a
// store token of both stores) ends with the record present at its new store. A move to
// chain-wide (store_number null) is seen by every store token (chain-wide events are), a move
// from chain-wide tells every store token it is gone (its `.deleted` is chain-wide) before the
// new store's token learns it is back.
// Today only prices can move through the API (locations, store products and product lists are
// keyed within their store; a delivery or customer order re-sent for another store is a 409);
// the triggers hold for any write path, present or future, as 0027's do.
// - The update triggers also fire on a change of store_number alone.
// - PostgreSQL: a trigger `<table>_event_left_store` (after update of store_number, when it
//   changed) writes the old store's event; triggers of one event fire in name order, so it
//   comes before `<table>_event_update` (`l` < `u`), and the ids, hence the sequences, follow.
// - SQLite: the update trigger is made again with both inserts in its body, in that order
//   (SQLite does not document the order of two triggers).

interface MovableSource {
  table: string;
  /** `resource`: the old store gets `<resource>.deleted`. */
  resource?: string;
  /** Fixed types (0027): the old store gets the update type. */
  types?: { insert: string; update: string; delete?: string };
  softDelete: boolean;
  /** 0027's data fields: name → SQL over `r`. */
  data: Record<string, string>;
}

const productNumber = '(select p.product_number from products p where p.id = r.product_id)';

/** 0027's sources whose events carry the row's store_number (as 0027 wrote them). */
const SOURCES: MovableSource[] = [
  { table: 'stores', resource: 'store', softDelete: true, data: { store_number: 'r.store_number' } },
  {
    table: 'product_prices',
    resource: 'price',
    softDelete: true,
    data: { price_id: 'r.price_id', product_number: productNumber },
  },
  { table: 'locations', resource: 'location', softDelete: true, data: { location_code: 'r.location_code' } },
  {
    table: 'store_products',
    resource: 'store_product',
    softDelete: true,
    data: { product_number: 'r.product_number' },
  },
  {
    table: 'product_lists',
    resource: 'product_list',
    softDelete: false,
    data: { product_list_id: 'r.id', name: 'r.name', is_archived: 'r.archived_on is not null' },
  },
  {
    table: 'delivery_orders',
    types: { insert: 'delivery.changed', update: 'delivery.changed', delete: 'delivery.changed' },
    softDelete: false,
    data: { order_number: 'r.order_number', status: 'r.status' },
  },
  {
    table: 'customer_orders',
    types: { insert: 'customer_order.changed', update: 'customer_order.changed', delete: 'customer_order.changed' },
    softDelete: false,
    data: { order_number: 'r.order_number', status_id: 'r.status_id' },
  },
  {
    table: 'receipt_orders',
    types: { insert: 'receipt.created', update: 'receipt.changed' },
    softDelete: false,
    data: { order_number: 'r.order_number', is_submitted: 'r.is_submitted = 1' },
  },
];

const BOOLEAN_FIELDS = new Set(['is_archived', 'is_submitted']);
const STORE = 'r.store_number';

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  for (const source of SOURCES) {
    if (dialect === 'postgres') await upPostgres(db, source);
    else await upSqlite(db, source);
  }
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  for (const source of SOURCES) {
    if (dialect === 'postgres') {
      await sql`drop trigger ${sql.id(`${source.table}_event_left_store`)} on ${sql.id(source.table)}`.execute(db);
      await sql`drop function ${sql.id(`${source.table}_event_left_store`)}()`.execute(db);
      await sql`drop trigger ${sql.id(`${source.table}_event_update`)} on ${sql.id(source.table)}`.execute(db);
      await createUpdateTrigger0027Postgres(db, source);
    } else {
      await sql`drop trigger ${sql.id(`${source.table}_event_update`)}`.execute(db);
      await createUpdateTrigger0027Sqlite(db, source);
    }
  }
}

/** The old store's event type: `.deleted`, or the fixed update type. */
const leftType = (source: MovableSource) => (source.types ? source.types.update : `${source.resource}.deleted`);

/** When the old store must be told: the store changed (and the row was live, for soft-deleted records). */
function leftCondition(source: MovableSource): string {
  const moved = 'old.store_number is distinct from new.store_number';
  return source.softDelete ? `${moved} and old.deleted_on is null` : moved;
}

/** 0027's update condition, plus a change of store alone. */
function movedUpdate(source: MovableSource): { columns: string; when: string } {
  const columns = source.softDelete ? ['updated_on', 'deleted_on', 'store_number'] : ['updated_on', 'store_number'];
  return { columns: columns.join(', '), when: columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ') };
}

/** 0027's: the update type as SQL over `r`. */
function updateType(source: MovableSource): string {
  if (source.types) return `'${source.types.update}'`;
  if (!source.softDelete) return `'${source.resource}.upserted'`;
  return `case when r.deleted_on is null then '${source.resource}.upserted' else '${source.resource}.deleted' end`;
}

const pgData = (source: MovableSource) =>
  `json_build_object(${Object.entries(source.data)
    .map(([name, expr]) => `'${name}', ${expr}`)
    .join(', ')})::text`;

function sqliteFields(source: MovableSource, row: 'old' | 'new'): string {
  const over = (expr: string) => expr.replace(/\br\./g, `${row}.`);
  return Object.entries(source.data)
    .map(([name, expr]) =>
      BOOLEAN_FIELDS.has(name)
        ? `'${name}', json(case when ${over(expr)} then 'true' else 'false' end)`
        : `'${name}', ${over(expr)}`,
    )
    .join(', ');
}

async function upPostgres(db: Kysely<any>, source: MovableSource): Promise<void> {
  await sql`
    create function ${sql.id(`${source.table}_event_left_store`)}() returns trigger language plpgsql as $$
    declare r ${sql.id(source.table)};
    begin
      r := old;
      insert into events (type, store_number, occurred_at, data)
        values ('${sql.raw(leftType(source))}', ${sql.raw(STORE)}, (extract(epoch from clock_timestamp()) * 1000)::bigint, ${sql.raw(pgData(source))});
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger ${sql.id(`${source.table}_event_left_store`)}
    after update of store_number on ${sql.id(source.table)}
    for each row when (${sql.raw(leftCondition(source))}) execute function ${sql.id(`${source.table}_event_left_store`)}()`.execute(
    db,
  );
  // 0027's function writes the new store's event; its trigger now also fires on a move alone.
  const update = movedUpdate(source);
  await sql`drop trigger ${sql.id(`${source.table}_event_update`)} on ${sql.id(source.table)}`.execute(db);
  await sql`
    create trigger ${sql.id(`${source.table}_event_update`)}
    after update of ${sql.raw(update.columns)} on ${sql.id(source.table)}
    for each row when (${sql.raw(update.when)}) execute function ${sql.id(`${source.table}_event`)}()`.execute(db);
}

async function upSqlite(db: Kysely<any>, source: MovableSource): Promise<void> {
  const update = movedUpdate(source);
  const stamp = "cast((julianday('now') - 2440587.5) * 86400000 as integer)";
  await sql`drop trigger ${sql.id(`${source.table}_event_update`)}`.execute(db);
  await sql`
    create trigger ${sql.id(`${source.table}_event_update`)}
    after update of ${sql.raw(update.columns)} on ${sql.id(source.table)}
    for each row when ${sql.raw(update.when)}
    begin
      insert into events (type, store_number, occurred_at, data)
        select '${sql.raw(leftType(source))}', old.store_number, ${sql.raw(stamp)}, json_object(${sql.raw(sqliteFields(source, 'old'))})
        where ${sql.raw(leftCondition(source))};
      insert into events (type, store_number, occurred_at, data)
        values (${sql.raw(updateType(source).replace(/\br\./g, 'new.'))}, new.store_number, ${sql.raw(stamp)}, json_object(${sql.raw(sqliteFields(source, 'new'))}));
    end`.execute(db);
}

// ---------------------------------------------------------------- 0027's update triggers, for down

function update0027(source: MovableSource): { columns: string; when: string } {
  const columns = source.softDelete ? ['updated_on', 'deleted_on'] : ['updated_on'];
  return {
    columns: columns.join(', '),
    when: columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or '),
  };
}

async function createUpdateTrigger0027Postgres(db: Kysely<any>, source: MovableSource): Promise<void> {
  const update = update0027(source);
  const event = `update of ${update.columns}`;
  const when = `when (${update.when})`;
  await sql`
        create trigger ${sql.id(`${source.table}_event_update`)}
        after ${sql.raw(event)} on ${sql.id(source.table)}
        for each row ${sql.raw(when)} execute function ${sql.id(`${source.table}_event`)}()`.execute(db);
}

/** Byte for byte the statement 0027 made (SQLite keeps a trigger's text as written). */
async function createUpdateTrigger0027Sqlite(db: Kysely<any>, source: MovableSource): Promise<void> {
  const operation = 'update';
  const update = update0027(source);
  const row = 'new';
  const over = (expr: string) => expr.replace(/\br\./g, `${row}.`);
  const fields = Object.entries(source.data).map(([name, expr]) =>
    BOOLEAN_FIELDS.has(name)
      ? `'${name}', json(case when ${over(expr)} then 'true' else 'false' end)`
      : `'${name}', ${over(expr)}`,
  );
  const event = `update of ${update.columns}`;
  const when = `when ${update.when}`;
  await sql`
      create trigger ${sql.id(`${source.table}_event_${operation}`)}
      after ${sql.raw(event)} on ${sql.id(source.table)}
      for each row ${sql.raw(when)}
      begin
        insert into events (type, store_number, occurred_at, data)
        values (${sql.raw(over(updateType(source)))}, ${sql.raw(over(STORE))},
          cast((julianday('now') - 2440587.5) * 86400000 as integer), json_object(${sql.raw(fields.join(', '))}));
      end`.execute(db);
}
