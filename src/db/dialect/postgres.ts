import pg from 'pg';
import { shutdownCutPlugin } from '../shutdown-cut.js';
import { Kysely, PostgresAdapter, PostgresDialect, sql, type DialectAdapter, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import { escapeLike } from './like.js';
import { registerStatementPreparer } from '../compiled.js';
import { copyRows } from './postgres-copy.js';
import { ensureLedgerMonths, postgresLedgerArchive } from './postgres-partitions.js';
import { postgresEventSequencing } from './postgres-events.js';
import { LivenessWatch } from './postgres-liveness.js';
import { HostPool, parsePostgresUrl } from './postgres-hosts.js';
import type { DbErrorKind, DbHandle, Dialect, InsertStatement } from './types.js';
import { openReadReplicas, writePositions } from './postgres-read.js';
import { statementRan } from '../statement-log.js';

// int8 (ids, epoch-millisecond date-times, scaled quantities) as JS numbers: every value
// the service stores stays below 2^53, and numbers keep mapping code dialect-free.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Socket errors of a server that is gone or cannot be reached (Node sets them as `code`, also on the AggregateError of a multi-address connect). */
const UNAVAILABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
]);

/**
 * What pg and pg-pool say, without a code, when a connection is gone or cannot be had:
 * "Connection terminated unexpectedly" (the server closed it: restart, failover, network),
 * "Connection terminated due to connection timeout" (connecting took longer than
 * connectionTimeoutMillis), "timeout exceeded when trying to connect" (no pool connection in
 * time), "Client has encountered a connection error and is not queryable" (a later query on a
 * client that lost its server, e.g. the rollback after the failed statement), "Client was
 * closed and is not queryable".
 */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable/i;

/** FNV-1a over the UTF-16 code units of `text`, as a signed 32-bit integer (an int4). */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/**
 * Statement texts kept prepared (dialect keepPrepared), each under its own name. Kysely's
 * driver sends every statement unnamed, so PostgreSQL parses and plans it at every run;
 * for these, each connection sends the text once and then only the parameters (a 1,000-entry
 * stock post: ~20 statements of thousands of parameters; a stock look-up: planning was most of
 * its database time). A small, fixed set (the full chunks of the bulk inserts and the compiled
 * hot reads of db/compiled.ts), as each costs its connections memory: ~0.85 MB for the
 * 37-column stock_logs insert, ~0.25 MB for the ledger's, a few kB for a read.
 */
const preparedNames = new Map<string, string>();
/** The bulk insert chunks and the compiled hot reads (db/compiled.ts), with room to spare. */
const MAX_PREPARED = 32;

/** Runs the statements of `preparedNames` as named (prepared) statements on this client. */
function usePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest: unknown[]) => {
    const name = typeof config === 'string' ? preparedNames.get(config) : undefined;
    if (name !== undefined && rest.length === 1 && Array.isArray(rest[0]))
      return query({ name, text: config, values: rest[0] });
    return query(config, ...rest);
  };
}

/** A statement that opens a transaction block, and one that ends it (not `rollback to savepoint`). */
const OPENS_TRANSACTION = /^\s*(?:begin|start\s+transaction)\b/i;
const ENDS_TRANSACTION = /^\s*(?:commit|end|abort|rollback(?!\s+(?:work\s+|transaction\s+)?to\b))\b/i;

/**
 * A connection through a pooler in transaction mode (`?pooler=transaction`, e.g. pgbouncer):
 * a server connection is this client's for one transaction only, so nothing may live in the
 * session. `?schema=` is then set for each transaction, `set local search_path` sent with its
 * `begin` (one round trip, as PostgreSQL's simple protocol takes both in one message), and a
 * statement outside a transaction runs in one of its own (begin + set local, the statement,
 * commit). Without `?schema=`, statements go as they are (nothing else of the session is
 * used: named statements are off, advisory locks and settings are transaction-local).
 */
function usePooledTransactions(client: pg.PoolClient, schema: string): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const setPath = `set local search_path to "${schema}"`;
  let inTransaction = false;
  const firstResult = (result: unknown) => (Array.isArray(result) ? result[0] : result);
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, ...rest: unknown[]) => {
    if (typeof config !== 'string' || typeof rest[rest.length - 1] === 'function') return query(config, ...rest);
    if (OPENS_TRANSACTION.test(config)) {
      inTransaction = true;
      // Right after the `begin`, before what else the text holds (the migration lock's statements).
      const end = config.indexOf(';');
      return query(
        end === -1 ? `${config}; ${setPath}` : `${config.slice(0, end)}; ${setPath}${config.slice(end)}`,
      ).then(firstResult);
    }
    if (ENDS_TRANSACTION.test(config)) {
      inTransaction = false;
      return query(config, ...rest);
    }
    if (inTransaction) return query(config, ...rest);
    return (async () => {
      await query(`begin; ${setPath}`);
      let result: unknown;
      try {
        result = await query(config, ...rest);
      } catch (error) {
        await query('rollback').catch(() => undefined);
        throw error;
      }
      await query('commit');
      return result;
    })();
  };
}

/**
 * Kysely's migration lock on PostgreSQL is a session-level advisory lock (`pg_advisory_lock`,
 * then the migrations' transaction, then `pg_advisory_unlock`, three statements on one pinned
 * connection). Through a transaction pooler each may run on another server session: the lock is
 * taken in one and never released (the unlock lands elsewhere), and two processes starting at
 * once can both "hold" it (their statements share a server session, where the lock is
 * re-entrant). Here the lock is transaction-level instead and opens the transaction the
 * migrations then run in: Kysely's own `begin` after it is only a warning ("there is already a
 * transaction in progress"), its `commit` or `rollback` ends both and releases the lock, so the
 * release has nothing left to do.
 */
class PooledPostgresAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin; select set_config('lock_timeout', '3600000', true); select pg_advisory_xact_lock(hashtext(current_schema() || ':migrations'))`.execute(
      db,
    );
  }

  override async releaseMigrationLock(): Promise<void> {
    // Released by the migrations' commit or rollback.
  }
}

class PooledPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new PooledPostgresAdapter();
  }
}

/** What a double-quoted array element must escape with a backslash. */
const QUOTED_IN_ARRAY = /[\\"]/g;

/** Text as a double-quoted element. Most text holds neither character: two native scans, and the regex only when needed. */
const quotedElement = (text: string) =>
  text.indexOf('"') === -1 && text.indexOf('\\') === -1 ? `"${text}"` : `"${text.replace(QUOTED_IN_ARRAY, '\\$&')}"`;

/**
 * A one-dimensional array parameter as PostgreSQL's array literal text. pg builds the same
 * text element by element through its generic value preparation, which was ~11 ms of a
 * 1,000-entry stock post's JavaScript (37 arrays of 1,000 values); the service only sends
 * numbers, text, booleans and nulls, so the literal is a join. Anything else goes to pg as
 * it is.
 */
function arrayLiteral(values: readonly unknown[]): string | readonly unknown[] {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) parts[i] = 'NULL';
    else if (typeof value === 'number') parts[i] = Number.isFinite(value) ? String(value) : `"${value}"`;
    else if (typeof value === 'string') parts[i] = quotedElement(value);
    else if (typeof value === 'boolean') parts[i] = value ? 't' : 'f';
    else return values;
  }
  return `{${parts.join(',')}}`;
}

/** Rows per unnest insert: bounds one statement's arrays, not its text. */
const UNNEST_ROWS_PER_STATEMENT = 10_000;
/** SQL type of each column, by table: read once per process from the catalog (every schema the process serves runs the same migrations). */
const columnTypes = new Map<string, Map<string, string>>();

async function typesOf(trx: Transaction<Database>, table: string): Promise<Map<string, string>> {
  let types = columnTypes.get(table);
  if (types === undefined) {
    const { rows } = await sql<{ name: string; type: string }>`
      select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = to_regclass(${table}) and attnum > 0 and not attisdropped`.execute(trx);
    types = new Map(rows.map((row) => [row.name, row.type]));
    columnTypes.set(table, types);
  }
  return types;
}

/**
 * `insert … select * from unnest($1::bigint[], $2::text[], …)`: one parameter per column
 * instead of per value, so the text is the same for any row count (kept prepared) and
 * PostgreSQL parses no thousands of placeholders (issue 15: the 100-row `values` chunks of a
 * 1,000-entry post were a third of its database time). Rows come out of unnest in array
 * order, so generated ids grow in row order as with `values`.
 */
async function unnestInsertStatements(
  trx: Transaction<Database>,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
  suffix: string,
): Promise<InsertStatement[]> {
  if (rows.length === 0) return [];
  const types = await typesOf(trx, table);
  const arrays = columns.map((column, index) => {
    const type = types.get(column);
    if (type === undefined) throw new Error(`unknown column ${table}.${column}`);
    return `$${index + 1}::${type}[]`;
  });
  const text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) select * from unnest(${arrays.join(', ')})${suffix ? ` ${suffix}` : ''}`;
  postgresDialect.keepPrepared(text);
  const statements: InsertStatement[] = [];
  for (let start = 0; start < rows.length; start += UNNEST_ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + UNNEST_ROWS_PER_STATEMENT);
    const parameters = columns.map((_, index) => arrayLiteral(part.map((row) => row[index])));
    statements.push({ text, parameters, rowCount: part.length });
  }
  return statements;
}

const postgresDialect: Dialect = {
  name: 'postgres',
  containsInsensitive: (column, text) => sql<boolean>`${column} ilike ${`%${escapeLike(text)}%`} escape '\\'`,
  startsWithInsensitive: (column, text) => sql<boolean>`${column} ilike ${`${escapeLike(text)}%`} escape '\\'`,
  classifyError(error: unknown): DbErrorKind {
    const code = (error as { code?: unknown })?.code;
    if (code === '23505') return 'unique';
    if (code === '23503') return 'foreign-key';
    // The partition below the archive boundary refuses every row (postgres-partitions.ts).
    if (code === '23514' && /_archived$/.test(String((error as { constraint?: unknown }).constraint ?? '')))
      return 'archived';
    // 53200: the shared lock table is full — the ledger takes an advisory lock per balance key,
    // and two 10,000-entry posts at once can exceed it. Retried after the other commits; if it
    // stays full, a 503 "busy", never a 500 (found by issue 26's review of the locks).
    if (code === '40001' || code === '40P01' || code === '53200') return 'retryable';
    // 08xxx connection exceptions; 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
    // cannot_connect_now (starting up, shutting down, in recovery), 57P04/57P05; 53300 too many
    // connections; 25006 read_only_sql_transaction: a write reached a server that is (now) a
    // standby — after a failover, until the connection finds the new primary.
    if (
      typeof code === 'string' &&
      (code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === '25006')
    ) {
      return 'unavailable';
    }
    // 53100 disk_full: the server could not extend a file; the transaction rolled back (507).
    if (code === '53100') return 'full';
    if (typeof code === 'string' && UNAVAILABLE_NETWORK_CODES.has(code)) return 'unavailable';
    const message = error instanceof Error ? error.message : '';
    if (UNAVAILABLE_MESSAGES.test(message)) return 'unavailable';
    return 'other';
  },
  lockForUpdate: (query) => query.forUpdate(),
  ensureLedgerMonths,
  ledgerArchive: postgresLedgerArchive,
  events: postgresEventSequencing,
  async lockInTurn(trx, keys) {
    if (keys.length === 0) return;
    // Each key becomes a 32-bit advisory lock key in the space of the current schema
    // (deployments sharing a database never queue behind each other, bar a hash collision,
    // which only makes two writers take turns). Ascending order: two transactions locking
    // overlapping keys take them in the same order, so they cannot deadlock on them. The
    // locks go in one statement, in the order of the array (no sort node in the plan).
    const hashes = [...new Set(keys.map(hash32))].sort((a, b) => a - b);
    await sql`select pg_advisory_xact_lock(hashtext(current_schema()), k) from unnest(${hashes}::int4[]) as k`.execute(
      trx,
    );
  },
  async withoutPlanCompiling(trx) {
    await sql`select set_config('jit', 'off', true)`.execute(trx);
  },
  rowsSource(alias, columns, rows) {
    const arrays = columns.map(
      (column, index) => sql`${arrayLiteral(rows.map((row) => row[index]))}::${sql.raw(column.type)}[]`,
    );
    return sql`(select * from unnest(${sql.join(arrays)}) as u(${sql.join(columns.map((c) => sql.id(c.name)))})) as ${sql.id(alias)}`;
  },
  insertStatements: unnestInsertStatements,
  async engineBalanceWrites(trx, write) {
    await sql`select set_config('store_ops.engine_balance_writes', 'on', true)`.execute(trx);
    return write();
  },
  keepPrepared(sqlText) {
    if (!preparedNames.has(sqlText) && preparedNames.size < MAX_PREPARED)
      preparedNames.set(sqlText, `store_ops_${preparedNames.size + 1}`);
  },
  consistentRead: (db, work) =>
    db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work),
  placeholder: (index) => `$${index + 1}`,
  maxParameters: 60_000,
};

/**
 * `postgres://…` or `postgresql://…`. A `schema` query parameter (not a libpq one) puts
 * every table in that schema: several deployments, or test files, can share a database.
 * Several hosts (`h1:5432,h2:5433`, as libpq) send every connection to the one that accepts
 * writes, found again after a failover (postgres-hosts.ts, issue 31).
 */
export function openPostgres(url: string, reading: { readUrl?: string; maxLagSeconds?: number } = {}): DbHandle {
  const target = parsePostgresUrl(url);
  const { schema, pooler } = target;
  // Through a transaction pooler the session is not ours: the schema goes with each
  // transaction instead (usePooledTransactions; pgbouncer refuses the `options` parameter).
  const sessionOptions = schema && pooler === undefined ? `-c search_path=${schema}` : undefined;
  const hosts = new HostPool(target, {
    options: sessionOptions,
    max: 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // An idle connection whose server vanished without a word (host down, network cut) is
    // found dead by TCP keepalive instead of after the OS's default two hours of silence.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  const { pool } = hosts;
  // Statements waiting on a server that went silent are cut (postgres-liveness.ts).
  const liveness = new LivenessWatch(pool, () => hosts.clientConfig({ options: sessionOptions }));
  // The database going away is not the service's end (PRODUCT §2, issue 27). pg-pool listens
  // for 'error' on a client only while it is idle; a checked-out client (inside a transaction,
  // between two statements) whose server restarts emitted 'error' to nobody, an uncaught
  // exception that shut the process down. So every client gets its own listener for its whole
  // life. Its statement in flight fails by itself (→ 503 UNAVAILABLE, the transaction never
  // commits), and pg-pool drops a client that is no longer queryable when it is released
  // (Kysely releases without an error; pg-pool checks `_queryable` itself), so the next
  // request gets a fresh connection as soon as the server answers again.
  const lostClients = new WeakSet<pg.PoolClient>();
  let lost = 0;
  pool.on('connect', (client) => {
    // A named statement lives in one server session: through a transaction pooler, the next
    // transaction may run on another ("prepared statement … does not exist").
    if (pooler === undefined) usePreparedStatements(client);
    liveness.track(client);
    if (pooler !== undefined && schema) usePooledTransactions(client, schema);
    client.on('error', () => {
      // pg may report one loss twice (the server's goodbye message, then the closed socket).
      if (lostClients.has(client)) return;
      lostClients.add(client);
      lost++;
    });
  });
  // The same error of an idle client, re-emitted by the pool: already counted above.
  pool.on('error', () => undefined);
  const db: Kysely<Database> = new Kysely<Database>({
    dialect: pooler === undefined ? new PostgresDialect({ pool: hosts }) : new PooledPostgresDialect({ pool: hosts }),
    log: (event) => statementRan(db, event.query.sql, event.query.parameters),
    plugins: [shutdownCutPlugin(() => db)],
  });
  registerStatementPreparer(db, (sqlText) => postgresDialect.keepPrepared(sqlText));
  // DATABASE_READ_URL: standbys for the reads routed to them (postgres-read.ts, plugins/read-routing.ts).
  const reads = reading.readUrl
    ? openReadReplicas(reading.readUrl, {
        primary: db,
        maxLagSeconds: reading.maxLagSeconds ?? 5,
        // Straight to each standby (no pooler in DATABASE_READ_URL): the schema as a session option.
        sessionOptions: schema ? `-c search_path=${schema}` : undefined,
        onConnect: usePreparedStatements,
        onDb: (standbyDb) => registerStatementPreparer(standbyDb, (sqlText) => postgresDialect.keepPrepared(sqlText)),
        primaryConnect: () => hosts.connect(),
      })
    : undefined;
  return {
    reads,
    writePosition: writePositions(() => hosts.connect()),
    db,
    dialect: postgresDialect,
    schema,
    async ping() {
      await sql`select 1`.execute(db);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, lost }),
    changeToken: () => undefined,
    async bulkLoad(table, columns, rows) {
      const client = await hosts.connect();
      try {
        // Through a transaction pooler, COPY and its setval in one transaction (with its schema).
        if (pooler !== undefined) await client.query('begin');
        await copyRows(client, table, columns, rows);
        if (pooler !== undefined) await client.query('commit');
      } catch (error) {
        // Not back to the pool with a transaction open (pooler mode): the connection goes.
        client.release(pooler !== undefined ? true : undefined);
        throw error;
      }
      client.release();
    },
    async analyze(tables) {
      await sql`analyze ${sql.join(tables.map((table) => sql.id(table)))}`.execute(db);
    },
    async close() {
      liveness.stop();
      await reads?.close();
      await db.destroy();
    },
  };
}
