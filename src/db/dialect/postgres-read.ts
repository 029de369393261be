import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { parsePostgresUrl, redact, type PostgresHost } from './postgres-hosts.js';
import type { ReadReplicas, StandbyStats } from './types.js';

/**
 * Read scaling (issue 31 "Reads scale out, and a client still reads its own writes"): the
 * standbys of DATABASE_READ_URL, each with a pool of its own, watched by one poll, and the
 * choice of the one that may serve a read. What may be read where is the routes' business
 * (plugins/read-routing.ts); this file only says which standby is fit, and when none is.
 */

/** A WAL position as PostgreSQL writes a pg_lsn: two hex numbers of up to 8 digits, `16/B374D848`. */
const LSN_SHAPE = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The WAL position `text` names, or undefined when it is not a pg_lsn. */
export function parseLsn(text: string): bigint | undefined {
  const match = LSN_SHAPE.exec(text);
  if (match === null) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** A WAL position as PostgreSQL writes it (upper-case hex, no leading zeros). */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** Whether a server that replayed up to `replayed` has everything up to `wanted` (pg_lsn compares as its 64-bit number). */
export function lsnReached(replayed: bigint | undefined, wanted: bigint): boolean {
  return replayed !== undefined && replayed >= wanted;
}

/** What pg says when a connection lost its server (the standby stopped, crashed or was cut off). */
const LOST_CONNECTION = /Connection terminated|connection error|not queryable|ECONNRESET|EPIPE/i;
const LOST_CODES = /^(08|57P)/;

/**
 * A standby connection whose statements, when the standby is lost under them outside a
 * transaction (a single statement: Kysely runs a read not in a transaction on a connection of
 * its own), run again on a primary connection: a read never fails for a standby's sake. Inside
 * a transaction (consistentRead) the statement fails as on the primary (503, retry).
 */
function retriedOnPrimary(
  client: pg.PoolClient,
  lost: () => void,
  primaryConnect: () => Promise<pg.PoolClient>,
): pg.PoolClient {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let inTransaction = false;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = async (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: unknown })?.text ?? '');
    const outside = !inTransaction;
    if (/^\s*(begin|start transaction)/i.test(text)) inTransaction = true;
    else if (/^\s*(commit|rollback)\b/i.test(text)) inTransaction = false;
    try {
      return await query(...args);
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      const isLost =
        (typeof code === 'string' && LOST_CODES.test(code)) ||
        LOST_CONNECTION.test(error instanceof Error ? error.message : '');
      if (!isLost) throw error;
      lost();
      if (!outside || inTransaction) throw error;
      const primary = await primaryConnect();
      try {
        return await (primary.query as (...a: unknown[]) => Promise<unknown>)(...args);
      } finally {
        primary.release();
      }
    }
  };
  return client;
}

/** How often each standby (and the primary's WAL position) is looked at. */
const POLL_MILLIS = 200;
/** A read with a token waits at most this long for a standby to replay it, then goes to the primary. */
export const TOKEN_WAIT_MILLIS = 1000;
/** Between two looks at the standby's replay position while a read waits for it. */
const TOKEN_RECHECK_MILLIS = 10;
/** A standby that does not answer its poll within this is left out until it does. */
const LOOK_TIMEOUT_MILLIS = 1000;
/** Samples of the primary's WAL position kept for the lag in seconds (a minute at POLL_MILLIS). */
const MAX_SAMPLES = 300;

interface Standby extends StandbyStats {
  readonly host: PostgresHost;
  readonly pool: pg.Pool;
  readonly db: Kysely<Database>;
  replayLsn: bigint | undefined;
}

export interface ReadReplicaOptions {
  /** The primary's executor, for its WAL position (lag in bytes and seconds). */
  primary: Kysely<Database>;
  /** A standby past this lag (seconds) serves no read until it catches up. */
  maxLagSeconds: number;
  /** search_path of every connection (`?schema=` of DATABASE_URL, which the standbys replicate). */
  sessionOptions: string | undefined;
  /** Called with each new standby connection (prepared statements, as on the primary). */
  onConnect(client: pg.PoolClient): void;
  /** Called with each standby's Kysely (statement log, statement preparer). */
  onDb(db: Kysely<Database>): void;
  /** A connection to the primary: what a standby read gets when its standby cannot be connected to. */
  primaryConnect(): Promise<pg.PoolClient>;
}

/** `DATABASE_READ_URL`: one or more standbys, libpq-style (`postgres://u@h1:5433,h2:5434/db`). */
export function openReadReplicas(readUrl: string, options: ReadReplicaOptions): ReadReplicas {
  const target = parsePostgresUrl(readUrl);
  if (target.schema !== undefined)
    throw new Error(`DATABASE_READ_URL takes no schema (the standbys replicate DATABASE_URL's): ${redact(readUrl)}`);
  const standbys = target.hosts.map((host) => openStandby(host, options));
  const watch = watchStandbys(standbys, options);
  const choose = standbyChooser(standbys);
  return {
    standbys: standbys as readonly StandbyStats[],
    ready: () => watch.ready,
    choose,
    async close() {
      watch.stop();
      await watch.ready.catch(() => undefined);
      await Promise.all(standbys.map((standby) => standby.db.destroy().catch(() => undefined)));
    },
  };
}

/** A standby connection lost, or its poll unanswered: no read goes there until a poll finds it up again. */
function markDown(standby: Standby): void {
  standby.up = false;
  standby.usable = false;
}

/** A standby with a pool of its own, and the Kysely its reads run on. */
function openStandby(host: PostgresHost, options: ReadReplicaOptions): Standby {
  const pool = new pg.Pool({
    connectionString: host.url,
    options: options.sessionOptions,
    max: 10,
    // A standby that does not answer quickly is left out: the read goes to the primary.
    connectionTimeoutMillis: 1000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    options.onConnect(client);
  });
  const standby: Standby = {
    name: host.name,
    host,
    pool,
    // A standby that died since the last poll: its reads connect to the primary instead (never a failed read for a standby's sake).
    db: new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: {
          connect: async () => {
            let client: pg.PoolClient;
            try {
              client = await pool.connect();
            } catch {
              markDown(standby);
              return options.primaryConnect();
            }
            return retriedOnPrimary(client, () => markDown(standby), options.primaryConnect);
          },
          end: () => pool.end(),
        },
      }),
    }),
    up: false,
    usable: false,
    lagSeconds: undefined,
    lagBytes: undefined,
    replayLsn: undefined,
  };
  options.onDb(standby.db);
  return standby;
}

/**
 * The primary's WAL position at each poll, the last MAX_SAMPLES of them: a standby that
 * replayed sample i's position has everything the primary had at its time, so its lag is at
 * most now − the time of the sample after it.
 */
class PrimarySamples {
  private readonly samples: Array<{ at: number; lsn: bigint }> = [];

  add(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  /** Seconds behind the primary of a standby that replayed `replayLsn` (0: it has the latest sample). */
  lagOf(replayLsn: bigint | undefined, now: number): number | undefined {
    const samples = this.samples;
    if (replayLsn === undefined || samples.length === 0) return undefined;
    for (let i = samples.length - 1; i >= 0; i--) {
      if (samples[i]!.lsn <= replayLsn) return i === samples.length - 1 ? 0 : (now - samples[i + 1]!.at) / 1000;
    }
    // Behind even the oldest sample kept: at least as far behind as that one.
    return (now - samples[0]!.at) / 1000;
  }
}

/** Whether the standby is up and a standby still, and what it has replayed; down when it does not answer in time. */
async function look(standby: Standby): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    // A standby gone silent (host down, network cut) is left out after LOOK_TIMEOUT_MILLIS, not after TCP's minutes.
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('standby did not answer')), LOOK_TIMEOUT_MILLIS);
    });
    const { rows } = await Promise.race([
      // On the standby's own pool: never the primary a request's connection falls back to.
      standby.pool.query<{ in_recovery: boolean; replay: string | null }>(
        'select pg_catalog.pg_is_in_recovery() as in_recovery, pg_catalog.pg_last_wal_replay_lsn()::text as replay',
      ),
      silent,
    ]);
    const row = rows[0]!;
    // A server that is no standby (promoted after a failover) is not a read replica any more.
    standby.up = row.in_recovery && row.replay !== null;
    standby.replayLsn = row.replay === null ? undefined : parseLsn(row.replay);
  } catch {
    markDown(standby);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The one poll every POLL_MILLIS: the primary's WAL position, then every standby at once,
 * each judged by its lag. `ready` settles after the first round.
 */
function watchStandbys(
  standbys: readonly Standby[],
  options: Pick<ReadReplicaOptions, 'primary' | 'maxLagSeconds'>,
): { ready: Promise<void>; stop(): void } {
  const samples = new PrimarySamples();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function poll(): Promise<void> {
    const primaryLsn = await sql<{ lsn: string }>`select pg_catalog.pg_current_wal_lsn()::text as lsn`
      .execute(options.primary)
      .then(
        ({ rows }) => parseLsn(rows[0]!.lsn),
        () => undefined,
      );
    const at = Date.now();
    if (primaryLsn !== undefined) samples.add(at, primaryLsn);
    await Promise.all(standbys.map(look));
    const now = Date.now();
    for (const standby of standbys) {
      standby.lagSeconds = standby.up ? samples.lagOf(standby.replayLsn, now) : undefined;
      standby.lagBytes =
        standby.up && primaryLsn !== undefined && standby.replayLsn !== undefined
          ? Number(primaryLsn > standby.replayLsn ? primaryLsn - standby.replayLsn : 0n)
          : undefined;
      standby.usable = standby.up && standby.lagSeconds !== undefined && standby.lagSeconds <= options.maxLagSeconds;
    }
  }

  // The next poll is timed from the end of the last one, so a slow round never overlaps the next.
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void poll().finally(schedule), POLL_MILLIS);
    timer.unref();
  };
  const ready = poll().finally(schedule);
  return {
    ready,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/**
 * ReadReplicas.choose: tokenless reads take the usable standbys in turn; a read with a token
 * takes one that has replayed it, else waits (≤ TOKEN_WAIT_MILLIS) for the furthest one.
 */
function standbyChooser(standbys: readonly Standby[]): ReadReplicas['choose'] {
  const waitFor = replayWaiter();
  // One turn for both kinds of read, as they share the standbys.
  let turn = 0;
  return async (after) => {
    const usable = standbys.filter((standby) => standby.usable);
    if (usable.length === 0) return undefined;
    if (after === undefined) {
      const standby = usable[turn++ % usable.length]!;
      return { db: standby.db, name: standby.name };
    }
    // One that has replayed the token already, else the furthest one, waited for (≤ 1 s).
    const there = usable.filter((standby) => lsnReached(standby.replayLsn, after));
    if (there.length > 0) {
      const standby = there[turn++ % there.length]!;
      return { db: standby.db, name: standby.name };
    }
    const furthest = usable.reduce((a, b) => ((b.replayLsn ?? 0n) > (a.replayLsn ?? 0n) ? b : a));
    return (await waitFor(furthest, after, Date.now() + TOKEN_WAIT_MILLIS))
      ? { db: furthest.db, name: furthest.name }
      : undefined;
  };
}

/**
 * `waitFor(standby, wanted, deadline)`: whether the standby has replayed `wanted`, asking it
 * again every TOKEN_RECHECK_MILLIS until `deadline` (between polls, its position as polled is
 * up to POLL_MILLIS old). Reads waiting on the same standby share one question at a time.
 */
function replayWaiter(): (standby: Standby, wanted: bigint, deadline: number) => Promise<boolean> {
  const asking = new Map<Standby, Promise<boolean>>();
  const refresh = (standby: Standby): Promise<boolean> => {
    let question = asking.get(standby);
    if (question === undefined) {
      question = standby.pool
        .query<{ replay: string | null }>('select pg_catalog.pg_last_wal_replay_lsn()::text as replay')
        .then(
          ({ rows }) => {
            const replay = rows[0]!.replay === null ? undefined : parseLsn(rows[0]!.replay);
            if (replay !== undefined && (standby.replayLsn === undefined || replay > standby.replayLsn))
              standby.replayLsn = replay;
            return true;
          },
          () => {
            markDown(standby);
            return false;
          },
        )
        .finally(() => asking.delete(standby));
      asking.set(standby, question);
    }
    return question;
  };

  return async (standby, wanted, deadline) => {
    for (;;) {
      if (lsnReached(standby.replayLsn, wanted)) return true;
      if (Date.now() >= deadline || !standby.up) return false;
      await new Promise((resolve) => setTimeout(resolve, TOKEN_RECHECK_MILLIS));
      if (!(await refresh(standby))) return false;
    }
  };
}

/**
 * The primary's WAL position for write answers (`x-read-after`): a position read by a query
 * that *started after* the caller's commit is at or after that commit. Callers at the same
 * time share one query: one waiting to start (joined by everyone who asks before it starts)
 * behind at most one running — under load, one tiny statement per round trip of the database
 * instead of one per write.
 */
export function writePositions(connect: () => Promise<pg.PoolClient>): () => Promise<string> {
  let queued: Promise<string> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  // On a pool connection directly: no query builder, and not one of the flows' statements (sql/).
  const ask = async () => {
    const client = await connect();
    try {
      return (await client.query<{ lsn: string }>('select pg_catalog.pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
    } finally {
      client.release();
    }
  };
  return () => {
    if (queued !== undefined) return queued;
    const next = running.then(() => {
      // Started now: later callers wait for the next one.
      if (queued === next) queued = undefined;
      return ask();
    });
    queued = next;
    running = next.catch(() => undefined);
    return next;
  };
}
