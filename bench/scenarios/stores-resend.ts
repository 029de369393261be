import { startBenchApp, tempDir } from '../lib/app.js';
import type { Scenario } from '../lib/scenario.js';
import { IMPORT_STORES, importBody, timedImport } from './stores-import.js';

/** An identical re-send changes nothing (PRODUCT §3), so it should cost well under the first import. */
export const storesResend: Scenario = {
  name: 'stores.import.10k.resend',
  description: `POST the identical ${IMPORT_STORES} stores a second time (nothing changes) against the first import of them, same fresh database, app.inject`,
  unit: 'ms',
  valueLabel: 'app re-send',
  baselineLabel: 'first import',
  target: { ratio: 0.5, comparison: '<=', description: 'identical re-send ≤ 0.5 × the first import' },

  async prepare() {
    const temp = tempDir('stores-resend');
    const { body } = importBody();
    return {
      async measure(run) {
        const bench = await startBenchApp(temp.dir, `app-${run}`);
        try {
          const first = await timedImport(bench, body, `created ${IMPORT_STORES}, updated 0, unchanged 0, deleted 0`);
          const resend = await timedImport(bench, body, `created 0, updated 0, unchanged ${IMPORT_STORES}, deleted 0`);
          return { value: resend, baseline: first };
        } finally {
          await bench.close();
        }
      },
      async close() {
        temp.remove();
      },
    };
  },
};
