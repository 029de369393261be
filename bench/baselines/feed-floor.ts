/**
 * The floor of the change feed's read (feed.read.*, its own process): a bare Fastify route —
 * no plugins, hooks or schemas — that reads one page of the service's own `events` table with
 * ONE hand-written SQL query (the rows after a sequence, in sequence order, by its unique
 * index) on the same database as the running service, parses each event's data (the service
 * sends it as an object) and serialises the page with JSON.stringify in the service's shape
 * ({events: [{sequence, type, occurred_at, store_number, data}], next_after, server_time}).
 * No cache: every request reads its rows.
 * GET <path>?after=<sequence>&limit=<n>.
 * Usage: feed-floor.ts <port> <path> <DATABASE_URL: sqlite:<file> | postgres://…?schema=<s>>
 */
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';

const [port, routePath, databaseUrl] = process.argv.slice(2);
if (port === undefined || routePath === undefined || databaseUrl === undefined)
  throw new Error('usage: feed-floor.ts <port> <path> <DATABASE_URL>');

interface Row {
  sequence: number | string;
  type: string;
  store_number: string | null;
  occurred_at: number | string;
  data: string;
}

const PAGE =
  'select sequence, type, store_number, occurred_at, data from events where sequence > $1 order by sequence limit $2';

let readPage: (after: number, limit: number) => Promise<Row[]>;
if (databaseUrl.startsWith('sqlite:')) {
  const database = new SqliteDatabase(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
  const statement = database.prepare(PAGE.replace('$1', '?').replace('$2', '?'));
  readPage = async (after, limit) => statement.all(after, limit) as Row[];
} else {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  // One client reads the feed: one connection, as the service's pool would use for it.
  const client = new pg.Client({
    connectionString: url.toString(),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  readPage = async (after, limit) =>
    (await client.query<Row>({ name: 'feed-page', text: PAGE, values: [after, limit] })).rows;
}

const app = Fastify({ logger: false });
app.get(routePath, async (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const after = Number(query.after ?? 0);
  const limit = Number(query.limit ?? 100);
  const rows = await readPage(after, limit);
  const events = rows.map((row) => ({
    sequence: Number(row.sequence),
    type: row.type,
    occurred_at: new Date(Number(row.occurred_at)).toISOString(),
    store_number: row.store_number,
    data: JSON.parse(row.data) as unknown,
  }));
  const nextAfter = events.length > 0 ? events[events.length - 1]!.sequence : after;
  reply.header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify({ events, next_after: nextAfter, server_time: new Date().toISOString() });
});
await app.listen({ host: '127.0.0.1', port: Number(port) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
