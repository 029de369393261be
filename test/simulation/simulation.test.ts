import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { buildTestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { sequenceArb } from './actions.js';
import { runSequence } from './runner.js';

// The whole-store simulation (issue 26), short: every operation combined with every other,
// under every token, against the reference model (model.ts); `verify` after each sequence.
// Longer searches: `npm run simulate -- --runs N` (docs/simulation.md). A failure prints the
// shrunk sequence's trace and the seed and path that replay it (SIMULATION_SEED / _PATH).

const RUNS = { sqlite: 12, postgres: 5 } as const;
const SEED = 2026;

for (const dialect of DIALECTS) {
  describe(`whole-store simulation (${dialect.name})`, () => {
    afterAll(() => dialect.cleanup());
    let runs = 0;

    it("every answer and every balance is the model's, and verify holds, for random sequences of every operation", async () => {
      await fc.assert(
        fc.asyncProperty(sequenceArb(25, 45), async (actions) => {
          const t = await buildTestApp(dialect);
          try {
            await runSequence(t.app, actions, `r${++runs}`);
          } finally {
            await t.close();
          }
        }),
        {
          numRuns: Number(process.env.SIMULATION_RUNS ?? RUNS[dialect.name]),
          // A fixed seed: the suite is reproducible, and a difference it shows is one every run shows.
          // The random search is `npm run simulate` (docs/simulation.md); SIMULATION_SEED picks another.
          seed: Number(process.env.SIMULATION_SEED ?? SEED),
          ...(process.env.SIMULATION_PATH ? { path: process.env.SIMULATION_PATH } : {}),
        },
      );
    }, 600_000);
  });
}
