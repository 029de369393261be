import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOnce } from '../../src/db/compiled.js';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { inTransaction } from '../../src/db/transaction.js';
import { DIALECTS } from '../helpers/dialects.js';

const versionOf = compiledOnce((db, resource: string) => db.selectFrom('resource_versions').select('version').where('resource', '=', resource));
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
      await handle.db.updateTable('resource_versions').set({ version: before + 5 }).where('resource', '=', 'stores').execute();
      expect(await read(handle.db)).toBe(before + 5);
      expect(await versionOf(handle.db, 'no-such-resource')).toEqual([]);
    });

    it('inside a transaction, see its own uncommitted writes', async () => {
      const before = await read(handle.db);
      await inTransaction(handle, async (trx) => {
        await trx.updateTable('resource_versions').set({ version: before + 1 }).where('resource', '=', 'stores').execute();
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
          await trx.updateTable('resource_versions').set({ version: before + 100 }).where('resource', '=', 'stores').execute();
          concurrent = read(handle.db);
          // Let the outside read run as far as it can while the transaction is open.
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await concurrent).toBe(before);
      expect(await read(handle.db)).toBe(before);
    });
  });
}
