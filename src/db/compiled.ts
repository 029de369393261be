import { CompiledQuery, type Compilable, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

interface Compiled {
  sql: string;
  /** For each bound parameter: the argument it takes, or -1 for a constant of the query. */
  slots: number[];
  constants: readonly unknown[];
}

/**
 * A query whose shape never changes, built and compiled once per database kind and then
 * run with fresh arguments. On hot read paths Kysely's building and compiling cost more
 * than SQLite's execution (single-product stock, version checks of the list cache).
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
      compiled = { sql: query.sql, slots: query.parameters.map((p) => markers.indexOf(p as string)), constants: query.parameters };
      byDialect.set(adapter, compiled);
    }
    const { slots, constants } = compiled;
    const parameters = slots.map((slot, index) => (slot === -1 ? constants[index] : args[slot]));
    return (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters))).rows;
  };
}
