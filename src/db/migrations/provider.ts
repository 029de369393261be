import type { Kysely, Migration, MigrationProvider } from 'kysely';

/**
 * The database a migration runs on. Taken from the handle that runs the migrations
 * (`DbHandle.dialect.name`, db/migrate.ts) and handed to every migration, so no migration
 * has to guess it from the Kysely instance (a class name does not survive a bundler that
 * renames classes).
 */
export type MigrationDialect = 'sqlite' | 'postgres';

/**
 * A migration written as a function of the dialect: every migration file exports
 * `up(db, dialect)` and `down(db, dialect)`; one that builds the same schema on both
 * databases leaves the `dialect` parameter out.
 */
export interface DialectMigration {
  up(db: Kysely<any>, dialect: MigrationDialect): Promise<void>;
  down?(db: Kysely<any>, dialect: MigrationDialect): Promise<void>;
}

/**
 * Kysely's MigrationProvider over dialect migrations: constructed with the dialect, it
 * gives the Migrator plain migrations that call each one's `up`/`down` with it (as
 * atproto's pds `CtxMigrationProvider` does with its context).
 */
export class DialectMigrationProvider implements MigrationProvider {
  constructor(
    private readonly migrations: Readonly<Record<string, DialectMigration>>,
    private readonly dialect: MigrationDialect,
  ) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const dialect = this.dialect;
    const migrations: Record<string, Migration> = {};
    for (const [name, migration] of Object.entries(this.migrations)) {
      const down = migration.down;
      migrations[name] = {
        up: (db) => migration.up(db, dialect),
        ...(down && { down: (db: Kysely<any>) => down.call(migration, db, dialect) }),
      };
    }
    return migrations;
  }
}
