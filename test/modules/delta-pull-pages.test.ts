import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthStart } from '../../src/db/months.js';
import { listenToStatements } from '../../src/db/statement-log.js';
import { archiveLedgerBefore } from '../../src/ledger/archive.js';
import { seekPlan, SPARSE_MEMBERS } from '../../src/modules/store-stock/delta-pull.js';
import { deltaPullsOf } from '../../src/modules/store-stock/service.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const LIST = `${API}/storeproducts/stock`;
const SIZE = 3;
const STORES = ['DS1', 'DS2', 'DS3'];
const PRODUCTS = Array.from({ length: 12 }, (_, i) => `DPP${String(i + 1).padStart(2, '0')}`);
const REVIEWED = 779;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The ERP's delta pull by Page_Start (issue 28, store-stock/delta-pull.ts): total_count is
 * counted once per pull and carried from page to page, and each page continues from where
 * the previous one ended — and still every page is exactly what OFFSET gives at that moment,
 * with the exact count, while stock changes between pages, store products, products and
 * stores are deleted, entries are approved, an entry commits below ids already seen, and
 * stamps lie behind the entries. The expected pages come from the definition itself: live
 * store products of live stores and products with an applied entry updated since.
 */
// Both ways a page finds its candidates: from the window's entries (a sparse pull, up to
// SPARSE_MEMBERS members: every pull here) and by walking store products by id and stamp.
for (const [dialect, path] of DIALECTS.flatMap(
  (d) =>
    [
      [d, 'from the entries'],
      [d, 'walking by stamp'],
    ] as const,
)) {
  describe(`delta pull by Page_Start (${dialect.name}, candidates ${path})`, () => {
    let t: TestApp;
    const statements: string[] = [];
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      deltaPullsOf(t.app.ctx.handle).sparseMembers = path === 'walking by stamp' ? 0 : SPARSE_MEMBERS;
      // The months back to five months ago, before anything is stored (an archive moves them out).
      await t.app.ctx.handle.dialect.ensureLedgerMonths(
        t.app.ctx.db,
        Date.now(),
        addMonths(monthStart(Date.now()), -5),
      );
      listenToStatements(t.app.ctx.db, (text) => statements.push(text));
      expect((await t.post(`${API}/stores`, { stores: STORES.map((s) => storeInput(s)) })).statusCode).toBe(200);
      expect((await t.post(`${API}/products`, { products: PRODUCTS.map((p) => productInput(p)) })).statusCode).toBe(
        200,
      );
      const reason = reasonCodeInput(REVIEWED, { default_review_status: 1, reason_code_type: 1, is_loss: true });
      expect((await t.post(`${API}/reasoncodes`, { reason_codes: [reason] })).statusCode).toBe(200);
      // Every store product exists before any pull starts: a first booking creates one, which
      // is a membership change (counted again, correct but not what these tests walk through).
      for (const store of STORES) await book(store, PRODUCTS);
    });
    afterAll(async () => {
      listenToStatements(t.app.ctx.db);
      await t.close();
      await dialect.cleanup();
    });

    async function book(store: string, products: string[], extra: Record<string, unknown> = {}) {
      const answer = await t.post(`${API}/stores/${store}/products/stock/storeproductlogs`, {
        storeproductlog: products.map((product_number) => ({
          product_number,
          quantity: 1,
          customer_order_line_number: 0,
          modification_datetime: new Date().toISOString(),
          ...extra,
        })),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return answer.json().data as number[];
    }
    const startOfPull = async () => {
      await sleep(3);
      const since = Date.now();
      await sleep(2);
      return since;
    };
    /** The members by definition, in id order, as store/product keys: with an applied entry updated since, or the stamp an archive kept of one. */
    const members = async (since: number) => {
      const rows = await t.app.ctx.db
        .selectFrom('store_products as sp')
        .innerJoin('stores as s', 's.id', 'sp.store_id')
        .innerJoin('products as p', 'p.id', 'sp.product_id')
        .select(['sp.store_number', 'sp.product_number'])
        .where('sp.deleted_on', 'is', null)
        .where('s.deleted_on', 'is', null)
        .where('p.deleted_on', 'is', null)
        .where(({ exists, or, selectFrom }) =>
          or([
            exists(
              selectFrom('stock_logs as l')
                .select('l.id')
                .whereRef('l.store_id', '=', 'sp.store_id')
                .whereRef('l.product_id', '=', 'sp.product_id')
                .where('l.is_applied', '=', 1)
                .where('l.updated_on', '>=', since),
            ),
            exists(
              selectFrom('stock_stamps_archived as a')
                .select('a.stamp')
                .whereRef('a.store_id', '=', 'sp.store_id')
                .whereRef('a.product_id', '=', 'sp.product_id')
                .where('a.stamp', '>=', since),
            ),
          ]),
        )
        .orderBy('sp.id')
        .execute();
      return rows.map((row) => `${row.store_number}/${row.product_number}`);
    };
    /** Page `page` as the API serves it, checked against OFFSET over the members and their count at that moment. */
    const pageMatchesOffset = async (since: number, page: number) => {
      const answer = await t.get(
        `${LIST}?last_stock_modified_datetime=${new Date(since).toISOString()}&Page_Size=${SIZE}&Page_Start=${page}`,
      );
      expect(answer.statusCode, answer.body).toBe(200);
      const body = answer.json() as {
        total_count: number;
        list: Array<{ store_number: string; product_number: string }>;
      };
      const expected = await members(since);
      expect(
        body.list.map((item) => `${item.store_number}/${item.product_number}`),
        `page ${page}`,
      ).toEqual(expected.slice((page - 1) * SIZE, page * SIZE));
      expect(body.total_count, `total_count of page ${page}`).toBe(expected.length);
      return { total: expected.length, full: body.list.length === SIZE };
    };
    /** The statements `work` sent. */
    const sent = async (work: () => Promise<unknown>) => {
      statements.length = 0;
      await work();
      return [...statements];
    };
    /** The statement that counts a pull's members from its entries (delta-pull.ts countMembers). */
    const counts = (texts: string[]) => texts.filter((text) => text.includes('as "unstamped"'));
    /** Statements that read a page by OFFSET over the members (not the probes' `limit 1 offset 0`). */
    const pagesSkipped = (texts: string[]) =>
      texts.filter((text) => /order by "sp"\."id"( desc)? limit \S+ offset/i.test(text));

    it('counts a pull once and reads each next page after the previous one, exact while stock changes between pages', async () => {
      const since = await startOfPull();
      await book('DS1', PRODUCTS.slice(0, 5));
      await book('DS2', ['DPP03', 'DPP07']);
      await book('DS3', PRODUCTS.slice(9));
      expect(counts(await sent(() => pageMatchesOffset(since, 1)))).toHaveLength(1);
      // Between pages: a store product enters below the pages served, one above, and a member changes again.
      const lowEntrants = ['DPP06', 'DPP08', 'DPP09', 'DPP10', 'DPP11', 'DPP12'];
      const highEntrants = ['DPP01', 'DPP02', 'DPP04', 'DPP05', 'DPP06', 'DPP08'];
      let previous = { total: Infinity, full: true };
      for (let page = 2; previous.full; page++) {
        await book('DS1', [lowEntrants[page % lowEntrants.length]!, 'DPP01']);
        await book('DS3', [highEntrants[page % highEntrants.length]!]);
        const texts = await sent(async () => (previous = await pageMatchesOffset(since, page)));
        expect(counts(texts), `page ${page} counted`).toEqual([]);
        expect(pagesSkipped(texts), `page ${page} skipped its way`).toEqual([]);
      }
      expect(previous.total).toBeGreaterThan(6 * SIZE);
      // Jumping ahead of the positions and back: still OFFSET's pages.
      await pageMatchesOffset(since, 2);
      await pageMatchesOffset(since, 9);
    });

    it('is exact when a store product, a product or a store is deleted or restored, or an entry moved, between pages', async () => {
      const since = await startOfPull();
      for (const store of STORES) await book(store, PRODUCTS.slice(0, 8));
      let page = 1;
      await pageMatchesOffset(since, page++);
      await pageMatchesOffset(since, page++);
      const db = t.app.ctx.db;
      const ds1 = await db
        .selectFrom('stores')
        .select('id')
        .where('store_number', '=', 'DS1')
        .executeTakeFirstOrThrow();
      const soft = (deleted: number | null) =>
        db
          .updateTable('store_products')
          .set({ deleted_on: deleted })
          .where('store_id', '=', ds1.id)
          .where('product_number', '=', 'DPP02')
          .execute();
      await soft(Date.now());
      await pageMatchesOffset(since, page++);
      await soft(null);
      await pageMatchesOffset(since, page++);
      expect(
        (await t.request({ method: 'DELETE', url: `${API}/products`, payload: { product_number: ['DPP03'] } }))
          .statusCode,
      ).toBe(200);
      await pageMatchesOffset(since, page++);
      expect((await t.post(`${API}/products`, { products: [productInput('DPP03')] })).statusCode).toBe(200);
      await pageMatchesOffset(since, page++);
      expect(
        (await t.post(`${API}/stores?flush=true`, { stores: [storeInput('DS1'), storeInput('DS3')] })).statusCode,
      ).toBe(200);
      await pageMatchesOffset(since, page - 1);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('DS2')] })).statusCode).toBe(200);
      await pageMatchesOffset(since, page++);
      // An entry moved out of the window by hand (no review): its store product leaves.
      const [moved] = await book('DS2', ['DPP11']);
      await pageMatchesOffset(since, page++);
      await db
        .updateTable('stock_logs')
        .set({ updated_on: since - 1000 })
        .where('id', '=', moved!)
        .execute();
      await pageMatchesOffset(since, page++);
      await pageMatchesOffset(since, page);
    });

    it('is exact when entries are approved between pages, also in the millisecond they were booked', async () => {
      const since = await startOfPull();
      await book('DS2', PRODUCTS.slice(0, 9));
      const pending = await book('DS1', ['DPP05', 'DPP09'], { reason_code: REVIEWED, quantity: -1 });
      await pageMatchesOffset(since, 1);
      await pageMatchesOffset(since, 2);
      const approved = await t.post(`${API}/stores/DS1/products/stock/storeproductlogs/review`, {
        ids: pending,
        approve: true,
      });
      expect(approved.statusCode).toBe(200);
      await pageMatchesOffset(since, 3);
      await pageMatchesOffset(since, 4);
      // An approval that leaves updated_on where it was moves no entry: only the number of
      // entries awaiting review tells (a review stamped in the booking's millisecond).
      const [sameMillisecond] = await book('DS3', ['DPP11'], { reason_code: REVIEWED, quantity: -1 });
      await pageMatchesOffset(since, 1);
      await pageMatchesOffset(since, 2);
      await t.app.ctx.db
        .updateTable('stock_logs')
        .set({ review_status: 2, is_applied: 1 })
        .where('id', '=', sameMillisecond!)
        .execute();
      await pageMatchesOffset(since, 3);
      await pageMatchesOffset(since, 4);
    });

    /** An applied entry of a store product of DS2 with no postings, updated at `at`: nothing else about it matters to the pull. */
    const appliedEntry = async (productNumber: string, at: number) => {
      const db = t.app.ctx.db;
      const template = await db
        .selectFrom('stock_logs')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const store = await db
        .selectFrom('stores')
        .select(['id', 'store_number'])
        .where('store_number', '=', 'DS2')
        .executeTakeFirstOrThrow();
      const product = await db
        .selectFrom('products')
        .select(['id', 'product_number'])
        .where('product_number', '=', productNumber)
        .executeTakeFirstOrThrow();
      const { id: _id, ...columns } = template;
      return {
        ...columns,
        store_id: store.id,
        store_number: store.store_number,
        product_id: product.id,
        product_number: product.product_number,
        updated_on: at,
        is_applied: 1 as const,
        balance_id: null,
      };
    };

    it('is exact when an entry commits below the ids a page already saw', async () => {
      const since = await startOfPull();
      await book('DS1', PRODUCTS.slice(0, 6));
      await pageMatchesOffset(since, 1);
      // Leave a gap of ids, then fill it as a late commit would.
      const db = t.app.ctx.db;
      const gapId =
        Number(
          (
            await db
              .selectFrom('stock_logs')
              .select((eb) => eb.fn.max('id').as('id'))
              .executeTakeFirstOrThrow()
          ).id,
        ) + 1;
      if (dialect.name === 'postgres')
        await sql`select setval(pg_get_serial_sequence('stock_logs', 'id'), ${gapId + 10})`.execute(db);
      else await sql`update sqlite_sequence set seq = ${gapId + 10} where name = 'stock_logs'`.execute(db);
      await book('DS1', ['DPP07']);
      await pageMatchesOffset(since, 2);
      await db
        .insertInto('stock_logs')
        .values({ ...(await appliedEntry('DPP01', since + 1)), id: gapId })
        .execute();
      await pageMatchesOffset(since, 3);
      await pageMatchesOffset(since, 4);
    });

    it.skipIf(dialect.name !== 'postgres')(
      'is exact when a transaction that took its id before a page was served commits after it',
      async () => {
        const since = await startOfPull();
        await book('DS1', PRODUCTS.slice(0, 8));
        await pageMatchesOffset(since, 1);
        const held = await appliedEntry('DPP02', since + 1);
        await t.app.ctx.db.transaction().execute(async (trx) => {
          await trx.insertInto('stock_logs').values(held).execute();
          await book('DS3', ['DPP06']);
          expect((await pageMatchesOffset(since, 2)).full).toBe(true);
        });
        await pageMatchesOffset(since, 3);
        await pageMatchesOffset(since, 4);
      },
    );

    it('walks to the members whose stamp lies before the window, and past stamps that name no entry', async () => {
      const since = await startOfPull();
      for (const store of STORES) await book(store, PRODUCTS.slice(2, 7));
      const db = t.app.ctx.db;
      // A booking that began before another on the same store product and committed after it
      // leaves its earlier moment as the stamp.
      const stampBehind = (store: string, product: string) =>
        db
          .updateTable('store_products')
          .set({ stock_modified_at: since - 1000 })
          .where('store_number', '=', store)
          .where('product_number', '=', product)
          .execute();
      await stampBehind('DS3', 'DPP06');
      // And a stamp with no entry behind it (written by hand) makes no member: the entries decide.
      await db
        .updateTable('store_products')
        .set({ stock_modified_at: since + 1 })
        .where('store_number', '=', 'DS1')
        .where('product_number', '=', 'DPP12')
        .execute();
      let previous = await pageMatchesOffset(since, 1);
      await stampBehind('DS1', 'DPP03');
      for (let page = 2; previous.full; page++) {
        await book('DS2', [PRODUCTS[page]!]);
        await stampBehind('DS2', PRODUCTS[page]!);
        previous = await pageMatchesOffset(since, page);
      }
    });

    it.skipIf(dialect.name !== 'postgres')(
      'keeps the store products whose entries an archive moved out of the ledger (by their kept stamps)',
      async () => {
        const since = await startOfPull();
        const threeMonthsAgo = addMonths(monthStart(Date.now()), -3) + 86_400_000;
        // Entries dated months back, booked now: their store products changed now, and the
        // archive of their month takes the entries away.
        await book('DS2', ['DPP02', 'DPP04', 'DPP06', 'DPP08'], {
          modification_datetime: new Date(threeMonthsAgo).toISOString(),
        });
        await book('DS3', ['DPP01', 'DPP02', 'DPP03']);
        const before = await pageMatchesOffset(since, 1);
        await archiveLedgerBefore(t.app.ctx.handle, addMonths(monthStart(Date.now()), -2), 'test');
        expect(
          await t.app.ctx.db
            .selectFrom('stock_logs')
            .select('id')
            .where('modification_at', '<', addMonths(monthStart(Date.now()), -2))
            .execute(),
        ).toEqual([]);
        const after = await pageMatchesOffset(since, 2);
        expect(after.total).toBe(before.total);
        await pageMatchesOffset(since, 3);
      },
    );

    it('plans a page from a remembered position as OFFSET would', () => {
      const window = (offset: number) => ({ offset, fetchLimit: 4 });
      // Nothing entered below: right after the position.
      expect(seekPlan(window(6), 50, 6)).toEqual({ forward: { afterId: 50, offset: 0, fetchLimit: 4 } });
      // Two pages further on.
      expect(seekPlan(window(12), 50, 6)).toEqual({ forward: { afterId: 50, offset: 6, fetchLimit: 4 } });
      // Two entered below: the last two at or below the position come first.
      expect(seekPlan(window(6), 50, 8)).toEqual({
        back: { offset: 0, limit: 2 },
        forward: { afterId: 50, offset: 0, fetchLimit: 2 },
      });
      // More entered below than a page holds.
      expect(seekPlan(window(12), 50, 18)).toEqual({
        back: { offset: 2, limit: 4 },
        forward: { afterId: 50, offset: 0, fetchLimit: 0 },
      });
      // Reading from the start skips less.
      expect(seekPlan(window(3), 50, 9)).toBeUndefined();
    });
  });
}
