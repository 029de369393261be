import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { formatLsn, lsnReached, parseLsn } from '../../src/db/dialect/postgres-read.js';
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
    for (const bad of ['', '/', '0/', '/0', '1', '1/2/3', '123456789/0', '0/123456789', 'G/0', ' 0/1', '0/1 ', '-1/0', '0x1/0']) {
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
  const request = (value: string | string[] | undefined) => ({ headers: value === undefined ? {} : { 'x-read-after': value } }) as unknown as FastifyRequest;

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
