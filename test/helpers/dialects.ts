import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The databases every HTTP test runs on: SQLite always, PostgreSQL when
 * TEST_DATABASE_URL is set. Each call to `freshDatabaseUrl` gives a database no other
 * test file sees (a new in-memory SQLite, or a new schema on PostgreSQL).
 */
export interface TestDialect {
  name: 'sqlite' | 'postgres';
  freshDatabaseUrl(): Promise<string>;
  /** Drops what freshDatabaseUrl made. */
  cleanup(): Promise<void>;
}

const sqlite = (): TestDialect => ({
  name: 'sqlite',
  freshDatabaseUrl: async () => 'sqlite::memory:',
  cleanup: async () => undefined,
});

const postgres = (baseUrl: string): TestDialect => {
  const schemas: string[] = [];
  return {
    name: 'postgres',
    async freshDatabaseUrl() {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      schemas.push(schema);
      const url = new URL(baseUrl);
      url.searchParams.set('schema', schema);
      return url.toString();
    },
    async cleanup() {
      if (schemas.length === 0) return;
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        for (const schema of schemas.splice(0)) await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
};

export function testDialects(): TestDialect[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [sqlite(), postgres(url)] : [sqlite()];
}

export const DIALECTS = testDialects();
