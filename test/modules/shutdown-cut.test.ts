import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutStatements, uncutStatements } from '../../src/db/shutdown-cut.js';
import { listenToStatements } from '../../src/db/statement-log.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, stockLogInput, storeInput } from '../helpers/factories.js';

// Issue 40 item 6: work still running when a shutdown's grace for requests ends is cut between
// two statements (plugins/shutdown.ts, db/shutdown-cut.ts): its transaction rolls back whole,
// and its client is told 503 UNAVAILABLE with Retry-After in the envelope — never a 500, never
// half an import. Cut here at its first write, so the test does not depend on how fast it runs.

const LINES = 2_000;
const PRODUCTS = Array.from({ length: 20 }, (_, i) => `CUT-${i}`);

for (const dialect of DIALECTS) {
  describe(`a request cut by the shutdown (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('C1')] })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) })).statusCode).toBe(
        200,
      );
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    for (const keyed of [false, true]) {
      it(`a ${LINES}-line import${keyed ? ' with an Idempotency-Key' : ''} cut mid-way: 503 UNAVAILABLE with Retry-After, nothing stored, verify clean, the same request applies once the cut is lifted`, async () => {
        const reference = `cut-${keyed ? 'keyed' : 'plain'}`;
        const payload = {
          storeproductlog: Array.from({ length: LINES }, (_, i) =>
            stockLogInput(PRODUCTS[i % PRODUCTS.length]!, 1, '2026-03-01T10:00:00Z', { reference }),
          ),
        };
        const db = t.app.ctx.db;
        let cutAt: string | undefined;
        listenToStatements(db, (sqlText) => {
          if (cutAt === undefined && /^insert into "stock_logs"/i.test(sqlText.trim())) {
            cutAt = sqlText.slice(0, 40);
            cutStatements(db);
          }
        });
        const headers = { ...(keyed ? { 'idempotency-key': `cut-key-${dialect.name}` } : {}) };
        const url = `${API}/stores/C1/products/stock/storeproductlogs`;
        const cut = await t.request({ method: 'POST', url, payload, headers });
        listenToStatements(db);
        uncutStatements(db);
        expect(cutAt, 'the import reached its first insert').toBeDefined();
        expect(cut.statusCode, cut.body).toBe(503);
        expect(cut.json()).toMatchObject({ success: false, code: 'UNAVAILABLE' });
        expect(cut.headers['retry-after']).toBe('1');

        const stored = await db
          .selectFrom('stock_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('reference', '=', reference)
          .executeTakeFirstOrThrow();
        expect(Number(stored.n)).toBe(0);
        expect(await verifyAll(t.app.ctx.handle)).toEqual([]);

        // Its retry (the same key, if it had one) is applied as new: the cut left no trace.
        const retried = await t.request({ method: 'POST', url, payload, headers });
        expect(retried.statusCode, retried.body).toBe(200);
        expect(retried.headers['idempotent-replayed']).toBeUndefined();
        const after = await db
          .selectFrom('stock_logs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('reference', '=', reference)
          .executeTakeFirstOrThrow();
        expect(Number(after.n)).toBe(LINES);
      });
    }
  });
}
