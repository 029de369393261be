import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { verifyAll } from '../src/verify.js';
import { DIALECTS } from './helpers/dialects.js';
import { locationInput, productInput, restartableDatabaseUrl, storeInput } from './helpers/factories.js';
import {
  callJson,
  type Json,
  type ServerProcess,
  sharedDatabaseConfig,
  startTwoServers,
} from './helpers/server-process.js';

// Overlapping imports (issue 26, PRODUCT §3 "Upserts"): two ERP jobs writing the same
// master data at once is normal. Writers of one resource take turns (db/transaction.ts
// `serialise`), so every answer is a 2xx, the final state is what some last write sent,
// and no record is written without its derived columns. Two real server processes share
// one PostgreSQL schema, or one SQLite file (where a write transaction already excludes
// every other writer: the same answers must come out of it).

const TOKEN = 'imports-concurrency-admin-token';
const API = '/api/v2/public';
const CLIENTS = 8;
const STORE = 'IC1';

const call = (server: ServerProcess, method: string, url: string, body?: unknown) =>
  callJson(server, TOKEN, method, url, body);

const configFor = (databaseUrl: string) => sharedDatabaseConfig(databaseUrl, TOKEN);

/** The price a version of a product carries: the name tells the version, the price must agree with it. */
const priceOf = (round: number, group: number, index: number) => (100 + round * 1000 + group * 100 + index) / 100;

for (const dialect of DIALECTS) {
  describe(`overlapping imports, two processes (${dialect.name})`, () => {
    let databaseUrl: string;
    let servers: ServerProcess[] = [];
    const serverOf = (client: number) => servers[client % servers.length]!;

    beforeAll(async () => {
      databaseUrl = await restartableDatabaseUrl(dialect);
      const app = await buildApp(configFor(databaseUrl));
      try {
        const stores = await app.inject({
          method: 'POST',
          url: `${API}/stores`,
          payload: { stores: [storeInput(STORE)] },
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(stores.statusCode, stores.body).toBe(200);
      } finally {
        await app.close();
      }
      servers = await startTwoServers(databaseUrl);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dialect.cleanup();
    });

    it('8 clients import overlapping product sets (new, identical and changed) round after round: every answer 2xx, each product as one last write sent it', async () => {
      const ROUNDS = 12;
      const PRODUCTS = 60;
      const NEW_PER_ROUND = 8;
      const failures: string[] = [];
      /** product number → the versions sent for it in the last round that sent it, by name. */
      const lastRound = new Map<string, { round: number; versions: Map<string, Json> }>();
      const remember = (round: number, product: Json) => {
        const entry = lastRound.get(product.product_number);
        if (!entry || entry.round < round)
          lastRound.set(product.product_number, { round, versions: new Map([[product.product_name, product]]) });
        else if (entry.round === round) entry.versions.set(product.product_name, product);
      };

      for (let round = 0; round < ROUNDS; round++) {
        // Clients c and c+4 send the same version (so one of them often finds it stored
        // already); the four versions of a round differ from each other and from the last round.
        const bodies = Array.from({ length: CLIENTS }, (_, client) => {
          const group = client % 4;
          const products: Json[] = [];
          for (let index = 0; index < PRODUCTS; index++) {
            if ((index + client + round) % 3 === 0) continue;
            const number = `PC-${String(index).padStart(3, '0')}`;
            products.push(
              productInput(number, {
                product_name: `${number} r${round} g${group}`,
                price: priceOf(round, group, index),
                barcode: `20${String(index).padStart(6, '0')}`,
                free_fields: [{ sort_order: 1, key: 'version', value: `r${round} g${group}` }],
              }),
            );
          }
          // New products every client sends identically: concurrent identical creates.
          for (let index = 0; index < NEW_PER_ROUND; index++) {
            const number = `PN-${round}-${index}`;
            products.push(
              productInput(number, {
                product_name: `${number} new`,
                price: 3,
                barcode: `30${round}${String(index).padStart(4, '0')}`,
              }),
            );
          }
          return { products };
        });
        bodies.forEach((body) => body.products.forEach((product) => remember(round, product)));
        await Promise.all(
          bodies.map(async (body, client) => {
            const response = await call(serverOf(client), 'POST', `${API}/products`, body);
            if (response.status !== 200)
              failures.push(`round ${round} client ${client}: ${response.status} ${JSON.stringify(response.json)}`);
          }),
        );
      }
      expect(failures).toEqual([]);

      const listed = await call(servers[0]!, 'GET', `${API}/products?page_size=1000`);
      expect(listed.status).toBe(200);
      const items = listed.json.records as Json[];
      expect(items.length).toBe(lastRound.size);
      const wrong: string[] = [];
      for (const item of items) {
        const sent = lastRound.get(item.product_number)?.versions.get(item.product_name);
        if (!sent) {
          wrong.push(`${item.product_number}: '${item.product_name}' is no version of its last round`);
          continue;
        }
        // The read document and the price column come from the same write.
        if (item.price !== sent.price)
          wrong.push(`${item.product_number}: price ${item.price}, its version sent ${sent.price}`);
        if (item.barcode !== sent.barcode)
          wrong.push(`${item.product_number}: barcode ${item.barcode}, sent ${sent.barcode}`);
        const freeFields = JSON.stringify(item.free_fields ?? []);
        const sentFreeFields = JSON.stringify(sent.free_fields ?? []);
        if (freeFields !== sentFreeFields)
          wrong.push(`${item.product_number}: free fields ${freeFields}, sent ${sentFreeFields}`);
      }
      expect(wrong).toEqual([]);
      await expectVerified(databaseUrl);
    }, 300_000);

    it('concurrent identical creates of a new record are all 2xx: one creates it, the others find it unchanged (products, stores, store products, locations, deliveries, customer orders)', async () => {
      const resources: Array<{ name: string; url: string; body(attempt: number): unknown }> = [
        {
          name: 'products',
          url: `${API}/products`,
          body: (n) => ({
            products: [
              productInput(`PI-${n}`, {
                barcode: `40${String(n).padStart(6, '0')}`,
                barcodes_array: [{ barcode: `41${String(n).padStart(6, '0')}` }],
              }),
            ],
          }),
        },
        { name: 'stores', url: `${API}/stores`, body: (n) => ({ stores: [storeInput(`SI-${n}`)] }) },
        {
          name: 'store products',
          url: `${API}/stores/${STORE}/storeproducts`,
          body: (n) => ({ products: [{ product_number: `PI-${n}`, min: 1, max: 5 }] }),
        },
        {
          name: 'locations',
          url: `${API}/stores/${STORE}/locations`,
          body: (n) => ({ locations: [locationInput(`LI-${n}`, { tags: ['new'] })] }),
        },
        {
          name: 'deliveries',
          url: `${API}/stores/${STORE}/orders/deliveries`,
          body: (n) => ({
            orders: [
              {
                order_number: `DI-${n}`,
                order_type: 1,
                datetime_expected: '2026-06-01T08:00:00Z',
                no_of_containers: 1,
                order_lines: [{ line_number: 1, product_number: `PI-${n}`, quantity: 5, target_stock_pool: 2 }],
              },
            ],
          }),
        },
        {
          name: 'customer orders',
          url: `${API}/stores/${STORE}/orders/customerorders`,
          body: (n) => ({
            orders: [{ order_number: `CI-${n}`, lines: [{ line_number: 1, product_number: `PI-${n}`, quantity: 2 }] }],
          }),
        },
      ];
      const wrong: string[] = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        // In order: each resource's record may refer to the product created just before.
        for (const resource of resources) {
          const body = resource.body(attempt);
          const answers = await Promise.all(
            Array.from({ length: CLIENTS }, (_, client) => call(serverOf(client), 'POST', resource.url, body)),
          );
          const seen = answers
            .map(
              (a) => `${a.status} ${a.json.message}${a.json.errors?.length ? ` ${JSON.stringify(a.json.errors)}` : ''}`,
            )
            .sort();
          const expected = [
            ...Array.from({ length: CLIENTS - 1 }, () => '200 created 0, updated 0, unchanged 1, deleted 0'),
            '200 created 1, updated 0, unchanged 0, deleted 0',
          ];
          if (JSON.stringify(seen) !== JSON.stringify(expected))
            wrong.push(`${resource.name} #${attempt}: ${JSON.stringify(seen)}`);
        }
      }
      expect(wrong).toEqual([]);
      await expectVerified(databaseUrl);
    }, 180_000);

    it('store products and locations: overlapping changes are all 2xx, and each record is counted created exactly once', async () => {
      const products = Array.from({ length: 20 }, (_, index) => productInput(`SP-${index}`));
      expect((await call(servers[0]!, 'POST', `${API}/products`, { products })).status).toBe(200);
      const failures: string[] = [];
      const created = { storeProducts: 0, locations: 0 };
      const createdOf = (message: string) => Number(/created (\d+)/.exec(message)?.[1] ?? NaN);
      for (let round = 0; round < 8; round++) {
        await Promise.all(
          Array.from({ length: CLIENTS }, async (_, client) => {
            const group = client % 2;
            const storeProducts = products
              .filter((_, index) => (index + client + round) % 3 !== 0)
              .map((p, index) => ({ product_number: p.product_number, min: round + group, max: 10 + round + index }));
            const locations = Array.from({ length: 6 }, (_, index) =>
              locationInput(`L-${(round + client) % 4}-${index}`, { tags: [`group ${group}`] }),
            );
            const [sp, loc] = await Promise.all([
              call(serverOf(client), 'POST', `${API}/stores/${STORE}/storeproducts`, { products: storeProducts }),
              call(serverOf(client + 1), 'POST', `${API}/stores/${STORE}/locations`, { locations }),
            ]);
            if (sp.status === 200) created.storeProducts += createdOf(sp.json.message);
            else
              failures.push(`store products round ${round} client ${client}: ${sp.status} ${JSON.stringify(sp.json)}`);
            if (loc.status === 200) created.locations += createdOf(loc.json.message);
            else failures.push(`locations round ${round} client ${client}: ${loc.status} ${JSON.stringify(loc.json)}`);
          }),
        );
      }
      expect(failures).toEqual([]);
      // Two writers that both saw "absent" would both say created: they took turns instead.
      expect(created).toEqual({ storeProducts: products.length, locations: 4 * 6 });
      await expectVerified(databaseUrl);
    }, 120_000);
  });
}

async function expectVerified(databaseUrl: string): Promise<void> {
  const app = await buildApp(configFor(databaseUrl));
  try {
    expect(await verifyAll(app.ctx.handle)).toEqual([]);
  } finally {
    await app.close();
  }
}
