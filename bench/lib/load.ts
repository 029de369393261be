/**
 * HTTP load with autocannon from its own long-lived process (lib/load-worker.mjs): the
 * bench runs three kinds of process — the service, its baseline server, and this load
 * generator — so no two of them share an event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadCounts } from './sanity.js';

/** Autocannon settings of every throughput scenario, both sides alike (ENGINEERING "Measuring"). */
export const LOAD_CONNECTIONS = 10;
export const LOAD_PIPELINING = 1;
export const LOAD_SECONDS = 5;
export const LOAD_WARMUP_SECONDS = 2;

export interface LoadOptions {
  /** Origin, e.g. http://127.0.0.1:1234. */
  origin: string;
  /** Paths with their query strings; several are asked in turn on every connection. */
  paths: readonly string[];
  headers?: Record<string, string>;
  seconds: number;
}

export interface LoadResult extends LoadCounts {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

interface WorkerAnswer {
  id: number;
  error?: string;
  result?: LoadCounts & { duration: number; latencyP50Ms: number; latencyP99Ms: number };
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
    const started = fork(fileURLToPath(new URL('./load-worker.mjs', import.meta.url)), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
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

/** One load; its counts are returned as reported, for the caller's sanity checks. */
export async function fireLoad(options: LoadOptions): Promise<LoadResult> {
  const id = nextLoadId++;
  const answer = await new Promise<WorkerAnswer>((resolve) => {
    pendingLoads.set(id, resolve);
    loadGenerator().send({
      id,
      options: {
        url: options.origin,
        connections: LOAD_CONNECTIONS,
        pipelining: LOAD_PIPELINING,
        duration: options.seconds,
        timeout: 10,
        headers: options.headers,
        requests: options.paths.map((path) => ({ method: 'GET', path })),
      },
    });
  });
  if (answer.error !== undefined || answer.result === undefined)
    throw new Error(`load on ${options.origin}: ${answer.error ?? 'no result'}`);
  const { duration, ...result } = answer.result;
  return { ...result, requestsPerSecond: result.requests / (duration || options.seconds) };
}
