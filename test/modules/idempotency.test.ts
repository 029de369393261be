import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { upsertByKey } from '../../src/db/bulk-upsert.js';
import { inTransaction } from '../../src/db/transaction.js';
import { importFingerprint, importUnlessIdentical } from '../../src/db/versions.js';
import { toStoreRecord } from '../../src/modules/stores/mapping.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, restartableDatabaseUrl, storeInput } from '../helpers/factories.js';

type StoreRead = { store_number: string; city?: string };

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key (PRODUCT §3, ${dialect.name})`, () => {
    let t: TestApp;
    let keyCounter = 0;
    const freshKey = () => `key-${dialect.name}-${++keyCounter}-${Date.now()}`;
    const postWithKey = (body: unknown, key: string, token?: string) =>
      t.request({
        method: 'POST',
        url: `${API}/stores`,
        payload: body as object,
        headers: { 'idempotency-key': key },
        token,
      });
    const storeRow = (storeNumber: string) =>
      t.app.ctx.db.selectFrom('stores').selectAll().where('store_number', '=', storeNumber).executeTakeFirstOrThrow();
    const readStore = async (storeNumber: string): Promise<StoreRead | undefined> =>
      (await t.get(`${API}/stores?search_text=${storeNumber}`))
        .json()
        .list.find((s: StoreRead) => s.store_number === storeNumber);

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
      expect(
        (await t.post(`${API}/stores`, { stores: [storeInput('I1', { city: 'Rotterdam' })] })).json().message,
      ).toBe('created 0, updated 1, unchanged 0, deleted 0');
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

    it('the same body in other whitespace, key order or with an unknown field is the same request: replayed', async () => {
      const key = freshKey();
      const body = { stores: [storeInput('I3', { city: 'Delft' })] };
      const first = await postWithKey(body, key);
      expect(first.statusCode).toBe(200);
      const spellings = [
        JSON.stringify(body, null, 2),
        JSON.stringify({ stores: [Object.fromEntries(Object.entries(body.stores[0]!).reverse())] }),
        JSON.stringify({ stores: [{ ...body.stores[0], not_a_field: 'ignored' }], also_unknown: [1, 2, 3] }),
        // Escapes and number spelling: "\u0044elft" is "Delft".
        JSON.stringify(body).replace('"Delft"', '"\\u0044elft"'),
      ];
      for (const payload of spellings) {
        const again = await t.request({
          method: 'POST',
          url: `${API}/stores`,
          payload,
          headers: { 'idempotency-key': key, 'content-type': 'application/json' },
        });
        expect(again.statusCode, payload).toBe(200);
        expect(again.headers['idempotent-replayed'], payload).toBe('true');
        expect(again.body).toBe(first.body);
      }
      // A declared field with another value is another request.
      const changed = await postWithKey({ stores: [storeInput('I3', { city: 'Leiden' })] }, key);
      expect(changed.statusCode).toBe(409);
      expect((await readStore('I3'))?.city).toBe('Delft');
    });

    it('the query as validated: name case, parameter order, unknown parameters and value spelling do not count; another value is 409', async () => {
      const body = { stores: [storeInput('IQ1')] };
      const send = (query: string, key: string, payload: unknown = body) =>
        t.request({
          method: 'POST',
          url: `${API}/stores${query}`,
          payload: payload as object,
          headers: { 'idempotency-key': key },
        });
      const key = freshKey();
      const first = await send('?flush=false', key);
      expect(first.statusCode).toBe(200);
      for (const query of [
        '?FLUSH=false',
        '?Flush=false&unknown=1',
        '?unknown=2&flush=false',
        '',
        '?flush=false&flush_later=true',
      ]) {
        const again = await send(query, key);
        expect(again.headers['idempotent-replayed'], query).toBe('true');
        expect(again.body, query).toBe(first.body);
      }
      // The path spelt with a percent-encoded letter is the same route.
      const encoded = await t.request({
        method: 'POST',
        url: `${API}/st%6Fres?flush=false`,
        payload: body,
        headers: { 'idempotency-key': key },
      });
      expect(encoded.headers['idempotent-replayed']).toBe('true');
      expect(encoded.body).toBe(first.body);
      const flushing = await send('?flush=true', key);
      expect(flushing.statusCode).toBe(409);
      expect(flushing.json()).toMatchObject({ code: 'CONFLICT' });
      // The same key on another route is another request too.
      const elsewhere = await t.request({
        method: 'POST',
        url: `${API}/categories`,
        payload: { categories: [] },
        headers: { 'idempotency-key': key },
      });
      expect(elsewhere.statusCode).toBe(409);
      expect(await readStore('IQ1')).toBeDefined();
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

    it('declared headers count (discounts is_flush), undeclared ones do not', async () => {
      expect((await t.post(`${API}/products`, { products: [productInput('IH-P')] })).statusCode).toBe(200);
      const key = freshKey();
      const body = { discounts: [{ is_delete: false, product_number: 'IH-P', price: 1, discount_id: 'IH-D' }] };
      const send = (headers: Record<string, string>) =>
        t.request({
          method: 'POST',
          url: `${API}/products/discountprices`,
          payload: body,
          headers: { 'idempotency-key': key, ...headers },
        });
      const first = await send({ is_flush: 'false', 'x-trace': 'a' });
      expect(first.statusCode, first.body).toBe(200);
      const again = await send({ IS_FLUSH: 'false', 'x-trace': 'b' });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect((await send({ is_flush: 'true' })).statusCode).toBe(409);
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
        first = await firstApp.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: body,
          headers: { 'idempotency-key': key },
        });
        expect(first.json().message).toBe('created 1, updated 0, unchanged 0, deleted 0');
      } finally {
        await firstApp.close();
      }
      const secondApp = await buildTestApp(dialect, { databaseUrl });
      try {
        const replay = await secondApp.request({
          method: 'POST',
          url: `${API}/stores`,
          payload: body,
          headers: { 'idempotency-key': key },
        });
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

// "The same request" by meaning on a route with path and query parameters (PRODUCT §3,
// issue 26): stock entries posted under one key in several spellings are booked once.
for (const dialect of DIALECTS) {
  describe(`Idempotency-Key judged on the validated request (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;
    const STORE = 'IDS1';
    const logsUrl = (store: string, query: string) => `${API}/stores/${store}/products/stock/storeproductlogs${query}`;
    const entries = (product: string) => ({
      storeproductlog: [
        {
          product_number: product,
          quantity: 2,
          customer_order_line_number: 0,
          modification_datetime: '2026-01-10T10:00:00Z',
        },
      ],
    });
    const post = (url: string, key: string, payload: unknown) =>
      t.request({ method: 'POST', url, payload: payload as object, headers: { 'idempotency-key': key } });
    const logCount = async (product: string) =>
      Number(
        (
          await t.app.ctx.db
            .selectFrom('stock_logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('product_number', '=', product)
            .executeTakeFirstOrThrow()
        ).n,
      );

    beforeAll(async () => {
      // Private webhook URLs allowed: the webhook case subscribes a loopback URL nobody serves.
      t = await buildTestApp(dialect, { webhooksAllowPrivate: true });
      expect((await t.post(`${API}/stores`, { stores: [storeInput(STORE)] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    async function newProduct(): Promise<string> {
      const number = `IDP-${++counter}`;
      expect((await t.post(`${API}/products`, { products: [productInput(number)] })).statusCode).toBe(200);
      return number;
    }

    it('?appUserName=bob then ?AppUserName=bob with the same key and body: replayed, booked once', async () => {
      const p = await newProduct();
      const key = `idem-user-${dialect.name}`;
      const first = await post(logsUrl(STORE, '?appUserName=bob'), key, entries(p));
      expect(first.statusCode, first.body).toBe(200);
      const second = await post(logsUrl(STORE, '?AppUserName=bob'), key, entries(p));
      expect(second.statusCode).toBe(200);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toBe(first.body);
      expect(await logCount(p)).toBe(1);
    });

    it('reordered parameters, an unknown one, coerced values and a percent-encoded path are the same request', async () => {
      const p = await newProduct();
      const key = `idem-spellings-${dialect.name}`;
      const first = await post(logsUrl(STORE, '?appUserName=bob&is_counted_quantity=false'), key, entries(p));
      expect(first.statusCode, first.body).toBe(200);
      const encodedStore = STORE.replace('S', '%53');
      const spellings = [
        logsUrl(STORE, '?is_counted_quantity=false&appUserName=bob'),
        logsUrl(STORE, '?APPUSERNAME=bob&Is_Counted_Quantity=false&not_a_parameter=1'),
        logsUrl(STORE, '?appUserName=b%6Fb&is_counted_quantity=false'),
        logsUrl(encodedStore, '?appUserName=bob&is_counted_quantity=false'),
      ];
      for (const url of spellings) {
        const again = await post(url, key, entries(p));
        expect(again.statusCode, url).toBe(200);
        expect(again.headers['idempotent-replayed'], url).toBe('true');
        expect(again.body, url).toBe(first.body);
      }
      expect(await logCount(p)).toBe(1);
    });

    it('another query value, another store or another product under the same key is another request: 409, nothing booked', async () => {
      const p = await newProduct();
      expect((await t.post(`${API}/stores`, { stores: [storeInput('IDS2')] })).statusCode).toBe(200);
      const key = `idem-other-${dialect.name}`;
      expect((await post(logsUrl(STORE, '?appUserName=bob'), key, entries(p))).statusCode).toBe(200);
      for (const [url, payload] of [
        [logsUrl(STORE, '?appUserName=alice'), entries(p)],
        [logsUrl(STORE, '?appUserName=bob&is_counted_quantity=true'), entries(p)],
        [logsUrl('IDS2', '?appUserName=bob'), entries(p)],
        [logsUrl(STORE, '?appUserName=bob'), entries(`${p}-other`)],
      ] as const) {
        const other = await post(url, key, payload);
        expect(other.statusCode, url).toBe(409);
        expect(other.json(), url).toMatchObject({ code: 'CONFLICT' });
      }
      expect(await logCount(p)).toBe(1);
    });

    // Issue 40 item 1: a date-time means its instant (PRODUCT §3), however it is spelt.
    const at = (product: string, modification_datetime: string, extra: Record<string, unknown> = {}) => ({
      storeproductlog: [
        { product_number: product, quantity: 2, customer_order_line_number: 0, modification_datetime, ...extra },
      ],
    });

    it('the same instant spelt with Z, .000Z, an offset, without a zone or in lower case: replayed, booked once', async () => {
      const p = await newProduct();
      const key = `idem-instant-${dialect.name}`;
      const first = await post(
        logsUrl(STORE, ''),
        key,
        at(p, '2026-01-10T19:56:37.000Z', { scanned_datetime: '2026-01-10T19:56:30Z' }),
      );
      expect(first.statusCode, first.body).toBe(200);
      for (const [spelt, scanned] of [
        ['2026-01-10T19:56:37Z', '2026-01-10T19:56:30.000Z'],
        ['2026-01-10T20:56:37.000+01:00', '2026-01-10T20:56:30+01:00'],
        ['2026-01-10T14:56:37-0500', '2026-01-10T19:56:30.000-00:00'],
        ['2026-01-10T19:56:37', '2026-01-10T19:56:30'],
        ['2026-01-10T19:56:37.000', '2026-01-10t19:56:30z'],
        ['2026-01-10T19:56:37.000999Z', '2026-01-10T19:56:30,0Z'],
      ]) {
        const again = await post(logsUrl(STORE, ''), key, at(p, spelt!, { scanned_datetime: scanned }));
        expect(again.statusCode, spelt).toBe(200);
        expect(again.headers['idempotent-replayed'], spelt).toBe('true');
        expect(again.body, spelt).toBe(first.body);
      }
      expect(await logCount(p)).toBe(1);
      // Another instant, by one millisecond or by a zone read the other way, is another request.
      for (const [spelt, scanned] of [
        ['2026-01-10T19:56:37.001Z', '2026-01-10T19:56:30Z'],
        ['2026-01-10T19:56:37+01:00', '2026-01-10T19:56:30Z'],
        ['2026-01-10T19:56:37Z', '2026-01-10T19:56:31Z'],
      ]) {
        const other = await post(logsUrl(STORE, ''), key, at(p, spelt!, { scanned_datetime: scanned }));
        expect(other.statusCode, spelt).toBe(409);
      }
      expect(await logCount(p)).toBe(1);
    });

    it('a flag left out is its default (is_counted_quantity=false), a product number sent as a JSON integer is its text: replayed', async () => {
      const product = `${900_000 + ++counter}`;
      expect((await t.post(`${API}/products`, { products: [productInput(product)] })).statusCode).toBe(200);
      const key = `idem-defaults-${dialect.name}`;
      const first = await post(logsUrl(STORE, '?is_counted_quantity=false'), key, at(product, '2026-01-10T10:00:00Z'));
      expect(first.statusCode, first.body).toBe(200);
      for (const [query, body] of [
        ['', at(product, '2026-01-10T10:00:00Z')],
        ['?is_from_receipt=false', at(product, '2026-01-10T10:00:00Z')],
        [
          '',
          {
            storeproductlog: [
              {
                product_number: Number(product),
                quantity: 2.0,
                customer_order_line_number: 0,
                modification_datetime: '2026-01-10T10:00:00',
              },
            ],
          },
        ],
      ] as const) {
        const again = await post(logsUrl(STORE, query), key, body);
        expect(again.statusCode, query).toBe(200);
        expect(again.headers['idempotent-replayed'], query).toBe('true');
      }
      // A product number is a code: another spelling of its digits is another product.
      expect((await post(logsUrl(STORE, ''), key, at(`0${product}`, '2026-01-10T10:00:00Z'))).statusCode).toBe(409);
      expect(
        (await post(logsUrl(STORE, '?is_counted_quantity=true'), key, at(product, '2026-01-10T10:00:00Z'))).statusCode,
      ).toBe(409);
      expect(await logCount(product)).toBe(1);
    });

    it('a webhook filter sent as null is the filter left out (the API reads them alike): replayed, one subscription', async () => {
      const url = 'http://127.0.0.1:9/idempotent-hook';
      const key = `idem-null-${dialect.name}`;
      const hook = (payload: unknown) => post(`${API}/webhooks`, key, payload);
      const first = await hook({ url, types: null, stores: null });
      expect(first.statusCode, first.body).toBe(201);
      for (const payload of [{ url }, { url, types: null }, { url, stores: null }]) {
        const again = await hook(payload);
        expect(again.statusCode, JSON.stringify(payload)).toBe(201);
        expect(again.headers['idempotent-replayed'], JSON.stringify(payload)).toBe('true');
      }
      expect((await hook({ url, types: ['store.deleted'] })).statusCode).toBe(409);
      const made = (await t.get(`${API}/webhooks`)).json().webhooks.filter((w: { url: string }) => w.url === url);
      expect(made).toHaveLength(1);
    });
  });
}

// The request transaction (PRODUCT §3 "A retry after a crash resolves at once"): the key, the
// effects and the answer commit together or not at all (plugins/idempotency.ts). A process
// killed mid-request is exercised for real in test/faults/.
for (const dialect of DIALECTS) {
  describe(`the key, the effects and the answer commit together (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });
    const keyRow = (key: string) =>
      t.app.ctx.db.selectFrom('idempotency_keys').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
    const post = (key: string, stores: unknown[]) =>
      t.request({ method: 'POST', url: `${API}/stores`, payload: { stores }, headers: { 'idempotency-key': key } });

    it('a committed request has its answer stored with it: never a key without an answer', async () => {
      const first = await post('tx-1', [storeInput('IDT1')]);
      expect(first.statusCode).toBe(200);
      const row = await keyRow('tx-1');
      expect(row).toMatchObject({ status_code: 200, response_body: first.body });
    });

    it('two identical requests at once: one applies, the other waits for it and replays its answer', async () => {
      const body = [storeInput('IDT2')];
      const [a, b] = await Promise.all([post('tx-2', body), post('tx-2', body)]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect([a.headers['idempotent-replayed'], b.headers['idempotent-replayed']].filter(Boolean)).toEqual(['true']);
      expect(a.body).toBe(b.body);
      const created = await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'IDT2').execute();
      expect(created).toHaveLength(1);
    });

    it('an answer that is not kept (409) rolls the request back whole: no key, and the retry is applied as new', async () => {
      // The same key on two routes: the second is another request (409) and leaves no trace.
      expect((await post('tx-3', [storeInput('IDT3')])).statusCode).toBe(200);
      const other = await t.request({
        method: 'POST',
        url: `${API}/products`,
        payload: { products: [productInput('IDT3-P')] },
        headers: { 'idempotency-key': 'tx-3' },
      });
      expect(other.statusCode).toBe(409);
      expect(
        await t.app.ctx.db
          .selectFrom('products')
          .select('id')
          .where('product_number', '=', 'IDT3-P')
          .executeTakeFirst(),
      ).toBeUndefined();
    });

    it('a request refused by the rules (400) keeps its answer, and wrote nothing', async () => {
      const bad = await post('tx-4', [storeInput('IDT4'), storeInput('IDT4')]);
      expect(bad.statusCode).toBe(400);
      expect((await keyRow('tx-4'))?.status_code).toBe(400);
      expect(
        await t.app.ctx.db.selectFrom('stores').select('id').where('store_number', '=', 'IDT4').executeTakeFirst(),
      ).toBeUndefined();
    });

    it('a reservation left by an earlier version without an answer is free: the retry is applied', async () => {
      const { db } = t.app.ctx;
      const first = await post('tx-5', [storeInput('IDT5')]);
      await db
        .updateTable('idempotency_keys')
        .set({ status_code: null, response_body: null })
        .where('idempotency_key', '=', 'tx-5')
        .execute();
      const retry = await post('tx-5', [storeInput('IDT5', { city: 'Retried' })]);
      expect(retry.statusCode).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(first.statusCode).toBe(200);
      expect((await keyRow('tx-5'))?.status_code).toBe(200);
    });

    it('a key an earlier version marked "applied, answer lost" is still refused (never applied twice)', async () => {
      const body = [storeInput('IDT6')];
      expect((await post('tx-6', body)).statusCode).toBe(200);
      await t.app.ctx.db
        .updateTable('idempotency_keys')
        .set({ status_code: 0, response_body: null })
        .where('idempotency_key', '=', 'tx-6')
        .execute();
      const retry = await post('tx-6', body);
      expect(retry.statusCode).toBe(409);
      expect(retry.json().message).toMatch(/applied/);
    });

    it('inside the request transaction a failed attempt is undone alone and run again', async () => {
      const { db, handle } = t.app.ctx;
      const trx = await db.startTransaction().execute();
      try {
        const scoped = { ...handle, db: trx, requestScope: { transaction: trx } };
        await trx
          .insertInto('idempotency_keys')
          .values({
            scope: 'sp',
            idempotency_key: 'sp-1',
            request_hash: 'h',
            status_code: null,
            response_body: null,
            content_type: null,
            created_at: Date.now(),
          })
          .execute();
        const retryable = Object.assign(new Error('busy'), {
          code: dialect.name === 'sqlite' ? 'SQLITE_BUSY' : '40001',
        });
        let attempts = 0;
        await inTransaction(scoped, async (work) => {
          await work
            .insertInto('product_list_types')
            .values({ type: 900 + attempts, description: `attempt ${attempts}` })
            .execute();
          if (++attempts === 1) throw retryable;
        });
        expect(attempts).toBe(2);
        // The first attempt's row was undone with its savepoint; the reservation before it stayed.
        expect(
          (await trx.selectFrom('product_list_types').select('type').where('type', '>=', 900).execute()).map(
            (r) => r.type,
          ),
        ).toEqual([901]);
        expect(
          await trx.selectFrom('idempotency_keys').select('scope').where('scope', '=', 'sp').executeTakeFirst(),
        ).toBeDefined();
      } finally {
        await trx.rollback().execute();
      }
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
            table: 'stores',
            keyColumn: 'store_number',
            records: JSON.parse(resend).stores.map(toStoreRecord),
            actor: 'test',
            now: Date.now(),
            flush: false,
          });
          rename = t.post(`${API}/stores`, { stores: [storeInput('RACE1', { store_name: 'B' })] });
          await new Promise((r) => setTimeout(r, 300));
          return counts;
        }),
      );
      await rename;
      const again = await t.request({
        method: 'POST',
        url: `${API}/stores`,
        payload: resend,
        headers: { 'content-type': 'application/json' },
      });
      expect(again.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      const listed = (await t.get(`${API}/stores?search_text=RACE1`)).json();
      expect(listed.list[0].store_name).toBe('A');
    });
  });
}
