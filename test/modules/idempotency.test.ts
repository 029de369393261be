import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { upsertByKey } from '../../src/db/bulk-upsert.js';
import { inTransaction } from '../../src/db/transaction.js';
import { importFingerprint, importUnlessIdentical } from '../../src/db/versions.js';
import { toStoreRecord } from '../../src/modules/stores/mapping.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { restartableDatabaseUrl, storeInput } from '../helpers/factories.js';

type StoreRead = { store_number: string; city?: string };

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key (PRODUCT §3, ${dialect.name})`, () => {
    let t: TestApp;
    let keyCounter = 0;
    const freshKey = () => `key-${dialect.name}-${++keyCounter}-${Date.now()}`;
    const postWithKey = (body: unknown, key: string, token?: string) =>
      t.request({ method: 'POST', url: `${API}/stores`, payload: body as object, headers: { 'idempotency-key': key }, token });
    const storeRow = (storeNumber: string) =>
      t.app.ctx.db.selectFrom('stores').selectAll().where('store_number', '=', storeNumber).executeTakeFirstOrThrow();
    const readStore = async (storeNumber: string): Promise<StoreRead | undefined> =>
      (await t.get(`${API}/stores?search_text=${storeNumber}`)).json().list.find((s: StoreRead) => s.store_number === storeNumber);

    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('same key and body: the first response is replayed and nothing is applied again', async () => {
      const key = freshKey();
      const body = { stores: [storeInput('I1', { city: 'Amsterdam' }), storeInput('I2')] };
      const first = await postWithKey(body, key);
      expect(first.statusCode).toBe(200);
      expect(first.json().message).toBe('created 2, updated 0, unchanged 0, deleted 0');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const before = await storeRow('I1');

      // Changed in between without a key: a replay must not put the old city back.
      expect((await t.post(`${API}/stores`, { stores: [storeInput('I1', { city: 'Rotterdam' })] })).json().message).toBe(
        'created 0, updated 1, unchanged 0, deleted 0',
      );
      const changed = await storeRow('I1');

      const replay = await postWithKey(body, key);
      expect(replay.statusCode).toBe(first.statusCode);
      expect(replay.body).toBe(first.body);
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect((await readStore('I1'))?.city).toBe('Rotterdam');
      expect((await storeRow('I1')).updated_on).toBe(changed.updated_on);
      expect(changed.updated_on).toBeGreaterThanOrEqual(before.updated_on);
      expect((await t.get(`${API}/stores?search_text=I`)).json().total_count).toBe(2);
    });

    it('the same body in other whitespace is another request: the key says 409', async () => {
      const key = freshKey();
      const body = { stores: [storeInput('I3')] };
      expect((await postWithKey(body, key)).statusCode).toBe(200);
      const reformatted = await t.request({
        method: 'POST',
        url: `${API}/stores`,
        payload: JSON.stringify(body, null, 2),
        headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      });
      expect(reformatted.statusCode).toBe(409);
    });

    it('same key with a different body is 409 CONFLICT, and the first response stays replayable', async () => {
      const key = freshKey();
      const body = { stores: [storeInput('I4')] };
      const first = await postWithKey(body, key);
      expect(first.statusCode).toBe(200);
      const other = await postWithKey({ stores: [storeInput('I5')] }, key);
      expect(other.statusCode).toBe(409);
      expect(other.json()).toMatchObject({ success: false, code: 'CONFLICT' });
      expect(await readStore('I5')).toBeUndefined();
      const replay = await postWithKey(body, key);
      expect(replay.body).toBe(first.body);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });

    it('keys of different tokens are independent', async () => {
      const key = freshKey();
      const body = { stores: [storeInput('I6')] };
      expect((await postWithKey(body, key)).json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      const integration = await t.token('integration');
      const second = await postWithKey(body, key, integration);
      expect(second.statusCode).toBe(200);
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      expect(second.json().message).toBe('created 0, updated 0, unchanged 1, deleted 0');
      const otherBody = await postWithKey({ stores: [storeInput('I7')] }, freshKey(), integration);
      expect(otherBody.statusCode).toBe(200);
    });

    it('a request refused by validation does not use up its key', async () => {
      const key = freshKey();
      expect((await postWithKey({ stores: [{ store_number: 'I8' }] }, key)).statusCode).toBe(400);
      const valid = await postWithKey({ stores: [storeInput('I8')] }, key);
      expect(valid.statusCode).toBe(200);
      expect(valid.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
    });

    it('a key over 255 characters, or an empty one, is a 400', async () => {
      const body = { stores: [storeInput('I9')] };
      const long = await postWithKey(body, 'k'.repeat(256));
      expect(long.statusCode).toBe(400);
      expect(long.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'headers.idempotency-key' }] });
      expect(await readStore('I9')).toBeUndefined();
      expect((await postWithKey(body, '')).statusCode).toBe(400);
      expect((await postWithKey(body, 'k'.repeat(255))).statusCode).toBe(200);
    });

    it('a key survives a restart on the same database', async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      const body = { stores: [storeInput('R1')] };
      const key = freshKey();
      const firstApp = await buildTestApp(dialect, { databaseUrl });
      let first;
      try {
        first = await firstApp.request({ method: 'POST', url: `${API}/stores`, payload: body, headers: { 'idempotency-key': key } });
        expect(first.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      } finally {
        await firstApp.close();
      }
      const secondApp = await buildTestApp(dialect, { databaseUrl });
      try {
        const replay = await secondApp.request({ method: 'POST', url: `${API}/stores`, payload: body, headers: { 'idempotency-key': key } });
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body).toBe(first.body);
        const conflict = await secondApp.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: { stores: [storeInput('R2')] },
          headers: { 'idempotency-key': key },
        });
        expect(conflict.statusCode).toBe(409);
      } finally {
        await secondApp.close();
      }
    });
  });
}

// A request whose writes committed but whose response was never stored (the process died
// in between) must not be applied again by a retry with the same key.
for (const dialect of DIALECTS) {
  describe(`idempotency across a crash after commit (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('the key is marked applied inside the write transaction; a retry is a 409, never a second write', async () => {
      const { db, handle } = t.app.ctx;
      const scope = 'crash-scope';
      await db.insertInto('idempotency_keys').values({ scope, idempotency_key: 'k', request_hash: 'h', status_code: null, response_body: null, content_type: null, created_at: Date.now() }).execute();
      await inTransaction({ ...handle, requestScope: { idempotency: { scope, key: 'k' } } }, async () => undefined);
      const row = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).executeTakeFirstOrThrow();
      expect(row.status_code).toBe(0);

      // The same through HTTP: simulate the lost response by resetting the stored answer to "applied".
      const body = { stores: [storeInput('IDC1')] };
      const first = await t.request({ method: 'POST', url: `${API}/stores`, payload: body, headers: { 'idempotency-key': 'crash-1' } });
      expect(first.statusCode).toBe(200);
      await db.updateTable('idempotency_keys').set({ status_code: 0, response_body: null }).where('idempotency_key', '=', 'crash-1').execute();
      const retry = await t.request({ method: 'POST', url: `${API}/stores`, payload: body, headers: { 'idempotency-key': 'crash-1' } });
      expect(retry.statusCode).toBe(409);
      expect(retry.json().message).toMatch(/applied/);
    });

    it('a failed write leaves the key free: the mark rolls back with the transaction', async () => {
      const bad = await t.request({ method: 'POST', url: `${API}/stores`, payload: { stores: [storeInput('IDC2'), storeInput('IDC2')] }, headers: { 'idempotency-key': 'dup-1' } });
      expect(bad.statusCode).toBe(400);
      const row = await t.app.ctx.db.selectFrom('idempotency_keys').selectAll().where('idempotency_key', '=', 'dup-1').executeTakeFirst();
      expect(row?.status_code ?? 400).toBe(400);
    });
  });
}

// Regressions found in review: the "applied" mark must survive a retried commit, and the
// identical-import shortcut must not record a version another writer moved meanwhile.
for (const dialect of DIALECTS) {
  describe(`idempotency and import fingerprints under retries and races (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('a transaction retried after a failed attempt marks the key applied again', async () => {
      const { db, handle } = t.app.ctx;
      const scope = `retry-scope-${dialect.name}`;
      await db.insertInto('idempotency_keys').values({ scope, idempotency_key: 'k', request_hash: 'h', status_code: null, response_body: null, content_type: null, created_at: Date.now() }).execute();
      const retryable = Object.assign(new Error('busy'), { code: dialect.name === 'sqlite' ? 'SQLITE_BUSY' : '40001' });
      let attempts = 0;
      const flaky = {
        ...handle,
        requestScope: { idempotency: { scope, key: 'k' } },
        db: {
          transaction: () => ({
            execute: (work: (trx: never) => Promise<unknown>) =>
              handle.db.transaction().execute(async (trx) => {
                const result = await work(trx as never);
                if (++attempts === 1) throw retryable; // the first commit fails: everything rolls back
                return result;
              }),
          }),
        },
      } as unknown as typeof handle;
      await inTransaction(flaky, async () => undefined);
      expect(attempts).toBe(2);
      const row = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).executeTakeFirstOrThrow();
      expect(row.status_code).toBe(0);
    });

    it('an import racing a change of the same resource never records a version it did not see', async () => {
      const base = { stores: [storeInput('RACE1', { store_name: 'A' })] };
      expect((await t.post(`${API}/stores`, base)).statusCode).toBe(200);
      // Same content, other bytes: compared item by item (unchanged) and fingerprinted.
      const resend = JSON.stringify({ stores: [storeInput('RACE1', { store_name: 'A' })] }, null, 1);
      let rename: Promise<unknown> | undefined;
      const { handle, dialect: sqlDialect } = t.app.ctx;
      const fingerprint = importFingerprint(createHash('sha256').update(resend).digest('hex'), false);
      await inTransaction(handle, (trx) =>
        importUnlessIdentical(trx, sqlDialect, 'stores', fingerprint, async () => {
          const counts = await upsertByKey(trx, sqlDialect, {
            table: 'stores', keyColumn: 'store_number', records: JSON.parse(resend).stores.map(toStoreRecord), actor: 'test', now: Date.now(), flush: false,
          });
          rename = t.post(`${API}/stores`, { stores: [storeInput('RACE1', { store_name: 'B' })] });
          await new Promise((r) => setTimeout(r, 300));
          return counts;
        }),
      );
      await rename;
      const again = await t.request({ method: 'POST', url: `${API}/stores`, payload: resend, headers: { 'content-type': 'application/json' } });
      expect(again.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      const listed = (await t.get(`${API}/stores?search_text=RACE1`)).json();
      expect(listed.list[0].store_name).toBe('A');
    });
  });
}
