import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowBatches } from '../../src/db/batches.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';

for (const dialect of DIALECTS) {
  describe(`rowBatches (db/batches.ts, ${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect(
        (await t.post(`${API}/stores`, { stores: ['B1', 'B2', 'B3', 'B4', 'B5'].map((n) => storeInput(n)) }))
          .statusCode,
      ).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const batches = async (size: number) => {
      const seen: string[][] = [];
      for await (const rows of rowBatches(t.app.ctx.db, 'stores', size)) seen.push(rows.map((r) => r.store_number));
      return seen;
    };

    it('reads every row once, in id order, a batch at a time, and never yields an empty batch', async () => {
      expect(await batches(2)).toEqual([['B1', 'B2'], ['B3', 'B4'], ['B5']]);
      expect(await batches(5)).toEqual([['B1', 'B2', 'B3', 'B4', 'B5']]);
      expect(await batches(100)).toEqual([['B1', 'B2', 'B3', 'B4', 'B5']]);
    });
  });
}
