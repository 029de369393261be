import { startBenchApp, tempDir } from '../lib/app.js';
import { profileOnce } from '../lib/profile.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { IMPORT_STORES, importBody, timedImport } from './stores-import.js';

const NAME = 'stores.import.10k.resend';
const CREATED = `created ${IMPORT_STORES}, updated 0, unchanged 0, deleted 0`;
const UNCHANGED = `created 0, updated 0, unchanged ${IMPORT_STORES}, deleted 0`;

/** An identical re-send changes nothing (PRODUCT §3), so it should cost well under the first import. */
export const storesResend: Scenario = {
  name: NAME,
  description: `POST the identical ${IMPORT_STORES} stores a second time (nothing changes) against the first import of them, same fresh database, app.inject`,
  unit: 'ms',
  valueLabel: 'app re-send',
  baselineLabel: 'first import',
  target: { ratio: 0.5, comparison: '<=', description: 'identical re-send ≤ 0.5 × the first import' },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stores-resend'), (t) => t.remove());
      const { body } = importBody();
      const importTwice = async (name: string, profile: boolean): Promise<Sample> => {
        const bench = await startBenchApp(temp.dir, name);
        try {
          const first = await timedImport(bench, body, CREATED);
          const resend = () => timedImport(bench, body, UNCHANGED);
          return { value: profile ? await profileOnce(NAME, resend) : await resend(), baseline: first };
        } finally {
          await bench.close();
        }
      };
      // One untimed round first, so the first measured run does not pay for JIT warm-up.
      await importTwice('warmup', false);
      return {
        measure: (run) => importTwice(`app-${run}`, true),
        close: () => resources.release(),
      };
    }),
};
