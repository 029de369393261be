import { spawn, type ChildProcess } from 'node:child_process';
import type { Config } from '../../src/config.js';
// The tests and the benchmarks start server processes alike: one free-port finder, one root.
import { freePort, REPO_ROOT } from '../../bench/lib/processes.js';

export { freePort };

export interface ServerProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL: the process dies wherever it is (crash tests). */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

/** Starts the real server (src/server.ts, as `npm start` does) and waits for /readyz. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${output}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in 30 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

export type Json = Record<string, any>;

/** A JSON request to a server process with a bearer token: its status and parsed body. */
export async function callJson(
  server: ServerProcess,
  token: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Json };
}

/**
 * The configuration of an in-process app on a database that server processes share (seeding
 * it before they start, observing it while they run): the tests' admin token, quiet, no rate limit.
 */
export function sharedDatabaseConfig(databaseUrl: string, adminToken: string): Config {
  return { port: 0, host: '127.0.0.1', databaseUrl, adminToken, logLevel: 'silent', rateLimitPerMinute: 0 };
}

/** Two real server processes on one database (the concurrency tests), started at once. */
export function startTwoServers(databaseUrl: string): Promise<ServerProcess[]> {
  return Promise.all([startServer({ DATABASE_URL: databaseUrl }), startServer({ DATABASE_URL: databaseUrl })]);
}
