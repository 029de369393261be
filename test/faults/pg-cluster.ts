import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/server-process.js';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own (issue 27: restarting the shared cluster would pull the
 * database from under every other test file running at the same time). initdb and pg_ctl in a
 * temporary directory, as the `postgres` user (they refuse to run as root), listening on a
 * free port of 127.0.0.1 with trust authentication.
 */
export interface OwnCluster {
  url: string;
  port: number;
  /** `pg_ctl restart -m immediate`: every backend dies at once, as in a crash or failover. */
  restartImmediate(): Promise<void>;
  /** `pg_ctl stop -m immediate`: the database is gone until `start`. */
  stopImmediate(): Promise<void>;
  /** `pg_ctl start`, waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops the cluster and removes its directory. */
  destroy(): Promise<void>;
}

/** PostgreSQL's server binaries: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else `pg_config --bindir`. */
export function postgresBinaries(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) {
    for (const version of fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)))
      candidates.push(path.join(root, version, 'bin'));
  }
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl')));
}

/** Whether this machine can run an own cluster: the binaries, and a `postgres` user to run them as when we are root. */
export function ownClusterUnavailableReason(): string | undefined {
  if (postgresBinaries() === undefined) return 'PostgreSQL server binaries (initdb, pg_ctl) not found; set PG_BIN';
  if (process.getuid?.() === 0) {
    const users = fs.existsSync('/etc/passwd') ? fs.readFileSync('/etc/passwd', 'utf8') : '';
    if (!users.split('\n').some((line) => line.startsWith('postgres:')))
      return 'running as root without a postgres user to run initdb and pg_ctl as';
  }
  return undefined;
}

export async function createOwnCluster(): Promise<OwnCluster> {
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error('PostgreSQL binaries not found');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  if (asRoot) await run('chown', ['postgres:postgres', dir]);
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args])
      : run(path.join(bin, command), args);
  const port = await freePort();
  await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // Sockets in the cluster's own directory (the default one belongs to the shared cluster).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=50`;
  const pgCtl = (...args: string[]) => as('pg_ctl', ['-D', data, '-l', log, '-o', options, ...args]);
  await pgCtl('start', '-w', '-t', '30');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restartImmediate: async () => void (await pgCtl('restart', '-m', 'immediate', '-w', '-t', '30')),
    stopImmediate: async () => void (await pgCtl('stop', '-m', 'immediate', '-w', '-t', '30')),
    start: async () => void (await pgCtl('start', '-w', '-t', '30')),
    async destroy() {
      await pgCtl('stop', '-m', 'immediate', '-w', '-t', '30').catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
