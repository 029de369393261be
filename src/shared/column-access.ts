/**
 * Moving a record between its object form and a list of column values, through functions
 * generated once per column list. A loop over the column names reads each property by a
 * name known only at run time (a dictionary probe per value; for a 90-column product
 * about 10 µs); a generated function names every property in its source, so V8 reads
 * them at fixed offsets of one object shape. Import and post paths convert tens of
 * thousands of records per request.
 *
 * The names are written as JSON strings, so no column name can become code. `__proto__`
 * is no plain property name (as a literal key it sets the prototype), so a list holding it
 * gets the plain loop instead.
 */

type Row = Record<string, unknown>;

/** `(record) => [record.a ?? null, …]`: the values of `columns`, null where absent. */
export type ValuesOf = (record: object) => unknown[];

/** `(values) => ({ a: values[0], … })`: later names win, as an object literal's do. */
export type ObjectOf = (values: readonly unknown[]) => Row;

const UNSAFE_NAME = '__proto__';
const readers = new Map<string, ValuesOf>();

/**
 * The values reader of a column list, generated on first use and kept by the names (column
 * lists are few and fixed). A caller converting record after record keeps the reader, e.g.
 * in a module constant, rather than asking for it per record.
 */
export function valuesOf(columns: readonly string[]): ValuesOf {
  const names = JSON.stringify(columns);
  let read = readers.get(names);
  if (read === undefined) {
    read = generateValuesOf([...columns]);
    readers.set(names, read);
  }
  return read;
}

function generateValuesOf(columns: readonly string[]): ValuesOf {
  if (columns.includes(UNSAFE_NAME)) {
    return (record) =>
      columns.map((column) => (Object.hasOwn(record, column) ? ((record as Row)[column] ?? null) : null));
  }
  const reads = columns.map((column) => `record[${JSON.stringify(column)}] ?? null`).join(', ');
  return new Function('record', `return [${reads}];`) as ValuesOf;
}

/** The object builder of a column list (not cached: the caller keeps it with its statement). */
export function objectOf(columns: readonly string[]): ObjectOf {
  if (columns.includes(UNSAFE_NAME)) {
    return (values) => {
      const row: Row = {};
      columns.forEach((name, index) =>
        Object.defineProperty(row, name, {
          value: values[index],
          enumerable: true,
          writable: true,
          configurable: true,
        }),
      );
      return row;
    };
  }
  const fields = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as ObjectOf;
}
