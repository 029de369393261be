import { API, expectStatus, startBenchApp, tempDir } from '../lib/app.js';
import { storeInputs } from '../lib/data.js';
import { compareThroughput } from '../lib/http.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';

const STORES = 1_000;
const PATH = `${API}/stores`;
const QUERY = '?page_size=100';
const NAME = 'stores.list.page100';

/** Issue 3 (a): reading a page of stores should cost at most twice serving its bytes. */
export const storesList: Scenario = {
  name: NAME,
  description: `GET ${PATH}${QUERY} over HTTP (autocannon) on ${STORES} seeded stores, against a bare Fastify route serving the same response bytes`,
  unit: 'req/s',
  valueLabel: 'app',
  baselineLabel: 'bare fastify, same bytes',
  target: { ratio: 0.5, comparison: '>=', description: 'app throughput ≥ 0.5 × a bare Fastify route serving the same JSON bytes' },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stores-list'), (t) => t.remove());
      const bench = resources.add(await startBenchApp(temp.dir, 'app'), (b) => b.close());
      const seeded = await bench.inject('POST', PATH, JSON.stringify({ stores: storeInputs(STORES) }));
      expectStatus(seeded, 200, `seeding ${STORES} stores`);
      const page = expectStatus(await bench.inject('GET', `${PATH}${QUERY}`), 200, 'reading the page once');
      if ((page.json() as { list: unknown[] }).list.length !== 100) throw new Error('the seeded page does not hold 100 stores');
      return compareThroughput(resources, { name: NAME, bench, path: PATH, query: QUERY, bytes: page.rawPayload });
    }),
};
