import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  productDetails,
  productDetailsLimit,
  keptProductDetailsOf,
  MAX_PRODUCT_DETAILS,
} from '../../src/modules/product-lists/product-details.js';
import {
  cachedStockListCount,
  countCacheLimit,
  keptCountsOf,
  MAX_COUNT_ENTRIES,
} from '../../src/modules/store-stock/count-cache.js';
import { keptListAnswersOf, listCacheLimit, MAX_LIST_ANSWERS, MAX_LIST_BYTES } from '../../src/plugins/list-cache.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

// Issue 40 item 8: every cache a process keeps has a size limit and an eviction rule (the
// least recently used goes first), instead of a Map emptied when full. Each is shown here
// with its limit lowered: beyond it, the least recently used entry is forgotten and asked
// for again; the others are still answered from the cache.

for (const dialect of DIALECTS) {
  describe(`bounded caches (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('B1')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: ['BC-1', 'BC-2', 'BC-3', 'BC-4'].map((p) => productInput(p)) }))
          .statusCode,
      ).toBe(200);
    });
    afterAll(async () => {
      countCacheLimit.max = MAX_COUNT_ENTRIES;
      productDetailsLimit.max = MAX_PRODUCT_DETAILS;
      Object.assign(listCacheLimit, { max: MAX_LIST_ANSWERS, maxSize: MAX_LIST_BYTES });
      await t.close();
      await dialect.cleanup();
    });

    it('stock-list counts: beyond the limit the least recently used filter set is counted again, the others not', async () => {
      countCacheLimit.max = 3;
      const owner = {};
      const counted: string[] = [];
      const countOf = (product: string) =>
        cachedStockListCount(t.app.ctx.db, owner, { productNumbers: [product] }, async () => {
          counted.push(product);
          return 1;
        });
      for (const product of ['BC-1', 'BC-2', 'BC-3']) await countOf(product);
      await countOf('BC-1'); // used again: BC-2 is now the least recently used
      await countOf('BC-4');
      expect(keptCountsOf(owner)).toBe(3);
      expect(counted).toEqual(['BC-1', 'BC-2', 'BC-3', 'BC-4']);
      for (const product of ['BC-1', 'BC-3', 'BC-4']) await countOf(product);
      expect(counted).toEqual(['BC-1', 'BC-2', 'BC-3', 'BC-4']);
      await countOf('BC-2');
      expect(counted).toEqual(['BC-1', 'BC-2', 'BC-3', 'BC-4', 'BC-2']);
      expect(keptCountsOf(owner)).toBe(3);
    });

    it("product lists' product details: at most the limit kept, every asked product still answered", async () => {
      productDetailsLimit.max = 2;
      const owner = {};
      const rows = await t.app.ctx.db
        .selectFrom('products')
        .select(['id', 'product_number'])
        .where('product_number', 'like', 'BC-%')
        .orderBy('id')
        .execute();
      const ids = rows.map((row) => Number(row.id));
      const details = await productDetails(t.app.ctx.db, owner, ids);
      expect([...details.values()].map((d) => d.product_number).sort()).toEqual(['BC-1', 'BC-2', 'BC-3', 'BC-4']);
      expect(keptProductDetailsOf(owner)).toBe(2);
      const again = await productDetails(t.app.ctx.db, owner, ids.slice(0, 1));
      expect(again.get(ids[0]!)?.product_number).toBe('BC-1');
      expect(keptProductDetailsOf(owner)).toBe(2);
    });

    it('list answers: beyond the count limit the least recently used is forgotten, and the byte limit holds too', async () => {
      Object.assign(listCacheLimit, { max: 2, maxSize: MAX_LIST_BYTES });
      const small = await buildTestApp(dialect);
      try {
        const list = async (size: number) => {
          const answer = await small.get(`${API}/stores?page_size=${size}`);
          expect(answer.statusCode).toBe(200);
          return answer;
        };
        for (const size of [1, 2, 3]) await list(size);
        expect(keptListAnswersOf(small.app.ctx.handle)).toBe(2);
        // Still answered, the same as before it was forgotten.
        expect((await list(1)).json().stores).toEqual((await small.get(`${API}/stores?page_size=1`)).json().stores);
        expect(keptListAnswersOf(small.app.ctx.handle)).toBe(2);
      } finally {
        await small.close();
      }
      // Bytes: an answer bigger than the whole byte limit is served and never kept.
      Object.assign(listCacheLimit, { max: MAX_LIST_ANSWERS, maxSize: 64 });
      const tiny = await buildTestApp(dialect);
      try {
        const answer = await tiny.get(`${API}/stores?page_size=5`);
        expect(answer.statusCode).toBe(200);
        expect(keptListAnswersOf(tiny.app.ctx.handle)).toBe(0);
      } finally {
        await tiny.close();
      }
    });
  });
}
