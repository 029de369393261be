import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthName, monthStart } from '../../src/db/months.js';
import { archiveLedgerBefore, ArchiveRefused } from '../../src/ledger/archive.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, reasonCodeInput, stockLogInput, storeInput } from '../helpers/factories.js';

// `store-ops ledger archive --before <month>` (ledger/archive.ts, PostgreSQL): the months
// before the boundary leave the ledger as detached tables; a snapshot per balance at the
// boundary keeps every balance equal to its ledger; the archived rows are checked against
// the snapshots while they are kept; entries dated before the boundary are refused.

const LOGS = `${API}/stores/AR1/products/stock/storeproductlogs`;
const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`ledger archive (${dialect.name})`, () => {
    let t: TestApp;
    const handle = () => t.app.ctx.handle;
    const now = Date.now();
    const month = (n: number) => addMonths(monthStart(now), n);
    const entry = stockLogInput;
    const post = (entries: unknown[], query = '') => t.post(`${LOGS}${query}`, { storeproductlog: entries });
    const book = async (entries: unknown[], query = '') => {
      const response = await post(entries, query);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { data: number[] }).data;
    };
    const stockOf = async (product: string) =>
      (await t.get(`${API}/stores/AR1/products/${product}/stock`)).json().products[0];

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      // The months back to six months ago, before anything is stored (as the generator does).
      await handle().dialect.ensureLedgerMonths(handle().db, now, month(-6));
      expect((await t.post(`${API}/stores`, { stores: [storeInput('AR1')] })).statusCode).toBe(200);
      expect(
        (
          await t.post(`${API}/products`, {
            products: ['AP1', 'AP2', 'AP3'].map((n) =>
              productInput(n, n === 'AP3' ? {} : { barcode: `710000${n[2]}` }),
            ),
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await t.post(`${API}/reasoncodes`, {
            reason_codes: [reasonCodeInput(31, { is_loss: true, default_review_status: 1 })],
          })
        ).statusCode,
      ).toBe(200);
      await book([entry('AP1', 10, month(-5) + DAY), entry('AP2', 7, month(-5) + 2 * DAY)]);
      await book([entry('AP1', 8, month(-4) + DAY)], '?is_counted_quantity=true');
      await book([entry('AP2', 5, month(-4) + 3 * DAY, { stock_pool_1: 3, stock_pool_2: 2 })]);
      await book([entry('AP1', -1, month(-3) + DAY), entry('AP3', 4, month(-3) + 2 * DAY)]);
      await book([entry('AP1', 2, month(-1) + DAY), entry('AP2', 1, now - 60_000)]);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    if (dialect.name === 'sqlite') {
      it('is refused on SQLite, which keeps the ledger in one file', async () => {
        await expect(archiveLedgerBefore(handle(), month(-2), 'test', now)).rejects.toThrow(ArchiveRefused);
        expect(await verifyAll(handle())).toEqual([]);
      });
      return;
    }

    it('refuses a boundary that is not a month start, one within the last two months, and a month with an entry awaiting review', async () => {
      await expect(archiveLedgerBefore(handle(), month(-2) + DAY, 'test', now)).rejects.toThrow(
        /first moment of a month/,
      );
      await expect(archiveLedgerBefore(handle(), month(0), 'test', now)).rejects.toThrow(/previous month stay/);
      const [pending] = await book([entry('AP3', -1, month(-3) + 5 * DAY, { reason_code: 31 })]);
      await expect(archiveLedgerBefore(handle(), month(-2), 'test', now)).rejects.toThrow(
        new RegExp(`entry ${pending}, before .*, awaits review`),
      );
      expect((await t.post(`${LOGS}/review`, { ids: [pending], approve: true })).statusCode).toBe(200);
      expect(await verifyAll(handle())).toEqual([]);
    });

    it('moves the months before the boundary out, and every balance, stock answer and invariant stays', async () => {
      const before = { AP1: await stockOf('AP1'), AP2: await stockOf('AP2'), AP3: await stockOf('AP3') };
      const report = await archiveLedgerBefore(handle(), month(-2), 'test', now);
      // AP1: 10, count 8, -1; AP2: 7, split 5; AP3: 4, -1 (approved): 7 entries, 2 parts.
      expect(report).toMatchObject({ entries: 7, parts: 2 });
      const archived = (table: string) => [
        `archived_${table}_before_${monthName(month(-6))}`,
        ...[-6, -5, -4, -3].map((m) => `archived_${table}_${monthName(month(m))}`),
      ];
      expect(report.tables).toEqual([...archived('stock_logs'), ...archived('stock_log_parts')]);
      // Freed of the ledger's foreign keys: an archived row never stops a balance's deletion.
      for (const table of report.tables) {
        const keys = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_constraint where conrelid = to_regclass(${table}) and contype = 'f'`.execute(
          handle().db,
        );
        expect(keys.rows[0]!.n, table).toBe(0);
      }
      const left = await sql<{
        n: number;
      }>`select count(*) as n from stock_logs where modification_at < ${month(-2)}`.execute(handle().db);
      expect(Number(left.rows[0]!.n)).toBe(0);
      expect({ AP1: await stockOf('AP1'), AP2: await stockOf('AP2'), AP3: await stockOf('AP3') }).toEqual(before);
      expect(await verifyAll(handle())).toEqual([]);
    });

    it('refuses entries dated before the boundary with a 422 naming each line and field as sent, books nothing of it, and books later ones as before', async () => {
      const before = { AP1: await stockOf('AP1'), AP2: await stockOf('AP2') };
      const entries = await handle()
        .db.selectFrom('stock_logs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      // Issue 40 item 5: the line after a good one, not a bare `modification_datetime`.
      const refused = await post([
        entry('AP2', 1, month(-1) + DAY),
        entry('AP1', 1, month(-3) + 3 * DAY),
        entry('AP2', 2, month(-4)),
      ]);
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json().errors.map((e: { path: string }) => e.path)).toEqual([
        'storeproductlog[1].modification_datetime',
        'storeproductlog[2].modification_datetime',
      ]);
      // A count dated there is refused the same way, by its line.
      const count = await post([entry('AP1', 5, month(-3))], '?is_counted_quantity=true');
      expect(count.statusCode).toBe(422);
      expect(count.json().errors[0].path).toBe('storeproductlog[0].modification_datetime');
      // An external count names its own field, CountingDateTime — once, however many lines share it.
      const external = await t.post(`${API}/externalcountinglines`, {
        CountingDateTime: new Date(month(-3)).toISOString(),
        StoreNo: 'AR1',
        Lines: [
          { product_barcode: '7100001', counted_quantity: 3 },
          { product_barcode: '7100002', counted_quantity: 4 },
        ],
      });
      expect(external.statusCode, external.body).toBe(422);
      expect(external.json().errors.map((e: { path: string }) => e.path)).toEqual(['CountingDateTime']);
      expect({ AP1: await stockOf('AP1'), AP2: await stockOf('AP2') }).toEqual(before);
      expect(
        await handle()
          .db.selectFrom('stock_logs')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ).toEqual(entries);
      await book([entry('AP1', 3, month(-2) + DAY)]);
      await book([entry('AP1', 20, month(-2) + 2 * DAY)], '?is_counted_quantity=true');
      expect((await stockOf('AP1')).most_likely_stock).toBe(22);
      expect(await verifyAll(handle())).toEqual([]);
    });

    it('checks the archived rows against the snapshots while they are kept', async () => {
      const archive = await handle().db.selectFrom('ledger_archives').selectAll().executeTakeFirstOrThrow();
      let logsTable = '';
      let row: { id: number; delta: number } | undefined;
      for (const name of (JSON.parse(archive.tables) as string[]).filter((table) =>
        table.startsWith('archived_stock_logs_y'),
      )) {
        row = (
          await sql<{
            id: number;
            delta: number;
          }>`select id, delta from ${sql.table(name)} where delta is not null limit 1`.execute(handle().db)
        ).rows[0];
        logsTable = name;
        if (row) break;
      }
      if (!row) throw new Error('no archived posting found');
      await sql`update ${sql.table(logsTable)} set delta = delta + 1000 where id = ${row.id}`.execute(handle().db);
      try {
        const found = (await verifyAll(handle())).map((v) => v.detail);
        expect(found).toHaveLength(1);
        expect(found[0]).toMatch(
          /^archive before \d{4}-\d{2}: balance \d+ snapshot .*, the archived rows and the snapshot before add up to /,
        );
      } finally {
        await sql`update ${sql.table(logsTable)} set delta = ${row!.delta} where id = ${row!.id}`.execute(handle().db);
      }
      expect(await verifyAll(handle())).toEqual([]);
    });

    it('archives again on top of the first snapshot; dropped archived tables are not checked', async () => {
      const before = { AP1: await stockOf('AP1'), AP2: await stockOf('AP2'), AP3: await stockOf('AP3') };
      await expect(archiveLedgerBefore(handle(), month(-2), 'test', now)).rejects.toThrow(/archived before .* already/);
      const report = await archiveLedgerBefore(handle(), month(-1), 'test', now);
      expect(report.entries).toBe(2);
      expect({ AP1: await stockOf('AP1'), AP2: await stockOf('AP2'), AP3: await stockOf('AP3') }).toEqual(before);
      expect(await verifyAll(handle())).toEqual([]);
      const first = await handle()
        .db.selectFrom('ledger_archives')
        .select('tables')
        .orderBy('boundary_at')
        .executeTakeFirstOrThrow();
      for (const table of JSON.parse(first.tables) as string[])
        await sql`drop table ${sql.table(table)}`.execute(handle().db);
      expect(await verifyAll(handle())).toEqual([]);
      // Late entries after the new boundary still book against the snapshot.
      await book([entry('AP3', 2, month(-1) + 2 * DAY)]);
      expect((await stockOf('AP3')).most_likely_stock).toBe(before.AP3.most_likely_stock + 2);
      expect(await verifyAll(handle())).toEqual([]);
    });
  });
}
