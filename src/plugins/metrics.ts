import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fastifyMetrics from 'fastify-metrics';
import promClient from 'prom-client';
import type { DbHandle } from '../db/dialect/types.js';

/**
 * Prometheus text at /metrics (PRODUCT §2): request counts and latency histograms per
 * route (fastify-metrics), process metrics and the database pool (prom-client). Each app
 * gets its own registry so several apps in one process (tests, benchmarks) never clash.
 */
export async function registerMetrics(app: FastifyInstance, handle: DbHandle): Promise<void> {
  const registry = new promClient.Registry();
  // CommonJS package: its plugin is the `default` export of the module object.
  const metricsPlugin = (fastifyMetrics as unknown as { default: FastifyPluginAsync<Record<string, unknown>> }).default;
  await app.register(metricsPlugin, {
    endpoint: null,
    defaultMetrics: { enabled: true, register: registry },
    routeMetrics: {
      // The histogram gives latency per route; the summary's quantile sketch would cost
      // every request noticeably more for a figure the histogram already answers.
      enabled: { histogram: true, summary: false },
      registeredRoutesOnly: true,
      routeBlacklist: ['/metrics'],
      overrides: {
        histogram: { registers: [registry], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
        summary: { registers: [registry] },
      },
    },
  });
  for (const [name, help, pick] of [
    ['db_pool_connections_total', 'Database connections open', (s: ReturnType<DbHandle['poolStats']>) => s.total],
    ['db_pool_connections_idle', 'Database connections idle', (s: ReturnType<DbHandle['poolStats']>) => s.idle],
    ['db_pool_requests_waiting', 'Queries waiting for a database connection', (s: ReturnType<DbHandle['poolStats']>) => s.waiting],
  ] as const) {
    new promClient.Gauge({ name, help, registers: [registry], collect() { this.set(pick(handle.poolStats())); } });
  }
  app.get('/metrics', { schema: { tags: ['operations'], summary: 'Prometheus metrics', security: [], produces: ['text/plain'] }, config: { access: 'public' } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
