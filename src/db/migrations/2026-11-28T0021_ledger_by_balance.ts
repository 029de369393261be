import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// A ledger row names its balance by the balance's id instead of repeating the balance's five
// key columns (store, product, location, pool, order key). Balances are never deleted and
// their ids never change, so the id says the same as the key. At 10M entries the key's
// index (stock_ledger_balance_time: five columns, one of them text, then at and id) was the
// largest of the database (1.0 GB, ~100 bytes an entry, its pages written at random by every
// booking); on (balance_id, at, id) it holds three bigints. The balance is a foreign key now:
// a ledger row without its balance cannot be written, where verify used to find it.
//
// The table is written anew (a column dropped in place keeps its bytes on PostgreSQL), with
// the same ids, so the order of entries at one moment — (at, id) — is kept. A ledger row
// without a balance stops the migration with its count: such a database fails `store-ops
// verify` already and needs a look before its ledger moves.

const LEDGER_COLUMNS = ['id', 'log_id', 'balance_id', 'at', 'delta', 'is_count', 'counted', 'expected'];

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  const orphans = await sql<{ n: number | string }>`
    select count(*) as n from stock_ledger g
    where not exists (select 1 from stock_balances b where b.store_id = g.store_id and b.product_id = g.product_id
      and b.location_id = g.location_id and b.pool = g.pool and b.order_key = g.order_key)`.execute(db);
  const orphaned = Number(orphans.rows[0]?.n ?? 0);
  if (orphaned > 0)
    throw new Error(`${orphaned} ledger rows have no balance: run store-ops verify and repair before migrating`);

  await withId(dialect, db.schema.createTable('stock_ledger_next'))
    .addColumn('log_id', 'bigint', (col) => col.notNull().references('stock_logs.id'))
    .addColumn('balance_id', 'bigint', (col) => col.notNull().references('stock_balances.id'))
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('is_count', 'integer', (col) => col.notNull())
    .addColumn('counted', 'bigint')
    .addColumn('expected', 'bigint')
    .execute();
  await sql`
    insert into stock_ledger_next (${sql.join(LEDGER_COLUMNS.map((c) => sql.ref(c)))})
    select g.id, g.log_id, b.id, g.at, g.delta, g.is_count, g.counted, g.expected
    from stock_ledger g join stock_balances b on b.store_id = g.store_id and b.product_id = g.product_id
      and b.location_id = g.location_id and b.pool = g.pool and b.order_key = g.order_key
    order by g.id`.execute(db);
  await db.schema.dropTable('stock_ledger').execute();
  await db.schema.alterTable('stock_ledger_next').renameTo('stock_ledger').execute();
  if (dialect === 'postgres') {
    // The names a table created as stock_ledger would have had, and its id sequence past the copied ids.
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
  // Late entries: the stretch of one balance's history by moment; the first count after a
  // moment (counts only, so one probe however long the history); the log listing's applied parts.
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
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await withId(dialect, db.schema.createTable('stock_ledger_keyed'))
    .addColumn('log_id', 'bigint', (col) => col.notNull().references('stock_logs.id'))
    .addColumn('store_id', 'bigint', (col) => col.notNull())
    .addColumn('product_id', 'bigint', (col) => col.notNull())
    .addColumn('location_id', 'bigint', (col) => col.notNull())
    .addColumn('pool', 'integer', (col) => col.notNull())
    .addColumn('order_key', 'text', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('is_count', 'integer', (col) => col.notNull())
    .addColumn('counted', 'bigint')
    .addColumn('expected', 'bigint')
    .execute();
  await sql`
    insert into stock_ledger_keyed (id, log_id, store_id, product_id, location_id, pool, order_key, at, delta, is_count, counted, expected)
    select g.id, g.log_id, b.store_id, b.product_id, b.location_id, b.pool, b.order_key, g.at, g.delta, g.is_count, g.counted, g.expected
    from stock_ledger g join stock_balances b on b.id = g.balance_id
    order by g.id`.execute(db);
  await db.schema.dropTable('stock_ledger').execute();
  await db.schema.alterTable('stock_ledger_keyed').renameTo('stock_ledger').execute();
  if (dialect === 'postgres') {
    await sql`alter table stock_ledger rename constraint stock_ledger_keyed_pkey to stock_ledger_pkey`.execute(db);
    await sql`alter table stock_ledger rename constraint stock_ledger_keyed_log_id_fkey to stock_ledger_log_id_fkey`.execute(
      db,
    );
    await sql`alter sequence stock_ledger_keyed_id_seq rename to stock_ledger_id_seq`.execute(db);
    await sql`select setval('stock_ledger_id_seq', greatest((select max(id) from stock_ledger), 1))`.execute(db);
  }
  const key = ['store_id', 'product_id', 'location_id', 'pool', 'order_key', 'at', 'id'];
  await db.schema.createIndex('stock_ledger_balance_time').on('stock_ledger').columns(key).execute();
  await db.schema
    .createIndex('stock_ledger_balance_counts')
    .on('stock_ledger')
    .columns(key)
    .where(sql.ref('is_count'), '=', 1)
    .execute();
  await db.schema.createIndex('stock_ledger_log').on('stock_ledger').column('log_id').execute();
}
