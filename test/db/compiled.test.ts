import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOnce } from '../../src/db/compiled.js';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { inTransaction } from '../../src/db/transaction.js';
import { DIALECTS } from '../helpers/dialects.js';

const versionOf = compiledOnce((db, resource: string) =>
  db.selectFrom('resource_versions').select('version').where('resource', '=', resource),
);
const read = async (db: Parameters<typeof versionOf>[0]) => Number((await versionOf(db, 'stores'))[0]!.version);

for (const dialect of DIALECTS) {
  describe(`compiled reads (db/compiled.ts, ${dialect.name})`, () => {
    let handle: DbHandle;
    let dir: string | undefined;

    beforeAll(async () => {
      // A file, not :memory:, so SQLite runs in WAL mode as in production.
      if (dialect.name === 'sqlite') dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-compiled-'));
      handle = createDb(dir ? `sqlite:${path.join(dir, 'db.sqlite')}` : await dialect.freshDatabaseUrl());
      await migrateToLatest(handle);
    });

    afterAll(async () => {
      await handle.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      await dialect.cleanup();
    });

    it('answer with fresh arguments, and see committed writes', async () => {
      const before = await read(handle.db);
      await handle.db
        .updateTable('resource_versions')
        .set({ version: before + 5 })
        .where('resource', '=', 'stores')
        .execute();
      expect(await read(handle.db)).toBe(before + 5);
      expect(await versionOf(handle.db, 'no-such-resource')).toEqual([]);
    });

    it('inside a transaction, see its own uncommitted writes', async () => {
      const before = await read(handle.db);
      await inTransaction(handle, async (trx) => {
        await trx
          .updateTable('resource_versions')
          .set({ version: before + 1 })
          .where('resource', '=', 'stores')
          .execute();
        expect(await read(trx)).toBe(before + 1);
      });
      expect(await read(handle.db)).toBe(before + 1);
    });

    it('outside it, never see a transaction that is still open, even one that rolls back', async () => {
      // SQLite serves reads outside transactions straight from the connection the open
      // transaction holds: such a read must wait its turn, not see the uncommitted row.
      const before = await read(handle.db);
      let concurrent: Promise<number> | undefined;
      await expect(
        inTransaction(handle, async (trx) => {
          await trx
            .updateTable('resource_versions')
            .set({ version: before + 100 })
            .where('resource', '=', 'stores')
            .execute();
          concurrent = read(handle.db);
          // Let the outside read run as far as it can while the transaction is open.
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await concurrent).toBe(before);
      expect(await read(handle.db)).toBe(before);
    });

    it('refuse, at the first compile, an argument spliced into the SQL text', async () => {
      const raw = compiledOnce((db, resource: string) =>
        db
          .selectFrom('resource_versions')
          .select('version')
          .where(sql.raw<boolean>(`resource = '${resource}'`)),
      );
      await expect(raw(handle.db, 'stores')).rejects.toThrow(/argument 0 is spliced into the SQL text/);
      const literal = compiledOnce((db, id: number, resource: string) =>
        db
          .selectFrom('resource_versions')
          .select('version')
          .where('version', '>', id)
          .where('resource', '=', sql.lit(resource)),
      );
      await expect(literal(handle.db, 1, 'stores')).rejects.toThrow(/argument 1 is spliced into the SQL text/);
    });

    it('refuse an argument that is not bound as a parameter: unused, or bound only after a change', async () => {
      const unused = compiledOnce((db, _resource: string, version: number) =>
        db.selectFrom('resource_versions').select('version').where('version', '=', version),
      );
      await expect(unused(handle.db, 'stores', 1)).rejects.toThrow(/argument 0 is never bound as a parameter/);
      const derived = compiledOnce((db, resource: string) =>
        db.selectFrom('resource_versions').select('version').where('resource', 'like', `${resource}%`),
      );
      await expect(derived(handle.db, 'sto')).rejects.toThrow(/derived from an argument/);
      // The type of an argument is a single bindable value: an array (an IN list) does not type-check.
      // @ts-expect-error string[] is not a BindableValue
      compiledOnce((db, resources: string[]) =>
        db.selectFrom('resource_versions').select('version').where('resource', 'in', resources),
      );
    });
  });
}
