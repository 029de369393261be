import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/db/dialect/sqlite.js';
import type { DbHandle } from '../../src/db/dialect/types.js';
import { buildTestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

// DbHandle.changeToken lets the single-product stock read answer again without reading
// anything: every way committed data can change must change the token, or that read
// answers stale stock.
describe('SQLite change token', () => {
  let dir: string;
  let handle: DbHandle;
  let other: SqliteDatabase.Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'change-token-'));
    const file = join(dir, 'db.sqlite');
    handle = openSqlite(`sqlite:${file}`, 'NORMAL');
    await sql`create table probe (id integer primary key, label text)`.execute(handle.db);
    await sql`insert into probe (id, label) values (1, 'a')`.execute(handle.db);
    other = new SqliteDatabase(file);
  });
  afterAll(async () => {
    other.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = () => {
    const value = handle.changeToken();
    expect(value).toBeTypeOf('string');
    return value!;
  };

  it('stays the same while only reads happen, through Kysely or the direct reader', async () => {
    const before = token();
    await handle.db
      .selectFrom('probe' as never)
      .selectAll()
      .execute();
    await sql`select count(*) from probe`.execute(handle.db);
    expect(token()).toBe(before);
  });

  it('changes with a write of this connection, with or without rows returned', async () => {
    let before = token();
    await sql`update probe set label = 'b' where id = 1`.execute(handle.db);
    expect(token()).not.toBe(before);
    before = token();
    await sql`insert into probe (id, label) values (2, 'c') returning id`.execute(handle.db);
    expect(token()).not.toBe(before);
  });

  it('changes with a commit of another connection on the same file', () => {
    const before = token();
    other.prepare(`update probe set label = 'from elsewhere' where id = 1`).run();
    expect(token()).not.toBe(before);
  });

  it('changes with a commit of another process, read from the WAL-index header rather than asked of SQLite', () => {
    const before = token();
    // The fast path: the stamp is the -shm file's header, not data_version (`v…`).
    expect(before.startsWith('v')).toBe(false);
    const script = `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(join(dir, 'db.sqlite'))}); d.prepare("update probe set label = 'other process' where id = 1").run(); d.close();`;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(token()).not.toBe(before);
    const unchanged = token();
    expect(token()).toBe(unchanged);
  });

  it('is undefined inside a transaction, and changes when one rolls back', async () => {
    const before = token();
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await sql`update probe set label = 'never' where id = 1`.execute(trx);
        expect(handle.changeToken()).toBeUndefined();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(token()).not.toBe(before);
    const rows = await sql<{ label: string }>`select label from probe where id = 1`.execute(handle.db);
    expect(rows.rows[0]?.label).toBe('other process');
  });
});

describe('SQLite change token without a WAL-index header (in-memory database)', () => {
  it('asks SQLite instead, and still changes with every write and only then', async () => {
    const memory = openSqlite('sqlite::memory:', 'NORMAL');
    try {
      await sql`create table probe (id integer primary key)`.execute(memory.db);
      const before = memory.changeToken();
      expect(before?.startsWith('v')).toBe(true);
      await sql`select count(*) from probe`.execute(memory.db);
      expect(memory.changeToken()).toBe(before);
      await sql`insert into probe (id) values (1)`.execute(memory.db);
      expect(memory.changeToken()).not.toBe(before);
    } finally {
      await memory.close();
    }
  });
});

for (const dialect of DIALECTS.filter((d) => d.name === 'postgres')) {
  describe('PostgreSQL change token', () => {
    it('is never given: a pool and other processes cannot be followed cheaply', async () => {
      const t = await buildTestApp(dialect);
      try {
        expect(t.app.ctx.handle.changeToken()).toBeUndefined();
      } finally {
        await t.close();
        await dialect.cleanup();
      }
    });
  });
}
