import { Migrator, sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from 'kysely';
import type { DbHandle } from './dialect/types.js';
import type { Database } from './schema.js';
import { migrationProviderFor } from './migrations/index.js';

/** Applies every pending migration; safe to call from several processes at once. */
export async function migrateToLatest(handle: DbHandle): Promise<string[]> {
  if (handle.schema) await sql`create schema if not exists ${sql.id(handle.schema)}`.execute(handle.db);
  const { error, results } = await migratorOf(handle).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the database has every migration this build knows (for /readyz). */
export async function isMigrated(handle: DbHandle): Promise<boolean> {
  const migrations = await migratorOf(handle).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}

function migratorOf(handle: DbHandle): Migrator {
  const db = handle.dialect.name === 'postgres' ? withOwnSchemaIntrospection(handle.db, handle.schema) : handle.db;
  // The migrations learn the dialect from the handle, never from the Kysely instance.
  return new Migrator({ db, provider: migrationProviderFor(handle.dialect.name), migrationTableSchema: handle.schema });
}

/**
 * The Migrator asks whether its own tables exist through `db.introspection.getTables()`,
 * which on PostgreSQL reads every schema of the database and calls
 * `has_schema_privilege(name, …)` on each: when another deployment or test file drops its
 * schema meanwhile (several share a database, `?schema=`), that call fails with
 * `schema "…" does not exist` and so did starting the service. Here the tables are listed
 * from the catalog for this handle's schema only (the search_path's when none is named).
 */
function withOwnSchemaIntrospection(db: Kysely<Database>, schema: string | undefined): Kysely<Database> {
  const tables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema ?? sql`current_schema()`} and c.relkind in ('r', 'p', 'v')
    `.execute(db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.kind === 'v', columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables: tables,
    getMetadata: async () => ({ tables: await tables() }),
  };
  // Kysely keeps its state in private fields: every other member is the instance's own, bound to it.
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
