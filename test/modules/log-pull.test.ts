import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, productNumberOf, storeNumberOf } from '../../src/generate/chain-plan.js';
import { generateChain } from '../../src/generate/generate-chain.js';
import { mergeLogHours } from '../../src/ledger/log-hours.js';
import { HOUR_MS } from '../../src/modules/stock-logs/log-pull.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { reasonCodeInput } from '../helpers/factories.js';

const PULL = `${API}/products/stock/storeproductlogs`;
const SIZE = 25;
const REVIEWED_REASON = 777;

/**
 * The ERP's log pull by Page_Start (issue 28, stock-logs/log-pull.ts): total_count from the
 * hour counts is the exact count, and every page — read after the previous page's last id
 * where this process remembers it — is exactly the page OFFSET gives at that moment, while
 * entries are appended, move into the window (a review), or commit below ids already served.
 */
for (const dialect of DIALECTS) {
  describe(`log pull by Page_Start (${dialect.name})`, () => {
    let t: TestApp;
    const now = Date.now();
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await generateChain(
        t.app.ctx,
        { stores: 2, products: 30, days: 3, entriesPerDay: 400, seed: 3 },
        () => undefined,
        now,
      );
      const reason = reasonCodeInput(REVIEWED_REASON, { default_review_status: 1, reason_code_type: 1, is_loss: true });
      expect((await t.post(`${API}/reasoncodes`, { reason_codes: [reason] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const post = async (count: number, extra: Record<string, unknown> = {}) => {
      const entries = Array.from({ length: count }, (_, i) => ({
        product_number: productNumberOf(i % 30),
        quantity: 1,
        customer_order_line_number: 0,
        modification_datetime: new Date().toISOString(),
        ...extra,
      }));
      const answer = await t.post(`${API}/stores/${storeNumberOf(0)}/products/stock/storeproductlogs`, {
        storeproductlog: entries,
      });
      expect(answer.statusCode).toBe(200);
    };
    const query = (from: number, to?: number) =>
      `last_modified_date=${new Date(from).toISOString()}${to === undefined ? '' : `&to_modified_date=${new Date(to).toISOString()}`}`;
    const directIds = async (from: number, to: number | undefined, offset: number, limit: number) => {
      let q = t.app.ctx.db.selectFrom('stock_logs').select('id').where('updated_on', '>=', from);
      if (to !== undefined) q = q.where('updated_on', '<=', to);
      return (await q.orderBy('id').limit(limit).offset(offset).execute()).map((r) => Number(r.id));
    };
    const directCount = async (from: number, to?: number) => {
      let q = t.app.ctx.db
        .selectFrom('stock_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('updated_on', '>=', from);
      if (to !== undefined) q = q.where('updated_on', '<=', to);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    /** Page `page` as the API serves it, checked against OFFSET and the exact count at that moment. */
    const pageMatchesOffset = async (from: number, page: number, to?: number) => {
      const answer = await t.get(`${PULL}?${query(from, to)}&Page_Size=${SIZE}&Page_Start=${page}`);
      expect(answer.statusCode).toBe(200);
      const body = answer.json();
      expect(body.list.map((item: { id: number }) => item.id)).toEqual(
        await directIds(from, to, (page - 1) * SIZE, SIZE),
      );
      expect(body.total_count).toBe(await directCount(from, to));
      return body as { total_count: number; list: Array<{ id: number }> };
    };

    it('counts every window exactly, whole hours from the hour counts and edges from the entries', async () => {
      const midHour = Math.floor((now - 30 * HOUR_MS) / HOUR_MS) * HOUR_MS + 1_234_567;
      const onHour = Math.floor((now - 20 * HOUR_MS) / HOUR_MS) * HOUR_MS;
      const windows: Array<[number, number | undefined]> = [
        [midHour, undefined],
        [onHour, undefined],
        [midHour, midHour + 1_000_000],
        [midHour, onHour - 1],
        [midHour, onHour],
        [onHour, onHour + 5 * HOUR_MS - 1],
        [onHour, midHour],
        [now + HOUR_MS, undefined],
        [0, undefined],
      ];
      for (const [from, to] of windows) {
        const answer = await t.get(`${PULL}?${query(from, to)}&Page_Size=1`);
        expect(answer.statusCode).toBe(200);
        expect(answer.json().total_count, `window ${from}–${to}`).toBe(await directCount(from, to));
      }
    });

    it('gives every page what OFFSET gives, walking in order while entries are appended', async () => {
      // The generated history ends at today's midnight (chain-plan.ts firstDayOf): a window
      // opened 26 hours before that holds more than a day of it at any hour the test runs
      // (26 hours before *now* held too few entries after 11:00 UTC).
      const from = Math.floor(now / DAY_MS) * DAY_MS - 26 * HOUR_MS;
      const total = await directCount(from);
      expect(total).toBeGreaterThan(10 * SIZE);
      for (let page = 1; page <= Math.ceil(total / SIZE) + 1; page++) {
        await pageMatchesOffset(from, page);
        if (page % 4 === 0) await post(3);
      }
      // Jumping ahead, and back, of the remembered positions.
      await pageMatchesOffset(from, 7);
      await pageMatchesOffset(from, 3);
      await pageMatchesOffset(from, 30);
    });

    it('still gives the OFFSET page after an entry moved into the window (a review)', async () => {
      await post(4, { reason_code: REVIEWED_REASON });
      const pending = await t.app.ctx.db
        .selectFrom('stock_logs')
        .select('id')
        .where('review_status', '=', 1)
        .orderBy('id')
        .execute();
      expect(pending.length).toBeGreaterThanOrEqual(4);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const from = Date.now();
      await post(3 * SIZE);
      await pageMatchesOffset(from, 1);
      await pageMatchesOffset(from, 2);
      const reviewed = await t.post(`${API}/stores/${storeNumberOf(0)}/products/stock/storeproductlogs/review`, {
        ids: pending.map((p) => Number(p.id)),
        approve: true,
      });
      expect(reviewed.statusCode).toBe(200);
      // The reviewed entries now open the window: page 3 shifts by their number.
      const page3 = await pageMatchesOffset(from, 3);
      expect(page3.total_count).toBe(3 * SIZE + pending.length);
    });

    it('still gives the OFFSET page after an entry committed below ids already served (PostgreSQL commits out of id order)', async () => {
      const from = Date.now();
      await post(3 * SIZE);
      await pageMatchesOffset(from, 1);
      // Leave a gap of ids, then fill it as a late commit would.
      const gapId =
        Number(
          (
            await t.app.ctx.db
              .selectFrom('stock_logs')
              .select((eb) => eb.fn.max('id').as('id'))
              .executeTakeFirstOrThrow()
          ).id,
        ) + 1;
      if (dialect.name === 'postgres')
        await sql`select setval(pg_get_serial_sequence('stock_logs', 'id'), ${gapId + 10})`.execute(t.app.ctx.db);
      else await sql`update sqlite_sequence set seq = ${gapId + 10} where name = 'stock_logs'`.execute(t.app.ctx.db);
      await post(2 * SIZE);
      await pageMatchesOffset(from, 2);
      const template = await t.app.ctx.db
        .selectFrom('stock_logs')
        .selectAll()
        .where('id', '=', gapId + 11)
        .executeTakeFirstOrThrow();
      // Not applied: an entry without ledger rows, so the stock stays as it was.
      await t.app.ctx.db
        .insertInto('stock_logs')
        .values({ ...template, id: gapId, updated_on: from + 1, is_applied: 0 })
        .execute();
      for (let page = 3; page <= 6; page++) await pageMatchesOffset(from, page);
      await t.app.ctx.db.deleteFrom('stock_logs').where('id', '=', gapId).execute();
    });

    it('merges the hour counts without changing a count, and verify checks them', async () => {
      const before = await directCount(0);
      while ((await mergeLogHours(t.app.ctx.handle)) > 0);
      const split = await t.app.ctx.db
        .selectFrom('stock_log_hours')
        .select('hour')
        .groupBy('hour')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      expect(split).toEqual([]);
      expect((await t.get(`${PULL}?${query(0)}&Page_Size=1`)).json().total_count).toBe(before);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);

      const hour = await t.app.ctx.db
        .selectFrom('stock_log_hours')
        .select(['hour', 'entries'])
        .orderBy('hour', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      await t.app.ctx.db
        .updateTable('stock_log_hours')
        .set({ entries: Number(hour.entries) + 1 })
        .where('hour', '=', hour.hour)
        .execute();
      expect((await verifyAll(t.app.ctx.handle)).map((v) => v.detail)).toEqual([
        expect.stringMatching(/^stock log hour .*counted \d+ entries/),
      ]);
      await t.app.ctx.db
        .updateTable('stock_log_hours')
        .set({ entries: Number(hour.entries) })
        .where('hour', '=', hour.hour)
        .execute();
    });
  });
}
