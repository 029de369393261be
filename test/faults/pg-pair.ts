import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../helpers/server-process.js';
import { postgresBinaries } from './pg-cluster.js';

export { ownClusterUnavailableReason as replicatedPairUnavailableReason } from './pg-cluster.js';

const run = promisify(execFile);

/**
 * A primary and a streaming standby of the drill's own (issue 31), from the Debian binaries:
 * initdb for the primary, `pg_basebackup -R` for the standby, each on a free port of
 * 127.0.0.1 with its sockets in a temporary directory, run as the `postgres` user (never the
 * shared cluster). The primary names the standby in `synchronous_standby_names`, so with
 * `synchronous_commit` at `on` (the default) a commit returns once the standby has flushed it,
 * at `remote_apply` once the standby has applied it (readable there).
 */
export type SynchronousCommit = 'on' | 'remote_apply' | 'remote_write' | 'local' | 'off';

export interface PairNode {
  port: number;
  /** A single-host URL to this server. */
  url: string;
  /** `pg_ctl stop -m immediate`: the server dies at once, as in a crash. */
  stopImmediate(): Promise<void>;
}

export interface ReplicatedPair {
  primary: PairNode;
  standby: PairNode;
  /** Both hosts, primary first: `postgres://postgres@127.0.0.1:P,127.0.0.1:S/postgres`. */
  url: string;
  /**
   * `pg_ctl promote -w`: the standby becomes a primary. Its `synchronous_standby_names` is empty
   * (the setting is the old primary's alone): it runs without a standby until one is attached.
   */
  promote(): Promise<void>;
  /** Sets `synchronous_commit` on the primary (ALTER SYSTEM and a reload): what a 2xx waits for. */
  setSynchronousCommit(level: SynchronousCommit): Promise<void>;
  /** The primary's view of the standby: `sync_state` of its walsender (`sync` when it is the synchronous standby). */
  replicationState(): Promise<{ application_name: string; state: string; sync_state: string } | undefined>;
  /** Stops both servers and removes the directory; safe to call twice. */
  destroy(): Promise<void>;
}

/** The standby's name, as `synchronous_standby_names` and `pg_stat_replication` know it. */
const STANDBY_NAME = 'standby1';

export interface PairOptions {
  synchronousCommit?: SynchronousCommit;
  log?: (line: string) => void;
  /** Called with the teardown as soon as there is anything to tear down (a Ctrl-C while the pair is being made). */
  onTeardown?: (destroy: () => Promise<void>) => void;
}

export async function createReplicatedPair(options: PairOptions = {}): Promise<ReplicatedPair> {
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error('PostgreSQL binaries not found');
  const log = options.log ?? (() => undefined);
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-pg-pair-'));
  if (asRoot) await run('chown', ['postgres:postgres', dir]);
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args])
      : run(path.join(bin, command), args);
  const primaryPort = await freePort();
  let standbyPort = await freePort();
  while (standbyPort === primaryPort) standbyPort = await freePort();

  const node = (name: string, port: number, extra: string) => {
    const data = path.join(dir, name);
    const serverLog = path.join(dir, `${name}.log`);
    // Port, sockets and address on the command line: pg_basebackup copies postgresql.conf, and
    // each server needs its own. Settings only a primary uses go on the primary's line too.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60 ${extra}`;
    const pgCtl = (...args: string[]) => as('pg_ctl', ['-D', data, '-l', serverLog, '-o', options, ...args]);
    const stop = () => pgCtl('stop', '-m', 'immediate', '-w', '-t', '30').catch(() => undefined);
    return {
      data,
      serverLog,
      pgCtl,
      stop,
      public: {
        port,
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        stopImmediate: async () => void (await pgCtl('stop', '-m', 'immediate', '-w', '-t', '30')),
      } satisfies PairNode,
    };
  };
  const primary = node('primary', primaryPort, `-c synchronous_standby_names=${STANDBY_NAME}`);
  const standby = node('standby', standbyPort, '');

  let destroyed = false;
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    // Both servers, whether or not their start was seen to finish (a postmaster whose directory
    // is gone shuts itself down when it next checks its lock file).
    await Promise.all([primary.stop(), standby.stop()]);
    // Retried: a pg_basebackup cut short may still be writing into it.
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  options.onTeardown?.(destroy);
  const sql = async <T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const replicationState = async () =>
    (
      await sql<{ application_name: string; state: string; sync_state: string }>(
        primary.public.url,
        `select application_name, state, sync_state from pg_stat_replication where application_name = '${STANDBY_NAME}'`,
      )
    )[0];

  try {
    let at = Date.now();
    await as('initdb', ['-D', primary.data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await primary.pgCtl('start', '-w', '-t', '30');
    log(`primary: initdb and start on port ${primaryPort} (${Date.now() - at} ms)`);
    const level = options.synchronousCommit ?? 'on';
    await sql(primary.public.url, `alter system set synchronous_commit = '${level}'`);
    await sql(primary.public.url, 'select pg_reload_conf()');

    at = Date.now();
    // -R: standby.signal and primary_conninfo (with this application_name) in postgresql.auto.conf.
    const conninfo = `host=127.0.0.1 port=${primaryPort} user=postgres application_name=${STANDBY_NAME}`;
    await as('pg_basebackup', ['-d', conninfo, '-D', standby.data, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    await standby.pgCtl('start', '-w', '-t', '30');
    // Streaming and synchronous before the pair is handed out: until then the primary's commits would wait.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const state = await replicationState();
      if (state?.state === 'streaming' && state.sync_state === 'sync') break;
      if (Date.now() > deadline)
        throw new Error(
          `standby not synchronous in 30 s: ${JSON.stringify(state)}\n${fs.readFileSync(standby.serverLog, 'utf8').slice(-2000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    log(
      `standby: pg_basebackup -R and start on port ${standbyPort}, streaming, sync_state sync (${Date.now() - at} ms)`,
    );
  } catch (error) {
    await destroy();
    throw error;
  }

  return {
    primary: primary.public,
    standby: standby.public,
    url: `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/postgres`,
    promote: async () => void (await standby.pgCtl('promote', '-w', '-t', '30')),
    async setSynchronousCommit(level) {
      await sql(primary.public.url, `alter system set synchronous_commit = '${level}'`);
      await sql(primary.public.url, 'select pg_reload_conf()');
    },
    replicationState,
    destroy,
  };
}
