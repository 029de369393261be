import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AUTHORIZATION, type BenchApp } from './app.js';
import { profileOnce } from './profile.js';
import type { Resources } from './resources.js';
import type { Session } from './scenario.js';

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

interface WorkerAnswer {
  id: number;
  error?: string;
  result?: { requests: number; duration: number; errors: number; timeouts: number; non2xx: number; latencyP50Ms: number; latencyP99Ms: number };
}

let loadProcess: ChildProcess | undefined;
let nextLoadId = 0;
const pendingLoads = new Map<number, (answer: WorkerAnswer) => void>();

function failPending(reason: string): void {
  for (const settle of pendingLoads.values()) settle({ id: -1, error: reason });
  pendingLoads.clear();
  loadProcess = undefined;
}

/** The load generator process, started on first use and kept for the whole bench. */
function loadGenerator(): ChildProcess {
  if (loadProcess === undefined) {
    const started = fork(fileURLToPath(new URL('./load-worker.mjs', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    started.on('message', (answer: WorkerAnswer) => {
      pendingLoads.get(answer.id)?.(answer);
      pendingLoads.delete(answer.id);
    });
    started.on('error', (error) => failPending(`load generator failed: ${error.message}`));
    started.on('exit', (code) => failPending(`load generator exited (${code})`));
    // Idle between loads, it must not keep the bench alive; it ends with the bench.
    started.unref();
    started.channel?.unref();
    process.once('exit', () => started.kill());
    loadProcess = started;
  }
  return loadProcess;
}

/**
 * Fires HTTP load with autocannon from a separate process, so the load generator does not
 * share the event loop with the in-process server it measures (2 cores: one each). The
 * process lives for the whole bench (lib/load-worker.mjs). A run with any error, timeout
 * or non-2xx answer is refused rather than reported.
 */
export async function fireLoad(options: LoadOptions): Promise<LoadResult> {
  const id = nextLoadId++;
  const answer = await new Promise<WorkerAnswer>((resolve) => {
    pendingLoads.set(id, resolve);
    loadGenerator().send({
      id,
      options: {
        url: options.url,
        method: 'GET',
        headers: options.headers,
        connections: options.connections,
        duration: options.durationSeconds,
        timeout: 10,
      },
    });
  });
  if (answer.error !== undefined || answer.result === undefined) throw new Error(`load on ${options.url}: ${answer.error ?? 'no result'}`);
  const result = answer.result;
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`load on ${options.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
  }
  return {
    requestsPerSecond: result.requests / (result.duration || options.durationSeconds),
    requests: result.requests,
    latencyP50Ms: result.latencyP50Ms,
    latencyP99Ms: result.latencyP99Ms,
  };
}

/** Autocannon settings of the throughput scenarios (both sides alike). */
export const LOAD_CONNECTIONS = 10;
export const LOAD_WARMUP_SECONDS = 1;
/** Each side's load time per run, cut into slices that alternate between the two sides. */
export const LOAD_RUN_SECONDS = 1.5;
export const LOAD_SLICES = 3;

/**
 * The session of a throughput scenario: the app (already seeded) listening on a local
 * port against a bare Fastify route serving `bytes` at the same path. A run loads each
 * side LOAD_RUN_SECONDS in all, in LOAD_SLICES slices taken in turn (app, bare, app, …;
 * every other run starts with bare), and compares requests per second over the whole
 * run: the machine's speed drifts within seconds here, and alternating short slices lets
 * both sides share the drift instead of one side catching a slow second alone.
 * One short untimed load of each side first (JIT, connection set-up).
 */
export async function compareThroughput(
  resources: Resources,
  options: { name: string; bench: BenchApp; path: string; query: string; bytes: Buffer },
): Promise<Session> {
  const appUrl = `${await listenLocal(options.bench.app)}${options.path}${options.query}`;
  const bare = resources.add(await bareJsonServer(options.path, options.bytes), (b) => b.close());
  const bareUrl = `${bare.url}${options.path}${options.query}`;
  const headers = { authorization: AUTHORIZATION };
  const load = (url: string, seconds: number) => fireLoad({ url, headers, connections: LOAD_CONNECTIONS, durationSeconds: seconds });
  const slice = LOAD_RUN_SECONDS / LOAD_SLICES;

  await load(appUrl, LOAD_WARMUP_SECONDS);
  await load(bareUrl, LOAD_WARMUP_SECONDS);
  return {
    async measure(run) {
      const totals = { app: { requests: 0, seconds: 0 }, bare: { requests: 0, seconds: 0 } };
      const take = async (side: 'app' | 'bare') => {
        // With --profile, the first app slice of the session is profiled (the app alone).
        const result = side === 'app' ? await profileOnce(options.name, () => load(appUrl, slice)) : await load(bareUrl, slice);
        totals[side].requests += result.requests;
        totals[side].seconds += result.requests / result.requestsPerSecond;
      };
      const order: Array<'app' | 'bare'> = run % 2 === 1 ? ['bare', 'app'] : ['app', 'bare'];
      for (let i = 0; i < LOAD_SLICES; i++) for (const side of order) await take(side);
      return { value: totals.app.requests / totals.app.seconds, baseline: totals.bare.requests / totals.bare.seconds };
    },
    close: () => resources.release(),
  };
}
