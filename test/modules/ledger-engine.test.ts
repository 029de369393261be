import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import { record, replayLevel, type TimelineEntry } from '../../src/domain/ledger.js';
import { applyPostings, type Posting } from '../../src/modules/stock-logs/ledger.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';
import { insertBareLog, insertBareProduct } from '../helpers/stock.js';

type Op = { at: number; quantityMilli: number; isCount: boolean; locationId: number; pool: number };

const opArb: fc.Arbitrary<Op> = fc.record({
  at: fc.integer({ min: 0, max: 20 }),
  quantityMilli: fc.integer({ min: -3_000, max: 3_000 }),
  isCount: fc.boolean(),
  locationId: fc.constantFrom(0, 7),
  pool: fc.constantFrom(1, 2),
});

for (const dialect of DIALECTS) {
  describe(`ledger posting engine (${dialect.name})`, () => {
    let t: TestApp;
    let storeId: number;
    let productCounter = 0;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('L1')] });
      storeId = (await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'L1').executeTakeFirstOrThrow()).id;
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    async function post(productId: number, ops: Array<Op & { id: number }>): Promise<void> {
      const { db, handle } = t.app.ctx;
      const postings: Posting[] = [];
      for (const op of ops) {
        const logId = await insertBareLog(db, storeId, productId, op.at);
        postings.push({ logId, storeId, productId, locationId: op.locationId, pool: op.pool, orderKey: '', at: op.at, quantityMilli: op.quantityMilli, isCount: op.isCount });
      }
      await inTransaction(handle, (trx) => applyPostings(trx, handle.dialect, postings, new Map([[storeId, 'L1']]), Date.now()));
    }

    it('property: in any arrival order and batching, each balance equals its ledger and the timestamp-order replay', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 16 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 16, maxLength: 16 }), async (ops, batchSizes) => {
          const productId = await insertBareProduct(t.app.ctx, `P${++productCounter}`);
          const arrivals = ops.map((op, index) => ({ ...op, id: index + 1 }));
          for (let i = 0, b = 0; i < arrivals.length; b++) {
            const size = batchSizes[b % batchSizes.length]!;
            await post(productId, arrivals.slice(i, i + size));
            i += size;
          }
          const balances = await t.app.ctx.db.selectFrom('stock_balances').selectAll().where('product_id', '=', productId).execute();
          const ledger = await t.app.ctx.db.selectFrom('stock_ledger').selectAll().where('product_id', '=', productId).execute();
          for (const balance of balances) {
            const mine = (e: { location_id?: number; locationId?: number; pool: number }) =>
              (e.location_id ?? e.locationId) === balance.location_id && e.pool === balance.pool;
            const ledgerSum = ledger.filter(mine).reduce((s, e) => s + Number(e.delta), 0);
            expect(Number(balance.quantity)).toBe(ledgerSum);
            expect(Number(balance.quantity)).toBe(replayLevel(arrivals.filter(mine)));
          }
        }),
        { numRuns: dialect.name === 'sqlite' ? 60 : 25 },
      );
    });

    // Issue 11: the engine reads only the stretch of history late entries need. Long
    // histories with rare counts, then requests full of late entries: every ledger row must
    // carry exactly what recording the entries one by one on the whole timeline gives.
    it('property: long histories and many late entries per request match the one-by-one model row for row', async () => {
      const sparseOp = (maxAt: number) =>
        fc.record({
          at: fc.integer({ min: 0, max: maxAt }),
          quantityMilli: fc.integer({ min: -3_000, max: 3_000 }),
          isCount: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
        });
      await fc.assert(
        fc.asyncProperty(
          fc.array(sparseOp(1_000), { minLength: 100, maxLength: 200 }),
          fc.array(sparseOp(1_050), { minLength: 20, maxLength: 60 }),
          fc.integer({ min: 1, max: 3 }),
          async (history, late, requests) => {
            const productId = await insertBareProduct(t.app.ctx, `H${++productCounter}`);
            const ops = [...history, ...late].map((op, index) => ({ ...op, id: index + 1, locationId: 0, pool: 1 }));
            // The history in one request, then the late entries spread over `requests` requests.
            await post(productId, ops.slice(0, history.length));
            const perRequest = Math.ceil(late.length / requests);
            for (let start = history.length; start < ops.length; start += perRequest) await post(productId, ops.slice(start, start + perRequest));

            const model = ops.reduce<TimelineEntry[]>((timeline, op) => record(timeline, op), []);
            const rows = await t.app.ctx.db
              .selectFrom('stock_ledger')
              .select(['delta', 'expected'])
              .where('product_id', '=', productId)
              .orderBy('id')
              .execute();
            expect(rows.map((row) => Number(row.delta))).toEqual(model.map((entry) => entry.deltaMilli));
            expect(rows.map((row) => (row.expected === null ? undefined : Number(row.expected)))).toEqual(model.map((entry) => entry.count?.expectedMilli));
            const balance = await t.app.ctx.db.selectFrom('stock_balances').select('quantity').where('product_id', '=', productId).executeTakeFirstOrThrow();
            expect(Number(balance.quantity)).toBe(replayLevel(ops));
          },
        ),
        { numRuns: dialect.name === 'sqlite' ? 25 : 8 },
      );
    });
  });
}
