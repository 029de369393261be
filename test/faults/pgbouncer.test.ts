import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../bench/lib/processes.js';
import { openPostgres } from '../../src/db/dialect/postgres.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import {
  API,
  audit,
  ENTRIES_PER_POST,
  keyedClients,
  pause,
  seedFaultDatabase,
  STORE,
  summary,
  TOKEN,
} from './keyed-load.js';
import { pgbouncerUnavailableReason, startPgbouncer, type OwnPgbouncer } from './pgbouncer.js';

// Issue 31, pgbouncer: the service through pgbouncer 1.18 (Debian 12) in transaction mode, in
// front of the shared cluster, with `?pooler=transaction` (docs/operations.md "Through a
// connection pooler"). Two server processes post stock at once, the change feed is read and
// its numbering checked (no gaps, each booking's events there), `store-ops verify` is clean —
// and without the setting it does not work: the session parameter for `?schema=` is refused,
// a named prepared statement does not survive from one transaction to the next, and a
// session-level advisory lock (Kysely's migration lock) is released in the wrong session; with
// it, two processes migrate a fresh schema at once and leave no lock behind.

const sharedUrl = process.env.TEST_DATABASE_URL;
const skipReason =
  sharedUrl === undefined ? 'TEST_DATABASE_URL not set (the shared PostgreSQL cluster)' : pgbouncerUnavailableReason();
if (skipReason !== undefined) console.log(`pgbouncer test skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('through pgbouncer in transaction mode (issue 31)', () => {
  const schema = `pgb_${randomBytes(5).toString('hex')}`;
  let bouncer: OwnPgbouncer | undefined;
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    await bouncer?.stop();
    const client = new pg.Client({ connectionString: sharedUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it('two processes post, the feed reads in order, verify is clean; without pooler=transaction it fails', async () => {
    bouncer = await startPgbouncer(sharedUrl!);
    const url = `${bouncer.url}?schema=${schema}&pooler=transaction`;

    // Without the setting: the schema's session parameter is refused at connect.
    const plain = openPostgres(`${bouncer.url}?schema=${schema}`);
    await expect(plain.ping()).rejects.toThrow(/unsupported startup parameter: options/);
    await plain.close();

    // Named statements, as the service keeps its hot ones without the setting: prepared in one
    // transaction's server session, missing in the next one's (pgbouncer hands out the most
    // recently used server, so another client's open transaction takes it).
    const [a, b] = [new pg.Client({ connectionString: bouncer.url }), new pg.Client({ connectionString: bouncer.url })];
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query({ name: 'store_ops_probe', text: 'select $1::int as n', values: [1] });
      await b.query('begin');
      await expect(a.query({ name: 'store_ops_probe', text: 'select $1::int as n', values: [2] })).rejects.toThrow(
        /prepared statement "store_ops_probe" does not exist/,
      );
      await b.query('rollback');
      // A session-level advisory lock (Kysely's migration lock) the same way: taken in one server
      // session, its unlock lands in another ("you don't own a lock") and the lock stays behind.
      await a.query('select pg_advisory_lock(42424242)');
      await b.query('begin');
      const { rows } = await a.query('select pg_advisory_unlock(42424242) as released');
      expect(rows[0].released).toBe(false);
      await b.query('rollback');
      const leftBehind = await a.query(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = 42424242 and granted",
      );
      expect(leftBehind.rows[0].n).toBe(1);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }

    // With it: two processes migrating the fresh schema at once (the migration lock is
    // transaction-level through a pooler: Kysely's session-level one would be taken in one server
    // session and released in another), then seeding, two processes posting with Idempotency-Keys.
    // (The schema made first: two `create schema if not exists` at once may both try to create it, pooler or not.)
    const admin = new pg.Client({ connectionString: sharedUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const migrating = [openPostgres(url), openPostgres(url)];
    try {
      const applied = await Promise.all(migrating.map((handle) => migrateToLatest(handle)));
      expect(applied[0]!.length + applied[1]!.length).toBeGreaterThan(0);
      expect(applied[0]!.length * applied[1]!.length).toBe(0);
    } finally {
      await Promise.all(migrating.map((handle) => handle.close()));
    }
    await seedFaultDatabase(url);
    servers.push(...(await Promise.all([startServer({ DATABASE_URL: url }), startServer({ DATABASE_URL: url })])));
    const targetOf = (client: number, n: number) => (attempt: number) => servers[(client + n + attempt) % 2]!.baseUrl;
    const clients = keyedClients(6, 'pgbouncer', targetOf, Date.now() + 60_000);
    await pause(3000);
    clients.stop();
    const outcomes = await clients.outcomes;
    console.log(`pgbouncer, 2 processes: ${summary(outcomes, {})}`);
    expect(outcomes.length).toBeGreaterThan(6);
    expect(
      outcomes.filter((o) => o.status < 200 || o.status >= 300 || o.unanswered > 0).map((o) => `${o.key}: ${o.status}`),
    ).toEqual([]);

    // The change feed, read through both processes: numbered from 1 without gaps, every entry's stock event there.
    const events: Array<{
      sequence: number;
      type: string;
      store_number: string | null;
      data: { log_entry_ids?: number[] };
    }> = [];
    for (let after = 0, page = 0; ; page++) {
      const response = await fetch(`${servers[page % 2]!.baseUrl}${API}/events?after=${after}&limit=500`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { events: typeof events; next_after: number };
      events.push(...body.events);
      if (body.events.length === 0) break;
      after = body.next_after;
    }
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const logged = new Set(
      events
        .filter((e) => e.type === 'stock.changed' && e.store_number === STORE)
        .flatMap((e) => e.data.log_entry_ids ?? []),
    );
    expect(logged.size).toBe(outcomes.length * ENTRIES_PER_POST);

    // Every key booked exactly once, and `store-ops verify` (its own process, through the pooler) clean.
    const { entriesByKey, problems } = await audit(url);
    expect(outcomes.filter((o) => entriesByKey.get(o.key) !== ENTRIES_PER_POST).map((o) => o.key)).toEqual([]);
    expect(problems).toEqual([]);
    const verify = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: url },
    });
    expect(verify.stdout).toMatch(/ok: every invariant holds/);

    // No session of the cluster holds Kysely's session-level migration lock (key 3853314791062309107) left behind.
    const direct = new pg.Client({ connectionString: sharedUrl });
    await direct.connect();
    try {
      const { rows } = await direct.query(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = 897169763 and objid = 17238259 and objsubid = 1",
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await direct.end();
    }
  });
});
