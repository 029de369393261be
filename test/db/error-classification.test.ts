import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/dialect/postgres.js';

// How driver errors become answers (docs/architecture.md "Dialect code in one folder"):
// a full shared lock table on PostgreSQL is a reason to retry (then 503 busy), never a 500.
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
    ['XX000', 'other'],
  ])('%s is %s', (code, kind) => {
    expect(handle.dialect.classifyError(Object.assign(new Error('driver error'), { code }))).toBe(kind);
  });
});
