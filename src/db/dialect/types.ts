import type { Expression, Kysely, RawBuilder, SqlBool, Transaction } from 'kysely';
import type { RequestScope } from '../request-scope.js';
import type { Database } from '../schema.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * What a driver error means to the service; mapped to HTTP in one place (plugins/error-handler.ts).
 * - `retryable`: a serialization failure, deadlock or lock conflict: run the transaction again.
 * - `busy`: the database stayed locked longer than the service waits (SQLite's busy timeout):
 *   answered at once (503), not run again in the process.
 * - `unavailable`: the database cannot be reached or written (lost connection, restart,
 *   failover, read-only file): 503 until it answers again.
 * - `full`: no space left for the write (full disk, SQLite's max_page_count): 507 until space returns.
 * - `archived`: an entry dated before the ledger's archive boundary (PostgreSQL, ledger/archive.ts): 422.
 */
export type DbErrorKind =
  | 'unique'
  | 'foreign-key'
  | 'retryable'
  | 'busy'
  | 'unavailable'
  | 'full'
  | 'archived'
  | 'other';

/**
 * Everything that differs between SQLite and PostgreSQL lives behind this interface.
 * Services and repositories call it; they never branch on the dialect themselves.
 */
export interface Dialect {
  readonly name: DialectName;
  /** Case-insensitive literal substring match (PRODUCT §3.1 search_text; `%`/`_` escaped). */
  containsInsensitive(column: Expression<string | null>, text: string): RawBuilder<SqlBool>;
  /** Case-insensitive literal prefix match. */
  startsWithInsensitive(column: Expression<string | null>, text: string): RawBuilder<SqlBool>;
  classifyError(error: unknown): DbErrorKind;
  /**
   * Row locks for read-modify-write inside a transaction: `FOR UPDATE` on PostgreSQL; on
   * SQLite a no-op, since a write transaction already holds the database's only write lock.
   */
  lockForUpdate<Q extends { forUpdate(): Q }>(query: Q): Q;
  /**
   * Waits for exclusive use of `keys` (any strings naming what is about to be written) until
   * the transaction ends, **first come, first served**: a writer that asked earlier goes first.
   * PostgreSQL: transaction-scoped advisory locks, which its lock manager grants in queue
   * order — unlike a row lock, whose waiters all wake when the holder commits and race for
   * the row, so that an unlucky one can lose many rounds in a row. SQLite: nothing to do (a
   * write transaction already holds the database's only write lock; waiting writers queue on
   * the busy timeout).
   */
  lockInTurn(trx: Transaction<Database>, keys: readonly string[]): Promise<void>;
  /**
   * Runs the posting engine's balance writes (`write`) telling the stock-version triggers on
   * stock_balances that the engine bumps the store products' versions itself, once per
   * request (migration 0017); any other writer of balances still bumps them through the
   * triggers. PostgreSQL: a transaction-local setting; SQLite: a row inserted before and
   * deleted after, inside the same write transaction, which no other writer can see.
   */
  engineBalanceWrites<T>(trx: Transaction<Database>, write: () => Promise<T>): Promise<T>;
  /**
   * Marks a statement text the service runs over and over with fresh parameters (the full
   * chunks of db/insert-many.ts). PostgreSQL keeps it prepared on each connection, so it is
   * parsed and planned once instead of at every run (a 100-row insert carries thousands of
   * parameters); SQLite prepares every statement once anyway (its statement cache).
   */
  keepPrepared(sqlText: string): void;
  /**
   * For the rest of the transaction, no statement's plan is compiled: PostgreSQL JIT-compiles a
   * plan estimated past `jit_above_cost`, and a store the planner has no statistics for yet
   * gets short reads estimated in the millions (~0.8 s of compiling for ~30 ms of work, issue
   * 44). SQLite compiles nothing: a no-op.
   */
  withoutPlanCompiling(trx: Transaction<Database>): Promise<void>;
  /**
   * Rows sent with a statement as a derived table `(…) as <alias>` with the named columns,
   * to join an update against (`update … from <rows> where …`). PostgreSQL: `unnest` of one
   * typed array per column, so the statement text and its plan are the same for any number
   * of rows; SQLite: `json_each` of one JSON array of the rows. Either way a fixed number of
   * parameters, so callers send all their rows in one statement.
   */
  rowsSource(
    alias: string,
    columns: readonly RowsSourceColumn[],
    rows: ReadonlyArray<readonly unknown[]>,
  ): RawBuilder<unknown>;
  /**
   * The statements of a multi-row insert (db/insert-many.ts). SQLite: `values` lists of a
   * fixed number of rows, one parameter per value. PostgreSQL: one statement per 10,000 rows
   * that inserts from `unnest` of one typed array per column — a fixed text with one
   * parameter per column, parsed and planned once per connection whatever the row count.
   */
  insertStatements(
    trx: Transaction<Database>,
    table: string,
    columns: readonly string[],
    rows: ReadonlyArray<readonly unknown[]>,
    suffix: string,
  ): Promise<InsertStatement[]>;
  /**
   * Runs `work`'s reads on one snapshot of the database, so that several statements see the
   * same committed rows. PostgreSQL: a read-only REPEATABLE READ transaction (its commits may
   * land out of id order, so two statements a moment apart can disagree about rows below an
   * id both saw). SQLite: the statements as they are — one writer at a time, so a commit
   * between two statements only adds rows with ids above every id either saw — without
   * taking the write lock that a SQLite transaction here takes.
   */
  consistentRead<T>(db: Kysely<Database>, work: (reader: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Makes the ledger's coming months (and, given `from`, its months back to `from` while none is
   * stored before them): PostgreSQL partitions stock_logs and stock_log_parts by month
   * (migration 0025, dialect/postgres-partitions.ts); SQLite keeps one file and has nothing to
   * make. Returns the partitions made.
   */
  ensureLedgerMonths(db: Kysely<Database>, now: number, from?: number): Promise<string[]>;
  /**
   * Archiving old ledger months (ledger/archive.ts), where the ledger is partitioned by month
   * (PostgreSQL); absent on SQLite, which keeps it in one file. `lock` holds off every ledger
   * write and other maintenance until the transaction ends; `detachBefore` moves the months
   * before `boundary` out of the ledger, refuses entries dated there from then on, and returns
   * the archived tables.
   */
  readonly ledgerArchive?: {
    lock(trx: Transaction<Database>): Promise<void>;
    detachBefore(trx: Transaction<Database>, boundary: number): Promise<string[]>;
    /** After the archive committed: frees the archived tables of their foreign keys. */
    release(db: Kysely<Database>, tables: readonly string[]): Promise<void>;
    /** The ledger's partitions per table with their estimated rows (`store-ops ledger months`). */
    months(
      db: Kysely<Database>,
    ): Promise<
      Array<{ table: string; name: string; from: number | null; to: number | null; isDefault: boolean; rows: number }>
    >;
  };
  /** Numbering of the change feed's events (PRODUCT §9, migration 0027). */
  readonly events: EventSequencing;
  /** The bound-parameter marker at 0-based position `index` (`?` or `$1`). */
  placeholder(index: number): string;
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number;
}

/**
 * How events get their feed sequence. SQLite numbers them at insert (one writer at a time:
 * insert order is commit order); PostgreSQL numbers them after their commit
 * (dialect/postgres-events.ts), in passes of one sequencer per database schema.
 */
export interface EventSequencing {
  /**
   * Numbers the committed events that have no sequence yet; returns how many it numbered.
   * Without `wait`, a turn another process holds is left to it (0). With `wait`, it waits for
   * the turn: when it returns, every event committed before the call has its number (a read
   * sees the writes committed before it).
   */
  sequence(db: Kysely<Database>, options?: { wait?: boolean }): Promise<number>;
  /** The last sequence given: every event up to it is readable, none above it is. */
  lastSequence(db: Kysely<Database>): Promise<number>;
  /** Whether committed events wait for a number (cheap: the sequencer's queue index). */
  pending(db: Kysely<Database>): Promise<boolean>;
}

/** One statement of a multi-row insert, and how many rows it inserts. */
export interface InsertStatement {
  text: string;
  parameters: unknown[];
  rowCount: number;
}

/** A column of `Dialect.rowsSource`: its name and SQL type. */
export interface RowsSourceColumn {
  name: string;
  type: 'bigint' | 'text';
}

export interface DbHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * The request this handle serves, when a request made it (plugins/idempotency.ts gives
   * such a handle to requests with an Idempotency-Key): inTransaction runs inside the
   * request's own transaction, in a savepoint.
   */
  readonly requestScope?: RequestScope;
  /** Schema holding the tables on PostgreSQL (from `?schema=`), undefined for the default. */
  readonly schema?: string;
  /** Cheap reachability check for /readyz. */
  ping(): Promise<void>;
  /**
   * Connection pool figures for /metrics; `lost`: connections that lost their server since
   * the start (PostgreSQL restart, failover, network loss), each discarded from the pool.
   */
  poolStats(): { total: number; idle: number; waiting: number; lost: number };
  /**
   * A value that changes whenever committed data may have changed, by this process or any
   * other: two equal tokens mean nothing was committed between the two reads of them.
   * Read it *before* the data it labels. Undefined when the database cannot tell cheaply
   * (PostgreSQL: a pool of connections and other processes) or cannot tell right now.
   */
  changeToken(): string | undefined;
  /**
   * Writes `rows` (values in `columns` order) into `table` as fast as the database takes
   * them, outside any request: PostgreSQL `COPY … FROM STDIN`, SQLite one prepared insert
   * in one transaction. Rows may carry explicit ids; the id sequence moves past them. For
   * bulk tools only (`store-ops generate`): no validation, no bookkeeping, no triggers skipped.
   */
  bulkLoad(table: string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): Promise<void>;
  /** Refreshes the planner's statistics of `tables` after a bulk load (`analyze`), as autovacuum would later. */
  analyze(tables: readonly string[]): Promise<void>;
  /**
   * PostgreSQL: the primary's WAL position now (`pg_current_wal_lsn()`), at or after every
   * commit made before the call: a write answer's `x-read-after` (plugins/read-routing.ts).
   * Concurrent callers share one query that started after each of them called.
   */
  writePosition?(): Promise<string>;
  /** PostgreSQL with DATABASE_READ_URL: the standbys that may serve reads (dialect/postgres-read.ts). */
  readonly reads?: ReadReplicas;
  close(): Promise<void>;
}

/** One standby of DATABASE_READ_URL as /metrics shows it. */
export interface StandbyStats {
  /** `host:port`. */
  readonly name: string;
  /** Answered the last look, and is still in recovery (a standby). */
  up: boolean;
  /** Up and within DATABASE_READ_MAX_LAG_SECONDS: serves reads. */
  usable: boolean;
  /** Seconds behind the primary (at most; within the poll interval), undefined when unknown. */
  lagSeconds: number | undefined;
  /** Bytes of WAL the primary has and this standby has not replayed, undefined when unknown. */
  lagBytes: number | undefined;
}

/** The standbys of DATABASE_READ_URL (dialect/postgres-read.ts). */
export interface ReadReplicas {
  readonly standbys: readonly StandbyStats[];
  /** Resolves after the first look at every standby. */
  ready(): Promise<void>;
  /**
   * A standby fit to serve a read: up, within the lag limit and — given `after`, a WAL position
   * — one that has replayed it, waited for at most 1 s. Undefined: read on the primary.
   */
  choose(after: bigint | undefined): Promise<{ db: Kysely<Database>; name: string } | undefined>;
  close(): Promise<void>;
}
