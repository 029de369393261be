import { CompiledQuery, type Compilable, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

interface Compiled {
  sql: string;
  /** For each bound parameter: the argument it takes, or -1 for a constant of the query. */
  slots: number[];
  constants: readonly unknown[];
  /** The direct runner of this statement per Kysely instance, null where there is none. */
  direct: WeakMap<object, DirectRun | null>;
}

/**
 * Prepares a read statement to be run at once, without Kysely's connection hand-over,
 * whenever the dialect can do so with the same result; the runner answers undefined when
 * it cannot right now (the caller then goes through Kysely). Registered by a dialect for
 * its Kysely instance.
 */
export type DirectReader = (sqlText: string) => DirectRun;
type DirectRun = (parameters: readonly unknown[]) => unknown[] | undefined;

const directReaders = new WeakMap<object, DirectReader>();

export function registerDirectReader(db: Kysely<Database>, reader: DirectReader): void {
  directReaders.set(db, reader);
}

/**
 * A query whose shape never changes, built and compiled once per database kind and then
 * run with fresh arguments. On hot read paths Kysely's building and compiling cost more
 * than SQLite's execution (single-product stock, version checks of the list cache), and
 * outside a transaction its connection hand-over costs more again: a dialect with a
 * direct reader (SQLite) answers those at once.
 * `build` must use every argument as a bound value (never in SQL text or an IN list).
 */
export function compiledOnce<Args extends unknown[], Row>(build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>) {
  const byDialect = new Map<unknown, Compiled>();
  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter.constructor;
    let compiled = byDialect.get(adapter);
    if (compiled === undefined) {
      const markers = args.map((_, index) => `\u0001argument ${index}\u0001`);
      const query = build(db as Kysely<Database>, ...(markers as Args)).compile();
      compiled = {
        sql: query.sql,
        slots: query.parameters.map((p) => markers.indexOf(p as string)),
        constants: query.parameters,
        direct: new WeakMap(),
      };
      byDialect.set(adapter, compiled);
    }
    const { slots, constants } = compiled;
    const parameters = slots.map((slot, index) => (slot === -1 ? constants[index] : args[slot]));
    if (!db.isTransaction) {
      let direct = compiled.direct.get(db);
      if (direct === undefined) {
        direct = directReaders.get(db)?.(compiled.sql) ?? null;
        compiled.direct.set(db, direct);
      }
      const rows = direct?.(parameters);
      if (rows !== undefined) return rows as Row[];
    }
    return (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters))).rows;
  };
}
