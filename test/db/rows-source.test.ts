import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/transaction.js';
import type { RowsSourceColumn } from '../../src/db/dialect/types.js';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

const COLUMNS: readonly RowsSourceColumn[] = [
  { name: 'key', type: 'bigint' },
  { name: 'label', type: 'text' },
  { name: 'amount', type: 'bigint' },
];

// What the rows must carry unchanged whichever way they travel (a JSON array on SQLite, an
// array literal per column on PostgreSQL): quotes, backslashes, commas, braces, NULL spelled
// out, blanks, empty text, non-ASCII, JSON's own syntax, real nulls, large integers.
const LABELS = [
  'plain',
  'a "quoted" word',
  'back\\slash \\',
  'comma, separated',
  '{braced}',
  '[1,2]',
  'NULL',
  'null',
  '  spaced  ',
  '',
  'Grüße 日本 🙂',
  "it's",
  '\n\t',
  null,
];

for (const dialect of DIALECTS) {
  describe(`dialect.rowsSource (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await sql`create table rs_probe (key bigint primary key, label text, amount bigint)`.execute(t.app.ctx.db);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const rowsOf = (count: number) =>
      Array.from(
        { length: count },
        (_, i) => [i + 1, LABELS[i % LABELS.length], i % 5 === 0 ? null : (i + 1) * 1_000_000_007] as const,
      );

    it('gives back every row, value for value, as a derived table', async () => {
      const rows = rowsOf(2_500);
      const read = await inTransaction(t.app.ctx.handle, (trx) =>
        sql<{
          key: number;
          label: string | null;
          amount: number | null;
        }>`select v.key, v.label, v.amount from ${t.app.ctx.dialect.rowsSource('v', COLUMNS, rows)} order by v.key`.execute(
          trx,
        ),
      );
      expect(read.rows.map((r) => [Number(r.key), r.label, r.amount === null ? null : Number(r.amount)])).toEqual(rows);
    });

    it('drives an update of another table by its key, touching only the rows named', async () => {
      await sql`insert into rs_probe (key, label, amount) select key, 'old', 0 from ${t.app.ctx.dialect.rowsSource(
        's',
        COLUMNS.slice(0, 1),
        Array.from({ length: 3_000 }, (_, i) => [i + 1]),
      )}`.execute(t.app.ctx.db);
      const rows = rowsOf(1_000).filter(([key]) => key % 2 === 0);
      await inTransaction(t.app.ctx.handle, (trx) =>
        sql`update rs_probe set label = v.label, amount = v.amount from ${t.app.ctx.dialect.rowsSource('v', COLUMNS, rows)} where rs_probe.key = v.key`.execute(
          trx,
        ),
      );
      const stored = await sql<{
        key: number;
        label: string | null;
        amount: number | null;
      }>`select key, label, amount from rs_probe order by key`.execute(t.app.ctx.db);
      const sent = new Map(rows.map(([key, label, amount]) => [key, [label, amount]]));
      for (const row of stored.rows) {
        const expected = sent.get(Number(row.key)) ?? ['old', 0];
        expect([row.label, row.amount === null ? null : Number(row.amount)]).toEqual(expected);
      }
      expect(stored.rows).toHaveLength(3_000);
    });
  });
}
