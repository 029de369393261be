/**
 * Starting the throughput baselines, each in a process of its own (bench/servers/*):
 * never in the bench's process, never in the service's.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, killOnExit, outputOf, REPO_ROOT, terminate, waitForOk } from './processes.js';

const SERVERS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'servers');
const BASELINES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'baselines');

export interface BaselineServer {
  origin: string;
  stop(): Promise<void>;
}

/** node --import tsx <script> <args…> (servers/<script>, or an absolute path), detached in its own group, ready when `probePath` answers 200. */
async function startServerScript(
  script: string,
  args: (port: number) => string[],
  probePath: string,
): Promise<BaselineServer> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.isAbsolute(script) ? script : path.join(SERVERS, script), ...args(port)],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  killOnExit(child);
  const output = outputOf(child);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${origin}${probePath}`, child, output, 30_000);
  } catch (error) {
    await terminate(child, 1_000);
    throw error;
  }
  return { origin, stop: () => terminate(child, 3_000) };
}

/**
 * A bare Fastify app answering GET `routePath` (any query) with `body`, byte for byte.
 * The bytes go through a file beside the scenario's data, so they are exactly the ones given.
 */
export async function startBareJsonServer(dir: string, routePath: string, body: Buffer): Promise<BaselineServer> {
  const bodyFile = path.join(dir, `bare-body-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(bodyFile, body);
  return startServerScript('bare-json.ts', (port) => [String(port), routePath, bodyFile], routePath);
}

/** The stock list's SQL floor: one hand-written query per request on `databaseFile`. */
export function startStockPageFloor(
  routePath: string,
  databaseFile: string,
  probeQuery: string,
): Promise<BaselineServer> {
  return startServerScript(
    'stock-page-floor.ts',
    (port) => [String(port), routePath, databaseFile],
    `${routePath}${probeQuery}`,
  );
}

/** The product list's read floor: one hand-written query per request on the plain copy `databaseFile` of the list's lines. */
export function startProductListFloor(
  routePath: string,
  databaseFile: string,
  probeQuery: string,
): Promise<BaselineServer> {
  return startServerScript(
    'product-list-floor.ts',
    (port) => [String(port), routePath, databaseFile],
    `${routePath}${probeQuery}`,
  );
}

/** The change feed's read floor (baselines/feed-floor.ts): one hand-written query per page on the service's own database (`sqlite:<file>` or `postgres://…?schema=`). */
export function startFeedFloor(routePath: string, databaseUrl: string): Promise<BaselineServer> {
  return startServerScript(
    path.join(BASELINES, 'feed-floor.ts'),
    (port) => [String(port), routePath, databaseUrl],
    `${routePath}?after=0&limit=1`,
  );
}
