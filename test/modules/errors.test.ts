import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/connect.js';
import { registerErrorHandler } from '../../src/plugins/error-handler.js';
import { registerJsonBody } from '../../src/plugins/request-parsing.js';
import { unprocessable } from '../../src/shared/errors.js';
import { Money, Quantity } from '../../src/shared/schemas.js';
import { createValidatorCompiler } from '../../src/shared/validation.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput, unchecked } from '../helpers/factories.js';

/** The PRODUCT §3 error envelope, with its code and status. */
function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toMatchObject({ success: false, code });
  expect(typeof body.message).toBe('string');
  expect(Array.isArray(body.errors)).toBe(true);
  return body as { message: string; errors: Array<{ path: string; message: string }> };
}

const paths = (body: { errors: Array<{ path: string }> }) => body.errors.map((e) => e.path);
const json = { 'content-type': 'application/json' };

for (const dialect of DIALECTS) {
  describe(`error envelope and validation (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const postStores = (stores: unknown[]) => t.post(`${API}/stores`, { stores });
    const postRaw = (payload: string, headers: Record<string, string> = json) =>
      t.request({ method: 'POST', url: `${API}/stores`, payload, headers });

    it('400 lists every failing field by path, not just the first', async () => {
      const body = expectError(
        await postStores([
          storeInput('E1', unchecked({ store_name: 5 })),
          storeInput('E2', unchecked({ is_active: 'yes' })),
          { store_name: 'no number', is_active: true, is_active_data_exchange: true, is_warehouse: false },
        ]),
        400,
        'VALIDATION_FAILED',
      );
      expect(paths(body)).toEqual(
        expect.arrayContaining(['stores[0].store_name', 'stores[1].is_active', 'stores[2].store_number']),
      );
      expect(body.errors.find((e) => e.path === 'stores[2].store_number')?.message).toBe('is required');
      expect((await t.get(`${API}/stores`)).json().total_count).toBe(0);
    });

    it('400 for wrong types: bodies are not coerced', async () => {
      const body = expectError(
        // (Ids and codes take a number too — issue 10 §1 — so a name stands for a text field here.)
        await postStores([
          storeInput('E3', unchecked({ store_name: 17, is_warehouse: 'true', price_line_id: '5', free_fields: {} })),
        ]),
        400,
        'VALIDATION_FAILED',
      );
      expect(paths(body)).toEqual(
        expect.arrayContaining([
          'stores[0].store_name',
          'stores[0].is_warehouse',
          'stores[0].price_line_id',
          'stores[0].free_fields',
        ]),
      );
      expectError(await t.post(`${API}/stores`, { stores: 'all of them' }), 400, 'VALIDATION_FAILED');
      expectError(await postRaw('[]'), 400, 'VALIDATION_FAILED');
    });

    it('400 for strings over their published maximum length', async () => {
      const body = expectError(await postStores([storeInput('x'.repeat(65))]), 400, 'VALIDATION_FAILED');
      expect(paths(body)).toEqual(['stores[0].store_number']);
      expect(body.errors[0]!.message).toMatch(/64/);
      expect((await postStores([storeInput('x'.repeat(64))])).statusCode).toBe(200);
    });

    it('400 for non-finite numbers sent as raw JSON text (1e400)', async () => {
      const store = JSON.stringify(storeInput('E4')).slice(0, -1);
      for (const huge of ['1e400', '-1e400']) {
        const body = expectError(
          await postRaw(`{"stores":[${store}, "area_manager_user_id": ${huge}}]}`),
          400,
          'VALIDATION_FAILED',
        );
        expect(paths(body)).toEqual(['stores[0].area_manager_user_id']);
      }
    });

    it('400 for integers outside the safe range', async () => {
      const body = expectError(
        await postStores([storeInput('E5', { price_line_id: 2 ** 60, area_manager_user_id: -(2 ** 60) })]),
        400,
        'VALIDATION_FAILED',
      );
      expect(paths(body).sort()).toEqual(['stores[0].area_manager_user_id', 'stores[0].price_line_id']);
      expectError(await postStores([storeInput('E5', { price_line_id: 1.5 })]), 400, 'VALIDATION_FAILED');
      expect((await postStores([storeInput('E5', { price_line_id: Number.MAX_SAFE_INTEGER })])).statusCode).toBe(200);
    });

    it('400 for invalid date-times: impossible date, a date without a time, free text', async () => {
      const body = expectError(
        await postStores([
          storeInput('E6', { store_next_delivery_datetime: '2024-02-30T10:00:00Z' }),
          storeInput('E7', { store_next_delivery_datetime: '2024-01-01' }),
          storeInput('E8', { store_next_delivery_datetime: 'yesterday' }),
          storeInput('E9', { store_next_ordering_datetime: '2024-01-01T24:00:00Z' }),
        ]),
        400,
        'VALIDATION_FAILED',
      );
      expect(paths(body)).toEqual([
        'stores[0].store_next_delivery_datetime',
        'stores[1].store_next_delivery_datetime',
        'stores[2].store_next_delivery_datetime',
        'stores[3].store_next_ordering_datetime',
      ]);
    });

    it('400 with path `stores` for more than 10,000 items in one request', async () => {
      const stores = Array.from({ length: 10_001 }, (_, i) => storeInput(`B${i}`));
      const body = expectError(await postStores(stores), 400, 'VALIDATION_FAILED');
      expect(body.errors).toEqual([{ path: 'stores', message: expect.stringMatching(/10000/) }]);
      expect((await t.get(`${API}/stores?search_text=B1`)).json().total_count).toBe(0);
    });

    it('400 envelope for malformed JSON and for an empty JSON body', async () => {
      const malformed = expectError(await postRaw('{"stores": [ {"store_number": '), 400, 'VALIDATION_FAILED');
      expect(malformed.message).toMatch(/JSON/);
      expectError(await postRaw('{"stores": []'), 400, 'VALIDATION_FAILED');
      expectError(await postRaw("{'stores': []}"), 400, 'VALIDATION_FAILED');
      expectError(await postRaw(''), 400, 'VALIDATION_FAILED');
      expectError(await t.request({ method: 'POST', url: `${API}/stores` }), 400, 'VALIDATION_FAILED');
    });

    it('415 for any body that is not JSON', async () => {
      for (const [type, payload] of [
        ['text/plain', '{"stores": []}'],
        ['application/xml', '<stores/>'],
        ['application/x-www-form-urlencoded', 'stores=1'],
        ['multipart/form-data; boundary=x', '--x--'],
      ] as const) {
        const body = expectError(await postRaw(payload, { 'content-type': type }), 415, 'UNSUPPORTED_MEDIA_TYPE');
        expect(body.message, type).not.toBe('');
      }
      expect((await postRaw('{"stores": []}', { 'content-type': 'application/json; charset=utf-8' })).statusCode).toBe(
        200,
      );
    });

    it('413 for a body over 32 MiB', async () => {
      const payload = `{"stores": [], "filler": "${'x'.repeat(32 * 1024 * 1024)}"}`;
      expectError(await postRaw(payload), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('404 envelope for an unknown route, inside and outside the API, with or without a credential', async () => {
      const inside = expectError(await t.get(`${API}/no-such-thing`), 404, 'NOT_FOUND');
      expect(inside.message).toContain('/api/v2/public/no-such-thing');
      expectError(await t.get(`${API}/no-such-thing`, null), 404, 'NOT_FOUND');
      expectError(await t.get('/nowhere', null), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'DELETE', url: `${API}/stores` }), 404, 'NOT_FOUND');
    });

    it('every answer carries its x-request-id: success, 400, 401, 404, 415, and HEAD', async () => {
      const answers = [
        await t.get(`${API}/stores`),
        await postStores([{ store_number: 7 }]),
        await t.get(`${API}/stores`, null),
        await t.get(`${API}/no-such-thing`),
        await t.get('/nowhere', null),
        await postRaw('<stores/>', { 'content-type': 'application/xml' }),
        await t.request({ method: 'HEAD', url: `${API}/stores` }),
      ];
      expect(answers.map((a) => a.statusCode)).toEqual([200, 400, 401, 404, 404, 415, 200]);
      const ids = answers.map((a) => a.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(ids).size).toBe(ids.length);
      // A caller's own request id is kept, so logs on both sides line up.
      const traced = await t.request({
        method: 'GET',
        url: `${API}/stores`,
        headers: { 'x-request-id': 'erp-trace-42' },
      });
      expect(traced.headers['x-request-id']).toBe('erp-trace-42');
      // Not an id that is huge or beyond ASCII: the answer would echo it (a fresh UUID instead).
      for (const sent of ['x'.repeat(129), 'é'.repeat(8000), 'two words', '']) {
        const answer = await t.request({ method: 'GET', url: `${API}/stores`, headers: { 'x-request-id': sent } });
        expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      }
      expect(
        (await t.request({ method: 'GET', url: `${API}/stores`, headers: { 'x-request-id': 'x'.repeat(128) } }))
          .headers['x-request-id'],
      ).toBe('x'.repeat(128));
    });

    it('500 INTERNAL carries no stack trace, SQL or driver detail', async () => {
      expect((await postStores([storeInput('CORRUPT')])).statusCode).toBe(200);
      await t.app.ctx.db
        .updateTable('stores')
        .set({ opening_hours: '{not json' })
        .where('store_number', '=', 'CORRUPT')
        .execute();
      const body = expectError(await t.get(`${API}/stores`), 500, 'INTERNAL');
      expect(body.message).toBe('Internal server error');
      expect(body.errors).toEqual([]);
      const text = JSON.stringify(body);
      for (const leak of ['SyntaxError', 'JSON', ' at ', '.ts', 'select', 'opening_hours'])
        expect(text).not.toContain(leak);
      await t.app.ctx.db.deleteFrom('stores').where('store_number', '=', 'CORRUPT').execute();
      expect((await t.get(`${API}/stores`)).statusCode).toBe(200);
    });
  });

  describe(`database unreachable (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('U1')] });
      // PRODUCT §3: the database going away is a 503, for reads, writes and the credential check.
      await t.app.ctx.handle.close();
    });
    afterAll(async () => {
      await t.close().catch(() => undefined);
      await dialect.cleanup();
    });

    it('503 UNAVAILABLE for reads and writes, without driver detail, with Retry-After (issue 27)', async () => {
      const response = await t.get(`${API}/stores`);
      const read = expectError(response, 503, 'UNAVAILABLE');
      expect(read.message).not.toMatch(/destroyed|kysely|driver/i);
      expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expectError(await t.post(`${API}/stores`, { stores: [storeInput('U2')] }), 503, 'UNAVAILABLE');
      expectError(await t.get(`${API}/stores`, 'a-token-never-seen'), 503, 'UNAVAILABLE');
    });
  });
}

describe('error handler and validator on a bare Fastify app (no route uses Quantity/Money yet)', () => {
  let app: FastifyInstance;
  let handle: DbHandle;
  let received: unknown;
  beforeAll(async () => {
    handle = createDb('sqlite::memory:');
    app = Fastify();
    app.setValidatorCompiler(createValidatorCompiler());
    registerErrorHandler(app, handle.dialect);
    registerJsonBody(app);
    app.post(
      '/amounts',
      {
        schema: {
          body: Type.Object({ quantity: Type.Optional(Quantity()), price: Type.Optional(Money()) }),
          querystring: Type.Object({ n: Type.Optional(Type.Integer()) }),
        },
      },
      async (request) => {
        received = { body: request.body, query: request.query };
        return { ok: true };
      },
    );
    app.get('/unprocessable', async () => {
      throw unprocessable('Unknown product', [{ path: 'lines[3].product_number', message: "unknown product 'P9'" }]);
    });
    app.get('/crash', async () => {
      const error = new Error('select * from api_tokens where token_hash = $1 -- secret');
      error.stack = `${error.message}\n    at crash (/work/main/src/secret.ts:1:1)`;
      throw error;
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await handle.close();
  });

  const post = (payload: unknown, url = '/amounts') => app.inject({ method: 'POST', url, payload: payload as object });

  it('accepts quantities to 3 decimals and money to 4, as sent', async () => {
    const response = await post({ quantity: 1.234, price: 19.9999 }, '/amounts?n=5');
    expect(response.statusCode).toBe(200);
    expect(received).toEqual({ body: { quantity: 1.234, price: 19.9999 }, query: { n: 5 } });
    expect((await post({ quantity: -999_999_999_999, price: 99_999_999_999 })).statusCode).toBe(200);
    expect((await post({ quantity: 99_999_999_999.999, price: 9_999_999_999.9999 })).statusCode).toBe(200);
  });

  it('400 for more decimals than the field allows, every field listed', async () => {
    const response = await post({ quantity: 1.2345, price: 1.23456 });
    const body = expectError(response, 400, 'VALIDATION_FAILED');
    expect(body.errors).toEqual([
      { path: 'quantity', message: 'must have at most 3 decimals' },
      { path: 'price', message: 'must have at most 4 decimals' },
    ]);
    expectError(await post({ quantity: 1e-7 }), 400, 'VALIDATION_FAILED');
    expectError(await post({ quantity: 1.5e-7 }), 400, 'VALIDATION_FAILED');
  });

  it('400 for amounts beyond 15 significant digits (a double cannot carry them exactly)', async () => {
    expectError(await post({ price: 843_930_006_260.0926 }), 400, 'VALIDATION_FAILED');
    expectError(await post({ quantity: 1e21 }), 400, 'VALIDATION_FAILED');
    const huge = await app.inject({
      method: 'POST',
      url: '/amounts',
      payload: '{"quantity": 1e400, "price": -1e400}',
      headers: json,
    });
    expect([...new Set(paths(expectError(huge, 400, 'VALIDATION_FAILED')))].sort()).toEqual(['price', 'quantity']);
  });

  it('400 with a query path for a query that does not validate', async () => {
    const body = expectError(await post({}, '/amounts?n=abc'), 400, 'VALIDATION_FAILED');
    expect(paths(body)).toEqual(['query.n']);
  });

  it('422 UNPROCESSABLE keeps its message and paths', async () => {
    const body = expectError(await app.inject({ method: 'GET', url: '/unprocessable' }), 422, 'UNPROCESSABLE');
    expect(body).toEqual({
      success: false,
      code: 'UNPROCESSABLE',
      message: 'Unknown product',
      errors: [{ path: 'lines[3].product_number', message: "unknown product 'P9'" }],
    });
  });

  it('500 INTERNAL hides the message and stack of an unexpected error', async () => {
    const response = await app.inject({ method: 'GET', url: '/crash' });
    const body = expectError(response, 500, 'INTERNAL');
    expect(body.message).toBe('Internal server error');
    expect(response.body).not.toMatch(/select|secret|api_tokens|\.ts|at crash/);
  });
});
