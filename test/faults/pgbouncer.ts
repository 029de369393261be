import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/server-process.js';

/**
 * An own pgbouncer (the Debian package's binary, never its system service or /etc config) in
 * transaction mode in front of an existing PostgreSQL server: its own config, port and temp
 * directory, run as the postgres user when we are root (pgbouncer refuses to run as root).
 * Used by test/faults/pgbouncer.test.ts and scripts/pgbouncer-bench.ts.
 */
export interface OwnPgbouncer {
  port: number;
  /** `postgres://user:password@127.0.0.1:port/database` through the pooler (add `?schema=…&pooler=transaction`). */
  url: string;
  stop(): Promise<void>;
}

export const PGBOUNCER_BINARY = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

export function pgbouncerUnavailableReason(): string | undefined {
  if (!fs.existsSync(PGBOUNCER_BINARY))
    return `pgbouncer not found at ${PGBOUNCER_BINARY} (apt-get install pgbouncer, or set PGBOUNCER_BIN)`;
  if (process.getuid?.() === 0) {
    const users = fs.existsSync('/etc/passwd') ? fs.readFileSync('/etc/passwd', 'utf8') : '';
    if (!users.split('\n').some((line) => line.startsWith('postgres:')))
      return 'running as root without a postgres user to run pgbouncer as';
  }
  return undefined;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Starts pgbouncer in transaction mode in front of `serverUrl` (a single-host postgres:// URL with user and password). */
export async function startPgbouncer(serverUrl: string, options: { poolSize?: number } = {}): Promise<OwnPgbouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const database = server.pathname.replace(/^\//, '') || 'postgres';
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-pgbouncer-'));
  const ini = path.join(dir, 'pgbouncer.ini');
  const log = path.join(dir, 'pgbouncer.log');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" "${password}"\n`);
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Clients on the loopback only; pgbouncer logs in to the server with the userlist's password.
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 500',
      `logfile = ${log}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chownSync(dir, ...ownerOfPostgres());
  if (asRoot) for (const file of fs.readdirSync(dir)) fs.chownSync(path.join(dir, file), ...ownerOfPostgres());
  const child = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', PGBOUNCER_BINARY, ini], { stdio: 'ignore' })
    : spawn(PGBOUNCER_BINARY, [ini], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await listening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start: ${fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '(no log)'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `postgres://${server.username}:${server.password}@127.0.0.1:${port}/${database}`,
    async stop() {
      // pgbouncer itself (its pidfile: under runuser it is a child of ours' child), then runuser.
      const pidFile = path.join(dir, 'pgbouncer.pid');
      const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) : NaN;
      if (Number.isInteger(pid) && pid > 0) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function ownerOfPostgres(): [number, number] {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line!.split(':');
  return [Number(uid), Number(gid)];
}
