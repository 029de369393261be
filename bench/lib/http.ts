import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1, port chosen by the system; returns the base URL. */
export async function listenLocal(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/**
 * The throughput baseline: a bare Fastify app (no plugins, hooks or schemas) answering
 * GET `path` with exactly `bytes` as application/json — what the service would cost if
 * producing the body were free.
 */
export async function bareJsonServer(path: string, bytes: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.get(path, (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8').send(bytes);
  });
  const url = await listenLocal(app);
  return { url, close: () => app.close() };
}

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

/**
 * Fires HTTP load with autocannon from a worker thread, so the load generator does not
 * share the event loop with the in-process server it measures (2 cores: one each).
 * A run with any error, timeout or non-2xx answer is refused rather than reported.
 */
export async function fireLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: 'GET',
    headers: options.headers,
    connections: options.connections,
    duration: options.durationSeconds,
    workers: 1,
    timeout: 10,
  });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`load on ${options.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
  }
  return {
    requestsPerSecond: result.requests.total / (result.duration || options.durationSeconds),
    requests: result.requests.total,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}
