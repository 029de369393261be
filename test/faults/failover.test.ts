import { describe, expect, it } from 'vitest';
import { describeDrill, runDrill } from './failover-drill.js';
import { replicatedPairUnavailableReason } from './pg-pair.js';

// Issue 31 "The drill, as a test and a script" (the script: `npm run drill`, scripts/ha-drill.ts):
// a primary with a synchronous standby of the test's own, the service started as `npm start`
// runs it with both hosts in DATABASE_URL, clients posting stock with Idempotency-Keys; the
// primary is stopped with `-m immediate` and the standby promoted. The service writes to the
// new primary within 10 s without a restart, no acknowledged write is lost, every retry
// resolves, nothing is applied twice, and `store-ops verify` is clean on the new primary.
// About 20 s, so it runs in CI with the other fault tests.

const FIRST_WRITE_WITHIN_MILLIS = 10_000;
const reason = replicatedPairUnavailableReason();

describe.skipIf(reason !== undefined)('failover to a synchronous standby under keyed load (issue 31)', () => {
  it('writes reach the promoted standby within 10 s, with no acknowledged write lost and every retry resolved', async () => {
    const figures = await runDrill({ synchronousCommit: 'on' });
    console.log(describeDrill(figures));

    expect(figures.serviceStayedUp).toBe(true);
    expect(figures.firstWriteAfterStopMillis).toBeDefined();
    expect(figures.firstWriteAfterStopMillis!).toBeLessThan(FIRST_WRITE_WITHIN_MILLIS);
    // No acknowledged write lost, none applied twice or in part.
    expect(figures.keyed.settled).toBe(figures.keyed.requests);
    expect(figures.keyed.lost).toEqual([]);
    expect(figures.keyed.doubled).toEqual([]);
    expect({ missing: figures.observer.missing, torn: figures.observer.torn }).toEqual({ missing: 0, torn: 0 });
    // Every retry resolved, and nothing but 2xx and 503 UNAVAILABLE with Retry-After was answered.
    expect(figures.keyed.retriesResolved).toBe(figures.keyed.retried);
    expect(figures.keyed.refusals).toEqual([]);
    expect(figures.observer.unexpected).toEqual([]);
    // The failover was felt (the drill tested something), and what the operator sees says so.
    expect(figures.keyed.retried + figures.observer.unavailable).toBeGreaterThan(0);
    expect(figures.unavailableLogLines).toBeGreaterThan(0);
    expect(figures.metrics).toContain('db_up 1');
    expect(figures.verify).toMatchObject({ exitCode: 0 });
  }, 120_000);
});

describe.skipIf(reason === undefined)('failover to a synchronous standby under keyed load (issue 31)', () => {
  it.skip(`needs PostgreSQL clusters of its own: ${reason}`, () => undefined);
});
