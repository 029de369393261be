import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationProviderFor } from '../../src/db/migrations/index.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { bringUpLaterThan, takeDownLaterThan } from '../helpers/migrations.js';
import { withParentIndexNames } from '../helpers/plans.js';
import { locationInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

// Migration 0022 folds the ledger table into the log: a one-balance entry's posting moves into
// its stock_logs row, every other posting into stock_log_parts, and stock_ledger becomes a view
// of both. Entries of every kind are booked through the service at the latest schema; 0022 is
// then taken down, which gives the ledger table the previous schema had (what the view held),
// and is taken up again from there — so what is checked does not depend on how the engine of
// the day writes its rows.

const NAME = '2026-11-28T0022_one_row_per_entry';
const LOGS = `${API}/stores/M1/products/stock/storeproductlogs`;

/** A posting as the ledger (table or view) holds it, without its id. */
interface Posting {
  log_id: number;
  balance_id: number;
  at: number;
  delta: number;
  is_count: number;
  counted: number | null;
  expected: number | null;
}

interface LedgerRow extends Posting {
  id: number;
}

interface Part extends Posting {
  seq: number;
}

interface LogRow {
  id: number;
  modification_at: number;
  is_count: number;
  counted_quantity: number | null;
}

const num = (value: unknown) => (value === null ? null : Number(value));
const postingOf = (row: Record<string, unknown>): Posting => ({
  log_id: Number(row.log_id),
  balance_id: Number(row.balance_id),
  at: Number(row.at),
  delta: Number(row.delta),
  is_count: Number(row.is_count),
  counted: num(row.counted),
  expected: num(row.expected),
});

/**
 * Where the migration must put each row of the old ledger (the rule of its header, written
 * again here on plain arrays): in each (balance, moment) group the row at the k-th place by
 * ledger id takes the k-th smallest log id as seq; a row whose seq is its own log id and that
 * says what its entry's row says (its only row, same moment, kind and counted level) goes
 * inline, every other row becomes a part.
 */
function expectedPlaces(ledger: readonly LedgerRow[], logs: ReadonlyMap<number, LogRow>) {
  const groups = new Map<string, LedgerRow[]>();
  const rowsOfLog = new Map<number, number>();
  for (const row of ledger) {
    const key = `${row.balance_id}|${row.at}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
    rowsOfLog.set(row.log_id, (rowsOfLog.get(row.log_id) ?? 0) + 1);
  }
  const inline = new Map<number, { balance_id: number; delta: number; expected: number | null }>();
  const parts: Part[] = [];
  for (const group of groups.values()) {
    const byId = [...group].sort((a, b) => a.id - b.id);
    const logIds = group.map((row) => row.log_id).sort((a, b) => a - b);
    byId.forEach((row, place) => {
      const seq = logIds[place]!;
      const log = logs.get(row.log_id)!;
      const fits =
        rowsOfLog.get(row.log_id) === 1 &&
        row.at === log.modification_at &&
        row.is_count === log.is_count &&
        row.counted === log.counted_quantity;
      const { id: _id, ...posting } = row;
      if (fits && seq === row.log_id)
        inline.set(row.log_id, { balance_id: row.balance_id, delta: row.delta, expected: row.expected });
      else parts.push({ ...posting, seq });
    });
  }
  parts.sort((a, b) => a.balance_id - b.balance_id || a.at - b.at || a.seq - b.seq);
  return { inline, parts };
}

for (const dialect of DIALECTS) {
  describe(`migration 0022: one row per entry (${dialect.name})`, () => {
    let t: TestApp;
    const db = () => t.app.ctx.db;
    const migration = async () => (await migrationProviderFor(t.app.ctx.handle.dialect.name).getMigrations())[NAME]!;
    // Down to the schema before 0022 (the later migrations first), and up again to the latest.
    const down = async () => {
      await takeDownLaterThan(t.app.ctx.handle, NAME);
      await (await migration()).down!(db());
    };
    const up = async () => {
      await (await migration()).up(db());
      await bringUpLaterThan(t.app.ctx.handle, NAME);
    };

    /** The ledger, table or view, in the order a balance's history is read: (balance, at, id). */
    const ledger = async (): Promise<LedgerRow[]> => {
      const { rows } = await sql<Record<string, unknown>>`
        select id, log_id, balance_id, at, delta, is_count, counted, expected from stock_ledger order by balance_id, at, id`.execute(
        db(),
      );
      return rows.map((row) => ({ id: Number(row.id), ...postingOf(row) }));
    };
    const postings = async (): Promise<Posting[]> => (await ledger()).map(({ id: _id, ...posting }) => posting);
    const balances = async () =>
      (
        await sql<
          Record<string, unknown>
        >`select id, quantity, last_at, last_count_at from stock_balances order by id`.execute(db())
      ).rows;
    const logs = async (): Promise<Map<number, LogRow>> => {
      const { rows } = await sql<
        Record<string, unknown>
      >`select id, modification_at, is_count, counted_quantity from stock_logs`.execute(db());
      return new Map(
        rows.map((row) => [
          Number(row.id),
          {
            id: Number(row.id),
            modification_at: Number(row.modification_at),
            is_count: Number(row.is_count),
            counted_quantity: num(row.counted_quantity),
          },
        ]),
      );
    };
    /** The entries' inline postings, by log id (only the entries that have one). */
    const inline = async () => {
      const { rows } = await sql<Record<string, unknown>>`
        select id, balance_id, delta, expected from stock_logs where balance_id is not null or delta is not null or expected is not null`.execute(
        db(),
      );
      return new Map(
        rows.map((row) => [
          Number(row.id),
          { balance_id: Number(row.balance_id), delta: Number(row.delta), expected: num(row.expected) },
        ]),
      );
    };
    const parts = async (): Promise<Part[]> => {
      const { rows } = await sql<Record<string, unknown>>`
        select log_id, seq, balance_id, at, delta, is_count, counted, expected from stock_log_parts order by balance_id, at, seq`.execute(
        db(),
      );
      return rows.map((row) => ({ ...postingOf(row), seq: Number(row.seq) }));
    };
    /**
     * What verify checked of the previous schema's ledger table (the verify of the day reads
     * the new shape): every balance is the sum of its rows, its clocks their latest moment and
     * count, and only applied entries have rows. Names what disagrees.
     */
    const oldShapeViolations = async () => {
      const { rows } = await sql<{ what: string; id: number }>`
        select 'balance' as what, b.id from stock_balances b
        left join (
          select balance_id, sum(delta) as total, max(at) as last_at, max(case when is_count = 1 then at end) as last_count_at
          from stock_ledger group by balance_id
        ) s on s.balance_id = b.id
        where b.quantity <> coalesce(s.total, 0) or coalesce(b.last_at, -1) <> coalesce(s.last_at, -1)
          or coalesce(b.last_count_at, -1) <> coalesce(s.last_count_at, -1)
        union all
        select 'unapplied entry', l.id from stock_logs l where l.is_applied = 0 and exists (select 1 from stock_ledger g where g.log_id = l.id)`.execute(
        db(),
      );
      return rows.map((row) => `${row.what} ${row.id}`);
    };
    /** 'table' or 'view'. */
    const ledgerKind = async () => {
      const { rows } =
        dialect.name === 'sqlite'
          ? await sql<{ kind: string }>`select type as kind from sqlite_master where name = 'stock_ledger'`.execute(
              db(),
            )
          : await sql<{ kind: string }>`
              select case c.relkind when 'v' then 'view' else 'table' end as kind from pg_class c
              where c.relname = 'stock_ledger' and c.relnamespace = current_schema()::regnamespace`.execute(db());
      return rows[0]?.kind;
    };

    /** Log ids of the entries booked, by what they are. */
    const ids = {} as Record<
      | 'plain'
      | 'located'
      | 'split'
      | 'later'
      | 'early'
      | 'count'
      | 'rebasing'
      | 'approved'
      | 'rejected'
      | 'pending'
      | 'beside'
      | 'tieDelta'
      | 'tieCount',
      number
    >;

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const ok = async (url: string, body: unknown) => {
        const response = await t.post(url, body);
        expect(response.statusCode, response.body).toBe(200);
        return response.json() as { data?: number[] };
      };
      await ok(`${API}/stores`, { stores: [storeInput('M1')] });
      await ok(`${API}/products`, { products: ['MP1', 'MP2', 'MP3', 'MP4'].map((n) => productInput(n)) });
      await ok(`${API}/stores/M1/locations`, { locations: [locationInput('A-01')] });
      await ok(`${API}/reasoncodes`, {
        reason_codes: [
          reasonCodeInput(30, {
            is_loss: true,
            default_review_status: 1,
            reason_code_description: 'Theft (needs review)',
          }),
        ],
      });
      const entry = (product_number: string, quantity: number, at: string, extra: Record<string, unknown> = {}) => ({
        product_number,
        quantity,
        customer_order_line_number: 0,
        modification_datetime: at,
        ...extra,
      });
      const book = async (entries: unknown[], query = '') =>
        (await ok(`${LOGS}${query}`, { storeproductlog: entries })).data!;

      [ids.plain, ids.located] = await book([
        entry('MP1', 10, '2026-01-01T08:00:00Z'),
        entry('MP1', 4, '2026-01-01T09:00:00Z', { location_code: 'A-01' }),
      ]);
      // Split over pools: one entry, a posting on each pool's balance.
      [ids.split] = await book([entry('MP2', 5, '2026-01-01T10:00:00Z', { stock_pool_1: 3, stock_pool_2: 2 })]);
      [ids.later] = await book([entry('MP1', 6, '2026-01-02T08:00:00Z')]);
      [ids.early] = await book([entry('MP1', 1, '2025-12-31T08:00:00Z')]);
      [ids.count] = await book([entry('MP1', 7, '2026-01-01T12:00:00Z')], '?is_counted_quantity=true');
      // Late, before the count: it re-bases the count's posting in place.
      [ids.rebasing] = await book([entry('MP1', 2, '2026-01-01T11:00:00Z')]);
      // Pending review: one approved after a plain entry was booked at its very moment, one
      // rejected, one left pending.
      await book([entry('MP3', 10, '2026-01-03T08:00:00Z')]);
      [ids.approved, ids.rejected, ids.pending] = await book([
        entry('MP3', 2, '2026-01-03T09:00:00Z', { reason_code: 30 }),
        entry('MP3', 3, '2026-01-03T09:00:00Z', { reason_code: 30 }),
        entry('MP3', 1, '2026-01-03T09:30:00Z', { reason_code: 30 }),
      ]);
      [ids.beside] = await book([entry('MP3', 1, '2026-01-03T09:00:00Z')]);
      await ok(`${LOGS}/review`, { ids: [ids.approved], approve: true });
      await ok(`${LOGS}/review`, { ids: [ids.rejected], approve: false });
      // A delta, then a count at the same moment on the same balance (the tie group's test).
      [ids.tieDelta] = await book([entry('MP4', 5, '2026-01-04T08:00:00Z')]);
      [ids.tieCount] = await book([entry('MP4', 3, '2026-01-04T08:00:00Z')], '?is_counted_quantity=true');
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('puts every posting of the old ledger in its place, and the view gives back the same rows in the same order', async () => {
      expect(await ledgerKind()).toBe('view');
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
      await down();
      expect(await ledgerKind()).toBe('table');
      expect(await oldShapeViolations()).toEqual([]);
      const old = await ledger();
      const oldBalances = await balances();
      const places = expectedPlaces(old, await logs());

      await up();
      expect(await ledgerKind()).toBe('view');
      expect(await postings()).toEqual(old.map(({ id: _id, ...posting }) => posting));
      expect(await inline()).toEqual(places.inline);
      expect(await parts()).toEqual(places.parts);
      expect(await balances()).toEqual(oldBalances);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);

      // What that means for the entries booked: one-balance entries inline, the split entry in
      // two parts, nothing for an entry never applied.
      const inlined = await inline();
      const partsOf = (logId: number) => places.parts.filter((part) => part.log_id === logId);
      for (const logId of [ids.plain, ids.located, ids.later, ids.early, ids.count, ids.rebasing]) {
        expect(inlined.has(logId), `entry ${logId}`).toBe(true);
        expect(partsOf(logId)).toEqual([]);
      }
      expect(inlined.get(ids.count)).toMatchObject({ delta: expect.any(Number), expected: expect.any(Number) });
      expect(inlined.has(ids.split)).toBe(false);
      expect(partsOf(ids.split).map((part) => [part.delta, part.seq])).toEqual(
        expect.arrayContaining([
          [3000, ids.split],
          [2000, ids.split],
        ]),
      );
      expect(partsOf(ids.split)).toHaveLength(2);
      for (const logId of [ids.rejected, ids.pending]) {
        expect(inlined.has(logId)).toBe(false);
        expect(partsOf(logId)).toEqual([]);
      }
      // The approved entry and the one booked at its moment before the approval: wherever the
      // engine placed them, once each.
      expect(old.filter((row) => row.log_id === ids.approved || row.log_id === ids.beside)).toHaveLength(2);
    });

    it("keeps the old order of a balance's entries at one moment where ledger ids and log ids disagree", async () => {
      await down();
      // Rewrite the old ledger so the count came first (as a count recorded concurrently a
      // moment before the delta's row would have): the count's row takes the delta's smaller
      // ledger id, so the count sees the level before the delta, and the delta moves the
      // balance after it.
      const rowOf = (rows: LedgerRow[], logId: number) => rows.find((row) => row.log_id === logId)!;
      const before = await ledger();
      const delta = rowOf(before, ids.tieDelta);
      const count = rowOf(before, ids.tieCount);
      expect(delta.id).toBeLessThan(count.id);
      const levelBefore = before
        .filter((row) => row.balance_id === delta.balance_id && row.at < delta.at)
        .reduce((sum, row) => sum + row.delta, 0);
      const counted = count.counted!;
      const set = (id: number, row: Posting) =>
        sql`
        update stock_ledger set log_id = ${row.log_id}, delta = ${row.delta}, is_count = ${row.is_count}, counted = ${row.counted}, expected = ${row.expected}
        where id = ${id}`.execute(db());
      await set(delta.id, { ...count, delta: counted - levelBefore, expected: levelBefore });
      await set(count.id, { ...delta });
      await sql`update stock_balances set quantity = (select sum(delta) from stock_ledger where balance_id = ${delta.balance_id}) where id = ${delta.balance_id}`.execute(
        db(),
      );
      expect(await oldShapeViolations()).toEqual([]);
      const old = await ledger();
      const oldBalances = await balances();
      expect(
        old.filter((row) => row.balance_id === delta.balance_id && row.at === delta.at).map((row) => row.log_id),
      ).toEqual([ids.tieCount, ids.tieDelta]);

      await up();
      expect(await postings()).toEqual(old.map(({ id: _id, ...posting }) => posting));
      const tie = (await ledger()).filter((row) => row.balance_id === delta.balance_id && row.at === delta.at);
      // Count first, under the delta's log id; the delta under the count's.
      expect(tie.map((row) => [row.log_id, row.id, row.is_count])).toEqual([
        [ids.tieCount, ids.tieDelta, 1],
        [ids.tieDelta, ids.tieCount, 0],
      ]);
      const tieParts = (await parts()).filter((part) => part.balance_id === delta.balance_id && part.at === delta.at);
      expect(tieParts.map((part) => [part.log_id, part.seq])).toEqual([
        [ids.tieCount, ids.tieDelta],
        [ids.tieDelta, ids.tieCount],
      ]);
      const inlined = await inline();
      expect(inlined.has(ids.tieCount) || inlined.has(ids.tieDelta)).toBe(false);
      expect(await balances()).toEqual(oldBalances);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it('goes down and up again to the same view, parts and inline postings', async () => {
      const view = await ledger();
      const inlined = await inline();
      const split = await parts();
      await down();
      await up();
      expect(await ledger()).toEqual(view);
      expect(await inline()).toEqual(inlined);
      expect(await parts()).toEqual(split);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    it("reads a balance's next count and its history stretch through the indexes of both tables, already in order", async () => {
      const [{ balance_id: balance, at }] = (await ledger()).filter((row) => row.is_count === 1);
      const nextCount = sql`select id, at from stock_ledger where balance_id = ${balance} and is_count = 1 and at > ${at - 1} order by at, id limit 1`;
      const stretch = sql`select id, at, delta from stock_ledger where balance_id = ${balance} and at >= ${at} order by at, id`;
      const plans = await planOf([nextCount, stretch]);
      for (const [plan, index] of [
        [plans[0]!, 'stock_logs_balance_counts'],
        [plans[1]!, 'stock_logs_balance_time'],
      ] as const) {
        expect(plan).toContain(index);
        if (dialect.name === 'sqlite') {
          expect(plan).toMatch(/MERGE \(UNION ALL\)/);
          expect(plan).toMatch(/SEARCH stock_log_parts USING INDEX/);
          expect(plan).not.toMatch(/TEMP B-TREE/);
        } else {
          // Each table's rows come out of its index in (at, id) order and are merged: no sort,
          // so the first count is one probe however many follow it.
          expect(plan).toMatch(/Merge Append/);
          expect(plan).toMatch(/Index Scan using stock_log_parts_pkey/);
          expect(plan).not.toMatch(/->\s+Sort\b|^Sort\b/m);
        }
      }
    });

    /**
     * The plans of `queries`. On PostgreSQL with sequential scans and sorts priced out, as a
     * table of a few rows would otherwise be read whole: what is left shows whether the indexes
     * can give the order at all.
     */
    async function planOf(queries: ReturnType<typeof sql>[]): Promise<string[]> {
      if (dialect.name === 'sqlite') {
        const plans: string[] = [];
        for (const query of queries) {
          const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(db());
          plans.push(rows.map((row) => row.detail).join('\n'));
        }
        return plans;
      }
      return db()
        .transaction()
        .execute(async (trx) => {
          for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort'])
            await sql`select set_config(${setting}, 'off', true)`.execute(trx);
          const plans: string[] = [];
          for (const query of queries) {
            const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (costs off) ${query}`.execute(trx);
            plans.push(await withParentIndexNames(trx, rows.map((row) => row['QUERY PLAN']).join('\n')));
          }
          return plans;
        });
    }

    it('refuses to move a ledger with rows whose entry or balance does not exist, and leaves it as it was', async () => {
      await down();
      const [first] = await ledger();
      const orphans = [
        { ...first!, log_id: 99_999_991 },
        { ...first!, balance_id: 99_999_992 },
      ];
      // The old table's foreign keys stop such rows: they are let through for this test only.
      await withoutLedgerForeignKeys(async () => {
        for (const orphan of orphans) {
          await sql`insert into stock_ledger (log_id, balance_id, at, delta, is_count, counted, expected)
            values (${orphan.log_id}, ${orphan.balance_id}, ${orphan.at}, 0, ${orphan.is_count}, ${orphan.counted}, ${orphan.expected})`.execute(
            db(),
          );
        }
        await expect(up()).rejects.toThrow(/without their stock log entry: 1, without their balance: 1/);
        expect(await ledgerKind()).toBe('table');
        await expect(sql`select * from stock_log_parts`.execute(db())).rejects.toThrow();
        await sql`delete from stock_ledger where log_id = 99999991 or balance_id = 99999992`.execute(db());
      });
      await up();
      expect(await ledgerKind()).toBe('view');
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    async function withoutLedgerForeignKeys(work: () => Promise<void>): Promise<void> {
      if (dialect.name === 'sqlite') {
        await sql`pragma foreign_keys = off`.execute(db());
        try {
          await work();
        } finally {
          await sql`pragma foreign_keys = on`.execute(db());
        }
        return;
      }
      await sql`alter table stock_ledger drop constraint stock_ledger_log_id_fkey`.execute(db());
      await sql`alter table stock_ledger drop constraint stock_ledger_balance_id_fkey`.execute(db());
      try {
        await work();
      } finally {
        await sql`alter table stock_ledger add constraint stock_ledger_log_id_fkey foreign key (log_id) references stock_logs (id)`.execute(
          db(),
        );
        await sql`alter table stock_ledger add constraint stock_ledger_balance_id_fkey foreign key (balance_id) references stock_balances (id)`.execute(
          db(),
        );
      }
    }
  });
}
