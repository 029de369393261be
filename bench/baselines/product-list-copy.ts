/**
 * The plain table the product list read floor (servers/product-list-floor.ts) reads: the
 * lines of a list exactly as the service answered them, written once before anything is
 * measured into a SQLite file of its own. The floor then does only "read the rows, send
 * JSON"; what the service does on top (joining the product master, the categories and the
 * store's locations for every line, mapping, its plugins and schemas) is the service's cost.
 */
import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { columnValue, plainTableDdl, PRODUCT_LIST_LINE_FIELDS, productListReadLinesTable } from './plain-tables.js';

/** A line as the service answers it (interface §2.1): absent fields are absent. */
export type AnsweredLine = Partial<Record<(typeof PRODUCT_LIST_LINE_FIELDS)[number], unknown>>;

/** A fresh `file` holding `lines` as list `listId`, positions 1…n in the order given; the rows written. */
export function writeProductListCopy(file: string, listId: number, lines: readonly AnsweredLine[]): number {
  for (const suffix of ['', '-journal', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  const database = new SqliteDatabase(file);
  try {
    const table = productListReadLinesTable;
    database.exec(plainTableDdl(table));
    const columns = [...table.naturalKey, ...table.columns];
    const insert = database.prepare(
      `insert into ${table.name} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    );
    database.transaction(() => {
      lines.forEach((line, index) =>
        insert.run(listId, index + 1, ...PRODUCT_LIST_LINE_FIELDS.map((field) => columnValue(line[field]))),
      );
    })();
    return database.prepare(`select count(*) from ${table.name}`).pluck().get() as number;
  } finally {
    database.close();
  }
}
