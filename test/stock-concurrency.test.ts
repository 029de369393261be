import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { replayLevel } from '../src/domain/ledger.js';
import { verifyAll } from '../src/verify.js';
import { DIALECTS } from './helpers/dialects.js';
import { productInput, reasonCodeInput, restartableDatabaseUrl, storeInput } from './helpers/factories.js';
import {
  callJson,
  startServer,
  type ServerProcess,
  sharedDatabaseConfig,
  startTwoServers,
} from './helpers/server-process.js';

// Concurrency and crash safety of the ledger (issue 5 "Under load and faults"), with real
// server processes sharing one database: two processes on PostgreSQL (and on one SQLite
// file, where writers queue on the file lock and busy errors are retried).

const TOKEN = 'concurrency-admin-token';
const API = '/api/v2/public';
const PRODUCTS = ['C-1', 'C-2', 'C-3'];

const call = (server: ServerProcess, method: string, url: string, body?: unknown) =>
  callJson(server, TOKEN, method, url, body);

const configFor = (databaseUrl: string) => sharedDatabaseConfig(databaseUrl, TOKEN);

for (const dialect of DIALECTS) {
  describe(`stock under concurrency and crashes (${dialect.name})`, () => {
    let databaseUrl: string;
    let servers: ServerProcess[] = [];

    beforeAll(async () => {
      databaseUrl = await restartableDatabaseUrl(dialect);
      // Migrate and load master data once, through the one app.
      const app = await buildApp(configFor(databaseUrl));
      const inject = (url: string, payload: unknown) =>
        app.inject({ method: 'POST', url, payload: payload as object, headers: { authorization: `Bearer ${TOKEN}` } });
      expect((await inject(`${API}/stores`, { stores: [storeInput('K1')] })).statusCode).toBe(200);
      expect((await inject(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) })).statusCode).toBe(
        200,
      );
      expect(
        (await inject(`${API}/reasoncodes`, { reason_codes: [reasonCodeInput(11, { is_loss: true })] })).statusCode,
      ).toBe(200);
      await app.close();
      servers = await startTwoServers(databaseUrl);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dialect.cleanup();
    });

    it('parallel clients on two processes lose no update: totals equal the timestamp-order replay', async () => {
      type Op = { product: string; at: number; quantityMilli: number; isCount: boolean; id: number };
      const ops: Op[] = [];
      const requests: Array<{ counted: boolean; lines: Op[] }> = [];
      let clock = Date.parse('2026-03-01T00:00:00Z');
      // 240 requests of 10 lines: deltas in most, counts in some, timestamps shuffled so
      // many entries and counts arrive late.
      for (let r = 0; r < 240; r++) {
        const counted = r % 8 === 7;
        const lines: Op[] = [];
        for (let l = 0; l < (counted ? 2 : 10); l++) {
          const product = PRODUCTS[(r + l) % PRODUCTS.length]!;
          const at = clock + Math.floor(Math.random() * 2_000_000) * 1000; // distinct seconds
          const quantityMilli = counted
            ? 1000 * Math.floor(Math.random() * 50)
            : 1000 * (Math.floor(Math.random() * 11) - 5);
          const op = { product, at, quantityMilli, isCount: counted, id: ops.length };
          ops.push(op);
          lines.push(op);
        }
        requests.push({ counted, lines });
      }
      // Distinct timestamps make the replay order unambiguous.
      const seen = new Set<number>();
      for (const op of ops) {
        while (seen.has(op.at)) op.at += 1000;
        seen.add(op.at);
      }

      let next = 0;
      const failures: string[] = [];
      const stockRead = async (server: ServerProcess, product: string) => {
        const response = await call(server, 'GET', `${API}/stores/K1/products/${product}/stock?include_locations=true`);
        if (response.status !== 200) failures.push(`read ${response.status} ${JSON.stringify(response.json)}`);
        return response.json?.products?.[0]?.most_likely_stock as number;
      };
      // Readers on both processes all along: each keeps single-product answers in its own
      // cache while the other process (and its own) write the same balances.
      const readers = Array.from({ length: 2 }, async (_, reader) => {
        for (let round = 0; next < requests.length; round++)
          await stockRead(servers[(reader + round) % servers.length]!, PRODUCTS[round % PRODUCTS.length]!);
      });
      await Promise.all([
        ...readers,
        ...Array.from({ length: 8 }, async (_, client) => {
          const server = servers[client % servers.length]!;
          while (next < requests.length) {
            const request = requests[next++]!;
            const response = await call(
              server,
              'POST',
              `${API}/stores/K1/products/stock/storeproductlogs${request.counted ? '?is_counted_quantity=true' : ''}`,
              {
                storeproductlog: request.lines.map((op) => ({
                  product_number: op.product,
                  quantity: op.quantityMilli / 1000,
                  customer_order_line_number: 0,
                  modification_datetime: new Date(op.at).toISOString(),
                })),
              },
            );
            if (response.status !== 200) failures.push(`${response.status} ${JSON.stringify(response.json)}`);
          }
        }),
      ]);
      expect(failures).toEqual([]);
      const expectedOf = (product: string) =>
        replayLevel(ops.filter((op) => op.product === product).map((op) => ({ ...op, id: op.id })));
      // Every process answers the final levels, whatever its cache held a moment ago.
      for (const server of servers) {
        for (const product of PRODUCTS) expect(await stockRead(server, product)).toBe(expectedOf(product) / 1000);
      }

      const app = await buildApp(configFor(databaseUrl));
      try {
        expect(await verifyAll(app.ctx.handle)).toEqual([]);
        for (const product of PRODUCTS) {
          const row = await app.ctx.db
            .selectFrom('stock_balances as b')
            .innerJoin('products as p', 'p.id', 'b.product_id')
            .select((eb) => eb.fn.sum<number>('b.quantity').as('total'))
            .where('p.product_number', '=', product)
            .executeTakeFirstOrThrow();
          expect(Number(row.total)).toBe(expectedOf(product));
        }
      } finally {
        await app.close();
      }
    }, 180_000);

    it('a process killed in the middle of a bulk post leaves no partial batch', async () => {
      const victim = await startServer({ DATABASE_URL: databaseUrl });
      const batch = (reference: string) =>
        JSON.stringify({
          storeproductlog: Array.from({ length: 10_000 }, (_, i) => ({
            product_number: PRODUCTS[i % PRODUCTS.length],
            quantity: 1,
            customer_order_line_number: 0,
            modification_datetime: '2026-04-01T00:00:00Z',
            reference,
          })),
        });
      const post = (body: string) =>
        fetch(`${victim.baseUrl}${API}/stores/K1/products/stock/storeproductlogs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        });
      // Time a whole batch first, then kill the next one late in its run, when the
      // transaction is writing (parsing and validation come first).
      const started = Date.now();
      expect((await post(batch('timing-batch'))).status).toBe(200);
      const duration = Date.now() - started;
      const crashing = post(batch('crash-batch')).then(
        () => 'answered',
        () => 'interrupted',
      );
      await new Promise((r) => setTimeout(r, duration * 0.75));
      await victim.kill();
      const outcome = await crashing;

      const app = await buildApp(configFor(databaseUrl));
      try {
        const row = await app.ctx.db
          .selectFrom('stock_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('reference', '=', 'crash-batch')
          .executeTakeFirstOrThrow();
        // All or nothing: a batch answered before the kill is whole; one cut off is absent or whole.
        expect(outcome === 'answered' ? [10_000] : [0, 10_000]).toContain(Number(row.n));
        expect(await verifyAll(app.ctx.handle)).toEqual([]);
      } finally {
        await app.close();
      }
    }, 120_000);
  });
}
