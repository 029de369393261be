import type { Expression, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { RequestScope } from '../../shared/request-scope.js';
import type { Database } from '../schema.js';

export type DialectName = 'sqlite' | 'postgres';

/** What a driver error means to the service; mapped to HTTP in one place (shared/errors). */
export type DbErrorKind = 'unique' | 'foreign-key' | 'retryable' | 'unavailable' | 'other';

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
  /** The bound-parameter marker at 0-based position `index` (`?` or `$1`). */
  placeholder(index: number): string;
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number;
}

export interface DbHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * The request this handle serves, when a request made it (plugins/idempotency.ts gives
   * such a handle to requests with an Idempotency-Key): inTransaction marks the key.
   */
  readonly requestScope?: RequestScope;
  /** Schema holding the tables on PostgreSQL (from `?schema=`), undefined for the default. */
  readonly schema?: string;
  /** Cheap reachability check for /readyz. */
  ping(): Promise<void>;
  /** Connection pool figures for /metrics. */
  poolStats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}
