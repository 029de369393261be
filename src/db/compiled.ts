import { CompiledQuery, type Compilable, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { statementRan } from './statement-log.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** What one argument of a compiled query may be: a single value both drivers bind (not a boolean: better-sqlite3 binds none). */
export type BindableValue = string | number | bigint | null;

/** Stands in for the arguments while the query is built once; never a value a caller sends. */
const MARKER_PREFIX = '\u0001argument ';

/**
 * Every argument bound as a parameter, as itself, and none in the SQL text: otherwise the
 * one compiled statement would keep the first call's value (or its marker) for every later
 * call — a wrong answer, or worse, SQL built from an argument. Thrown at the first compile.
 */
function assertArgumentsBound(sqlText: string, parameters: readonly unknown[], markers: readonly string[]): void {
  const spliced = markers.findIndex((marker) => sqlText.includes(marker));
  if (spliced !== -1 || sqlText.includes(MARKER_PREFIX)) {
    throw new Error(
      `compiledOnce: argument ${spliced === -1 ? '?' : spliced} is spliced into the SQL text; bind it as a value instead`,
    );
  }
  for (const parameter of parameters) {
    if (typeof parameter === 'string' && parameter.includes(MARKER_PREFIX) && !markers.includes(parameter)) {
      throw new Error(
        `compiledOnce: a parameter is derived from an argument (${JSON.stringify(parameter)}); bind the argument itself and derive in SQL`,
      );
    }
  }
  markers.forEach((marker, index) => {
    if (!parameters.includes(marker))
      throw new Error(`compiledOnce: argument ${index} is never bound as a parameter; every argument must be`);
  });
}

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
 * Told each compiled statement text once per Kysely instance: PostgreSQL keeps them
 * prepared on its connections (dialect keepPrepared), so the hot reads built here are parsed
 * and planned once per connection instead of at every run — planning was most of a
 * single-product stock read's database time (issue 28).
 */
const preparers = new WeakMap<object, (sqlText: string) => void>();

export function registerStatementPreparer(db: Kysely<Database>, prepare: (sqlText: string) => void): void {
  preparers.set(db, prepare);
}

/**
 * A query whose shape never changes, built and compiled once per database kind and then
 * run with fresh arguments. On hot read paths Kysely's building and compiling cost more
 * than SQLite's execution (single-product stock, version checks of the list cache), and
 * outside a transaction its connection hand-over costs more again: a dialect with a
 * direct reader (SQLite) answers those at once.
 * `build` must use every argument as a bound value (never in SQL text or an IN list): the
 * first compile checks that it does (`assertArgumentsBound`) and throws otherwise, and the
 * arguments are typed as single bindable values, so an array (an IN list whose length
 * the one compiled text would fix) does not type-check.
 */
export function compiledOnce<Args extends BindableValue[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
) {
  const byDialect = new Map<unknown, Compiled>();
  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter.constructor;
    let compiled = byDialect.get(adapter);
    if (compiled === undefined) {
      const markers = args.map((_, index) => `${MARKER_PREFIX}${index}\u0001`);
      const query = build(db as Kysely<Database>, ...(markers as Args)).compile();
      assertArgumentsBound(query.sql, query.parameters, markers);
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
        preparers.get(db)?.(compiled.sql);
      }
      const rows = direct?.(parameters);
      if (rows !== undefined) {
        statementRan(db, compiled.sql, parameters);
        return rows as Row[];
      }
    }
    return (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters))).rows;
  };
}
