/**
 * The databases the ledger scenarios run the service on: a fresh SQLite file, or a fresh
 * schema of the PostgreSQL database `BENCH_DATABASE_URL` names (default the local
 * postgres://postgres:postgres@127.0.0.1:5432/postgres), dropped when the scenario ends.
 * The bench reads the service's own tables through here (untimed checks: a balance's
 * last_at, the first count after a moment) and, with the service stopped, seeds long
 * histories with raw SQL. `npx store-ops verify` runs on the same DATABASE_URL.
 */
import SqliteDatabase from 'better-sqlite3';
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { killOnExit, REPO_ROOT, tempDir } from './processes.js';
import type { Resources } from './resources.js';

export type BenchDialect = 'sqlite' | 'postgres';

export const BENCH_PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** A scenario that cannot run here (e.g. PostgreSQL not reachable): reported as SKIPPED with the reason, not FAILED. */
export class SkipScenario extends Error {}

/** Throws SkipScenario unless PostgreSQL answers `select 1` at BENCH_PG_URL within 3 s. */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    const safeUrl = BENCH_PG_URL.replace(/\/\/[^@/]*@/, '//…@');
    throw new SkipScenario(
      `PostgreSQL not reachable at ${safeUrl} (set BENCH_DATABASE_URL): ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Raw SQL on the service's database from the bench (one connection). */
export interface BenchDatabase {
  dialect: BenchDialect;
  /** The DATABASE_URL the service and the CLI are started with. */
  url: string;
  query<T = Record<string, unknown>>(text: string): Promise<T[]>;
  /** Runs statements in one transaction. */
  transaction(statements: string[]): Promise<void>;
  /** Drops the connection (SQLite: so the file can be written by the service alone again). */
  disconnect(): Promise<void>;
}

/** A fresh database for a scenario: a file in a temporary directory, or a schema `bench_<tag>_<pid>` dropped at release. */
export async function freshDatabase(resources: Resources, dialect: BenchDialect, tag: string): Promise<BenchDatabase> {
  if (dialect === 'sqlite') {
    const temp = resources.add(tempDir(tag), (t) => t.remove());
    const file = path.join(temp.dir, 'service.sqlite');
    let connection: SqliteDatabase.Database | undefined;
    const open = () => (connection ??= new SqliteDatabase(file));
    const database: BenchDatabase = {
      dialect,
      url: `sqlite:${file}`,
      async query<T>(text: string) {
        const statement = open().prepare(text);
        return (statement.reader ? statement.all() : (statement.run(), [])) as T[];
      },
      async transaction(statements) {
        const db = open();
        db.transaction(() => statements.forEach((s) => db.exec(s)))();
      },
      async disconnect() {
        connection?.close();
        connection = undefined;
      },
    };
    resources.add(database, (d) => d.disconnect());
    return database;
  }
  const schema = `bench_${tag.replace(/[^a-z0-9_]/g, '_')}_${process.pid}`;
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
  resources.add(schema, async () => {
    const dropper = new pg.Client({ connectionString: BENCH_PG_URL });
    await dropper.connect();
    await dropper.query(`drop schema if exists ${schema} cascade`);
    await dropper.end();
  });
  const url = new URL(BENCH_PG_URL);
  url.searchParams.set('schema', schema);
  let client: pg.Client | undefined;
  const connect = async () => {
    if (client === undefined) {
      const fresh = new pg.Client({ connectionString: BENCH_PG_URL, options: `-c search_path=${schema}` });
      await fresh.connect();
      client = fresh;
    }
    return client;
  };
  const database: BenchDatabase = {
    dialect,
    url: url.toString(),
    async query<T>(text: string) {
      return (await (await connect()).query(text)).rows as T[];
    },
    async transaction(statements) {
      const c = await connect();
      await c.query('begin');
      try {
        for (const statement of statements) await c.query(statement);
        await c.query('commit');
      } catch (error) {
        await c.query('rollback').catch(() => undefined);
        throw error;
      }
    },
    async disconnect() {
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
  resources.add(database, (d) => d.disconnect());
  return database;
}

/**
 * `npx store-ops verify` on the database (the CLI in its own process, as an operator runs
 * it): resolves with its wall time in ms when it exits 0 printing `ok: every invariant
 * holds`, throws with its output otherwise.
 */
export async function storeOpsVerify(databaseUrl: string): Promise<number> {
  const start = Date.now();
  const child = spawn('npx', ['store-ops', 'verify'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  killOnExit(child);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  if (code !== 0 || !output.includes('ok: every invariant holds'))
    throw new Error(`store-ops verify exited ${code}: ${output.slice(-1500)}`);
  return Date.now() - start;
}
