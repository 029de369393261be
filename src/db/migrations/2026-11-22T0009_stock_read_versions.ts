import { sql, type Kysely } from 'kysely';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Versions that let a process keep what it read of a product's stock and answer from
// memory while nothing it depends on changed (issue 5, single-product stock read):
// - store_products.stock_version: bumped by the ledger in the same transaction as every
//   change to the balances of that store product;
// - the `locations` resource version (as in 0007): bumped by the database itself on every
//   insert, update or delete of a location or its tags, so no write path can forget it.

function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
}

const LOCATION_TABLES = ['locations', 'location_tags'];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_products').addColumn('stock_version', 'bigint', (col) => col.notNull().defaultTo(0)).execute();
  await db.insertInto('resource_versions').values({ resource: 'locations', version: 0 }).execute();
  if (isPostgres(db)) {
    // bump_resource_version() was created by 0007.
    for (const table of LOCATION_TABLES) {
      await sql`
        create trigger ${sql.id(`${table}_bump_version`)}
        after insert or update or delete on ${sql.id(table)}
        for each statement execute function bump_resource_version('locations')`.execute(db);
    }
    return;
  }
  for (const table of LOCATION_TABLES) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql`
        create trigger ${sql.id(`${table}_bump_version_${event}`)}
        after ${sql.raw(event)} on ${sql.id(table)}
        begin
          update resource_versions set version = version + 1 where resource = 'locations';
        end`.execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of LOCATION_TABLES) {
    if (isPostgres(db)) await sql`drop trigger if exists ${sql.id(`${table}_bump_version`)} on ${sql.id(table)}`.execute(db);
    else for (const event of ['insert', 'update', 'delete']) await sql`drop trigger if exists ${sql.id(`${table}_bump_version_${event}`)}`.execute(db);
  }
  await db.deleteFrom('resource_versions').where('resource', '=', 'locations').execute();
  await db.schema.alterTable('store_products').dropColumn('stock_version').execute();
}
