/**
 * Issue 30, the feed read: "the feed read must serve ≥ 20,000 events/s in pages of 1,000".
 *
 * The database is filled through the service's own write paths only (`npm start` on a fresh
 * file or schema): 8 stores, 5,000 products and each store's assortment of all 5,000 (the
 * master-data triggers write their `*.upserted` events), then 1,000-entry stock posts
 * (lib/stock.ts `stockEntries`: 4 locations and unlocated, pools, signed quantities), 8 at a
 * time (one per store), until the feed holds at least 200,000 events — about four in five
 * `stock.changed`, one per balance per request, each naming the entries that moved it. No
 * event row is written by the bench.
 *
 * Each run, one client per side (the bench process, fetch over keep-alive) follows the feed
 * from a starting sequence to its end, `limit=1000`, each request's `after` the previous
 * answer's `next_after`, parsing every answer as a consumer does; the figure is the events
 * read over the sum of the page times (request sent to answer parsed). The two sides' pages
 * are interleaved — page k of one, then of the other, who goes first alternating page by
 * page — so one request is in flight at a time and a drifting machine favours neither; the
 * starting sequence moves run by run, so no page URL repeats between runs.
 * - service: `GET /api/v2/public/events?after=&limit=1000` with the admin token;
 * - floor (baselines/feed-floor.ts, own process): a bare Fastify route reading the same page
 *   with ONE hand-written query on the same database (`where sequence > $1 order by sequence
 *   limit $2`), parsing each event's data and serialising the service's shape with
 *   JSON.stringify. Before measuring, its events must equal the service's (JSON, field for
 *   field) on pages at the start, middle and end of the feed.
 * Every page is checked: events in ascending sequence after `after`, and the pass must read
 * exactly the events the database holds after the start.
 *
 * Two results per database: the ratio to the floor (≥ 0.5, the repository's rule for a read
 * against its SQL floor), and the issue's absolute target (`absolute`: 20,000 events/s).
 */
import { call } from '../lib/client.js';
import { startFeedFloor } from '../lib/baseline-servers.js';
import { picker, storeNumberOf } from '../lib/data.js';
import { freshDatabase, requirePostgres, type BenchDialect } from '../lib/ledger-db.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt } from '../lib/service.js';
import { median, percentile } from '../lib/stats.js';
import {
  StockClock,
  seedAssortment,
  seedStockMasterData,
  stockBody,
  stockEntries,
  timedStockPost,
} from '../lib/stock.js';

const STORES = 8;
const PRODUCTS = 5_000;
const ENTRIES = 1_000;
/** At least this many events in the feed before measuring. */
const MIN_EVENTS = 200_000;
const PAGE = 1_000;
/** The absolute target. */
const TARGET_EVENTS_PER_SECOND = 20_000;
const EVENTS_PATH = `${API}/events`;

interface Pass {
  events: number;
  /** The sum of its pages' times (each from the request to the parsed answer). */
  ms: number;
  pageMs: number[];
  bytes: number;
}

/** One reader following the feed at `origin`, page by page, checking every page. */
class Follower {
  readonly pass: Pass = { events: 0, ms: 0, pageMs: [], bytes: 0 };
  private after: number;
  done = false;
  constructor(
    private readonly origin: string,
    startAfter: number,
  ) {
    this.after = startAfter;
  }

  /** Asks the next page (limit 1,000) and checks it: events in ascending sequence after `after`, next_after at the last one. */
  async next(): Promise<void> {
    const after = this.after;
    const asked = performance.now();
    const answer = await call(this.origin, 'GET', `${EVENTS_PATH}?after=${after}&limit=${PAGE}`);
    if (answer.status !== 200)
      throw new Error(
        `GET ${this.origin}${EVENTS_PATH}?after=${after}: HTTP ${answer.status}: ${answer.text().slice(0, 300)}`,
      );
    const body = answer.json<{ events: Array<{ sequence: number }>; next_after: number }>();
    const ms = performance.now() - asked;
    this.pass.pageMs.push(ms);
    this.pass.ms += ms;
    this.pass.bytes += answer.bytes.length;
    let previous = after;
    for (const event of body.events) {
      if (!(event.sequence > previous))
        throw new Error(`${this.origin}: page after ${after} has sequence ${event.sequence} after ${previous}`);
      previous = event.sequence;
    }
    this.pass.events += body.events.length;
    if (body.events.length < PAGE) {
      this.done = true;
      return;
    }
    if (body.next_after !== previous)
      throw new Error(
        `${this.origin}: a full page after ${after} ends at ${previous} but answers next_after ${body.next_after}`,
      );
    this.after = body.next_after;
  }
}

/**
 * The service and the floor each following the feed from `startAfter` to its end, their pages
 * interleaved (page k of one, then page k of the other, who goes first alternating page by
 * page), so a machine whose speed drifts within a pass favours neither side.
 */
async function followBoth(
  origins: { service: string; floor: string },
  startAfter: number,
  firstTurn: number,
  pages = Number.POSITIVE_INFINITY,
) {
  const service = new Follower(origins.service, startAfter);
  const floor = new Follower(origins.floor, startAfter);
  for (let page = 0; page < pages && !(service.done && floor.done); page++) {
    const order = (firstTurn + page) % 2 === 0 ? [service, floor] : [floor, service];
    for (const follower of order) if (!follower.done) await follower.next();
  }
  return { service: service.pass, floor: floor.pass };
}

function feedRead(dialect: BenchDialect): Scenario {
  const name = `feed.read.${dialect === 'postgres' ? 'pg' : 'sqlite'}`;
  const database = dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
  return {
    name,
    description:
      `${database}: one client following GET ${EVENTS_PATH}?after=&limit=${PAGE} over HTTP from a starting sequence to the end of a feed of ≥ ${MIN_EVENTS.toLocaleString('en-US')} events ` +
      `(npm start on a fresh ${dialect === 'postgres' ? 'schema' : 'file'}, filled through the service: ${STORES} stores, ${PRODUCTS.toLocaleString('en-US')} products and assortments, ` +
      `then ${ENTRIES.toLocaleString('en-US')}-entry stock posts; ~4 in 5 events stock.changed), each after the previous next_after, every answer parsed: events/s, ` +
      'against the SQL floor (own process: bare Fastify reading the same pages with one hand-written query on the same database, data parsed, JSON.stringify); ' +
      'pages of the two sides interleaved (who goes first alternating page by page), events/s over the sum of the page times; the start moves run by run',
    unit: 'events/s',
    valueLabel: 'service',
    baselineLabel: 'bare Fastify + one SQL query',
    baselineKind: 'sql-floor',
    target: { ratio: 0.5, comparison: '>=', description: `service events/s ≥ 0.5 × the SQL floor, pages of ${PAGE}` },
    companions: [
      {
        name: `${name}.target`,
        description: `The same passes of the service, judged against the issue's absolute target (${TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s in pages of ${PAGE})`,
        unit: 'events/s',
        valueLabel: 'service',
        baselineLabel: 'target',
        baselineKind: 'absolute',
        target: {
          ratio: 1,
          comparison: '>=',
          description: `service ≥ ${TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s in pages of ${PAGE} (issue 30)`,
        },
      },
    ],
    defaultRuns: 3,

    prepare: () =>
      new Resources().preparing(async (resources) => {
        if (dialect === 'postgres') await requirePostgres();
        const db = await freshDatabase(resources, dialect, 'feed_read');
        const service = resources.add(
          await startServiceAt(db.url, dialect === 'sqlite' ? db.url.slice('sqlite:'.length) : db.url),
          (s) => s.stop(),
        );
        await seedStockMasterData(service.baseUrl, PRODUCTS, STORES);
        for (let i = 0; i < STORES; i++) await seedAssortment(service.baseUrl, storeNumberOf(i), PRODUCTS);
        const pickers = Array.from({ length: STORES }, (_, i) => picker(4000 + i));
        const clocks = Array.from({ length: STORES }, () => new StockClock());
        const countEvents = async () =>
          Number((await db.query<{ n: unknown }>('select count(*) as n from events'))[0]?.n);
        while ((await countEvents()) < MIN_EVENTS) {
          // One post per store at a time (PostgreSQL books them concurrently; SQLite in turn).
          await Promise.all(
            Array.from({ length: STORES }, (_, i) =>
              timedStockPost(
                service.baseUrl,
                stockBody(stockEntries(pickers[i]!, clocks[i]!, ENTRIES, PRODUCTS)),
                ENTRIES,
                storeNumberOf(i),
              ),
            ),
          );
        }
        // Every event numbered (PostgreSQL's sequencer runs every 100 ms), then the feed is still.
        const deadline = Date.now() + 30_000;
        const unnumbered = async () =>
          dialect === 'postgres'
            ? Number((await db.query<{ n: unknown }>('select count(*) as n from events where sequence is null'))[0]?.n)
            : 0;
        while ((await unnumbered()) > 0) {
          if (Date.now() > deadline) throw new Error('events still unnumbered 30 s after the last post');
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const [range] = await db.query<{ n: unknown; last: unknown; stock: unknown }>(
          `select count(*) as n, max(sequence) as last, sum(case when type = 'stock.changed' then 1 else 0 end) as stock from events`,
        );
        const total = Number(range?.n);
        const last = Number(range?.last);
        const stockShare = Number(range?.stock) / total;
        /** Events after `after` (the sequences are dense, but the count does not assume it). */
        const eventsAfter = async (after: number) =>
          Number((await db.query<{ n: unknown }>(`select count(*) as n from events where sequence > ${after}`))[0]?.n);
        await db.disconnect();

        const floor = resources.add(await startFeedFloor(EVENTS_PATH, db.url), (f) => f.stop());
        // The floor serves the same events as the service, field for field, at the start, middle and end of the feed.
        for (const after of [0, Math.floor(last / 2), Math.max(0, last - PAGE / 2)]) {
          const [own, bare] = await Promise.all([
            call(service.baseUrl, 'GET', `${EVENTS_PATH}?after=${after}&limit=${PAGE}`),
            call(floor.origin, 'GET', `${EVENTS_PATH}?after=${after}&limit=${PAGE}`),
          ]);
          const ownEvents = JSON.stringify(own.json<{ events: unknown[] }>().events);
          const bareEvents = JSON.stringify(bare.json<{ events: unknown[] }>().events);
          if (own.status !== 200 || ownEvents !== bareEvents) {
            throw new Error(
              `the feed floor's page after ${after} differs from the service's (HTTP ${own.status}): ${ownEvents.slice(0, 300)} … vs ${bareEvents.slice(0, 300)} …`,
            );
          }
        }
        // Untimed warm-up of both sides, on pages no run asks for.
        await followBoth({ service: service.baseUrl, floor: floor.origin }, last - 20 * PAGE - 500, 0, 20);
        console.error(
          `  the feed holds ${total.toLocaleString('en-US')} events (sequences up to ${last}), ${Math.round(stockShare * 100)} % stock.changed`,
        );

        return {
          async measure(run): Promise<Sample> {
            // A new start each run (so no page URL repeats across runs), read to the end.
            const startAfter = 97 * (run + 1);
            const expected = await eventsAfter(startAfter);
            await db.disconnect();
            const passes = await followBoth({ service: service.baseUrl, floor: floor.origin }, startAfter, run);
            for (const side of ['service', 'floor'] as const) {
              if (passes[side].events !== expected)
                throw new Error(
                  `the ${side} pass from after=${startAfter} read ${passes[side].events} events; the feed holds ${expected} after it`,
                );
            }
            const rate = (pass: Pass) => (pass.events * 1000) / pass.ms;
            return {
              value: rate(passes.service),
              baseline: rate(passes.floor),
              extra: {
                'service page p50 ms': median(passes.service.pageMs),
                'service page p99 ms': percentile(passes.service.pageMs, 99),
                'floor page p50 ms': median(passes.floor.pageMs),
                'floor page p99 ms': percentile(passes.floor.pageMs, 99),
                'events read': passes.service.events,
                'service KiB per page': passes.service.bytes / passes.service.pageMs.length / 1024,
                'floor KiB per page': passes.floor.bytes / passes.floor.pageMs.length / 1024,
                'service peak RSS MB': service.peakRssMb(),
              },
              companions: {
                [`${name}.target`]: { value: rate(passes.service), baseline: TARGET_EVENTS_PER_SECOND },
              },
            };
          },
          close: () => resources.release(),
        };
      }),
  };
}

export const feedReadPg = feedRead('postgres');
export const feedReadSqlite = feedRead('sqlite');
