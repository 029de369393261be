import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { seededRandom } from '../../src/generate/chain-plan.js';
import { verifyAll } from '../../src/verify.js';
import { DIALECTS } from '../helpers/dialects.js';
import { locationInput, productInput, restartableDatabaseUrl, storeInput } from '../helpers/factories.js';
import {
  causalOrderProblems,
  followFeed,
  followLive,
  readLedger,
  sequenceProblems,
  stockEventProblems,
} from '../helpers/feed.js';
import { callJson, sharedDatabaseConfig, startTwoServers, type ServerProcess } from '../helpers/server-process.js';

// The change feed's promise (PRODUCT §9, issue 30): following next_after from any point sees
// every event committed after it exactly once and in commit order. Two real server processes
// on one database (a SQLite file; a PostgreSQL schema, where events are numbered after their
// commit by one sequencer at a time, dialect/postgres-events.ts) take random concurrent writes
// — stock log entries (deltas, pool splits, order-bound stock, counts, many of them late) on a
// few hot balances and many cold ones, and product and location imports — while readers follow
// the feed live on both processes. Then the events read must be exactly the committed changes.
// FEED_SEED=<n> starts the random choices from that seed (which client makes which choice still
// depends on the interleaving).

const TOKEN = 'feed-concurrency-admin-token';
const API = '/api/v2/public';
/** Writers run this long, and on until they made MIN_POSTS stock posts (a loaded machine), but no longer than MAX_WRITE_MILLIS. */
const WRITE_MILLIS = 8_000;
const MIN_POSTS = 150;
const MAX_WRITE_MILLIS = 30_000;
const STOCK_CLIENTS = 6;
const STORES = ['FC1', 'FC2', 'FC3'];
/** Products every stock client books often: the balances writers queue on. */
const HOT = ['FH-1', 'FH-2'];
const SEEDED_PRODUCTS = [...HOT, ...Array.from({ length: 6 }, (_, i) => `FP-${i}`)];
/** Locations of every store from the start; one books to pool 2 by default. */
const SEEDED_LOCATIONS = [locationInput('A-1'), locationInput('B-1', { default_stock_pool: 2 })];
const ORDERS = ['FCO-1', 'FCO-2'];
const HOUR = 3_600_000;

const call = (server: ServerProcess, method: string, url: string, body?: unknown) =>
  callJson(server, TOKEN, method, url, body);
const configFor = (databaseUrl: string) => sharedDatabaseConfig(databaseUrl, TOKEN);
const count = <T>(items: readonly T[], keyOf: (item: T) => string) => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
};

for (const dialect of DIALECTS) {
  describe(`change feed under concurrent writers on two processes (${dialect.name})`, () => {
    let databaseUrl: string;
    let servers: ServerProcess[] = [];

    beforeAll(async () => {
      databaseUrl = await restartableDatabaseUrl(dialect);
      const app = await buildApp(configFor(databaseUrl));
      try {
        const inject = async (url: string, payload: object) => {
          const response = await app.inject({
            method: 'POST',
            url,
            payload,
            headers: { authorization: `Bearer ${TOKEN}` },
          });
          expect(response.statusCode, response.body).toBe(200);
        };
        await inject(`${API}/stores`, { stores: STORES.map((store) => storeInput(store)) });
        await inject(`${API}/products`, { products: SEEDED_PRODUCTS.map((product) => productInput(product)) });
        for (const store of STORES) await inject(`${API}/stores/${store}/locations`, { locations: SEEDED_LOCATIONS });
      } finally {
        await app.close();
      }
      servers = await startTwoServers(databaseUrl);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dialect.cleanup();
    });

    it('readers following next_after live see every committed change once, in commit order, without a gap; a reader starting anywhere sees the suffix', async () => {
      const seed = Number(process.env.FEED_SEED ?? Math.floor(Math.random() * 2 ** 31));
      const random = seededRandom(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const failures: string[] = [];
      // What the writers were answered: what the feed must show.
      const products = [...SEEDED_PRODUCTS];
      const locations = new Map(STORES.map((store) => [store, SEEDED_LOCATIONS.map((l) => l.location_code)]));
      const productVersions = new Map(SEEDED_PRODUCTS.map((product) => [product, 1]));
      const locationVersions = new Map<string, number>(
        STORES.flatMap((store) => SEEDED_LOCATIONS.map((l) => [`${store}/${l.location_code}`, 1] as const)),
      );
      const acknowledgedEntries = new Set<number>();
      let posts = 0;

      const pageSizes = [1, 3, 10, 100, 1000];
      const pageSize = seededRandom(seed + 1);
      const limit = () => pageSizes[Math.floor(pageSize() * pageSizes.length)]!;
      const reader = followLive({ servers, token: TOKEN, limit });
      const stockReader = followLive({ servers: [...servers].reverse(), token: TOKEN, types: 'stock.changed', limit });

      const started = Date.now();
      const writing = () =>
        Date.now() - started < WRITE_MILLIS || (posts < MIN_POSTS && Date.now() - started < MAX_WRITE_MILLIS);
      const stockClient = async (client: number) => {
        const server = servers[client % servers.length]!;
        while (writing()) {
          const store = random() < 0.6 ? STORES[0]! : pick(STORES);
          const counted = random() < 0.15;
          const lines = Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
            const line: Record<string, unknown> = {
              product_number: random() < 0.5 ? pick(HOT) : pick(products),
              customer_order_line_number: 0,
              // Whole seconds of the last hours, in random order: most entries are late, many share a moment.
              modification_datetime: new Date(
                Math.floor((Date.now() - random() * 2 * HOUR) / 1000) * 1000,
              ).toISOString(),
            };
            if (random() < 0.4) line.location_code = pick(locations.get(store)!);
            if (counted) return { ...line, quantity: Math.floor(random() * 30) };
            const quantity = (Math.floor(random() * 11) - 5) * (random() < 0.1 ? 0.5 : 1) || 1;
            const shape = random();
            if (shape < 0.15 && quantity >= 2)
              return { ...line, quantity, stock_pool_1: 1, stock_pool_3: quantity - 1 };
            if (shape < 0.25) return { ...line, quantity, customer_order_number: pick(ORDERS) };
            return { ...line, quantity };
          });
          const response = await call(
            server,
            'POST',
            `${API}/stores/${store}/products/stock/storeproductlogs${counted ? '?is_counted_quantity=true' : ''}`,
            { storeproductlog: lines },
          );
          posts++;
          if (response.status !== 200)
            failures.push(
              `stock post ${response.status} ${JSON.stringify(response.json)} for ${JSON.stringify(lines)}`,
            );
          else for (const id of response.json.data as number[]) acknowledgedEntries.add(id);
        }
      };
      // One importer per process: new products and locations (then booked on by the stock
      // clients), and new versions of earlier ones.
      const importer = async (which: number) => {
        const server = servers[which]!;
        for (let round = 0; writing(); round++) {
          const fresh = Array.from({ length: 3 }, (_, i) => `FN-${which}-${round}-${i}`);
          const renamed = round > 0 ? [pick(products.filter((p) => p.startsWith(`FN-${which}-`)))] : [];
          const body = [
            ...fresh.map((p) => productInput(p)),
            ...renamed.map((p) => productInput(p, { product_name: `${p} v${round}` })),
          ];
          const response = await call(server, 'POST', `${API}/products`, { products: body });
          if (response.status !== 200) failures.push(`products ${response.status} ${JSON.stringify(response.json)}`);
          else {
            for (const product of [...fresh, ...renamed])
              productVersions.set(product, (productVersions.get(product) ?? 0) + 1);
            products.push(...fresh);
          }
          const store = pick(STORES);
          const code = `N-${which}-${round}`;
          const moved = pick(locations.get(store)!);
          const located = await call(server, 'POST', `${API}/stores/${store}/locations`, {
            locations: [
              locationInput(code),
              locationInput(moved, {
                location_order: which * 10_000 + round + 1,
                ...(moved === 'B-1' ? { default_stock_pool: 2 } : {}),
              }),
            ],
          });
          if (located.status !== 200) failures.push(`locations ${located.status} ${JSON.stringify(located.json)}`);
          else {
            // Every send changes it: no other send gives that location_order.
            for (const location of [code, moved])
              locationVersions.set(`${store}/${location}`, (locationVersions.get(`${store}/${location}`) ?? 0) + 1);
            locations.get(store)!.push(code);
          }
          await new Promise((resolve) => setTimeout(resolve, 150));
        }
      };
      await Promise.all([
        ...Array.from({ length: STOCK_CLIENTS }, (_, client) => stockClient(client)),
        importer(0),
        importer(1),
      ]);

      // The writers are done: once every committed event is numbered, the readers catch up to it.
      const app = await buildApp(configFor(databaseUrl));
      try {
        const { events: sequencing } = app.ctx.handle.dialect;
        while (await sequencing.pending(app.ctx.db)) await new Promise((resolve) => setTimeout(resolve, 20));
        const last = await sequencing.lastSequence(app.ctx.db);
        reader.finish(last);
        stockReader.finish(last);
        await Promise.all([reader.done, stockReader.done]);
        const context = `seed ${seed}, ${posts} posts, ${acknowledgedEntries.size} entries, ${last} events, ${reader.pages} + ${stockReader.pages} pages`;

        expect(failures, context).toEqual([]);
        expect(reader.problems, context).toEqual([]);
        expect(stockReader.problems, context).toEqual([]);
        expect(
          sequenceProblems(
            reader.events.map((e) => e.sequence),
            0,
            last,
          ),
          context,
        ).toEqual([]);
        const stored = await app.ctx.db
          .selectFrom('events')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('sequence').as('numbered')])
          .executeTakeFirstOrThrow();
        expect({ stored: Number(stored.n), numbered: Number(stored.numbered) }, context).toEqual({
          stored: last,
          numbered: last,
        });

        // What was served live is what the feed holds: read again, whole, and from random points.
        const whole = await followFeed(servers[1]!, TOKEN, 0);
        expect(whole, context).toEqual(reader.events);
        expect(stockReader.events, context).toEqual(whole.filter((e) => e.type === 'stock.changed'));
        for (const after of [Math.floor(random() * last), Math.floor(random() * last), last - 1]) {
          expect(
            await followFeed(servers[Math.floor(random() * 2)]!, TOKEN, after),
            `${context}, after=${after}`,
          ).toEqual(whole.slice(after));
        }

        // The stock events are the ledger's changes, once each, in commit order per balance.
        const { postings, balances } = await readLedger(app.ctx.db);
        expect(new Set(postings.map((p) => p.logId)), context).toEqual(acknowledgedEntries);
        const stockLogs = await app.ctx.db
          .selectFrom('stock_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        expect(Number(stockLogs.n), context).toBe(acknowledgedEntries.size);
        expect(stockEventProblems(whole, postings, balances), context).toEqual([]);
        expect(causalOrderProblems(whole), context).toEqual([]);

        // The master data events are the imports: one upsert per version written.
        expect(new Set(whole.map((e) => e.type)), context).toEqual(
          new Set([
            'store.upserted',
            'product.upserted',
            'location.upserted',
            'store_product.upserted',
            'stock.changed',
          ]),
        );
        expect(
          count(
            whole.filter((e) => e.type === 'store.upserted'),
            (e) => e.data.store_number,
          ),
          context,
        ).toEqual(new Map(STORES.map((s) => [s, 1])));
        expect(
          count(
            whole.filter((e) => e.type === 'product.upserted'),
            (e) => e.data.product_number,
          ),
          context,
        ).toEqual(productVersions);
        expect(
          count(
            whole.filter((e) => e.type === 'location.upserted'),
            (e) => `${e.store_number}/${e.data.location_code}`,
          ),
          context,
        ).toEqual(locationVersions);
        const storeProducts = await app.ctx.db
          .selectFrom('store_products as sp')
          .innerJoin('stores as s', 's.id', 'sp.store_id')
          .innerJoin('products as p', 'p.id', 'sp.product_id')
          .select(['s.store_number', 'p.product_number'])
          .execute();
        expect(
          count(
            whole.filter((e) => e.type === 'store_product.upserted'),
            (e) => `${e.store_number}/${e.data.product_number}`,
          ),
          context,
        ).toEqual(new Map(storeProducts.map((row) => [`${row.store_number}/${row.product_number}`, 1])));

        // Enough happened for the above to mean something: contention on the hot balances, late entries, counts.
        const stockEvents = whole.filter((e) => e.type === 'stock.changed');
        expect(posts, context).toBeGreaterThanOrEqual(MIN_POSTS);
        expect(stockEvents.length, context).toBeGreaterThanOrEqual(MIN_POSTS);
        expect(
          stockEvents.filter(
            (e) => e.store_number === STORES[0] && e.data.product_number === HOT[0] && e.data.location_code === null,
          ).length,
          context,
        ).toBeGreaterThan(10);
        expect(postings.filter((p) => p.isCount).length, context).toBeGreaterThan(10);
        expect(await verifyAll(app.ctx.handle), context).toEqual([]);
        console.info(`change feed (${dialect.name}): ${context}`);
      } finally {
        await app.close();
      }
    }, 120_000);
  });
}
