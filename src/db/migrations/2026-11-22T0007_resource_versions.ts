import { sql, type Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// A version counter per master-data resource, bumped by the database itself (triggers)
// on every insert, update or delete of its tables — so no write path can forget it. Read
// caches and the identical-import shortcut compare against it.

/** Resource → the tables whose changes it covers. */
const RESOURCES: Record<string, string[]> = {
  stores: ['stores'],
  categories: ['categories'],
  reason_codes: ['reason_codes'],
  products: ['products', 'product_barcodes', 'product_prices', 'product_discounts'],
};

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('resource_versions')
    .addColumn('resource', 'text', (col) => col.primaryKey())
    .addColumn('version', 'bigint', (col) => col.notNull())
    // The last bulk import that left the resource at `import_version`: an identical body
    // arriving while the version is unchanged is a no-op without parsing it item by item.
    .addColumn('import_hash', 'text')
    .addColumn('import_version', 'bigint')
    .addColumn('import_count', 'bigint')
    .execute();
  await db
    .insertInto('resource_versions')
    .values(Object.keys(RESOURCES).map((resource) => ({ resource, version: 0 })))
    .execute();

  if (dialect === 'postgres') {
    await sql`
      create or replace function bump_resource_version() returns trigger language plpgsql as $$
      begin
        update resource_versions set version = version + 1 where resource = TG_ARGV[0];
        return null;
      end
      $$`.execute(db);
    for (const [resource, tables] of Object.entries(RESOURCES)) {
      for (const table of tables) {
        await sql`
          create trigger ${sql.id(`${table}_bump_version`)}
          after insert or update or delete on ${sql.id(table)}
          for each statement execute function bump_resource_version(${sql.lit(resource)})`.execute(db);
      }
    }
    return;
  }
  for (const [resource, tables] of Object.entries(RESOURCES)) {
    for (const table of tables) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql`
          create trigger ${sql.id(`${table}_bump_version_${event}`)}
          after ${sql.raw(event)} on ${sql.id(table)}
          begin
            update resource_versions set version = version + 1 where resource = ${sql.lit(resource)};
          end`.execute(db);
      }
    }
  }
}

export async function down(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  for (const tables of Object.values(RESOURCES)) {
    for (const table of tables) {
      if (dialect === 'postgres')
        await sql`drop trigger if exists ${sql.id(`${table}_bump_version`)} on ${sql.id(table)}`.execute(db);
      else
        for (const event of ['insert', 'update', 'delete'])
          await sql`drop trigger if exists ${sql.id(`${table}_bump_version_${event}`)}`.execute(db);
    }
  }
  if (dialect === 'postgres') await sql`drop function if exists bump_resource_version()`.execute(db);
  await db.schema.dropTable('resource_versions').execute();
}
