import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DbHandle } from '../db/dialect/types.js';
import { DATABASE_FAULTS, databaseFaultOf } from './error-handler.js';
import { pingWithin } from './probes.js';
import { hookEachRoute } from './route-hooks.js';

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
type LatencySeries = Histogram.Internal<'method' | 'route' | 'status_code'>;

/**
 * Prometheus text at /metrics (PRODUCT §2): request latency histograms per route, method
 * and status, process metrics, the database pool and the database's faults, all through prom-client. Each app
 * gets its own registry so several apps in one process (tests, benchmarks) never clash.
 *
 * The per-route histogram is fed by one onResponse hook per route that already knows its
 * route and keeps its labelled series per status: observing is one bucket update. The
 * fastify-metrics plugin did the same work generically — route lookups through
 * `request.routeOptions` (rebuilt by Fastify on every access), label objects, timer
 * closures — and cost the hottest reads a fifth of their throughput (measured, issue 5).
 */
export async function registerMetrics(app: FastifyInstance, handle: DbHandle): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Request duration in seconds, per route, method and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  // What an outage looks like from here (issue 27, docs/operations.md "When the database goes
  // away"): whether the database answers now, how many connections lost their server, and how
  // many answers were refused for the database's sake, by cause.
  const faults = new Counter({
    name: 'db_fault_answers_total',
    help: 'API answers refused because of the database: unavailable (503), busy (503), full (507)',
    labelNames: ['fault'],
    registers: [registry],
  });
  for (const fault of Object.keys(DATABASE_FAULTS)) faults.labels({ fault }).inc(0);
  hookEachRoute(
    app,
    'onResponse',
    (route) => route.url !== '/metrics',
    (route) => {
      const series = new Map<string, LatencySeries>();
      return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        if (reply.statusCode >= 503) {
          const fault = databaseFaultOf.get(request);
          if (fault !== undefined) faults.labels({ fault }).inc();
        }
        const key = `${request.method} ${reply.statusCode}`;
        let line = series.get(key);
        if (line === undefined) {
          line = latency.labels({ method: request.method, route: route.url, status_code: reply.statusCode });
          series.set(key, line);
        }
        // Fastify's own clock: from the request's arrival at the route to the response's end.
        line.observe(reply.elapsedTime / 1000);
        done();
      };
    },
  );

  for (const [name, help, pick] of [
    ['db_pool_connections_total', 'Database connections open', (s: ReturnType<DbHandle['poolStats']>) => s.total],
    ['db_pool_connections_idle', 'Database connections idle', (s: ReturnType<DbHandle['poolStats']>) => s.idle],
    [
      'db_pool_requests_waiting',
      'Queries waiting for a database connection',
      (s: ReturnType<DbHandle['poolStats']>) => s.waiting,
    ],
  ] as const) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(pick(handle.poolStats()));
      },
    });
  }
  let lostCounted = 0;
  new Counter({
    name: 'db_connections_lost_total',
    help: 'Database connections that lost their server (restart, failover, network) and were discarded',
    registers: [registry],
    collect() {
      const lost = handle.poolStats().lost;
      this.inc(lost - lostCounted);
      lostCounted = lost;
    },
  });
  new Gauge({
    name: 'db_up',
    help: 'Whether the database answered a ping within a second at this scrape (1) or not (0), like /readyz',
    registers: [registry],
    async collect() {
      this.set(
        await pingWithin(handle, 1000).then(
          () => 1,
          () => 0,
        ),
      );
    },
  });
  new Gauge({
    name: 'events_last_sequence',
    help: "The change feed's last sequence given (PRODUCT §9): a follower's lag is this minus its cursor",
    registers: [registry],
    async collect() {
      this.set(await handle.dialect.events.lastSequence(handle.db).catch(() => Number.NaN));
    },
  });
  // Read scaling (issue 31): each standby of DATABASE_READ_URL, as the last poll saw it.
  const standbys = handle.reads?.standbys;
  if (standbys !== undefined && standbys.length > 0) {
    for (const [name, help, pick] of [
      [
        'db_standby_up',
        'Whether the standby answered its last poll as a standby (1) or not (0)',
        (s: (typeof standbys)[number]) => (s.up ? 1 : 0),
      ],
      [
        'db_standby_serving',
        'Whether the standby serves reads (1: up and within DATABASE_READ_MAX_LAG_SECONDS) or is left out (0)',
        (s: (typeof standbys)[number]) => (s.usable ? 1 : 0),
      ],
      [
        'db_standby_replay_lag_seconds',
        "Seconds the standby's replay is behind the primary (NaN: unknown)",
        (s: (typeof standbys)[number]) => s.lagSeconds ?? Number.NaN,
      ],
      [
        'db_standby_replay_lag_bytes',
        'Bytes of WAL the primary has and the standby has not replayed (NaN: unknown)',
        (s: (typeof standbys)[number]) => s.lagBytes ?? Number.NaN,
      ],
    ] as const) {
      new Gauge({
        name,
        help,
        labelNames: ['standby'],
        registers: [registry],
        collect() {
          for (const standby of standbys) this.labels({ standby: standby.name }).set(pick(standby));
        },
      });
    }
  }
  app.get(
    '/metrics',
    {
      schema: { tags: ['operations'], summary: 'Prometheus metrics', security: [], produces: ['text/plain'] },
      config: { access: 'public' },
    },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
}
