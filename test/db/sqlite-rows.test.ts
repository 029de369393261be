import SqliteDatabase from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { objectRowReader } from '../../src/db/dialect/sqlite-rows.js';

// The SQLite reader builds object rows from raw arrays; they must be exactly the objects
// better-sqlite3 itself makes, whatever the column names.
describe('objectRowReader (SQLite rows as objects from arrays)', () => {
  let database: SqliteDatabase.Database;
  beforeEach(() => {
    database = new SqliteDatabase(':memory:');
    database.exec(`create table t (id integer primary key, name text, amount real, data blob);
      insert into t values (1, 'a', 1.5, x'01'), (2, null, null, null), (3, 'it''s "x"', -0.25, x'')`);
  });
  afterEach(() => database.close());

  const asBetterSqlite = (text: string, ...parameters: unknown[]) => database.prepare(text).all(...parameters);
  const asReader = (text: string, ...parameters: unknown[]) => objectRowReader(database.prepare(text)).all(parameters);

  it('gives the rows better-sqlite3 gives, keys in the same order', () => {
    for (const text of [
      'select * from t order by id',
      'select id as "weird ""name"" \\ `x`", name from t where id > ?',
      'select 1 as a, 2 as a, 3 as b',
    ]) {
      const parameters = text.includes('?') ? [1] : [];
      const expected = asBetterSqlite(text, ...parameters);
      const actual = asReader(text, ...parameters);
      expect(actual).toEqual(expected);
      expect(actual.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row as object)));
    }
  });

  it('answers no rows with an empty array', () => {
    expect(asReader('select * from t where id < 0')).toEqual([]);
  });

  it('keeps a column named __proto__ an own field and leaves the prototype alone', () => {
    const [row] = asReader('select 1 as "__proto__", 2 as other');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
    expect(row).toMatchObject({ other: 2 });
  });

  it('follows the columns of a statement SQLite re-prepared after a schema change', () => {
    const read = objectRowReader(database.prepare('select * from t where id = ?'));
    expect(read.all([1])).toEqual([{ id: 1, name: 'a', amount: 1.5, data: Buffer.from([1]) }]);
    database.exec(`alter table t add column extra text default 'e'`);
    expect(read.all([1])).toEqual([{ id: 1, name: 'a', amount: 1.5, data: Buffer.from([1]), extra: 'e' }]);
  });

  it('iterates rows as objects too', () => {
    const read = objectRowReader(database.prepare('select id, name from t order by id'));
    expect([...read.iterate([])]).toEqual(asBetterSqlite('select id, name from t order by id'));
  });
});
