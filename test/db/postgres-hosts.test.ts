import pg from 'pg';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/dialect/postgres.js';
import {
  findHost,
  HostPool,
  matches,
  NoMatchingHostError,
  parsePostgresUrl,
} from '../../src/db/dialect/postgres-hosts.js';

// DATABASE_URL with several hosts, as libpq takes them (issue 31 "Writes find the primary"):
// the parsing, checked against what pg itself reads from each single-host URL, and the look for
// the host on the shared cluster (a refused host before it). The same on a primary and a real
// standby, and a failover: test/faults/postgres-hosts.test.ts and failover.test.ts.

/** What pg connects with, given one host's URL. */
const pgReads = (url: string) => {
  const client = new pg.Client({ connectionString: url });
  const { host, port, user, database } = client;
  return { host, port, user, database, password: (client as unknown as { password: string }).password };
};

describe('DATABASE_URL with several hosts', () => {
  it('leaves a one-host URL as it was: no look, the schema taken out', () => {
    const target = parsePostgresUrl('postgres://postgres:secret@127.0.0.1:5432/postgres?schema=t_1&sslmode=disable');
    expect(target).toMatchObject({ targetSessionAttrs: 'any', schema: 't_1', needsDiscovery: false });
    expect(target.hosts).toEqual([
      {
        host: '127.0.0.1',
        port: 5432,
        name: '127.0.0.1:5432',
        url: 'postgres://postgres:secret@127.0.0.1:5432/postgres?sslmode=disable',
      },
    ]);
  });

  it('splits hosts and ports, one URL each, and asks for a server that accepts writes by default', () => {
    const target = parsePostgresUrl('postgresql://u:p@h1:5432,h2:5433,h3/db?application_name=ops');
    expect(target.targetSessionAttrs).toBe('read-write');
    expect(target.needsDiscovery).toBe(true);
    expect(target.hosts.map((h) => h.name)).toEqual(['h1:5432', 'h2:5433', 'h3:5432']);
    expect(target.hosts.map((h) => h.url)).toEqual([
      'postgresql://u:p@h1:5432/db?application_name=ops',
      'postgresql://u:p@h2:5433/db?application_name=ops',
      'postgresql://u:p@h3/db?application_name=ops',
    ]);
    expect(target.hosts.map((h) => pgReads(h.url))).toEqual([
      { host: 'h1', port: 5432, user: 'u', database: 'db', password: 'p' },
      { host: 'h2', port: 5433, user: 'u', database: 'db', password: 'p' },
      { host: 'h3', port: 5432, user: 'u', database: 'db', password: 'p' },
    ]);
  });

  it('takes IPv6 addresses in brackets', () => {
    const target = parsePostgresUrl('postgres://u@[::1]:5433,[2001:db8::7]/db');
    expect(target.hosts.map((h) => [h.host, h.port, h.name])).toEqual([
      ['::1', 5433, '[::1]:5433'],
      ['2001:db8::7', undefined, '[2001:db8::7]:5432'],
    ]);
    expect(target.hosts.map((h) => pgReads(h.url)).map(({ host, port }) => [host, port])).toEqual([
      ['::1', 5433],
      ['2001:db8::7', 5432],
    ]);
  });

  it('keeps a percent-encoded user, password and database for pg to decode', () => {
    const target = parsePostgresUrl(
      'postgres://st%40re:p%3Aa%2Fs%40s%2Cw@db-a,db-b:6432/stock%20ops?schema=chain_1&target_session_attrs=primary',
    );
    expect(target).toMatchObject({ targetSessionAttrs: 'primary', schema: 'chain_1' });
    expect(target.hosts.map((h) => pgReads(h.url))).toEqual([
      { host: 'db-a', port: 5432, user: 'st@re', password: 'p:a/s@s,w', database: 'stock ops' },
      { host: 'db-b', port: 6432, user: 'st@re', password: 'p:a/s@s,w', database: 'stock ops' },
    ]);
    expect(target.hosts.every((h) => !h.url.includes('schema') && !h.url.includes('target_session_attrs'))).toBe(true);
  });

  it('takes every libpq target_session_attrs and refuses others, a bad port, a bad schema — without echoing the password', () => {
    for (const attrs of ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby']) {
      expect(parsePostgresUrl(`postgres://u@h1,h2/db?target_session_attrs=${attrs}`).targetSessionAttrs).toBe(attrs);
    }
    expect(parsePostgresUrl('postgres://u@h1/db?target_session_attrs=read-write').needsDiscovery).toBe(true);
    expect(() => parsePostgresUrl('postgres://u@h1,h2/db?target_session_attrs=master')).toThrow(
      /Invalid target_session_attrs/,
    );
    expect(() => parsePostgresUrl('postgres://u:hunter2@h1:99999,h2/db')).toThrow(/Invalid port "99999"/);
    expect(() => parsePostgresUrl('postgres://u:hunter2@h1:99999,h2/db')).not.toThrow(/hunter2/);
    expect(() => parsePostgresUrl('postgres://u@h1,h2/db?schema=Bad-Name')).toThrow(
      /Invalid schema name in DATABASE_URL: Bad-Name/,
    );
    expect(() => parsePostgresUrl('postgres://u@[::1/db')).toThrow(/Invalid host/);
  });

  it('matches a server role as libpq does', () => {
    const primary = { inRecovery: false, readOnly: false };
    const standby = { inRecovery: true, readOnly: true };
    const readOnlyPrimary = { inRecovery: false, readOnly: true };
    expect([primary, standby, readOnlyPrimary].map((role) => matches('read-write', role))).toEqual([
      true,
      false,
      false,
    ]);
    expect([primary, standby, readOnlyPrimary].map((role) => matches('primary', role))).toEqual([true, false, true]);
    expect([primary, standby, readOnlyPrimary].map((role) => matches('standby', role))).toEqual([false, true, false]);
    expect([primary, standby, readOnlyPrimary].map((role) => matches('read-only', role))).toEqual([false, true, true]);
  });

  it('a one-host pool is a plain pg.Pool of plain clients', async () => {
    const hosts = new HostPool(parsePostgresUrl('postgres://nobody@127.0.0.1:1/none'), {
      connectionTimeoutMillis: 1000,
    });
    expect(hosts.pool.options.connectionString).toBe('postgres://nobody@127.0.0.1:1/none');
    expect((hosts.pool as unknown as { Client: unknown }).Client).toBe(pg.Client);
    await hosts.end();
  });
});

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(url === undefined)('looking for the host on a real server (TEST_DATABASE_URL)', () => {
  /** The shared cluster's URL with a host that refuses connections put before it. */
  const withDeadHostFirst = (extra = '') => {
    const target = new URL(url!);
    const userinfo = `${target.username}${target.password ? `:${target.password}` : ''}@`;
    const query = new URLSearchParams(target.search);
    for (const [name, value] of new URLSearchParams(extra)) query.set(name, value);
    return `postgres://${userinfo}127.0.0.1:1,${target.host}${target.pathname}${query.size > 0 ? `?${query}` : ''}`;
  };

  it('skips a host that refuses and finds the one that accepts writes', async () => {
    const target = parsePostgresUrl(withDeadHostFirst());
    const found = await findHost(target, {}, 15_000);
    expect(found).not.toBeInstanceOf(Error);
    expect((found as { host: { name: string } }).host.name).toBe(target.hosts[1]!.name);
    expect((found as { role: unknown }).role).toEqual({ inRecovery: false, readOnly: false });
  });

  it('with no host of the asked role, says why for each host: 08001, so a 503 with Retry-After', async () => {
    const target = parsePostgresUrl(withDeadHostFirst('target_session_attrs=standby'));
    const found = await findHost(target, {}, 15_000);
    expect(found).toBeInstanceOf(NoMatchingHostError);
    expect((found as Error).message).toMatch(
      /127\.0\.0\.1:1 .*ECONNREFUSED.*; .* is a primary|127\.0\.0\.1:1 .*ECONNREFUSED.*; .* is read-only/,
    );
    const handle = openPostgres(withDeadHostFirst('target_session_attrs=standby'));
    try {
      const error = await handle.ping().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(NoMatchingHostError);
      expect(handle.dialect.classifyError(error)).toBe('unavailable');
    } finally {
      await handle.close();
    }
  });

  it('serves the whole handle through the host it found: statements, a transaction, COPY, the pool figures', async () => {
    const schema = `t_hosts_${process.pid}`;
    const handle = openPostgres(withDeadHostFirst(`schema=${schema}`));
    try {
      await sql`create schema if not exists ${sql.id(schema)}`.execute(handle.db);
      await sql`create table if not exists hosts_probe (id bigint primary key, note text)`.execute(handle.db);
      await handle.db.transaction().execute(async (trx) => {
        await sql`insert into hosts_probe values (1, 'in a transaction')`.execute(trx);
      });
      await handle.bulkLoad('hosts_probe' as never, ['id', 'note'], [[2, 'copied']]);
      const { rows } = await sql<{ id: number; note: string }>`select id, note from hosts_probe order by id`.execute(
        handle.db,
      );
      expect(rows).toEqual([
        { id: 1, note: 'in a transaction' },
        { id: 2, note: 'copied' },
      ]);
      await handle.ping();
      expect(handle.poolStats()).toMatchObject({ waiting: 0, lost: 0 });
    } finally {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db).catch(() => undefined);
      await handle.close();
    }
  });
});
