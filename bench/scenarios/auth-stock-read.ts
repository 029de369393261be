import { call, expectStatus } from '../lib/client.js';
import { LOAD_SECONDS, LOAD_WARMUP_SECONDS, fireLoad, type LoadResult } from '../lib/load.js';
import { picker } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import { assertSane, loadProblem } from '../lib/sanity.js';
import type { ResultSpec, Sample, Scenario } from '../lib/scenario.js';
import { API, AUTHORIZATION, type Service } from '../lib/service.js';
import {
  StockClock,
  STOCK_STORE,
  productNumber,
  startStockService,
  stockBody,
  stockEntries,
  timedStockPost,
} from '../lib/stock.js';

/**
 * Issue 41: what our JWT access tokens cost a read. The single-product stock read (the
 * handheld's most frequent call) with the admin `sot_` token against the same read with an
 * admin OAuth2 client's access token, in the same service process (`npm start`), loaded in
 * turn. The JWT side includes everything admission does: the signature checked once and the
 * token kept in the verified-token cache, `exp`, the revoked-client check on every request and
 * its reread once a second. The companion measures it with 1,000 clients revoked within the
 * day (the set each per-second reread returns) in a second service.
 */
const NAME = 'auth.jwt.stock.single';
const REVOKED_NAME = 'auth.jwt-1000-revoked.stock.single';
const PRODUCTS = 200;
const REVOKED = 1_000;
const PATH = `${API}/stores/${STOCK_STORE}/products/${productNumber(0)}/stock?include_locations=true`;

const target = {
  ratio: 0.9,
  comparison: '>=' as const,
  description: 'JWT throughput ≥ 0.9 × the same read with a sot_ token (issue 41)',
};

const revokedSpec: ResultSpec = {
  name: REVOKED_NAME,
  description: `${NAME} with ${REVOKED} clients revoked in the last day (the set the once-a-second revocation reread returns)`,
  unit: 'req/s',
  valueLabel: 'JWT, 1,000 revoked',
  baselineLabel: 'sot_ token',
  baselineKind: 'service',
  target,
};

async function accessToken(service: Service, name: string): Promise<string> {
  const created = expectStatus(
    await call(service.baseUrl, 'POST', `${API}/clients`, JSON.stringify({ name, role: 'admin' })),
    201,
    'registering the bench client',
  ).json<{ client_id: string; client_secret: string }>();
  const response = await fetch(`${service.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...created }).toString(),
  });
  if (response.status !== 200) throw new Error(`token endpoint: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function seeded(resources: Resources, dir: string): Promise<Service> {
  const service = await startStockService(resources, dir, PRODUCTS);
  const clock = new StockClock();
  const p = picker(7);
  const entries = [
    ...stockEntries(p, clock, 200, PRODUCTS),
    {
      product_number: productNumber(0),
      quantity: 12,
      customer_order_line_number: 0,
      modification_datetime: clock.next(p),
    },
  ];
  await timedStockPost(service.baseUrl, stockBody(entries), entries.length);
  return service;
}

const load = (service: Service, authorization: string, seconds: number): Promise<LoadResult> =>
  fireLoad({ origin: service.baseUrl, paths: [PATH], headers: { authorization }, seconds });

async function checked(side: string, result: Promise<LoadResult>): Promise<LoadResult> {
  const done = await result;
  assertSane(loadProblem(side, done));
  return done;
}

export const authJwtStockRead: Scenario = {
  name: NAME,
  description: `GET ${PATH.replace(API, '')} with an admin OAuth2 client's JWT access token vs the admin sot_ token, same service process, loaded in turn`,
  unit: 'req/s',
  valueLabel: 'JWT',
  baselineLabel: 'sot_ token',
  baselineKind: 'service',
  defaultRuns: 3,
  target,
  companions: [revokedSpec],

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('auth-jwt'), (t) => t.remove());
      const plain = await seeded(resources, temp.dir);
      const jwt = `Bearer ${await accessToken(plain, 'bench')}`;
      const revokedDir = resources.add(tempDir('auth-jwt-revoked'), (t) => t.remove());
      const revoking = await seeded(resources, revokedDir.dir);
      for (let i = 0; i < REVOKED; i++) {
        const name = `revoked-${i}`;
        expectStatus(
          await call(revoking.baseUrl, 'POST', `${API}/clients`, JSON.stringify({ name, role: 'read' })),
          201,
          'registering a client to revoke',
        );
        expectStatus(await call(revoking.baseUrl, 'DELETE', `${API}/clients/${name}`), 200, 'revoking it');
      }
      const revokedJwt = `Bearer ${await accessToken(revoking, 'bench')}`;
      for (const [service, authorization] of [
        [plain, AUTHORIZATION],
        [plain, jwt],
        [revoking, AUTHORIZATION],
        [revoking, revokedJwt],
      ] as const) {
        await checked('warm-up', load(service, authorization, LOAD_WARMUP_SECONDS));
      }
      return {
        async measure(round: number): Promise<Sample> {
          // The order alternates from round to round, so a drifting machine favours neither side.
          const pairs = async (service: Service, authorization: string) => {
            const sides = round % 2 === 0 ? (['sot', 'jwt'] as const) : (['jwt', 'sot'] as const);
            const results: Partial<Record<'sot' | 'jwt', LoadResult>> = {};
            for (const side of sides)
              results[side] = await checked(
                side,
                load(service, side === 'sot' ? AUTHORIZATION : authorization, LOAD_SECONDS),
              );
            return results as Record<'sot' | 'jwt', LoadResult>;
          };
          const main = await pairs(plain, jwt);
          const revoked = await pairs(revoking, revokedJwt);
          return {
            value: main.jwt.requestsPerSecond,
            baseline: main.sot.requestsPerSecond,
            extra: {
              'JWT p99 ms': main.jwt.latencyP99Ms,
              'sot_ p99 ms': main.sot.latencyP99Ms,
              'service RSS MB': plain.rssMb(),
            },
            companions: {
              [REVOKED_NAME]: {
                value: revoked.jwt.requestsPerSecond,
                baseline: revoked.sot.requestsPerSecond,
                extra: { 'JWT p99 ms': revoked.jwt.latencyP99Ms, 'sot_ p99 ms': revoked.sot.latencyP99Ms },
              },
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
