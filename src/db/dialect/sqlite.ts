import fs from 'node:fs';
import { shutdownCutPlugin } from '../shutdown-cut.js';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import type { SqliteSynchronous } from '../../config.js';
import type { Database } from '../schema.js';
import { registerDirectReader } from '../compiled.js';
import { escapeLike } from './like.js';
import { commitStamp } from './sqlite-commit-stamp.js';
import { objectRowReader } from './sqlite-rows.js';
import { valuesInsertStatements } from '../values-insert.js';
import type { DbErrorKind, DbHandle, Dialect } from './types.js';
import { statementRan } from '../statement-log.js';

const sqliteDialect: Dialect = {
  name: 'sqlite',
  // SQLite's own lower() folds ASCII only; unicode_lower (registered below) folds all.
  containsInsensitive: (column, text) =>
    sql<boolean>`unicode_lower(${column}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`,
  startsWithInsensitive: (column, text) =>
    sql<boolean>`unicode_lower(${column}) like ${`${escapeLike(text.toLowerCase())}%`} escape '\\'`,
  classifyError(error: unknown): DbErrorKind {
    if (error instanceof WriteLockTimeout) return 'busy';
    const code = (error as { code?: unknown })?.code;
    if (typeof code === 'string') {
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique';
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign-key';
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'retryable';
      // A full disk (or max_page_count reached): the statement failed and its transaction is
      // rolled back; space has to come back before any write can succeed (issue 27: 507).
      if (code === 'SQLITE_FULL') return 'full';
      // The file cannot be written (read-only file or file system, query_only) or read: 503 until it can.
      if (
        code.startsWith('SQLITE_READONLY') ||
        code.startsWith('SQLITE_CANTOPEN') ||
        code.startsWith('SQLITE_IOERR') ||
        code === 'SQLITE_NOTADB'
      ) {
        return 'unavailable';
      }
    }
    if (error instanceof TypeError && /database connection is not open/i.test(error.message)) return 'unavailable';
    return 'other';
  },
  lockForUpdate: (query) => query,
  lockInTurn: async () => undefined,
  ensureLedgerMonths: async () => [],
  // Numbered at insert: `sequence` is the events table's AUTOINCREMENT key (migration 0027).
  events: {
    sequence: async () => 0,
    async lastSequence(db) {
      const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'events'`.execute(db);
      return Number(rows[0]?.seq ?? 0);
    },
    pending: async () => false,
  },
  // The rows travel as one JSON parameter: a `values` list of 1,000 keys was 5,000+
  // parameters that Kysely built and compiled one by one (~10 ms of a 1,000-entry post), and
  // a text that changed with the row count. `->>` gives JSON integers as INTEGER and strings
  // as TEXT, what the same values bound as parameters would be. `limit -1` (no limit) keeps
  // SQLite from flattening the subquery: it is materialised once and the statement probes
  // the other table's index per row; flattened, the planner looped over that table and
  // scanned the JSON for each of its rows (1.5 s for 1,000 store products instead of 2 ms).
  withoutPlanCompiling: async () => undefined,
  rowsSource(alias, columns, rows) {
    const names = sql.join(columns.map((c, index) => sql`value ->> ${sql.lit(index)} as ${sql.id(c.name)}`));
    return sql`(select ${names} from json_each(${JSON.stringify(rows)}) limit -1) as ${sql.id(alias)}`;
  },
  insertStatements: async (_trx, table, columns, rows, suffix) =>
    valuesInsertStatements(sqliteDialect, table, columns, rows, suffix),
  async engineBalanceWrites(trx, write) {
    await sql`insert or ignore into engine_balance_writes (id) values (1)`.execute(trx);
    const result = await write();
    await sql`delete from engine_balance_writes`.execute(trx);
    return result;
  },
  keepPrepared: () => undefined,
  consistentRead: (db, work) => work(db),
  placeholder: () => '?',
  maxParameters: 32_000,
};

/**
 * BEGIN IMMEDIATE answered SQLITE_BUSY: another connection held the write lock for the whole
 * busy timeout (5 s). Running the transaction again would block this process for another
 * timeout each time (better-sqlite3 waits synchronously), eight times over: it is answered at
 * once, 503 with Retry-After (issue 27), unlike a busy error inside a transaction, which
 * inTransaction retries.
 */
class WriteLockTimeout extends Error {
  readonly code = 'SQLITE_BUSY';
  constructor(cause: unknown) {
    super('The database file stayed locked by another connection for the whole busy timeout', { cause });
  }
}

/**
 * Transactions start with BEGIN IMMEDIATE: they take the write lock up front, so a
 * second process waits (busy_timeout) instead of failing when a deferred transaction
 * tries to upgrade from reading to writing — the upgrade SQLITE_BUSY cannot be waited out.
 *
 * Rollbacks are skipped when SQLite has already ended the transaction itself (it may roll back
 * on a full disk or an I/O error): Kysely's `rollback` would fail with "no transaction is active"
 * and its error would replace the one that says what happened (a 500 instead of a 507 or 503).
 */
class ImmediateTransactionDriver extends SqliteDriver {
  constructor(
    options: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
  ) {
    super(options);
  }
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (error) {
      throw (error as { code?: unknown })?.code === 'SQLITE_BUSY' ? new WriteLockTimeout(error) : error;
    }
  }
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.inTransaction()) await super.rollbackTransaction(connection);
  }
  override async rollbackToSavepoint(...args: Parameters<SqliteDriver['rollbackToSavepoint']>): Promise<void> {
    if (this.inTransaction()) await super.rollbackToSavepoint(...args);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly options: SqliteDialectConfig,
    private readonly inTransaction: () => boolean,
  ) {
    super(options);
  }
  override createDriver(): Driver {
    return new ImmediateTransactionDriver(this.options, this.inTransaction);
  }
}

/** What Kysely's SQLite driver uses of a prepared statement; parameters come as one array. */
interface DriverStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): SqliteDatabase.RunResult;
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * Kysely hands better-sqlite3 the parameters as one array, which it binds element by
 * element through slow engine calls; passed as separate arguments they bind about twice as
 * fast, which is several milliseconds of a 1,000-entry stock post. SQLite caps a statement
 * at 32,766 parameters, well within what a call's arguments can hold.
 * `onChange` is called before every statement that is not a pure read (writes, and BEGIN,
 * COMMIT, ROLLBACK, SAVEPOINT: they return no rows), for the connection's change token.
 */
function boundByArguments(statement: SqliteDatabase.Statement, onChange: () => void): DriverStatement {
  if (statement.reader && statement.readonly)
    return { reader: true, run: (parameters) => statement.run(...parameters), ...objectRowReader(statement) };
  const run = (parameters: readonly unknown[]) => {
    onChange();
    return statement.run(...parameters);
  };
  if (!statement.reader)
    return {
      reader: false,
      run,
      all: (parameters) => statement.all(...parameters),
      iterate: (parameters) => statement.iterate(...parameters),
    };
  // A write that returns rows (insert … returning).
  const rows = objectRowReader(statement);
  return {
    reader: true,
    run,
    all(parameters) {
      onChange();
      return rows.all(parameters);
    },
    iterate(parameters) {
      onChange();
      return rows.iterate(parameters);
    },
  };
}

/**
 * Kysely's SQLite driver prepares every statement afresh (~100 µs for a wide select);
 * the service runs the same few hundred statements over and over, so prepared statements
 * are kept in a small LRU keyed by their SQL text. SQLite re-prepares a cached statement
 * by itself when the schema changes.
 */
function withStatementCache(database: SqliteDatabase.Database, onChange: () => void, capacity = 1000) {
  const cache = new Map<string, DriverStatement>();
  return {
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement) {
        cache.delete(sqlText);
      } else {
        statement = boundByArguments(database.prepare(sqlText), onChange);
        if (cache.size >= capacity) cache.delete(cache.keys().next().value!);
      }
      cache.set(sqlText, statement);
      return statement;
    },
    close() {
      cache.clear();
      database.close();
    },
  };
}

/** `sqlite:<path>` (relative or absolute, no `//`) or `sqlite::memory:` (PRODUCT §2). */
export function openSqlite(url: string, synchronous: SqliteSynchronous): DbHandle {
  const location = url.slice('sqlite:'.length);
  const file = location === ':memory:' || location === '' ? ':memory:' : path.resolve(location);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SqliteDatabase(file);
  // WAL: readers never block the writer and every committed write survives a SIGKILL.
  // FULL also syncs the WAL at each commit, so a write acknowledged with a 2xx survives a
  // power cut too (PRODUCT §2); NORMAL is the operator's choice to trade that for speed.
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.function('unicode_lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  // Bumped before every statement of this connection that may change data or end a
  // transaction (a rollback undoes what reads inside it saw): with the commit stamp, which
  // moves with every commit of any *other* connection, it makes the change token.
  let ownChanges = 0;
  const statements = withStatementCache(database, () => void ownChanges++);
  const commits = commitStamp(database, file);
  const db: Kysely<Database> = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: statements }, () => database.inTransaction),
    log: (event) => statementRan(db, event.query.sql, event.query.parameters),
    plugins: [shutdownCutPlugin(() => db)],
  });
  // better-sqlite3 runs a statement synchronously, so a read outside any transaction is the
  // same statement Kysely would run, minus its connection hand-over (a few awaits). While a
  // transaction is open on the connection (it holds it across awaits), the read must wait
  // its turn instead of seeing that transaction's uncommitted rows: Kysely queues it.
  // Each compiled query keeps its own statement: a fixed set, outside the LRU's churn.
  registerDirectReader(db, (sqlText) => {
    let reader: ReturnType<typeof objectRowReader> | null | undefined;
    return (parameters) => {
      if (database.inTransaction || !database.open) return undefined;
      if (reader === undefined) {
        const statement = database.prepare(sqlText);
        reader = statement.reader && statement.readonly ? objectRowReader(statement) : null;
      }
      return reader === null ? undefined : reader.all(parameters);
    };
  });
  return {
    db,
    dialect: sqliteDialect,
    async ping() {
      await sql`select 1`.execute(db);
    },
    poolStats: () => ({ total: 1, idle: 1, waiting: 0, lost: 0 }),
    // Inside a transaction its own uncommitted writes are visible on the connection: no token.
    changeToken: () => (database.inTransaction || !database.open ? undefined : `${commits.read()}\u0000${ownChanges}`),
    async bulkLoad(table, columns, rows) {
      if (rows.length === 0) return;
      ownChanges++;
      const insert = database.prepare(
        `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
      );
      // AUTOINCREMENT tables move their sequence past explicit ids by themselves.
      database.transaction(() => {
        for (const row of rows) insert.run(...(row as unknown[]));
      })();
    },
    async analyze(tables) {
      for (const table of tables) database.exec(`analyze "${table}"`);
    },
    async close() {
      commits.close();
      await db.destroy();
    },
  };
}
