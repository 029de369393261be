import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/connect.js';
import { isMigrated, migrateToLatest } from '../../src/db/migrate.js';
import { DIALECTS } from '../helpers/dialects.js';

/**
 * Several deployments (and every PostgreSQL test file) share one database, each in its own
 * `?schema=` (db/dialect/postgres.ts). Kysely's Migrator asks whether its tables exist by
 * introspecting every schema of the database (`has_schema_privilege(nspname, …)`), which
 * fails with `schema "…" does not exist` when another schema is dropped meanwhile: a
 * process then failed to start, and test files failed at random while others cleaned up.
 * Migrating and checking one schema must not depend on what happens to the others.
 */
for (const dialect of DIALECTS.filter((d) => d.name === 'postgres')) {
  describe('migrations on a database whose other schemas come and go (postgres)', () => {
    const baseUrl = process.env.TEST_DATABASE_URL!;
    const tag = randomBytes(4).toString('hex');
    afterAll(() => dialect.cleanup());

    it('migrate and isMigrated succeed while another schema is created and dropped in a loop', async () => {
      let stop = false;
      const churn = async (worker: number) => {
        const client = new pg.Client({ connectionString: baseUrl });
        await client.connect();
        try {
          for (let i = 0; !stop; i++) {
            const schema = `churn_${tag}_${worker}_${i % 3}`;
            await client.query(`create schema ${schema}; create table ${schema}.t (a int, b int, c int)`);
            await client.query(`drop schema ${schema} cascade`);
          }
        } finally {
          await client.end();
        }
      };
      const churners = [churn(1), churn(2)];
      const failures: string[] = [];
      try {
        for (let n = 0; n < 8; n++) {
          const handle = createDb(await dialect.freshDatabaseUrl());
          try {
            await migrateToLatest(handle);
            if (!(await isMigrated(handle))) failures.push(`run ${n}: not migrated`);
          } catch (error) {
            failures.push(`run ${n}: ${(error as Error).message}`);
          } finally {
            await handle.close();
          }
        }
      } finally {
        stop = true;
        await Promise.all(churners);
      }
      expect(failures).toEqual([]);
    }, 180_000);
  });
}

// Without TEST_DATABASE_URL the file has no PostgreSQL to test; say so rather than fail as empty.
describe.skipIf(DIALECTS.some((d) => d.name === 'postgres'))('migrations on a shared PostgreSQL database', () => {
  it.skip('needs TEST_DATABASE_URL (PostgreSQL)', () => undefined);
});
