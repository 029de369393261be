import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainOptions } from '../../src/generate/chain-plan.js';
import { generateChain } from '../../src/generate/generate-chain.js';
import { verifyAll, verifySince } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const LOGS = `${API}/stores/VS/products/stock/storeproductlogs`;
const entry = (product: string, quantity: number, at: string) => ({
  product_number: product,
  quantity,
  customer_order_line_number: 0,
  modification_datetime: at,
});
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
const stockDetails = (violations: ReadonlyArray<{ check: string; detail: string }>) =>
  violations
    .filter((v) => v.check === 'stock ledger' || v.check === 'store product stamps')
    .map((v) => `${v.check}: ${v.detail}`);

/**
 * `store-ops verify --since T` (the nightly run) checks the balances touched since T — each
 * against its whole ledger history — the entries updated since T, the log hours from T's
 * hour, and the stock stamps from T; what nothing touched since T is left to the full verify.
 * SV1 is booked before T only, SV2 and SV3 before and after.
 */
for (const dialect of DIALECTS) {
  describe(`verify --since: what changed since a moment (${dialect.name})`, () => {
    let t: TestApp;
    let since: number;
    const ids: Record<string, number> = {};
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('VS')] })).statusCode).toBe(200);
      expect(
        (await t.post(`${API}/products`, { products: ['SV1', 'SV2', 'SV3'].map((p) => productInput(p)) })).statusCode,
      ).toBe(200);
      const before = [
        entry('SV1', 5, '2026-01-01T10:00:00Z'),
        entry('SV2', 3, '2026-01-01T10:00:00Z'),
        entry('SV3', 7, '2026-01-01T10:00:00Z'),
      ];
      expect((await t.post(LOGS, { storeproductlog: before })).statusCode).toBe(200);
      expect(
        (
          await t.post(`${LOGS}?is_counted_quantity=true`, {
            storeproductlog: [entry('SV2', 4, '2026-01-01T11:00:00Z')],
          })
        ).statusCode,
      ).toBe(200);
      await pause();
      since = Date.now();
      await pause();
      const after = [entry('SV2', 2, '2026-01-02T10:00:00Z'), entry('SV3', 1, '2026-01-02T10:00:00Z')];
      expect((await t.post(LOGS, { storeproductlog: after })).statusCode).toBe(200);
      ids.store = (
        await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'VS').executeTakeFirstOrThrow()
      ).id;
      for (const p of await t.app.ctx.db.selectFrom('products').select(['id', 'product_number']).execute())
        ids[p.product_number] = p.id;
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const db = () => t.app.ctx.db;
    const balanceKey = (product: string) => `balance store ${ids.store} product ${ids[product]} location 0 pool 1`;
    const balanceOf = (product: string) =>
      db().selectFrom('stock_balances').selectAll().where('product_id', '=', ids[product]!).executeTakeFirstOrThrow();
    /** Runs `look` with one change made behind the service's back, then undoes it. */
    const behindTheBack = async <T>(
      change: () => Promise<unknown>,
      undo: () => Promise<unknown>,
      look: () => Promise<T>,
    ): Promise<T> => {
      await change();
      try {
        return await look();
      } finally {
        await undo();
      }
    };
    const withBalance = async <T>(
      product: string,
      values: { quantity?: number; last_at?: number | null },
      look: () => Promise<T>,
    ) => {
      const balance = await balanceOf(product);
      const set = (v: typeof values) =>
        db().updateTable('stock_balances').set(v).where('id', '=', balance.id).execute();
      return behindTheBack(
        () => set(values),
        () => set({ quantity: balance.quantity, last_at: balance.last_at }),
        look,
      );
    };
    const both = async () => ({
      since: stockDetails((await verifySince(t.app.ctx.handle, since)).violations),
      full: stockDetails(await verifyAll(t.app.ctx.handle)),
    });

    it('is clean after real postings, and counts the balances touched since', async () => {
      expect(await verifySince(t.app.ctx.handle, since)).toMatchObject({ violations: [], balances: 2 });
      expect(await verifySince(t.app.ctx.handle, 0)).toMatchObject({ violations: [], balances: 3 });
      expect(await verifySince(t.app.ctx.handle, Date.now() + 60_000)).toMatchObject({ violations: [], balances: 0 });
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('names the checks it leaves to the full verify', async () => {
      const { skipped } = await verifySince(t.app.ctx.handle, since);
      expect(skipped).toEqual(
        expect.arrayContaining(['migrations', 'tokens', 'stores', 'products', 'store products', 'locations']),
      );
      expect(skipped).not.toContain('stock ledger');
      expect(skipped).not.toContain('store product stamps');
    });

    it('reports a tampered balance touched since, in the words of the full check', async () => {
      const found = await withBalance('SV2', { quantity: 1 }, both);
      expect(found.since).toEqual([`stock ledger: ${balanceKey('SV2')}: balance 0.001, ledger sum 6`]);
      expect(found.full).toEqual(found.since);
      const clock = await withBalance('SV3', { last_at: Date.parse('2026-01-01T10:00:00Z') }, both);
      expect(clock.since).toEqual([
        `stock ledger: ${balanceKey('SV3')}: last_at 2026-01-01T10:00:00.000Z, latest ledger entry 2026-01-02T10:00:00.000Z`,
      ]);
    });

    it('leaves a balance nothing touched since to the full verify', async () => {
      const found = await withBalance('SV1', { quantity: 9_000 }, both);
      expect(found.since).toEqual([]);
      expect(found.full).toEqual([`stock ledger: ${balanceKey('SV1')}: balance 9, ledger sum 5`]);
    });

    it('sums the whole history of a touched balance: an old ledger row tampered with is reported', async () => {
      // A one-balance entry: its posting lives in its own stock_logs row (migration 0022).
      const old = await db()
        .selectFrom('stock_logs as l')
        .innerJoin('stock_balances as b', 'b.id', 'l.balance_id')
        .select(['l.id', 'l.delta'])
        .where('b.product_id', '=', ids.SV3!)
        .where('l.updated_on', '<', since)
        .executeTakeFirstOrThrow();
      const setDelta = (delta: number) =>
        db().updateTable('stock_logs').set({ delta }).where('id', '=', old.id).execute();
      const found = await behindTheBack(
        () => setDelta(old.delta! + 500),
        () => setDelta(old.delta!),
        both,
      );
      expect(found.since).toEqual([`stock ledger: ${balanceKey('SV3')}: balance 8, ledger sum 8.5`]);
      expect(found.full).toEqual(found.since);
    });

    it('reports a balance lost from under its ledger rows if touched since (a foreign key on PostgreSQL forbids it; SQLite has none)', async () => {
      const balance = await balanceOf('SV2');
      const drop = () => db().deleteFrom('stock_balances').where('id', '=', balance.id).execute();
      if (dialect.name === 'postgres') {
        await expect(drop()).rejects.toThrow(/foreign key/i);
        expect(await balanceOf('SV2')).toEqual(balance);
        return;
      }
      const entries = await db()
        .selectFrom('stock_ledger')
        .select('log_id')
        .where('balance_id', '=', balance.id)
        .orderBy('at')
        .orderBy('id')
        .execute();
      expect(entries).toHaveLength(3);
      const found = await behindTheBack(drop, () => db().insertInto('stock_balances').values(balance).execute(), both);
      const words = `stock ledger: balance ${balance.id} does not exist, but entries ${entries.map((e) => e.log_id).join(', ')} post to it (ledger sum 6)`;
      expect(found.since).toEqual([words]);
      expect(found.full).toEqual([words]);
      // SV1's entries are all older than the moment: left to the full verify.
      const sv1 = await balanceOf('SV1');
      const old = await behindTheBack(
        () => db().deleteFrom('stock_balances').where('id', '=', sv1.id).execute(),
        () => db().insertInto('stock_balances').values(sv1).execute(),
        both,
      );
      expect(old.since).toEqual([]);
      expect(old.full).toEqual([
        expect.stringMatching(
          new RegExp(
            `^stock ledger: balance ${sv1.id} does not exist, but entries \\d+ post to it \\(ledger sum 5\\)$`,
          ),
        ),
      ]);
      expect(await both()).toEqual({ since: [], full: [] });
    });

    it('reports entries updated since that are not applied but have ledger rows, and only those', async () => {
      const logIds = async (recent: boolean) =>
        (
          await db()
            .selectFrom('stock_logs')
            .select('id')
            .where('updated_on', recent ? '>=' : '<', since)
            .orderBy('id')
            .execute()
        ).map((l) => l.id);
      const [recent] = await logIds(true);
      const [old] = await logIds(false);
      const setApplied = (id: number, applied: 0 | 1) =>
        db().updateTable('stock_logs').set({ is_applied: applied }).where('id', '=', id).execute();
      const found = await behindTheBack(
        async () => Promise.all([setApplied(recent!, 0), setApplied(old!, 0)]),
        async () => Promise.all([setApplied(recent!, 1), setApplied(old!, 1)]),
        both,
      );
      expect(found.since).toEqual([`stock ledger: entry ${recent} is not applied but has ledger rows`]);
      expect(found.full.sort()).toEqual(
        [
          `stock ledger: entry ${old} is not applied but has ledger rows`,
          `stock ledger: entry ${recent} is not applied but has ledger rows`,
        ].sort(),
      );
    });

    it('reports applied entries updated since without ledger rows (their stock is lost), and only those', async () => {
      const entryOf = async (recent: boolean) =>
        db()
          .selectFrom('stock_logs')
          .select(['id', 'balance_id'])
          .where('updated_on', recent ? '>=' : '<', since)
          .where('balance_id', 'is not', null)
          .orderBy('id')
          .executeTakeFirstOrThrow();
      const recent = await entryOf(true);
      const old = await entryOf(false);
      const setBalance = (id: number, balanceId: number | null) =>
        db().updateTable('stock_logs').set({ balance_id: balanceId }).where('id', '=', id).execute();
      const found = await behindTheBack(
        async () => Promise.all([setBalance(recent.id, null), setBalance(old.id, null)]),
        async () => Promise.all([setBalance(recent.id, recent.balance_id), setBalance(old.id, old.balance_id)]),
        both,
      );
      const lost = (id: number) => `stock ledger: entry ${id} is applied but has no ledger rows (its stock is lost)`;
      // The balances they left are reported too (their sums): only the entries' words are asserted here.
      const entries = (details: string[]) => details.filter((d) => d.startsWith('stock ledger: entry '));
      expect(entries(found.since)).toEqual([lost(recent.id)]);
      expect(entries(found.full).sort()).toEqual([lost(old.id), lost(recent.id)].sort());
      expect(await both()).toEqual({ since: [], full: [] });
    });

    it('checks the log hours from the hour of the moment on', async () => {
      const HOUR = 3_600_000;
      const hourOfSince = Math.floor(since / HOUR);
      const addHour = (hour: number) =>
        db().insertInto('stock_log_hours').values({ hour, entries: 1, min_id: 1 }).execute();
      const dropHour = (hour: number) => db().deleteFrom('stock_log_hours').where('hour', '=', hour).execute();
      const early = hourOfSince - 48;
      const found = await behindTheBack(
        () => addHour(early),
        () => dropHour(early),
        both,
      );
      expect(found.since).toEqual([]);
      expect(found.full).toEqual([
        `stock ledger: stock log hour ${new Date(early * HOUR).toISOString()}: counted 1 entries from id 1, has 0 from id none`,
      ]);
      const late = hourOfSince + 48;
      const recent = await behindTheBack(
        () => addHour(late),
        () => dropHour(late),
        both,
      );
      expect(recent.since).toEqual([
        `stock ledger: stock log hour ${new Date(late * HOUR).toISOString()}: counted 1 entries from id 1, has 0 from id none`,
      ]);
    });

    it('reports a stock_modified_at stamp that names no entry of its store product', async () => {
      const stamp = (product: string) =>
        db()
          .selectFrom('store_products')
          .select(['id', 'stock_modified_at'])
          .where('product_id', '=', ids[product]!)
          .executeTakeFirstOrThrow();
      const restamp = (id: number, at: number | null) =>
        db().updateTable('store_products').set({ stock_modified_at: at }).where('id', '=', id).execute();
      const sv1 = await stamp('SV1');
      const sv3 = await stamp('SV3');
      expect(sv3.stock_modified_at).toBeGreaterThanOrEqual(since);
      const moved = since + 1;
      const found = await behindTheBack(
        () => Promise.all([restamp(sv3.id, moved), restamp(sv1.id, since - 1)]),
        () => Promise.all([restamp(sv3.id, sv3.stock_modified_at), restamp(sv1.id, sv1.stock_modified_at)]),
        both,
      );
      const words = (product: string, at: number) =>
        `store product stamps: store product '${product}' of store 'VS' has stock_modified_at ${new Date(at).toISOString()}, ` +
        'the updated_on of none of its stock log entries (the ERP pull of stock changed since then would miss it)';
      expect(found.since).toEqual([words('SV3', moved)]);
      expect(found.full.sort()).toEqual([words('SV1', since - 1), words('SV3', moved)].sort());
    });

    it('counts a review approval as a touch: the approved entry is checked with its balance', async () => {
      // A pending entry (default_review_status 1) books nothing until approved; its approval
      // moves its updated_on to the approval, so the balance counts as touched from then.
      const reasons = await t.post(`${API}/reasoncodes`, {
        reason_codes: [reasonCodeInput(77, { is_gain: true, default_review_status: 1 })],
      });
      expect(reasons.statusCode, reasons.body).toBe(200);
      const posted = await t.post(LOGS, {
        storeproductlog: [{ ...entry('SV1', 2, '2026-01-03T10:00:00Z'), reason_code: 77 }],
      });
      expect(posted.statusCode, posted.body).toBe(200);
      await pause();
      const approvedSince = Date.now();
      await pause();
      const pending = await db()
        .selectFrom('stock_logs')
        .select('id')
        .where('review_status', '=', 1)
        .executeTakeFirstOrThrow();
      expect(
        (await t.post(`${API}/stores/VS/products/stock/storeproductlogs/review`, { ids: [pending.id], approve: true }))
          .statusCode,
      ).toBe(200);
      expect(await verifySince(t.app.ctx.handle, approvedSince)).toMatchObject({ violations: [], balances: 1 });
      const found = await withBalance('SV1', { quantity: 5_000 }, () => verifySince(t.app.ctx.handle, approvedSince));
      expect(stockDetails(found.violations)).toEqual([`stock ledger: ${balanceKey('SV1')}: balance 5, ledger sum 7`]);
    });
  });
}

/**
 * On a generated chain: more touched balances than one batch and more entries since than one
 * window, so the walks through both go on where the previous step stopped and miss nothing.
 */
const CHAIN: ChainOptions = { stores: 3, products: 400, days: 3, entriesPerDay: 2_000, seed: 11 };

for (const dialect of DIALECTS) {
  describe(`verify --since on a generated chain (${dialect.name})`, () => {
    let t: TestApp;
    const now = Date.now();
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await generateChain(t.app.ctx, CHAIN, () => undefined, now);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const db = () => t.app.ctx.db;
    /** The balances touched since, counted the plain way: every ledger row of an entry updated since. */
    const touchedSince = async (since: number) => {
      const rows = await db()
        .selectFrom('stock_ledger as g')
        .innerJoin('stock_logs as l', 'l.id', 'g.log_id')
        .select('g.balance_id')
        .where('l.updated_on', '>=', since)
        .distinct()
        .execute();
      return rows.length;
    };

    it('checks every balance touched since, across batches and windows', async () => {
      const all = Number(
        (
          await db()
            .selectFrom('stock_balances')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      expect(all).toBe(1_200);
      expect(await verifySince(t.app.ctx.handle, now - 30 * 86_400_000)).toMatchObject({
        violations: [],
        balances: all,
      });
      const dayAgo = now - 86_400_000;
      const touched = await touchedSince(dayAgo);
      expect(touched).toBeGreaterThan(0);
      expect(touched).toBeLessThan(all);
      expect(await verifySince(t.app.ctx.handle, dayAgo)).toMatchObject({ violations: [], balances: touched });
    });

    it('finds a tampered balance in the first and in the last batch, as the full check does', async () => {
      const ordered = db().selectFrom('stock_balances').selectAll().limit(1);
      const first = await ordered.orderBy('store_id').orderBy('product_id').executeTakeFirstOrThrow();
      const last = await ordered.orderBy('store_id', 'desc').orderBy('product_id', 'desc').executeTakeFirstOrThrow();
      const setQuantity = (id: number, quantity: number) =>
        db().updateTable('stock_balances').set({ quantity }).where('id', '=', id).execute();
      await Promise.all([setQuantity(first.id, first.quantity + 1), setQuantity(last.id, last.quantity - 1)]);
      try {
        const since = stockDetails((await verifySince(t.app.ctx.handle, now - 30 * 86_400_000)).violations);
        expect(since).toHaveLength(2);
        expect(since[0]).toContain(`balance store ${first.store_id} product ${first.product_id} `);
        expect(since[1]).toContain(`balance store ${last.store_id} product ${last.product_id} `);
        expect(stockDetails(await verifyAll(t.app.ctx.handle)).sort()).toEqual([...since].sort());
      } finally {
        await Promise.all([setQuantity(first.id, first.quantity), setQuantity(last.id, last.quantity)]);
      }
      expect((await verifySince(t.app.ctx.handle, now - 30 * 86_400_000)).violations).toEqual([]);
    });
  });
}
