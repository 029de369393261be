import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';

export const API = '/api/v2/public';
export const BENCH_ADMIN_TOKEN = 'bench-admin-token';
export const AUTHORIZATION = `Bearer ${BENCH_ADMIN_TOKEN}`;

/** A directory for one scenario's SQLite files, removed by the returned function. */
export function tempDir(label: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `store-ops-bench-${label}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface BenchApp {
  app: FastifyInstance;
  /** The SQLite file the app writes. */
  file: string;
  /** app.inject with the admin token; `body` is sent as given (pre-serialised JSON text). */
  inject(method: InjectOptions['method'], url: string, body?: string): Promise<LightMyRequestResponse>;
  /** Closes the app (the WAL is checkpointed into the file) and keeps the file. */
  stop(): Promise<void>;
  /** Closes the app if still open and removes its file. */
  close(): Promise<void>;
}

/**
 * The production app (src/app.ts buildApp) on a fresh SQLite file in WAL mode, as the
 * server runs it, with logging and the rate limit off so they do not skew timings.
 */
export async function startBenchApp(dir: string, name: string): Promise<BenchApp> {
  const file = path.join(dir, `${name}.sqlite`);
  const config: Config = {
    port: 0,
    host: '127.0.0.1',
    databaseUrl: `sqlite:${file}`,
    adminToken: BENCH_ADMIN_TOKEN,
    logLevel: 'silent',
    rateLimitPerMinute: 0,
  };
  const app = await buildApp(config);
  await app.ready();
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= app.close());
  return {
    app,
    file,
    inject: (method, url, body) =>
      app.inject({
        method,
        url,
        headers: { authorization: AUTHORIZATION, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        payload: body,
      }),
    stop,
    async close() {
      await stop();
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

/** Throws with the response text unless the status is the expected one. */
export function expectStatus(response: LightMyRequestResponse, status: number, what: string): LightMyRequestResponse {
  if (response.statusCode !== status) {
    throw new Error(`${what}: expected HTTP ${status}, got ${response.statusCode}: ${response.body.slice(0, 500)}`);
  }
  return response;
}
