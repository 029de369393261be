import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { happenedBefore, replayLevel } from '../../src/domain/ledger.js';
import { callJson, type ServerProcess } from './server-process.js';

// The change feed as a client follows it (PRODUCT §9), and what the events read must equal:
// the committed changes, each once, in commit order. Used by the feed's concurrency tests.

export interface FeedEvent {
  sequence: number;
  type: string;
  occurred_at: string;
  store_number: string | null;
  data: Record<string, any>;
}

interface FeedPage {
  events: FeedEvent[];
  next_after: number;
}

const EVENTS = '/api/v2/public/events';

/** Every event after `after` to the end of the feed, page by page (a reader catching up). */
export async function followFeed(
  server: ServerProcess,
  token: string,
  after: number,
  query = '',
): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (;;) {
    const { status, json } = await callJson(server, token, 'GET', `${EVENTS}?after=${after}&limit=1000${query}`);
    if (status !== 200) throw new Error(`feed after ${after}: ${status} ${JSON.stringify(json)}`);
    const page = json as FeedPage;
    events.push(...page.events);
    if (page.next_after === after) return events;
    after = page.next_after;
  }
}

export interface LiveReader {
  /** Every event served, in the order served. */
  events: FeedEvent[];
  /** Every page that broke the feed's promise, as it was found. */
  problems: string[];
  pages: number;
  /** Resolves once the reader has followed the feed to `through` (see `finish`). */
  done: Promise<void>;
  /** The last sequence there will be: the reader stops once next_after reaches it. */
  finish(through: number): void;
}

/**
 * A reader that follows next_after from `after` while writers run, asking the servers in turn
 * (a cursor one process gave is used on the other) with the page sizes `limit` picks. Without
 * a `types` filter each page must continue exactly where the last ended — sequences after+1,
 * after+2, … — and end its next_after on its last event: anything else is a gap or a
 * sequence revealed after a higher one was served. With a filter, pages must ascend within
 * (after, next_after].
 */
export function followLive(options: {
  servers: readonly ServerProcess[];
  token: string;
  after?: number;
  types?: string;
  limit: () => number;
}): LiveReader {
  let through: number | undefined;
  const reader: LiveReader = {
    events: [],
    problems: [],
    pages: 0,
    done: Promise.resolve(),
    finish: (last) => (through = last),
  };
  const query = options.types === undefined ? '' : `&types=${options.types}`;
  reader.done = (async () => {
    let after = options.after ?? 0;
    for (let round = 0; ; round++) {
      if (through !== undefined && after >= through) return;
      const server = options.servers[round % options.servers.length]!;
      const { status, json } = await callJson(
        server,
        options.token,
        'GET',
        `${EVENTS}?after=${after}&limit=${options.limit()}${query}`,
      );
      reader.pages++;
      if (status !== 200) {
        reader.problems.push(`after=${after}: ${status} ${JSON.stringify(json)}`);
        if (reader.problems.length > 20) return;
        continue;
      }
      const page = json as FeedPage;
      const problem =
        options.types === undefined ? unfilteredPageProblem(after, page) : filteredPageProblem(after, page);
      if (problem !== undefined) reader.problems.push(problem);
      reader.events.push(...page.events);
      after = page.next_after;
      if (page.events.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return reader;
}

function unfilteredPageProblem(after: number, page: FeedPage): string | undefined {
  const sequences = page.events.map((event) => event.sequence);
  const expected = sequences.map((_, index) => after + 1 + index);
  if (sequences.some((sequence, index) => sequence !== expected[index]))
    return `after=${after}: served ${sequences.join(',')}, expected ${expected.join(',')}`;
  const end = sequences.length === 0 ? after : sequences[sequences.length - 1]!;
  if (page.next_after !== end)
    return `after=${after}: next_after ${page.next_after} skips past the last event served (${end})`;
  return undefined;
}

function filteredPageProblem(after: number, page: FeedPage): string | undefined {
  let previous = after;
  for (const event of page.events) {
    if (event.sequence <= previous) return `after=${after}: sequence ${event.sequence} served after ${previous}`;
    previous = event.sequence;
  }
  if (page.next_after < previous)
    return `after=${after}: next_after ${page.next_after} before the last event served (${previous})`;
  return undefined;
}

/** Problems if `sequences` are not exactly from+1 … through, each once, in order. */
export function sequenceProblems(sequences: readonly number[], from: number, through: number): string[] {
  const problems: string[] = [];
  if (sequences.length !== through - from)
    problems.push(`${sequences.length} events read, expected ${through - from} (${from + 1}..${through})`);
  let expected = from + 1;
  for (const sequence of sequences) {
    if (sequence !== expected) {
      problems.push(`sequence ${sequence} where ${expected} was due`);
      if (problems.length > 10) break;
      expected = sequence;
    }
    expected++;
  }
  return problems;
}

/** A balance as the feed names it: store, product, location (or ''), pool, customer order (or ''). */
export const balanceKeyOf = (event: FeedEvent): string =>
  [
    event.store_number,
    event.data.product_number,
    event.data.location_code ?? '',
    event.data.pool,
    event.data.customer_order_number ?? '',
  ].join('|');

/** One posting of the ledger (the view stock_ledger), with its balance's natural key. */
export interface LedgerPosting {
  balance: string;
  logId: number;
  /** Its place among the balance's entries of one moment (the view's id). */
  place: number;
  at: number;
  isCount: boolean;
  /** The delta, or for a count the counted level (thousandths). */
  quantityMilli: number;
}

/** Every posting of the ledger and every balance's level (thousandths), by natural key. */
export async function readLedger(
  db: Kysely<Database>,
): Promise<{ postings: LedgerPosting[]; balances: Map<string, number> }> {
  const { rows: postings } = await sql<{
    store_number: string;
    product_number: string;
    location_code: string | null;
    pool: number;
    order_key: string;
    log_id: number;
    place: number;
    at: number;
    is_count: number;
    delta: number;
    counted: number | null;
  }>`
    select s.store_number, p.product_number, l.location_code, b.pool, b.order_key, g.log_id, g.id as place, g.at, g.is_count, g.delta, g.counted
    from stock_ledger g
    join stock_balances b on b.id = g.balance_id
    join stores s on s.id = b.store_id
    join products p on p.id = b.product_id
    left join locations l on l.id = b.location_id`.execute(db);
  const { rows: balances } = await sql<{
    store_number: string;
    product_number: string;
    location_code: string | null;
    pool: number;
    order_key: string;
    quantity: number;
  }>`
    select s.store_number, p.product_number, l.location_code, b.pool, b.order_key, b.quantity
    from stock_balances b
    join stores s on s.id = b.store_id
    join products p on p.id = b.product_id
    left join locations l on l.id = b.location_id`.execute(db);
  const keyOf = (row: {
    store_number: string;
    product_number: string;
    location_code: string | null;
    pool: number;
    order_key: string;
  }) => [row.store_number, row.product_number, row.location_code ?? '', Number(row.pool), row.order_key].join('|');
  return {
    postings: postings.map((row) => ({
      balance: keyOf(row),
      logId: Number(row.log_id),
      place: Number(row.place),
      at: Number(row.at),
      isCount: Number(row.is_count) === 1,
      quantityMilli: Number(Number(row.is_count) === 1 ? row.counted : row.delta),
    })),
    balances: new Map(balances.map((row) => [keyOf(row), Number(row.quantity)])),
  };
}

/**
 * A balance's entries so far in the ledger's order, (moment, place), and the level they give:
 * replayLevel (domain/ledger.ts) kept as entries come — the last count's level plus the deltas
 * after it.
 */
class Timeline {
  readonly entries: LedgerPosting[] = [];

  add(posting: LedgerPosting): void {
    const moment = (p: LedgerPosting) => ({ at: p.at, id: p.place });
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (happenedBefore(moment(this.entries[middle]!), moment(posting))) low = middle + 1;
      else high = middle;
    }
    this.entries.splice(low, 0, posting);
  }

  level(): number {
    let deltas = 0;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.isCount) return entry.quantityMilli + deltas;
      deltas += entry.quantityMilli;
    }
    return deltas;
  }
}

/**
 * Problems if the `stock.changed` events (in sequence order) are not the ledger's changes each
 * once, in commit order: every posting is named by exactly one event of its balance and no
 * event names another; each event's quantity is the level the ledger gives to the entries
 * named by its balance's events so far — a replay in (moment, place) order, as the ledger
 * orders them, so late entries and counts re-based by them are exact — so two bookings of a
 * balance served in the other order than they committed would not add up; and each balance's
 * last event says its level in stock_balances, which is the replay of all its entries.
 */
export function stockEventProblems(
  events: readonly FeedEvent[],
  postings: readonly LedgerPosting[],
  balances: ReadonlyMap<string, number>,
): string[] {
  const problems: string[] = [];
  const byPair = new Map(postings.map((posting) => [`${posting.balance}#${posting.logId}`, posting]));
  const named = new Map<string, number>();
  const timelines = new Map<string, Timeline>();
  const last = new Map<string, number>();
  for (const event of events) {
    if (event.type !== 'stock.changed') continue;
    const balance = balanceKeyOf(event);
    const ids = event.data.log_entry_ids as number[];
    if (ids.length === 0) problems.push(`event ${event.sequence} (${balance}) names no entry`);
    const timeline = timelines.get(balance) ?? new Timeline();
    timelines.set(balance, timeline);
    for (const id of ids) {
      const pair = `${balance}#${id}`;
      const posting = byPair.get(pair);
      if (posting === undefined)
        problems.push(`event ${event.sequence} names entry ${id}, which has no posting on ${balance}`);
      else timeline.add(posting);
      named.set(pair, (named.get(pair) ?? 0) + 1);
    }
    const quantityMilli = Math.round((event.data.quantity as number) * 1000);
    if (quantityMilli !== timeline.level())
      problems.push(
        `event ${event.sequence} (${balance}) says ${quantityMilli / 1000}; its balance's entries so far replay to ${timeline.level() / 1000}`,
      );
    last.set(balance, quantityMilli);
    if (problems.length > 20) return problems;
  }
  for (const posting of postings) {
    const times = named.get(`${posting.balance}#${posting.logId}`) ?? 0;
    if (times !== 1) problems.push(`entry ${posting.logId} on ${posting.balance} is named by ${times} events`);
    if (problems.length > 20) return problems;
  }
  for (const [balance, quantity] of balances) {
    if (last.get(balance) !== quantity)
      problems.push(
        `balance ${balance} holds ${quantity / 1000}; its last event says ${(last.get(balance) ?? NaN) / 1000}`,
      );
    const entries = timelines.get(balance)?.entries ?? [];
    const replayed = replayLevel(
      entries.map((p) => ({ id: p.place, at: p.at, quantityMilli: p.quantityMilli, isCount: p.isCount })),
    );
    if (replayed !== quantity)
      problems.push(`balance ${balance} holds ${quantity / 1000}; its entries replay to ${replayed / 1000}`);
  }
  return problems;
}

/**
 * Problems if an event is served before one whose change committed before it began: a
 * product's, location's, store's and store product's first upsert precede every stock change
 * naming them (the tests book only on records whose import was answered, and a store product
 * is created in its first booking's transaction, before the booking's stock.changed).
 */
export function causalOrderProblems(events: readonly FeedEvent[]): string[] {
  const problems: string[] = [];
  const first = new Map<string, number>();
  const firstOf = (key: string, sequence: number) => !first.has(key) && first.set(key, sequence);
  for (const event of events) {
    if (event.type === 'product.upserted') firstOf(`product ${event.data.product_number}`, event.sequence);
    if (event.type === 'store.upserted') firstOf(`store ${event.data.store_number}`, event.sequence);
    if (event.type === 'location.upserted')
      firstOf(`location ${event.store_number}/${event.data.location_code}`, event.sequence);
    if (event.type === 'store_product.upserted')
      firstOf(`store product ${event.store_number}/${event.data.product_number}`, event.sequence);
    if (event.type !== 'stock.changed') continue;
    const needs = [
      `product ${event.data.product_number}`,
      `store ${event.store_number}`,
      `store product ${event.store_number}/${event.data.product_number}`,
    ];
    if (event.data.location_code !== null) needs.push(`location ${event.store_number}/${event.data.location_code}`);
    for (const need of needs) {
      const before = first.get(need);
      if (before === undefined || before > event.sequence)
        problems.push(`stock.changed ${event.sequence} served before the upsert of its ${need} (${before ?? 'none'})`);
    }
    if (problems.length > 20) break;
  }
  return problems;
}
