import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/dialect/postgres.js';
import {
  findHost,
  NoMatchingHostError,
  parsePostgresUrl,
  type TargetSessionAttrs,
} from '../../src/db/dialect/postgres-hosts.js';
import type { DbHandle } from '../../src/db/connect.js';
import { createReplicatedPair, replicatedPairUnavailableReason, type ReplicatedPair } from './pg-pair.js';

// The look for the host (src/db/dialect/postgres-hosts.ts, issue 31) on a real primary and a
// real standby of the test's own: which host each target_session_attrs finds with the standby
// named first, a primary that turns read-only (25006, then no host accepts writes: 503s, then
// writes again once it takes them), and a failover (every connection moves to the promoted
// standby). The whole service through a failover under load: failover.test.ts.

const reason = replicatedPairUnavailableReason();

describe.skipIf(reason !== undefined)('several hosts on a primary and a standby', () => {
  let pair: ReplicatedPair;
  let handle: DbHandle;
  /** Both hosts, the standby first. */
  let standbyFirst: string;

  beforeAll(async () => {
    pair = await createReplicatedPair();
    standbyFirst = `postgres://postgres@127.0.0.1:${pair.standby.port},127.0.0.1:${pair.primary.port}/postgres`;
    handle = openPostgres(standbyFirst);
    await sql`create table hosts_writes (id bigint primary key)`.execute(handle.db);
  }, 120_000);
  afterAll(async () => {
    await handle?.close();
    await pair?.destroy();
  });

  const serverPort = async (db: DbHandle['db']) =>
    (await sql<{ port: number }>`select inet_server_port() as port`.execute(db)).rows[0]!.port;
  const setOnPrimary = async (setting: string) => {
    const client = new pg.Client({ connectionString: pair.primary.url });
    await client.connect();
    try {
      await client.query(`alter system set ${setting}`);
      await client.query('select pg_reload_conf()');
    } finally {
      await client.end();
    }
  };

  it.each<[TargetSessionAttrs, 'primary' | 'standby']>([
    ['read-write', 'primary'],
    ['primary', 'primary'],
    ['any', 'standby'],
    ['standby', 'standby'],
    ['read-only', 'standby'],
    ['prefer-standby', 'standby'],
  ])('target_session_attrs=%s finds the %s', async (attrs, expected) => {
    const found = await findHost(parsePostgresUrl(`${standbyFirst}?target_session_attrs=${attrs}`), {}, 2000);
    expect(found).not.toBeInstanceOf(Error);
    expect((found as { host: { port: number } }).host.port).toBe(pair[expected].port);
  });

  it('writes go to the primary though the standby is named first', async () => {
    await sql`insert into hosts_writes values (1)`.execute(handle.db);
    expect(await serverPort(handle.db)).toBe(pair.primary.port);
  });

  it('a primary that turns read-only: the write fails whole (25006, a 503), then no host accepts writes (08001), then writes go on', async () => {
    // Connections held open, so the next write meets a connection made before the change.
    await Promise.all([1, 2, 3].map(() => serverPort(handle.db)));
    await setOnPrimary('default_transaction_read_only = on');
    await new Promise((resolve) => setTimeout(resolve, 200));
    try {
      const refused = await handle.db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into hosts_writes values (2)`.execute(trx);
          await sql`insert into hosts_writes values (3)`.execute(trx);
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((refused as { code?: string }).code).toBe('25006');
      expect(handle.dialect.classifyError(refused)).toBe('unavailable');
      // The next connection looks again: the only server that accepts writes no longer does.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const none = await sql`insert into hosts_writes values (2)`.execute(handle.db).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(none).toBeInstanceOf(NoMatchingHostError);
      expect(String((none as Error).message)).toMatch(/is read-only.*is a standby|is a standby.*is read-only/);
      expect(handle.dialect.classifyError(none)).toBe('unavailable');
    } finally {
      await setOnPrimary('default_transaction_read_only = off');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    await sql`insert into hosts_writes values (2)`.execute(handle.db);
    const { rows } = await sql<{ id: number }>`select id from hosts_writes order by id`.execute(handle.db);
    expect(rows.map((row) => row.id)).toEqual([1, 2]);
  });

  it('after a failover every connection goes to the promoted standby, without a new handle', async () => {
    await pair.primary.stopImmediate();
    await pair.promote();
    let written = false;
    const deadline = Date.now() + 10_000;
    while (!written && Date.now() < deadline) {
      written = await sql`insert into hosts_writes values (4)`.execute(handle.db).then(
        () => true,
        () => false,
      );
      if (!written) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(written).toBe(true);
    const ports = await Promise.all([1, 2, 3, 4].map(() => handle.db.transaction().execute((trx) => serverPort(trx))));
    expect(new Set(ports)).toEqual(new Set([pair.standby.port]));
    // Synchronous replication: every write acknowledged before the stop is on the new primary.
    const { rows } = await sql<{ id: number }>`select id from hosts_writes order by id`.execute(handle.db);
    expect(rows.map((row) => row.id)).toEqual([1, 2, 4]);
  });
});

describe.skipIf(reason === undefined)('several hosts on a primary and a standby', () => {
  it.skip(`needs PostgreSQL clusters of its own: ${reason}`, () => undefined);
});
