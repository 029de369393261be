import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { restartableDatabaseUrl } from '../helpers/factories.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { audit, ENTRIES_PER_POST, keyedClients, pause, seedFaultDatabase, summary } from './keyed-load.js';

// Issue 27 "Rolling restart": two server processes on one database, clients alternating
// between their ports, each process restarted in turn with SIGTERM while the clients post
// with Idempotency-Keys. SIGTERM stops accepting and finishes what is in flight (PRODUCT §2);
// a try that lands on a closing process gets no answer and goes to the other one with the
// same key. Every request is settled, none lost, none doubled, and each process exits
// within 5 s of its SIGTERM.

const CLIENTS = 8;
const ROUNDS = 1;
const EXIT_WITHIN_MILLIS = 5_000;

for (const dialect of DIALECTS) {
  describe(`rolling restart under keyed load, two processes (${dialect.name})`, () => {
    const slots: Array<ServerProcess | undefined> = [undefined, undefined];
    afterAll(async () => {
      await Promise.all(slots.map((server) => server?.kill()));
      await dialect.cleanup();
    });

    it(`each of two processes restarted ${ROUNDS}× with SIGTERM while ${CLIENTS} clients post: every request settled, lost 0, doubled 0`, async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      await seedFaultDatabase(databaseUrl);
      [slots[0], slots[1]] = await Promise.all([
        startServer({ DATABASE_URL: databaseUrl }),
        startServer({ DATABASE_URL: databaseUrl }),
      ]);
      const exitMillis: number[] = [];
      const exitCodes: number[] = [];
      // Alternate between the processes that are up; a try after an unanswered one goes to the other.
      const targetOf = (client: number, n: number) => (attempt: number) => {
        const up = slots.filter((server): server is ServerProcess => server !== undefined);
        return up.length === 0 ? undefined : up[(client + n + attempt) % up.length]!.baseUrl;
      };
      const clients = keyedClients(CLIENTS, `rolling-${dialect.name}`, targetOf, Date.now() + 120_000);

      for (let round = 0; round < ROUNDS; round++) {
        for (const slot of [0, 1]) {
          await pause(700);
          const leaving = slots[slot]!;
          slots[slot] = undefined;
          const termAt = Date.now();
          await leaving.stop();
          exitMillis.push(Date.now() - termAt);
          exitCodes.push(leaving.child.exitCode ?? -1);
          slots[slot] = await startServer({ DATABASE_URL: databaseUrl });
        }
      }
      await pause(700);
      clients.stop();
      const outcomes = await clients.outcomes;

      const { entriesByKey, problems } = await audit(databaseUrl);
      console.log(
        `faults (${dialect.name}) rolling restart: ${summary(outcomes, { restarts: ROUNDS * 2, 'SIGTERM to exit ms (max)': Math.max(...exitMillis), 'exit codes': exitCodes.join(' ') })}`,
      );
      expect(outcomes.filter((o) => o.status < 200 || o.status >= 300).map((o) => `${o.key}: ${o.status}`)).toEqual([]);
      expect(outcomes.filter((o) => o.refusals.length > 0).map((o) => `${o.key}: ${o.refusals.join(' | ')}`)).toEqual(
        [],
      );
      expect(
        outcomes
          .filter((o) => (entriesByKey.get(o.key) ?? 0) !== ENTRIES_PER_POST)
          .map((o) => `${o.key}: ${entriesByKey.get(o.key) ?? 0}`),
      ).toEqual([]);
      expect(problems).toEqual([]);
      expect(exitMillis.filter((ms) => ms > EXIT_WITHIN_MILLIS)).toEqual([]);
      // 0: it finished its work and closed; the 4.5 s grace timer's forced exit would be 1.
      expect(exitCodes).toEqual(exitCodes.map(() => 0));
    }, 240_000);
  });
}
