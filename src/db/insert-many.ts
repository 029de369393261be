import { CompiledQuery, type Transaction } from 'kysely';
import type { Dialect } from './dialect/types.js';
import type { Database } from './schema.js';

/**
 * Rows per statement. A fixed size keeps the SQL text of full chunks identical, so the
 * prepared statement is reused (SQLite's statement cache, PostgreSQL's named statements:
 * dialect keepPrepared) instead of being prepared and planned again for every batch.
 */
export const ROWS_PER_STATEMENT = 100;

const texts = new Map<string, string>();

function statementText(dialect: Dialect, table: string, columns: readonly string[], rowCount: number, suffix: string): string {
  const cacheKey = `${dialect.name}|${table}|${columns.join(',')}|${rowCount}|${suffix}`;
  let text = texts.get(cacheKey);
  if (text === undefined) {
    let position = 0;
    const tuples: string[] = [];
    for (let r = 0; r < rowCount; r++) tuples.push(`(${columns.map(() => dialect.placeholder(position++)).join(', ')})`);
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}${suffix ? ` ${suffix}` : ''}`;
    texts.set(cacheKey, text);
    // Full chunks run over and over: worth keeping prepared (the last, shorter one varies).
    if (rowCount === ROWS_PER_STATEMENT) dialect.keepPrepared(text);
  }
  return text;
}

/**
 * Multi-row insert for the hot write paths (stock ledger, balances, log entries): the
 * statement text is built once per shape instead of through the query builder for every
 * value, which dominated the cost of a 1,000-entry post. `suffix` carries an
 * `on conflict …` and/or `returning …` clause written for both databases. Returns the
 * returned rows in statement order.
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
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + ROWS_PER_STATEMENT);
    const parameters: unknown[] = [];
    for (const row of part) for (const value of row) parameters.push(value);
    const result = await trx.executeQuery<Row>(CompiledQuery.raw(statementText(dialect, table, columns, part.length, suffix), parameters));
    for (const row of result.rows) returned.push(row);
  }
  return returned;
}
