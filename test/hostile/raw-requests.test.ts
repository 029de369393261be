import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';
import { expectEnvelope, listen, parseRawAnswer, type RawClient } from './raw-http.js';

/**
 * Issue 10 §2: requests refused before or outside a route's own validation — by the
 * router, by Node's HTTP parser, by the body parser — answer in the PRODUCT §3 envelope,
 * sent as raw bytes over a real socket.
 */
const BAD_ENCODINGS = ['%zz', '%E0%A4%A', '%', '%C0%AF', '%ED%A0%80', '%FF'];
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };

for (const dialect of DIALECTS) {
  describe(`raw hostile requests (${dialect.name})`, () => {
    let t: TestApp;
    let client: RawClient;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
      client = await listen(t.app);
      expect((await t.post(`${API}/stores`, { stores: [storeInput('S1')] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      client.close();
      await t.close();
      await dialect.cleanup();
    });

    const get = (path: string, headers: Record<string, string> = auth) =>
      client.request({ method: 'GET', path, headers });
    const postStoresText = (body: string | Buffer) =>
      client.request({ method: 'POST', path: `${API}/stores`, headers: json, body });
    const storeCount = async () => (await t.get(`${API}/stores`)).json().total_count as number;

    it('400 envelope for invalid percent-encoding in any path segment, with and without a credential', async () => {
      for (const bad of BAD_ENCODINGS) {
        for (const path of [
          `${API}/stores/${bad}/locations`,
          `${API}/stores/S1/products/P${bad}/stock`,
          `${API}/sto${bad}res`,
        ]) {
          for (const headers of [auth, {}]) {
            const answer = await get(path, headers);
            const envelope = expectEnvelope(answer, 400, 'VALIDATION_FAILED');
            expect(envelope.errors.map((e) => e.path)).toEqual(['params']);
            expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
          }
        }
      }
    });

    it('400 envelope for a 5,000-character path parameter, without echoing the URL', async () => {
      const huge = 'x'.repeat(5000);
      for (const headers of [auth, {}]) {
        const answer = await get(`${API}/stores/${huge}/locations`, headers);
        expectEnvelope(answer, 400, 'VALIDATION_FAILED');
        expect(answer.text.length).toBeLessThan(1000);
      }
      // An unknown route of 10,000 characters is named by its start.
      const unknown = expectEnvelope(await get(`${API}/${'y'.repeat(10_000)}`), 404, 'NOT_FOUND');
      expect(unknown.message.length).toBeLessThan(300);
      // Over its own published limit but under the router's: the schema names it.
      const named = expectEnvelope(await get(`${API}/stores/${'x'.repeat(65)}/locations`), 400, 'VALIDATION_FAILED');
      expect(named.errors.map((e) => e.path)).toEqual(['params.store_number']);
    });

    it('431 envelope for a request line or headers over the 16 KiB limit, then the connection closes', async () => {
      const longQuery = `${API}/stores?${'page_size=1&'.repeat(1500)}`;
      const headerFlood = `X-Filler: ${'y'.repeat(20_000)}\r\n`;
      for (const request of [
        `GET ${longQuery} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`,
        `GET ${API}/stores HTTP/1.1\r\nHost: x\r\n${headerFlood}\r\n`,
      ]) {
        const answer = parseRawAnswer(await client.socket(request));
        const envelope = expectEnvelope(answer, 431, 'HEADERS_TOO_LARGE');
        expect(envelope.errors.map((e) => e.path)).toEqual(['headers']);
        expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
        expect(answer.headers.connection).toBe('close');
      }
    });

    it('400 envelope for a request Node cannot parse as HTTP: a bad request line or method, a NUL or bare CR in a header, a bad length or chunk', async () => {
      for (const request of [
        'GET /api v2 HTTP/1.1 nonsense\r\n\r\n',
        `GET ${API}/stores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\u0000b\r\n\r\n`,
        `GET ${API}/stores HTTP/1.1\r\nHost: x\r\nX-Odd: a\rb\r\n\r\n`,
        `POST ${API}/stores HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}`,
        `POST ${API}/stores HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
        `POST ${API}/stores HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        `BREW ${API}/stores HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]) {
        expectEnvelope(parseRawAnswer(await client.socket(request)), 400, 'VALIDATION_FAILED');
      }
      // Bytes beyond ASCII in a credential are just an unknown token.
      const latin1 = await client.socket(
        Buffer.from(
          `GET ${API}/stores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cl\xe9\xff\r\nConnection: close\r\n\r\n`,
          'latin1',
        ),
      );
      expectEnvelope(parseRawAnswer(latin1), 401, 'UNAUTHORIZED');
    });

    it('400 naming the field for lone surrogates in a body, nothing stored', async () => {
      const before = await storeCount();
      for (const lone of ['\\ud800', '\\udc00', '\\uDBFF', '\\uDFFF']) {
        const body = `{"stores":[${JSON.stringify(storeInput('OK1'))},${JSON.stringify(storeInput('S2')).replace('"S2"', `"S2${lone}"`)}]}`;
        const envelope = expectEnvelope(await postStoresText(body), 400, 'VALIDATION_FAILED');
        expect(envelope.errors).toEqual([
          { path: 'stores[1].store_number', message: expect.stringMatching(/well-formed/) },
        ]);
      }
      // A lone surrogate in a key is refused too; an unknown key is otherwise ignored.
      const inKey = expectEnvelope(await postStoresText(`{"stores":[],"x\\ud800":1}`), 400, 'VALIDATION_FAILED');
      expect(inKey.errors.map((e) => e.path)).toEqual(['body']);
      expect(await storeCount()).toBe(before);
    });

    it('names a NUL a million arrays deep by its first levels, not by a megabyte of path', async () => {
      const depth = 1_000_000;
      const answer = await postStoresText(`{"stores":[],"deep":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`);
      const envelope = expectEnvelope(answer, 400, 'VALIDATION_FAILED');
      expect(envelope.errors).toEqual([
        { path: `deep${'[0]'.repeat(31)}…`, message: 'must not contain the NUL character' },
      ]);
      // Deep nesting in an unknown field is ignored like the field (PRODUCT §3).
      expect((await postStoresText(`{"stores":[],"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`)).status).toBe(200);
    });

    it('keeps well-formed escapes: a surrogate pair and an escaped backslash before "ud800"', async () => {
      const pair = JSON.stringify(storeInput('S3')).replace('"S3"', '"S3\\ud83d\\ude00"');
      const literal = JSON.stringify(storeInput('S4')).replace('"S4"', '"S4\\\\ud800"');
      expect((await postStoresText(`{"stores":[${pair},${literal}]}`)).status).toBe(200);
      const numbers = (await t.get(`${API}/stores?page_size=1000`))
        .json()
        .list.map((s: { store_number: string }) => s.store_number);
      expect(numbers).toEqual(expect.arrayContaining(['S3😀', 'S4\\ud800']));
    });

    it('400 for body bytes that are not UTF-8 (refused, never replaced by U+FFFD)', async () => {
      const before = await storeCount();
      const text = JSON.stringify({ stores: [storeInput('S5')] });
      const at = text.indexOf('S5') + 2;
      for (const bytes of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0xa4]]) {
        const body = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at))]);
        const envelope = expectEnvelope(await postStoresText(body), 400, 'VALIDATION_FAILED');
        expect(envelope.errors.map((e) => e.path)).toEqual(['body']);
      }
      expect(await storeCount()).toBe(before);
    });

    it('400 naming the query value for invalid percent-encoding or a NUL in a query', async () => {
      for (const bad of [...BAD_ENCODINGS, '%00']) {
        const envelope = expectEnvelope(await get(`${API}/stores?search_text=a${bad}!`), 400, 'VALIDATION_FAILED');
        expect(envelope.errors.map((e) => e.path)).toEqual(['query.search_text']);
      }
      expect((await get(`${API}/stores?search_text=%F0%9F%98%80`)).status).toBe(200);
    });

    it('external counting: 10,000 lines are stored (a 500 before: one insert bound more parameters than SQLite allows); 10,001 are a 400 naming Lines, nothing stored', async () => {
      const line = '{"counted_quantity":1,"product_barcode":"UNKNOWN-BARCODE"}';
      const bodyOf = (lines: number) =>
        `{"CountingDateTime":"2024-01-01T00:00:00Z","StoreNo":"S1","Lines":[${Array(lines).fill(line).join(',')}]}`;
      const unresolvedCount = async () =>
        (await t.get(`${API}/stores/S1/externalcountinglines/unresolved?page_size=1`)).json().total_count;
      const before = await unresolvedCount();

      const over = await client.request({
        method: 'POST',
        path: `${API}/externalcountinglines`,
        headers: json,
        body: bodyOf(10_001),
      });
      expect(over.status, over.text).toBe(400);
      expect(JSON.parse(over.text)).toMatchObject({
        success: false,
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'Lines' }],
      });
      expect(await unresolvedCount()).toBe(before);

      const full = await client.request({
        method: 'POST',
        path: `${API}/externalcountinglines`,
        headers: json,
        body: bodyOf(10_000),
      });
      expect(full.status, full.text).toBe(200);
      expect(await unresolvedCount()).toBe(before + 10_000);
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });
  });
}
