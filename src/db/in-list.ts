import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type OperandValueExpression,
  type OperandValueExpressionOrList,
  type ReferenceExpression,
  type SqlBool,
} from 'kysely';

/**
 * Keys per `in (…)` list: well below the bound-parameter limit of either database (SQLite
 * 32,766, PostgreSQL 65,535), leaving room for the statement's other parameters.
 */
export const KEYS_PER_QUERY = 10_000;

/**
 * `values` cut into IN lists of at most `size`, each padded to the next power of two (or to
 * `size`) by repeating its last value. A repeated value changes nothing an IN list means,
 * but the statement then has one of a few shapes instead of one per list length, so the
 * prepared statement (db/dialect statement cache) and Kysely's compiled text are reused: a
 * 1,000-entry stock post otherwise prepared a dozen fresh statements for its lookups.
 */
export function inListChunks<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += size) {
    const part = values.slice(start, start + size);
    let length = 1;
    while (length < part.length) length *= 2;
    const target = Math.min(length, size);
    const last = part[part.length - 1]!;
    while (part.length < target) part.push(last);
    chunks.push(part);
  }
  return chunks;
}

/**
 * `column IN (values)` as a condition, where an empty list matches nothing. Kysely renders
 * an empty list as `in ()`, which PostgreSQL refuses, and a bound `false` fails on SQLite
 * (better-sqlite3 binds no booleans; docs/decisions.md "empty IN lists"). `1 = 0` is false on
 * both.
 * A list that may exceed what one statement binds is cut with `inListChunks` first.
 */
export function columnIn<DB, TB extends keyof DB, RE extends ReferenceExpression<DB, TB>>(
  eb: ExpressionBuilder<DB, TB>,
  column: RE,
  values: readonly OperandValueExpression<DB, TB, RE>[],
): Expression<SqlBool> {
  if (values.length === 0) return sql<SqlBool>`1 = 0`;
  return eb(column, 'in', values as OperandValueExpressionOrList<DB, TB, RE>);
}
