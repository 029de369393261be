/**
 * The raw write baseline, in a process of its own (forked by lib/raw-writer-client.ts):
 * better-sqlite3 prepared statements writing the same logical rows as the service into
 * plain tables (baselines/plain-tables.ts), in one transaction per request, with the same
 * `synchronous` mode as the service. Each timed operation starts from the request body's
 * text — JSON.parse is inside the timing, as the service parses the same bytes — and ends
 * when the transaction has committed.
 */
import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { answerRequests } from './ipc.js';
import { columnValue, plainTableDdl, type PlainTable } from './plain-tables.js';
import { bookEntry, type PostedEntry, type StockMaster } from './stock-booking.js';

export type RawWriterRequest =
  | { op: 'open'; file: string; synchronous: 'FULL' | 'NORMAL'; tables: PlainTable[] }
  | { op: 'import'; entity: 'stores' | 'products'; bodyFile: string }
  | ({ op: 'stock-master'; storeNumber: string } & StockMaster)
  | { op: 'stock-post'; body: string }
  | { op: 'deliveries-import'; storeNumber: string; body: string }
  | { op: 'customer-orders-import'; storeNumber: string; body: string }
  | { op: 'product-list-create'; storeNumber: string; appUsername: string; body: string }
  | { op: 'close' };

export interface RawWriterAnswer {
  ms?: number;
  rows?: number;
  /** After `product-list-create`: the sent lines whose product number matched no product. */
  skipped?: number;
  /** After `open`: the synchronous mode SQLite reports for the connection (FULL or NORMAL). */
  synchronous?: string;
  error?: string;
}

type Json = Record<string, any>;

let database: SqliteDatabase.Database | undefined;
let tables = new Map<string, PlainTable>();
let stockMaster: Extract<RawWriterRequest, { op: 'stock-master' }> | undefined;

function open(request: Extract<RawWriterRequest, { op: 'open' }>): RawWriterAnswer {
  database?.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${request.file}${suffix}`, { force: true });
  database = new SqliteDatabase(request.file);
  // As the service opens its file (src/db/dialect/sqlite.ts): WAL, and the same synchronous mode.
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${request.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
  for (const table of request.tables) database.exec(plainTableDdl(table));
  tables = new Map(request.tables.map((table) => [table.name, table]));
  const level = database.pragma('synchronous', { simple: true }) as number;
  return { synchronous: ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? String(level) };
}

const opened = () => {
  if (database === undefined) throw new Error('no database open');
  return database;
};

function insertStatement(table: PlainTable) {
  const columns = [...table.naturalKey, ...table.columns];
  return opened().prepare(
    `insert into ${table.name} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
  );
}

const timedMs = (work: () => void) => {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const count = (table: string) => (opened().prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;

/** A bulk import: each record one row of its entity's table; products also one row per barcode. */
function importBody(request: Extract<RawWriterRequest, { op: 'import' }>): RawWriterAnswer {
  const text = fs.readFileSync(request.bodyFile, 'utf8');
  const table = tables.get(request.entity)!;
  const columns = [...table.naturalKey, ...table.columns];
  const insert = insertStatement(table);
  const insertBarcode = request.entity === 'products' ? insertStatement(tables.get('product_barcodes')!) : undefined;
  const write = opened().transaction((records: Json[]) => {
    for (const record of records) {
      insert.run(columns.map((column) => columnValue(record[column])));
      if (insertBarcode === undefined) continue;
      if (record.barcode !== undefined) insertBarcode.run(record.barcode, record.product_number, 1);
      for (const alternative of record.barcodes_array ?? [])
        insertBarcode.run(alternative.barcode, record.product_number, 1);
      for (const unit of record.units ?? [])
        insertBarcode.run(unit.unit_barcode, record.product_number, unit.unit_quantity);
    }
  });
  let records: Json[] = [];
  const ms = timedMs(() => {
    records = (JSON.parse(text) as Json)[request.entity] as Json[];
    write.immediate(records);
  });
  const rows = count(table.name);
  if (rows !== records.length)
    throw new Error(`raw import stored ${rows} ${request.entity}, expected ${records.length}`);
  return { ms, rows };
}

/**
 * Booking stock log entries at the least: per entry its row, and its stock level moved by
 * the signed quantity in its pool (bookEntry, stock-booking.ts) — thousandths, epoch ms.
 */
function postStock(request: Extract<RawWriterRequest, { op: 'stock-post' }>): RawWriterAnswer {
  const master = stockMaster;
  if (master === undefined) throw new Error('stock-post before stock-master');
  const insertEntry = insertStatement(tables.get('stock_entries')!);
  const moveLevel = opened().prepare(`
    insert into stock_levels (store_number, product_number, location_code, pool, quantity, last_at) values (?, ?, ?, ?, ?, ?)
    on conflict (store_number, product_number, location_code, pool)
    do update set quantity = quantity + excluded.quantity, last_at = max(last_at, excluded.last_at)`);
  const book = opened().transaction((entries: Json[]) => {
    for (const entry of entries) {
      const { locationCode, pool, delta, at } = bookEntry(master, entry as PostedEntry);
      insertEntry.run(
        master.storeNumber,
        entry.product_number,
        locationCode,
        pool,
        entry.reason_code ?? null,
        delta,
        at,
        entry.app_user_name ?? null,
        entry.reference ?? null,
        entry.customer_order_line_number ?? null,
      );
      moveLevel.run(master.storeNumber, entry.product_number, locationCode, pool, delta, at);
    }
  });
  let entries: Json[] = [];
  const ms = timedMs(() => {
    entries = (JSON.parse(request.body) as Json).storeproductlog as Json[];
    book.immediate(entries);
  });
  return { ms, rows: entries.length };
}

/** Where an order import puts its rows: the header table, the line table, and the field holding each order's lines. */
interface OrderImportShape {
  what: string;
  orderTable: string;
  lineTable: string;
  linesField: string;
}

const DELIVERIES: OrderImportShape = {
  what: 'delivery',
  orderTable: 'delivery_orders',
  lineTable: 'delivery_lines',
  linesField: 'order_lines',
};
const CUSTOMER_ORDERS: OrderImportShape = {
  what: 'customer order',
  orderTable: 'customer_orders',
  lineTable: 'customer_order_lines',
  linesField: 'lines',
};

/**
 * An order import at the least: per order its row (the store from the path), per line its
 * row pointing at the order's new id — deliveries into `delivery_orders` and
 * `delivery_lines`, customer orders into `customer_orders` and `customer_order_lines`.
 */
function importOrders(shape: OrderImportShape, request: { storeNumber: string; body: string }): RawWriterAnswer {
  const orderTable = tables.get(shape.orderTable)!;
  const lineTable = tables.get(shape.lineTable)!;
  // The table's columns after the natural key: store_number (from the path), then the header fields.
  const headerColumns = orderTable.columns.slice(1);
  const lineColumns = lineTable.columns;
  const insertOrder = insertStatement(orderTable);
  const insertLine = insertStatement(lineTable);
  const write = opened().transaction((orders: Json[]) => {
    for (const order of orders) {
      const { lastInsertRowid } = insertOrder.run(
        order.order_number,
        request.storeNumber,
        ...headerColumns.map((column) => columnValue(order[column])),
      );
      for (const line of order[shape.linesField] ?? [])
        insertLine.run(lastInsertRowid, line.line_number, ...lineColumns.map((column) => columnValue(line[column])));
    }
  });
  const ordersBefore = count(orderTable.name);
  const linesBefore = count(lineTable.name);
  let orders: Json[] = [];
  const ms = timedMs(() => {
    orders = (JSON.parse(request.body) as Json).orders as Json[];
    write.immediate(orders);
  });
  const lines = orders.reduce((sum, order) => sum + (order[shape.linesField]?.length ?? 0), 0);
  const [orderRows, lineRows] = [count(orderTable.name) - ordersBefore, count(lineTable.name) - linesBefore];
  if (orderRows !== orders.length || lineRows !== lines)
    throw new Error(
      `raw ${shape.what} import stored ${orderRows} orders and ${lineRows} lines, expected ${orders.length} and ${lines}`,
    );
  return { ms, rows: orderRows + lineRows };
}

/**
 * Creating a product list at the least (interface §4.1): its header row (the store from the
 * path, the app user from the query), then per sent line its product's id looked up by
 * product_number in the plain `products` table (filled beforehand with the same products as
 * the service's master: a line of an unknown product is skipped, as the service skips it),
 * and a row in `product_list_lines` pointing at the list's new rowid, numbered in the order
 * sent, quantity in thousandths (0 counts as 1). Duplicates are kept (the body allows them).
 */
function createProductList(request: Extract<RawWriterRequest, { op: 'product-list-create' }>): RawWriterAnswer {
  const lookUp = opened().prepare('select id from products where product_number = ?').pluck();
  const insertList = insertStatement(tables.get('product_lists')!);
  const insertLine = insertStatement(tables.get('product_list_lines')!);
  const write = opened().transaction((list: Json): number => {
    const now = Date.now();
    const { lastInsertRowid } = insertList.run(
      request.storeNumber,
      list.product_list_name,
      list.product_list_type,
      list.module_id ?? null,
      request.appUsername,
      list.is_allow_duplicate_products === false ? 0 : 1,
      JSON.stringify(list.free_fields ?? []),
      now,
      now,
    );
    let lineNo = 0;
    for (const line of (list.lines ?? []) as Json[]) {
      const productId = lookUp.get(line.product_number);
      if (productId === undefined) continue;
      insertLine.run(lastInsertRowid, ++lineNo, productId, Math.round(line.quantity * 1000) || 1000, null);
    }
    return lineNo;
  });
  const [listsBefore, linesBefore] = [count('product_lists'), count('product_list_lines')];
  let sent = 0;
  let stored = 0;
  const ms = timedMs(() => {
    const list = JSON.parse(request.body) as Json;
    sent = list.lines?.length ?? 0;
    stored = write.immediate(list);
  });
  const [listRows, lineRows] = [count('product_lists') - listsBefore, count('product_list_lines') - linesBefore];
  if (listRows !== 1 || lineRows !== stored)
    throw new Error(`raw product list create stored ${listRows} lists and ${lineRows} lines, expected 1 and ${stored}`);
  return { ms, rows: listRows + lineRows, skipped: sent - stored };
}

function handle(request: RawWriterRequest): RawWriterAnswer {
  switch (request.op) {
    case 'open':
      return open(request);
    case 'import':
      return importBody(request);
    case 'stock-master':
      stockMaster = request;
      return {};
    case 'stock-post':
      return postStock(request);
    case 'deliveries-import':
      return importOrders(DELIVERIES, request);
    case 'customer-orders-import':
      return importOrders(CUSTOMER_ORDERS, request);
    case 'product-list-create':
      return createProductList(request);
    case 'close':
      database?.close();
      database = undefined;
      return {};
  }
}

answerRequests(handle);
