import { API, AUTHORIZATION, expectStatus, startBenchApp, tempDir } from '../lib/app.js';
import { storeInputs } from '../lib/data.js';
import { bareJsonServer, fireLoad, listenLocal } from '../lib/http.js';
import { profileOnce } from '../lib/profile.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';

const STORES = 1_000;
const PATH = `${API}/stores`;
const QUERY = '?page_size=100';
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const RUN_SECONDS = 4;
const NAME = 'stores.list.page100';

/** Issue 3 (a): reading a page of stores should cost at most twice serving its bytes. */
export const storesList: Scenario = {
  name: NAME,
  description: `GET ${PATH}${QUERY} over HTTP (autocannon, ${CONNECTIONS} connections, ${RUN_SECONDS} s per run) on ${STORES} seeded stores, against a bare Fastify route serving the same response bytes`,
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
      const bytes = page.rawPayload;

      const appUrl = `${await listenLocal(bench.app)}${PATH}${QUERY}`;
      const bare = resources.add(await bareJsonServer(PATH, bytes), (b) => b.close());
      const bareUrl = `${bare.url}${PATH}${QUERY}`;
      const headers = { authorization: AUTHORIZATION };
      const load = (url: string, seconds: number) => fireLoad({ url, headers, connections: CONNECTIONS, durationSeconds: seconds });
      const loadApp = () => profileOnce(NAME, () => load(appUrl, RUN_SECONDS));

      await load(appUrl, WARMUP_SECONDS);
      await load(bareUrl, WARMUP_SECONDS);
      return {
        async measure(run) {
          // Alternate who goes first, so a drift in machine speed favours neither side.
          if (run % 2 === 0) {
            const app = await loadApp();
            const baseline = await load(bareUrl, RUN_SECONDS);
            return { value: app.requestsPerSecond, baseline: baseline.requestsPerSecond };
          }
          const baseline = await load(bareUrl, RUN_SECONDS);
          const app = await loadApp();
          return { value: app.requestsPerSecond, baseline: baseline.requestsPerSecond };
        },
        close: () => resources.release(),
      };
    }),
};
