import type SqliteDatabase from 'better-sqlite3';
import { objectOf, type ObjectOf } from '../../shared/column-access.js';

type Row = Record<string, unknown>;

/**
 * better-sqlite3 builds each object row through one engine call per column, which for a
 * wide select costs more than SQLite's own execution: a page of 100 stock list rows (50
 * columns) took 1.2 ms as objects against 0.5 ms as arrays. So readers run in raw (array)
 * mode and each row becomes an object through a function generated once per statement
 * from its column names (shared/column-access.ts): an object literal with the names as
 * keys, which V8 builds as one fixed shape. The rows are the objects better-sqlite3 would
 * have made — same keys in the same order, a later column of the same name winning.
 */
export function objectRowReader(statement: SqliteDatabase.Statement) {
  statement.raw(true);
  let columnCount = -1;
  let rowOf: ObjectOf | undefined;
  // The columns are read again when a row does not match them: SQLite re-prepares a
  // statement after a schema change, and `select *` may then return other columns.
  const toObject = (values: unknown[]): Row => {
    if (rowOf === undefined || values.length !== columnCount) {
      const names = statement.columns().map((column) => column.name);
      columnCount = names.length;
      rowOf = objectOf(names);
    }
    return rowOf(values);
  };
  return {
    all(parameters: readonly unknown[]): Row[] {
      const rows = statement.all(...parameters) as unknown[][];
      for (let index = 0; index < rows.length; index++) (rows as unknown[])[index] = toObject(rows[index]!);
      return rows as unknown as Row[];
    },
    *iterate(parameters: readonly unknown[]): IterableIterator<Row> {
      for (const values of statement.iterate(...parameters) as IterableIterator<unknown[]>) yield toObject(values);
    },
  };
}
