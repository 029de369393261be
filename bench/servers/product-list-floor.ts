/**
 * The floor of "read rows, send JSON" for a product list with its lines (its own process):
 * a bare Fastify route — no plugins, hooks or schemas — that reads the list's lines with ONE
 * hand-written SQL query from a plain table holding them as the service answered them
 * (baselines/product-list-copy.ts: a SQLite file of its own, written once before measuring,
 * read by its unique (list_id, line_no)) and serialises them with JSON.stringify, absent
 * fields left out as the service leaves them out. The rows come as arrays (`.raw()`) and are
 * built straight into the answer's objects: reading them as objects first and then building
 * the answer's would double the row materialisation, which is most of this route's time
 * (5,000 rows: ~6 ms as arrays, ~12 ms as objects here) — a floor must not carry that.
 * No cache: every request reads its rows.
 * GET <path>?product_list_id=<id> (other parameters, e.g. show_lines=true, are ignored)
 * answers { list: [{ id, line_count, lines }] }: the service's page of that one list without
 * the list's header fields and the paging fields (a few hundred bytes of ~1 MB).
 * Usage: product-list-floor.ts <port> <path> <database file>
 */
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';

const [port, routePath, file] = process.argv.slice(2);
if (port === undefined || routePath === undefined || file === undefined)
  throw new Error('usage: product-list-floor.ts <port> <path> <database file>');

const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
const linesQuery = database
  .prepare(`
  select quantity, barcode, category_code, colli, is_decimal, parent_category_code, product_name, product_number, stock_pool, store_walking_order
  from product_list_read_lines
  where list_id = ?
  order by line_no`)
  .raw();

type Row = [
  quantity: number,
  barcode: string | null,
  category_code: string | null,
  colli: number | null,
  is_decimal: number | null,
  parent_category_code: string | null,
  product_name: string | null,
  product_number: string | null,
  stock_pool: string | null,
  store_walking_order: number | null,
];

const app = Fastify({ logger: false });
app.get(routePath, (request, reply) => {
  const listId = Number((request.query as Record<string, string | undefined>).product_list_id);
  const rows = linesQuery.all(listId) as Row[];
  const lines = rows.map((row) => ({
    quantity: row[0],
    barcode: row[1] ?? undefined,
    category_code: row[2] ?? undefined,
    colli: row[3] ?? undefined,
    is_decimal: row[4] === null ? undefined : row[4] === 1,
    parent_category_code: row[5] ?? undefined,
    product_name: row[6] ?? undefined,
    product_number: row[7] ?? undefined,
    stock_pool: row[8] ?? undefined,
    store_walking_order: row[9] ?? undefined,
  }));
  const list = rows.length === 0 ? [] : [{ id: listId, line_count: lines.length, lines }];
  reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ list }));
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
