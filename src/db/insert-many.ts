import { CompiledQuery, type Insertable, type Transaction } from 'kysely';
import { valuesOf } from '../shared/column-access.js';
import type { Dialect } from './dialect/types.js';
import type { Database } from './schema.js';

/**
 * Multi-row insert for the hot write paths (stock ledger, balances, log entries, imports):
 * the statement text is built once per shape instead of through the query builder for
 * every value, which dominated the cost of a 1,000-entry post. How the rows travel is the
 * dialect's (`insertStatements`: `values` lists on SQLite, one `unnest` of typed arrays on
 * PostgreSQL). `suffix` carries an `on conflict …` and/or `returning …` clause written for
 * both databases. Returns the returned rows in statement order.
 */
export async function insertMany<Row = never>(
  trx: Transaction<Database>,
  dialect: Dialect,
  table: keyof Database & string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
  suffix = '',
): Promise<Row[]> {
  const returned: Row[] = [];
  for (const statement of await dialect.insertStatements(trx, table, columns, rows, suffix)) {
    const result = await trx.executeQuery<Row>(CompiledQuery.raw(statement.text, statement.parameters));
    for (const row of result.rows) returned.push(row);
  }
  return returned;
}

/**
 * Inserts rows and returns their new ids in row order. Ids grow in row order within a
 * statement on both databases; each statement's ids are sorted all the same, which guards
 * against any order of the returned rows.
 */
export async function insertManyReturningIds(
  trx: Transaction<Database>,
  dialect: Dialect,
  table: keyof Database & string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
): Promise<number[]> {
  const ids: number[] = [];
  for (const statement of await dialect.insertStatements(trx, table, columns, rows, 'returning id')) {
    const result = await trx.executeQuery<{ id: number | string }>(
      CompiledQuery.raw(statement.text, statement.parameters),
    );
    if (result.rows.length !== statement.rowCount)
      throw new Error(`insert into ${table} returned ${result.rows.length} ids for ${statement.rowCount} rows`);
    ids.push(...result.rows.map((row) => Number(row.id)).sort((a, b) => a - b));
  }
  return ids;
}

/** A row of `table` as a multi-row insert writes it: every column but the generated id, by name. */
export type InsertRow<T extends keyof Database> = Omit<
  { [C in keyof Insertable<Database[T]>]-?: Insertable<Database[T]>[C] },
  'id'
>;

/**
 * Rows of `table` as objects keyed by column, checked by the table's Kysely type, written by
 * insertMany in the order of `columns` (the statement's column list). A row's values are read
 * by a function generated once per column list (shared/column-access.ts), so no row goes out as
 * a hand-ordered tuple.
 */
export function insertRows<T extends keyof Database & string, Row = never>(
  trx: Transaction<Database>,
  dialect: Dialect,
  table: T,
  columns: ReadonlyArray<keyof InsertRow<T> & string>,
  rows: ReadonlyArray<InsertRow<T>>,
  suffix = '',
): Promise<Row[]> {
  const values = valuesOf(columns);
  return insertMany<Row>(trx, dialect, table, columns, rows.map(values), suffix);
}

/**
 * A table's column list, each column but the generated id exactly once: a list that misses
 * one of `Table`'s columns does not compile. The list's order is the statement's.
 */
export function tableColumns<Table>() {
  return <const L extends ReadonlyArray<Exclude<keyof Table, 'id'> & string>>(
    columns: L &
      (Exclude<keyof Table, 'id' | L[number]> extends never
        ? unknown
        : { missing: Exclude<keyof Table, 'id' | L[number]> }),
  ): L => {
    if (new Set(columns).size !== columns.length) throw new Error(`a column is listed twice: ${columns.join(', ')}`);
    return columns;
  };
}
