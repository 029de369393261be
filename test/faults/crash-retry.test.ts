import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { restartableDatabaseUrl } from '../helpers/factories.js';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { audit, ENTRIES_PER_POST, keyedClients, pause, seedFaultDatabase, summary } from './keyed-load.js';

// Issue 27, PRODUCT §3 "A retry after a crash resolves at once": 8 clients post stock, each
// request with its own Idempotency-Key, while the server is killed with SIGKILL again and
// again and started anew on the same database. Every client retries what got no answer with
// the same key. Lost 0, doubled 0, no "still being processed", and every retry settled within
// 10 s of the restart (a request that died before its commit left nothing; one that committed
// replays its stored answer). The figures are printed for the closing note.

const CLIENTS = 8;
const KILLS = 3;
const RESOLVE_WITHIN_MILLIS = 10_000;

for (const dialect of DIALECTS) {
  describe(`kill -9 under keyed load, then retries with the same keys (${dialect.name})`, () => {
    let server: ServerProcess | undefined;
    afterAll(async () => {
      await server?.kill();
      await dialect.cleanup();
    });

    it(`${KILLS} kills while ${CLIENTS} clients post: lost 0, doubled 0, every retry settled within 10 s of the restart`, async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      await seedFaultDatabase(databaseUrl);
      server = await startServer({ DATABASE_URL: databaseUrl });
      const readyAt: number[] = [];
      const restartMillis: number[] = [];
      const clients = keyedClients(CLIENTS, `crash-${dialect.name}`, () => () => server?.baseUrl, Date.now() + 90_000);

      for (let kill = 0; kill < KILLS; kill++) {
        await pause(800 + Math.random() * 700);
        const victim = server!;
        server = undefined;
        await victim.kill();
        const killedAt = Date.now();
        server = await startServer({ DATABASE_URL: databaseUrl });
        readyAt.push(Date.now());
        restartMillis.push(Date.now() - killedAt);
      }
      await pause(1_000);
      clients.stop();
      const outcomes = await clients.outcomes;

      const { entriesByKey, problems } = await audit(databaseUrl);
      const unsettled = outcomes.filter((o) => o.status < 200 || o.status >= 300);
      const refused = outcomes.filter((o) => o.refusals.length > 0);
      const wrongCounts = outcomes
        .filter((o) => (entriesByKey.get(o.key) ?? 0) !== ENTRIES_PER_POST)
        .map((o) => `${o.key}: ${entriesByKey.get(o.key) ?? 0}`);
      // From the first restart after a try went unanswered to the answer that settled it.
      const resolveMillis = outcomes
        .filter((o) => o.firstUnansweredAt !== undefined)
        .map((o) => o.settledAt - (readyAt.find((at) => at >= o.firstUnansweredAt!) ?? o.firstUnansweredAt!));
      console.log(
        `faults (${dialect.name}) kill -9: ${summary(outcomes, {
          kills: KILLS,
          'restart to ready ms (max)': Math.max(...restartMillis),
          'retry settled after restart ms (max)': resolveMillis.length === 0 ? 0 : Math.max(...resolveMillis),
        })}`,
      );

      expect(unsettled.map((o) => `${o.key}: ${o.status}`)).toEqual([]);
      expect(refused.map((o) => `${o.key}: ${o.refusals.join(' | ')}`)).toEqual([]);
      expect(wrongCounts).toEqual([]);
      expect(problems).toEqual([]);
      expect(resolveMillis.filter((ms) => ms > RESOLVE_WITHIN_MILLIS)).toEqual([]);
      // The kills did land on requests: without unanswered tries the test proved nothing.
      expect(outcomes.some((o) => o.unanswered > 0)).toBe(true);
    }, 180_000);
  });
}
