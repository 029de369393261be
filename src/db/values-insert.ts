import type { Dialect, InsertStatement } from './dialect/types.js';

/**
 * Rows per `values` statement. A fixed size keeps the SQL text of full chunks identical, so
 * the prepared statement is reused (SQLite's statement cache, PostgreSQL's named statements:
 * dialect keepPrepared) instead of being prepared and planned again for every batch.
 */
export const VALUES_ROWS_PER_STATEMENT = 100;

const texts = new Map<string, string>();

function statementText(
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  rowCount: number,
  suffix: string,
): string {
  const cacheKey = `${dialect.name}|${table}|${columns.join(',')}|${rowCount}|${suffix}`;
  let text = texts.get(cacheKey);
  if (text === undefined) {
    let position = 0;
    const tuples: string[] = [];
    for (let r = 0; r < rowCount; r++)
      tuples.push(`(${columns.map(() => dialect.placeholder(position++)).join(', ')})`);
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}${suffix ? ` ${suffix}` : ''}`;
    texts.set(cacheKey, text);
    // Full chunks run over and over: worth keeping prepared (the last, shorter one varies).
    if (rowCount === VALUES_ROWS_PER_STATEMENT) dialect.keepPrepared(text);
  }
  return text;
}

/** A multi-row insert as `values` lists of VALUES_ROWS_PER_STATEMENT rows, one parameter per value. */
export function valuesInsertStatements(
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
  suffix: string,
): InsertStatement[] {
  const statements: InsertStatement[] = [];
  for (let start = 0; start < rows.length; start += VALUES_ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + VALUES_ROWS_PER_STATEMENT);
    const parameters: unknown[] = [];
    for (const row of part) for (const value of row) parameters.push(value);
    statements.push({
      text: statementText(dialect, table, columns, part.length, suffix),
      parameters,
      rowCount: part.length,
    });
  }
  return statements;
}
