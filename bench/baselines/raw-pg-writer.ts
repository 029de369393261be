/**
 * The raw PostgreSQL write baseline, in a process of its own (forked by
 * lib/raw-writer-client.ts): `pg` on N connections of its own, booking stock log entries
 * from the same body texts the service gets into two plain tables of a fresh schema
 * (baselines/plain-tables.ts: `stock_entries`, PK only; `stock_levels`, PK + unique store,
 * product, location, pool), one transaction per request:
 *
 *   JSON.parse of the body; per entry its sign and pool (bookEntry, stock-booking.ts);
 *   BEGIN; ONE multi-row INSERT of every entry (unnest of column arrays); ONE multi-row
 *   upsert of the request's levels — one row per key, deltas summed, keys sorted so two
 *   transactions lock shared keys in the same order — `on conflict do update set
 *   quantity = quantity + excluded.quantity`; COMMIT.
 *
 * A `stock-batch` runs its streams concurrently, stream i on connection i, each stream's
 * bodies one after the other (as a client keeping one request in flight); its time runs
 * from the first JSON.parse to the last COMMIT. Both statements are prepared once per
 * connection (named), as a raw importer with fixed statements would have them.
 */
import pg from 'pg';
import { answerRequests } from './ipc.js';
import { plainTableDdl, stockEntriesTable, stockLevelsTable } from './plain-tables.js';
import type { StockEntry } from '../lib/stock.js';
import { bookEntry, levelKey, type StockMaster } from './stock-booking.js';

export type RawPgWriterRequest =
  /** A fresh schema (`?schema=` of the URL, dropped first if it is there) with the plain tables, and `connections` connections to it. */
  | { op: 'open'; databaseUrl: string; connections: number; master: StockMaster }
  /** Stream i on connection i: its bodies, each one transaction, posted to its store. */
  | { op: 'stock-batch'; streams: Array<{ storeNumber: string; bodies: string[] }> }
  | { op: 'close' };

export interface RawPgWriterAnswer {
  ms?: number;
  /** After `stock-batch`: the entries it booked (checked against the tables). */
  rows?: number;
  /** After `stock-batch`: each request's time, parse to commit (ms). */
  latencies?: number[];
  error?: string;
}

const INSERT_ENTRIES = `
  insert into stock_entries (store_number, product_number, location_code, pool, reason_code, delta, modification_at, app_user_name, reference, customer_order_line_number)
  select $1::text, e.* from unnest($2::text[], $3::text[], $4::integer[], $5::integer[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::integer[]) as e`;

const UPSERT_LEVELS = `
  insert into stock_levels (store_number, product_number, location_code, pool, quantity, last_at)
  select $1::text, l.* from unnest($2::text[], $3::text[], $4::integer[], $5::bigint[], $6::bigint[]) as l
  on conflict (store_number, product_number, location_code, pool)
  do update set quantity = stock_levels.quantity + excluded.quantity, last_at = greatest(stock_levels.last_at, excluded.last_at)`;

let clients: pg.Client[] = [];
let master: StockMaster | undefined;
/** Entries booked and the sum of their deltas since `open`: what the tables must hold. */
let booked = { entries: 0, deltaSum: 0 };

async function closeClients(): Promise<void> {
  const open = clients;
  clients = [];
  await Promise.all(open.map((client) => client.end().catch(() => undefined)));
}

async function open(request: Extract<RawPgWriterRequest, { op: 'open' }>): Promise<RawPgWriterAnswer> {
  await closeClients();
  const url = new URL(request.databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  // Never the default schema: the baseline's tables live in a fresh schema of their own.
  if (schema === null || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new Error(`the raw pg baseline needs a fresh ?schema= in its URL, got ${schema}`);
  const connect = async () => {
    const client = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    client.on('error', () => undefined);
    await client.connect();
    clients.push(client);
    return client;
  };
  const first = await connect();
  await first.query(`drop schema if exists ${schema} cascade`);
  await first.query(`create schema ${schema}`);
  await first.query(`set search_path to ${schema}`);
  for (const table of [stockEntriesTable, stockLevelsTable]) await first.query(plainTableDdl(table, 'postgres'));
  for (let i = 1; i < request.connections; i++) await connect();
  master = request.master;
  booked = { entries: 0, deltaSum: 0 };
  return {};
}

/** One request: parse, sign and pool each entry, one INSERT of the entries and one upsert of the summed levels in one transaction. */
async function post(
  client: pg.Client,
  storeNumber: string,
  body: string,
): Promise<{ entries: number; deltaSum: number }> {
  const entries = (JSON.parse(body) as { storeproductlog: StockEntry[] }).storeproductlog;
  const rows = {
    product: [] as string[],
    location: [] as string[],
    pool: [] as number[],
    reason: [] as Array<number | null>,
    delta: [] as number[],
    at: [] as number[],
    user: [] as Array<string | null>,
    reference: [] as Array<string | null>,
    orderLine: [] as Array<number | null>,
  };
  const levels = new Map<string, { product: string; location: string; pool: number; delta: number; at: number }>();
  let deltaSum = 0;
  for (const entry of entries) {
    const { locationCode, pool, delta, at } = bookEntry(master!, entry);
    rows.product.push(entry.product_number);
    rows.location.push(locationCode);
    rows.pool.push(pool);
    rows.reason.push(entry.reason_code ?? null);
    rows.delta.push(delta);
    rows.at.push(at);
    rows.user.push(entry.app_user_name ?? null);
    rows.reference.push(entry.reference ?? null);
    rows.orderLine.push(entry.customer_order_line_number ?? null);
    deltaSum += delta;
    const key = levelKey(storeNumber, entry.product_number, locationCode, pool);
    const level = levels.get(key);
    if (level === undefined)
      levels.set(key, { product: entry.product_number, location: locationCode, pool, delta, at });
    else {
      level.delta += delta;
      level.at = Math.max(level.at, at);
    }
  }
  const sorted = [...levels.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, level]) => level);
  await client.query('begin');
  try {
    await client.query({
      name: 'raw-insert-entries',
      text: INSERT_ENTRIES,
      values: [
        storeNumber,
        rows.product,
        rows.location,
        rows.pool,
        rows.reason,
        rows.delta,
        rows.at,
        rows.user,
        rows.reference,
        rows.orderLine,
      ],
    });
    await client.query({
      name: 'raw-upsert-levels',
      text: UPSERT_LEVELS,
      values: [
        storeNumber,
        sorted.map((l) => l.product),
        sorted.map((l) => l.location),
        sorted.map((l) => l.pool),
        sorted.map((l) => l.delta),
        sorted.map((l) => l.at),
      ],
    });
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
  return { entries: entries.length, deltaSum };
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function stockBatch(request: Extract<RawPgWriterRequest, { op: 'stock-batch' }>): Promise<RawPgWriterAnswer> {
  if (master === undefined) throw new Error('stock-batch before open');
  if (request.streams.length > clients.length)
    throw new Error(`${request.streams.length} streams, ${clients.length} connections`);
  const latencies: number[] = [];
  let entries = 0;
  const start = now();
  await Promise.all(
    request.streams.map(async (stream, i) => {
      for (const body of stream.bodies) {
        const sent = now();
        const done = await post(clients[i]!, stream.storeNumber, body);
        latencies.push(now() - sent);
        entries += done.entries;
        booked.entries += done.entries;
        booked.deltaSum += done.deltaSum;
      }
    }),
  );
  const ms = now() - start;
  // Untimed: the tables hold every entry booked since open, and the levels their sum.
  const { rows } = await clients[0]!.query<{ entries: string; deltas: string | null; levels: string | null }>(
    'select count(*) as entries, sum(delta) as deltas, (select sum(quantity) from stock_levels) as levels from stock_entries',
  );
  const [held] = rows;
  if (
    Number(held?.entries) !== booked.entries ||
    Number(held?.deltas ?? 0) !== booked.deltaSum ||
    Number(held?.levels ?? 0) !== booked.deltaSum
  ) {
    throw new Error(
      `the plain tables hold ${held?.entries} entries summing to ${held?.deltas} and levels summing to ${held?.levels}; booked ${booked.entries} entries summing to ${booked.deltaSum}`,
    );
  }
  return { ms, rows: entries, latencies };
}

answerRequests<RawPgWriterRequest, RawPgWriterAnswer>(async (request) => {
  switch (request.op) {
    case 'open':
      return open(request);
    case 'stock-batch':
      return stockBatch(request);
    case 'close':
      await closeClients();
      return {};
  }
});
