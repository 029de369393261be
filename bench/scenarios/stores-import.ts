import { columnsOfRecords, storesTable } from '../baselines/plain-tables.js';
import { storeInputs } from '../lib/data.js';
import { prepareImportVsRaw } from '../lib/import-session.js';
import type { Scenario } from '../lib/scenario.js';
import { API } from '../lib/service.js';

export const IMPORT_STORES = 10_000;
const PATH = `${API}/stores`;
const NAME = 'stores.import.10k';
const RESEND = 'stores.import.10k.resend';
const WARMUP_STORES = 1_000;

/**
 * Issue 3 (b): a 10,000-store import should cost at most three raw inserts of the same rows;
 * and an identical re-send (PRODUCT §3: nothing changes) well under the first import. The
 * re-send is measured in the same runs, into the database the run's first import filled.
 */
export const storesImport: Scenario = {
  name: NAME,
  description:
    `POST ${PATH} with ${IMPORT_STORES} new stores over HTTP to a service started fresh (npm start, new file) for each run, against the raw ` +
    'writer process (JSON.parse of the same body text, better-sqlite3 prepared inserts in one transaction into a plain stores table: ' +
    'integer primary key + unique store_number, one column per field, nested arrays as JSON text; same synchronous mode)',
  unit: 'ms',
  valueLabel: 'service',
  baselineLabel: 'raw better-sqlite3, plain table',
  baselineKind: 'raw-driver',
  defaultRuns: 5,
  target: {
    ratio: 3,
    comparison: '<=',
    description: `service import time ≤ 3 × raw prepared-statement inserts of the same ${IMPORT_STORES} records`,
  },
  companions: [
    {
      name: RESEND,
      description: `POST the identical ${IMPORT_STORES} stores a second time (nothing changes) against the first import of them, same run, same service and database`,
      unit: 'ms',
      valueLabel: 'service re-send',
      baselineLabel: 'first import',
      baselineKind: 'service',
      target: { ratio: 0.5, comparison: '<=', description: 'identical re-send ≤ 0.5 × the first import' },
    },
  ],

  prepare: () => {
    const inputs = storeInputs(IMPORT_STORES);
    return prepareImportVsRaw({
      label: 'stores-import',
      path: PATH,
      entity: 'stores',
      inputs,
      body: JSON.stringify({ stores: inputs }),
      tables: [storesTable(columnsOfRecords(inputs, ['store_number']))],
      warmupCount: WARMUP_STORES,
      resendName: RESEND,
    });
  },
};
