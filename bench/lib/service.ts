/**
 * The service under test, started exactly as a user starts it: `npm start` from the
 * repository root in a process of its own, configured only through the environment
 * (PRODUCT §2), and talked to over HTTP only.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig, type SqliteSynchronous } from '../../src/config.js';
import {
  servingDescendant,
  freePort,
  killOnExit,
  outputOf,
  REPO_ROOT,
  statusMb,
  terminate,
  waitForOk,
} from './processes.js';

export const API = '/api/v2/public';
export const BENCH_ADMIN_TOKEN = 'bench-admin-token';
export const AUTHORIZATION = `Bearer ${BENCH_ADMIN_TOKEN}`;
/** What the bench reports as the command under test. */
export const SERVICE_COMMAND = 'npm start';

/**
 * The environment the bench starts the service with. SQLITE_SYNCHRONOUS is passed through
 * from the bench's own environment (an operator's choice, PRODUCT §2), so
 * `SQLITE_SYNCHRONOUS=NORMAL npm run bench` measures that mode on both sides.
 */
export function serviceEnvironment(databaseUrl: string, port: number): Record<string, string> {
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    STORE_OPS_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  if (process.env.SQLITE_SYNCHRONOUS) env.SQLITE_SYNCHRONOUS = process.env.SQLITE_SYNCHRONOUS;
  return env;
}

/**
 * The SQLite `synchronous` mode the service runs with under that environment, read with the
 * service's own config parser (so the raw baselines can never drift from it); FULL when the
 * service does not say.
 */
export function serviceSynchronous(): SqliteSynchronous {
  const config = loadConfig({ ...serviceEnvironment('sqlite::memory:', 0) }) as {
    sqliteSynchronous?: SqliteSynchronous;
  };
  return config.sqliteSynchronous ?? 'FULL';
}

let profileDir: string | undefined;

/**
 * `--profile`: V8 refuses --cpu-prof in NODE_OPTIONS, so a profiled service is started as
 * `node --cpu-prof --import tsx src/server.ts` — what `npm start` runs, plus the profiler,
 * minus npm — and writes a .cpuprofile into `dir` when SIGTERM ends it. Such a run reports
 * no results.
 */
export function profileServicesInto(dir: string): void {
  profileDir = dir;
}

function serviceCommand(): [string, string[]] {
  if (profileDir === undefined) return ['npm', ['start']];
  // The node flags of `npm start` (package.json), so the profile is of the same process.
  return [
    process.execPath,
    [
      '--min-semi-space-size=16',
      '--cpu-prof',
      `--cpu-prof-dir=${profileDir}`,
      '--cpu-prof-interval=100',
      '--import',
      'tsx',
      'src/server.ts',
    ],
  ];
}

export interface Service {
  baseUrl: string;
  /** The process that serves (npm start → tsx → node src/server.ts): for signals such as SIGUSR2. */
  pid: number;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  /** The SQLite file it serves from. */
  file: string;
  /** Resident memory of the serving process now, and its peak since it started (MB). */
  rssMb(): number;
  peakRssMb(): number;
  /** SIGTERM (the graceful stop a user's supervisor sends) and wait for the exit. */
  stop(): Promise<void>;
}

/** `npm start` on `sqlite:<dir>/<name>.sqlite` (a fresh file unless one is there), ready when /readyz answers 200. */
export async function startService(dir: string, name: string, extraEnv: Record<string, string> = {}): Promise<Service> {
  const file = path.join(dir, `${name}.sqlite`);
  return startServiceAt(`sqlite:${file}`, file, extraEnv);
}

/**
 * `npm start` on any DATABASE_URL (e.g. `postgres://…?schema=<fresh schema>`), ready when
 * /readyz answers 200. `file` is what `Service.file` reports (the SQLite file, else the URL).
 * `extraEnv` adds settings a user could give too (e.g. `WEBHOOKS_ALLOW_PRIVATE=true`, or the
 * feed-off side's `BENCH_WITHOUT_STOCK_EVENTS=true`).
 */
export async function startServiceAt(
  databaseUrl: string,
  file = databaseUrl,
  extraEnv: Record<string, string> = {},
): Promise<Service> {
  const port = await freePort();
  const [command, args] = serviceCommand();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...serviceEnvironment(databaseUrl, port), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a stop or a crash of the bench can end npm, tsx and the server together.
    detached: true,
  });
  killOnExit(child);
  const output = outputOf(child);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${baseUrl}/readyz`, child, output);
  } catch (error) {
    await terminate(child, 1_000);
    throw error;
  }
  const serverPid = servingDescendant(child.pid!);
  let lastPeak = 0;
  const peak = () => (lastPeak = statusMb(serverPid, 'VmHWM') ?? lastPeak);
  return {
    baseUrl,
    pid: serverPid,
    output,
    file,
    rssMb: () => statusMb(serverPid, 'VmRSS') ?? 0,
    peakRssMb: peak,
    async stop() {
      peak();
      await terminate(child, 6_000, serverPid);
    },
  };
}
