/**
 * The floor of "read rows, send JSON" for the stock list (its own process): a bare Fastify
 * route — no plugins, hooks or schemas — that reads one page of a store's stock with ONE
 * hand-written SQL query on the service's own database file (read-only, beside the running
 * service), groups the balance rows per store product and serialises them with
 * JSON.stringify. No cache: every request reads its rows.
 * GET <path>?store_number=<s>&after_id=<store product id>&page_size=<n>. The item shape is
 * the service's in spirit (a product's description, totals per pool, a line per location
 * with its tags and per-pool quantities), not field for field.
 * Usage: stock-page-floor.ts <port> <path> <database file>
 */
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';

const [port, routePath, file] = process.argv.slice(2);
if (port === undefined || routePath === undefined || file === undefined)
  throw new Error('usage: stock-page-floor.ts <port> <path> <database file>');

const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
// A page of store products in id order (keyset), each with its product's description and
// every balance line with its location; quantities are stored in thousandths.
const pageQuery = database.prepare(`
  with page as (
    select id, store_id, product_id, store_number, product_number, min, max, price, stock_modified_at
    from store_products
    where store_number = ? and id > ? and deleted_on is null
    order by id
    limit ?
  )
  select page.*, p.product_name, p.barcode, p.category_code, b.location_id, b.pool, b.quantity, l.location_code, l.location_order, l.tags
  from page
  join products p on p.id = page.product_id
  left join stock_balances b on b.store_id = page.store_id and b.product_id = page.product_id
  left join locations l on l.id = b.location_id
  order by page.id, b.location_id, b.pool`);

const POOLS = 10;

interface Row {
  id: number;
  store_number: string;
  product_number: string;
  min: number | null;
  max: number | null;
  price: number | null;
  stock_modified_at: number | null;
  product_name: string;
  barcode: string | null;
  category_code: string | null;
  location_id: number | null;
  pool: number | null;
  quantity: number | null;
  location_code: string | null;
  location_order: number | null;
  tags: string | null;
}

interface LocationLine {
  location_id: number;
  location_code: string | null;
  location_order: number | null;
  tags: unknown;
  quantity: number;
  pools: number[];
}

interface Item {
  id: number;
  store_number: string;
  product_number: string;
  product_name: string;
  barcode: string | null;
  category_code: string | null;
  min: number | null;
  max: number | null;
  price: number | null;
  stock_modified_datetime: string | null;
  stock_quantity: number;
  stock_pools: number[];
  store_locations: LocationLine[];
}

const app = Fastify({ logger: false });
app.get(routePath, (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const pageSize = Number(query.page_size ?? 100);
  const rows = pageQuery.all(query.store_number, Number(query.after_id ?? 0), pageSize) as Row[];
  const list: Item[] = [];
  for (const row of rows) {
    let item = list[list.length - 1];
    if (item?.id !== row.id) {
      item = {
        id: row.id,
        store_number: row.store_number,
        product_number: row.product_number,
        product_name: row.product_name,
        barcode: row.barcode,
        category_code: row.category_code,
        min: row.min,
        max: row.max,
        price: row.price,
        stock_modified_datetime: row.stock_modified_at === null ? null : new Date(row.stock_modified_at).toISOString(),
        stock_quantity: 0,
        stock_pools: new Array<number>(POOLS).fill(0),
        store_locations: [],
      };
      list.push(item);
    }
    if (row.quantity === null || row.pool === null || row.location_id === null) continue;
    const quantity = row.quantity / 1000;
    item.stock_quantity += quantity;
    item.stock_pools[row.pool - 1]! += quantity;
    let line = item.store_locations[item.store_locations.length - 1];
    if (line?.location_id !== row.location_id) {
      line = {
        location_id: row.location_id,
        location_code: row.location_code,
        location_order: row.location_order,
        tags: row.tags === null ? [] : JSON.parse(row.tags),
        quantity: 0,
        pools: new Array<number>(POOLS).fill(0),
      };
      item.store_locations.push(line);
    }
    line.quantity += quantity;
    line.pools[row.pool - 1]! += quantity;
  }
  reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify({ page_size: pageSize, list }));
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
