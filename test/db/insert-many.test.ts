import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMany, insertManyReturningIds } from '../../src/db/insert-many.js';
import { VALUES_ROWS_PER_STATEMENT as ROWS_PER_STATEMENT } from '../../src/db/values-insert.js';
import { inTransaction } from '../../src/db/transaction.js';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

for (const dialect of DIALECTS) {
  describe(`insertMany (db/insert-many.ts, ${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await sql`create table im_probe (id integer primary key, label text not null, amount bigint)`.execute(
        t.app.ctx.db,
      );
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const rows = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => [from + i, `row ${from + i}`, (from + i) * 1000]);
    const insert = (from: number, count: number) =>
      inTransaction(t.app.ctx.handle, (trx) =>
        insertMany<{ id: number }>(
          trx,
          t.app.ctx.dialect,
          'im_probe' as never,
          ['id', 'label', 'amount'],
          rows(from, count),
          'returning id',
        ),
      );

    // Full chunks are kept prepared on PostgreSQL (dialect keepPrepared): run again and
    // again on the same connections, and still right after the table changes under them.
    it('writes and returns every row in order, chunk after chunk, also after the table changed', async () => {
      const first = await insert(1, 2 * ROWS_PER_STATEMENT + 50);
      expect(first.map((r) => Number(r.id))).toEqual(rows(1, 250).map((r) => r[0]));
      for (let round = 1; round <= 5; round++) await insert(round * 1_000, ROWS_PER_STATEMENT);
      await sql`alter table im_probe add column note text`.execute(t.app.ctx.db);
      await insert(10_000, 2 * ROWS_PER_STATEMENT);
      const stored = await sql<{
        n: number;
        total: number;
      }>`select count(*) as n, sum(amount) as total from im_probe`.execute(t.app.ctx.db);
      const ids = [
        ...rows(1, 250),
        ...[1, 2, 3, 4, 5].flatMap((round) => rows(round * 1_000, ROWS_PER_STATEMENT)),
        ...rows(10_000, 200),
      ].map((r) => r[0] as number);
      expect(Number(stored.rows[0]!.n)).toBe(ids.length);
      expect(Number(stored.rows[0]!.total)).toBe(ids.reduce((sum, id) => sum + id * 1000, 0));
    });

    it('carries any text and null as sent, and returns generated ids in row order', async () => {
      await sql`create table im_text (id integer primary key ${sql.raw(dialect.name === 'postgres' ? 'generated always as identity' : 'autoincrement')}, label text, amount bigint)`.execute(
        t.app.ctx.db,
      );
      // What an array literal would have to escape: quotes, backslashes, commas, braces, NULL
      // spelled out, blanks, empty text, non-ASCII.
      const labels = [
        'plain',
        'a "quoted" word',
        'back\\slash \\',
        'comma, separated',
        '{braced}',
        'NULL',
        'null',
        '  spaced  ',
        '',
        'Grüße 日本 🙂',
        "it's",
        null,
      ];
      const rows = Array.from({ length: 1_234 }, (_, i) => [
        labels[i % labels.length],
        i % 7 === 0 ? null : i * 1_000_000_007,
      ]);
      const ids = await inTransaction(t.app.ctx.handle, (trx) =>
        insertManyReturningIds(trx, t.app.ctx.dialect, 'im_text' as never, ['label', 'amount'], rows),
      );
      expect(ids).toHaveLength(rows.length);
      const stored = await sql<{
        id: number;
        label: string | null;
        amount: number | null;
      }>`select id, label, amount from im_text order by id`.execute(t.app.ctx.db);
      const byId = new Map(stored.rows.map((row) => [Number(row.id), row]));
      ids.forEach((id, index) => {
        expect(byId.get(id)?.label).toBe(rows[index]![0]);
        expect(byId.get(id)?.amount === null ? null : Number(byId.get(id)?.amount)).toBe(rows[index]![1]);
      });
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    });

    it.skipIf(dialect.name !== 'postgres')(
      'PostgreSQL: a full chunk is a prepared statement of the connection that ran it',
      async () => {
        const prepared = await inTransaction(t.app.ctx.handle, async (trx) => {
          await insertMany(
            trx,
            t.app.ctx.dialect,
            'im_probe' as never,
            ['id', 'label', 'amount'],
            rows(50_000, ROWS_PER_STATEMENT),
          );
          return (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx)).rows.map(
            (r) => r.statement,
          );
        });
        expect(prepared.some((statement) => statement.startsWith('insert into "im_probe"'))).toBe(true);
      },
    );
  });
}
