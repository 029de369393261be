import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createDb } from '../../src/db/connect.js';
import { formatLsn, lsnReached, parseLsn, writePositions } from '../../src/db/dialect/postgres-read.js';
import { readAfterOf } from '../../src/plugins/read-routing.js';

// Issue 31 read scaling: the consistency token (`x-read-after`) is a pg_lsn; reads compare
// it with a standby's pg_last_wal_replay_lsn() as 64-bit numbers, never as text.

describe('WAL positions (pg_lsn)', () => {
  it('parses hex/hex into its 64-bit number and writes it back as PostgreSQL does', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
    expect(parseLsn('a/b')).toBe((10n << 32n) | 11n);
    expect(formatLsn(parseLsn('16/B374D848')!)).toBe('16/B374D848');
    expect(formatLsn(0n)).toBe('0/0');
  });

  it('refuses what is not a pg_lsn', () => {
    for (const bad of [
      '',
      '/',
      '0/',
      '/0',
      '1',
      '1/2/3',
      '123456789/0',
      '0/123456789',
      'G/0',
      ' 0/1',
      '0/1 ',
      '-1/0',
      '0x1/0',
    ]) {
      expect(parseLsn(bad), bad).toBeUndefined();
    }
  });

  it('compares as numbers: the high half first, and 0/A0000000 after 0/9FFFFFFF (unlike text)', () => {
    expect(lsnReached(parseLsn('0/A0000000'), parseLsn('0/9FFFFFFF')!)).toBe(true);
    expect(lsnReached(parseLsn('0/9FFFFFFF'), parseLsn('0/A0000000')!)).toBe(false);
    expect(lsnReached(parseLsn('1/0'), parseLsn('0/FFFFFFFF')!)).toBe(true);
    expect(lsnReached(parseLsn('0/10'), parseLsn('0/10')!)).toBe(true);
    expect(lsnReached(parseLsn('0/F'), parseLsn('0/10')!)).toBe(false);
    // A server that replayed nothing (not a standby) has reached no position.
    expect(lsnReached(undefined, 0n)).toBe(false);
  });
});

describe('the x-read-after header', () => {
  const request = (value: string | string[] | undefined) =>
    ({ headers: value === undefined ? {} : { 'x-read-after': value } }) as unknown as FastifyRequest;

  it('is optional, and taken as a WAL position (surrounding blanks ignored)', () => {
    expect(readAfterOf(request(undefined))).toBeUndefined();
    expect(readAfterOf(request('0/16B3748'))).toBe(0x16b3748n);
    expect(readAfterOf(request(' 1/0 '))).toBe(1n << 32n);
  });

  it('malformed: a 400 VALIDATION_FAILED naming the header', () => {
    for (const bad of ['', 'latest', '1/2/3', '123456789/0']) {
      let caught: unknown;
      try {
        readAfterOf(request(bad));
      } catch (error) {
        caught = error;
      }
      expect(caught, bad).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'headers.x-read-after' }] });
      expect((caught as Error).message).toContain('x-read-after');
    }
    expect(() => readAfterOf(request(['0/1', '0/2']))).toThrow(/x-read-after/);
  });
});

describe('write positions for x-read-after', () => {
  /** A fake pool connection whose query answers when the test says, counting the questions. */
  function fakePool() {
    const asked: Array<(lsn: string) => void> = [];
    const connect = async () =>
      ({
        query: () => new Promise((resolve) => asked.push((lsn) => resolve({ rows: [{ lsn }] }))),
        release: () => undefined,
      }) as unknown as pg.PoolClient;
    return { asked, connect };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('callers before a question starts share it; a caller while it runs gets the next one, which starts after it', async () => {
    const { asked, connect } = fakePool();
    const position = writePositions(connect);
    const first = [position(), position()];
    await tick();
    expect(asked).toHaveLength(1);
    // Asked while the first question runs: its commit may be after that question began.
    const second = [position(), position()];
    await tick();
    expect(asked).toHaveLength(1);
    asked[0]!('0/10');
    expect(await Promise.all(first)).toEqual(['0/10', '0/10']);
    await tick();
    expect(asked).toHaveLength(2);
    asked[1]!('0/20');
    expect(await Promise.all(second)).toEqual(['0/20', '0/20']);
  });

  it('a failed question fails its callers only', async () => {
    let fail = true;
    const position = writePositions(
      async () =>
        ({
          query: async () => {
            if (fail) throw new Error('Connection terminated');
            return { rows: [{ lsn: '0/30' }] };
          },
          release: () => undefined,
        }) as unknown as pg.PoolClient,
    );
    await expect(position()).rejects.toThrow(/terminated/);
    fail = false;
    expect(await position()).toBe('0/30');
  });
});

describe('DATABASE_READ_URL settings', () => {
  it('are read from the environment, with a 5 s lag limit by default', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db1/x' })).toMatchObject({
      databaseReadUrl: undefined,
      databaseReadMaxLagSeconds: 5,
    });
    expect(
      loadConfig({
        DATABASE_URL: 'postgres://u@db1/x',
        DATABASE_READ_URL: 'postgres://u@db2,db3/x',
        DATABASE_READ_MAX_LAG_SECONDS: '2.5',
      }),
    ).toMatchObject({
      databaseReadUrl: 'postgres://u@db2,db3/x',
      databaseReadMaxLagSeconds: 2.5,
    });
    expect(() => loadConfig({ DATABASE_READ_MAX_LAG_SECONDS: '0' })).toThrow(/DATABASE_READ_MAX_LAG_SECONDS/);
  });

  it('need a PostgreSQL DATABASE_URL', () => {
    expect(() => createDb('sqlite::memory:', { readUrl: 'postgres://u@db2/x' })).toThrow(
      /DATABASE_READ_URL needs a PostgreSQL DATABASE_URL/,
    );
  });
});
