import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/dialect/postgres.js';
import { openSqlite } from '../../src/db/dialect/sqlite.js';

// How driver errors become answers (docs/architecture.md "Dialect code in one folder"):
// a full shared lock table on PostgreSQL is a reason to retry (then 503 busy), never a 500;
// every way a lost database shows itself is 'unavailable' (503 with Retry-After), a full disk
// is 'full' (507) (issue 27, docs/decisions.md "Database faults").
describe('PostgreSQL error classification', () => {
  // A pool connects on first use only: no server is needed to classify an error.
  const handle = openPostgres('postgres://nobody@127.0.0.1:1/none');
  afterAll(() => handle.db.destroy());

  it.each([
    ['53200', 'retryable'],
    ['40001', 'retryable'],
    ['40P01', 'retryable'],
    ['23505', 'unique'],
    ['53300', 'unavailable'],
    ['57P01', 'unavailable'], // admin_shutdown: the server is stopping or restarting
    ['57P02', 'unavailable'], // crash_shutdown
    ['57P03', 'unavailable'], // cannot_connect_now: starting up, shutting down, in recovery
    ['08006', 'unavailable'], // connection_failure
    ['25006', 'unavailable'], // read_only_sql_transaction: a standby after a failover
    ['53100', 'full'], // disk_full
    ['ECONNREFUSED', 'unavailable'],
    ['ECONNRESET', 'unavailable'],
    ['ETIMEDOUT', 'unavailable'],
    ['EHOSTUNREACH', 'unavailable'],
    ['ENETUNREACH', 'unavailable'],
    ['EAI_AGAIN', 'unavailable'],
    ['XX000', 'other'],
    ['57014', 'other'], // query_canceled is not a lost database
  ])('%s is %s', (code, kind) => {
    expect(handle.dialect.classifyError(Object.assign(new Error('driver error'), { code }))).toBe(kind);
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
  ])('"%s" is unavailable', (message) => {
    expect(handle.dialect.classifyError(new Error(message))).toBe('unavailable');
  });

  it('a server that refuses the connection is unavailable, as pg reports it', async () => {
    const error = await handle.ping().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(handle.dialect.classifyError(error)).toBe('unavailable');
  });

  it('so is a host name that resolves to several addresses none of which answers (Node reports an AggregateError)', async () => {
    const local = openPostgres('postgres://nobody@localhost:1/none');
    try {
      const error = await local.ping().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(local.dialect.classifyError(error)).toBe('unavailable');
    } finally {
      await local.db.destroy();
    }
  });
});

describe('SQLite error classification', () => {
  const handle = openSqlite('sqlite::memory:', 'FULL');
  afterAll(() => handle.close());

  it.each([
    ['SQLITE_BUSY', 'retryable'],
    ['SQLITE_BUSY_SNAPSHOT', 'retryable'],
    ['SQLITE_FULL', 'full'],
    ['SQLITE_READONLY', 'unavailable'],
    ['SQLITE_READONLY_DBMOVED', 'unavailable'],
    ['SQLITE_IOERR_WRITE', 'unavailable'],
    ['SQLITE_CANTOPEN', 'unavailable'],
    ['SQLITE_CONSTRAINT_UNIQUE', 'unique'],
    ['SQLITE_ERROR', 'other'],
  ])('%s is %s', (code, kind) => {
    expect(handle.dialect.classifyError(Object.assign(new Error('driver error'), { code }))).toBe(kind);
  });
});
