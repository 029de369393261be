import { postOk } from '../lib/client.js';
import { storeInputs } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API, startService } from '../lib/service.js';
import { cannedBytesSession } from '../lib/throughput.js';

const STORES = 1_000;
const PATH = `${API}/stores`;
// Ten full stores (~24 KiB): a page of 100 full stores is ~237 KiB, which the load generator
// moves no faster than either server can answer it, so that ratio measured autocannon instead.
const QUERY = '?page_size=10';
const NAME = 'stores.list.page10';

/** Issue 3 (a): reading a page of stores should cost at most twice serving its bytes. */
export const storesList: Scenario = {
  name: NAME,
  description: `GET ${PATH}${QUERY} on ${STORES} stores seeded over HTTP, against a bare Fastify route (own process) serving the same response bytes`,
  unit: 'req/s',
  valueLabel: 'service',
  baselineLabel: 'bare fastify, same bytes',
  baselineKind: 'canned-bytes',
  defaultRuns: 3,
  target: { ratio: 0.5, comparison: '>=', description: 'service throughput ≥ 0.5 × a bare Fastify route serving the same JSON bytes' },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stores-list'), (t) => t.remove());
      const service = resources.add(await startService(temp.dir, 'service'), (s) => s.stop());
      await postOk(service.baseUrl, PATH, { stores: storeInputs(STORES) }, `seeding ${STORES} stores`);
      return cannedBytesSession(resources, {
        dir: temp.dir,
        service,
        routePath: PATH,
        query: QUERY,
        check: (page) => {
          if (page.json<{ list: unknown[] }>().list.length !== 10) throw new Error('the seeded page does not hold 10 stores');
        },
      });
    }),
};
