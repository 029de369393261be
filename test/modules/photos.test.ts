import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PHOTO_BYTES } from '../../src/modules/photos/schema.js';
import { PHOTO_BYTES_PER_STORE_PER_DAY } from '../../src/modules/photos/quota.js';
import { sniffImageType } from '../../src/modules/photos/image-types.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';

/**
 * Tiny images: only the first bytes are checked (docs/photos.md "Content types"), so a
 * signature and a few bytes of each is enough; a random tail makes every photo its own.
 */
const tail = (size = 16) => randomBytes(size);
const jpeg = (size?: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), tail(size)]);
const png = () =>
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]), tail()]);
const webp = () => {
  const body = Buffer.concat([Buffer.from('WEBPVP8 '), tail()]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return Buffer.concat([Buffer.from('RIFF'), size, body]);
};
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const photoUrl = (store: string, hash: string) => `${API}/stores/${store}/photos/${hash}`;

type Answer = { statusCode: number; json(): any; headers: Record<string, unknown>; rawPayload: Buffer; body: string };

describe('image types by their first bytes', () => {
  it('tells JPEG, PNG and WebP apart, and nothing else', () => {
    expect(sniffImageType(jpeg())).toBe('image/jpeg');
    expect(sniffImageType(png())).toBe('image/png');
    expect(sniffImageType(webp())).toBe('image/webp');
    expect(sniffImageType(Buffer.from('GIF89a..........'))).toBeUndefined();
    // A RIFF that is not WebP (a WAV file), and signatures cut short.
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WAVEfmt '))).toBeUndefined();
    expect(sniffImageType(Buffer.from([0xff, 0xd8]))).toBeUndefined();
    expect(sniffImageType(Buffer.from('RIFF'))).toBeUndefined();
  });
});

for (const dialect of DIALECTS) {
  describe(`loss photos (${dialect.name})`, () => {
    let t: TestApp;
    let s1Token: string;
    let s2Token: string;
    let readToken: string;

    const put = (store: string, hash: string, bytes: Buffer | string | undefined, type?: string, headers = {}) =>
      t.request({
        method: 'PUT',
        url: photoUrl(store, hash),
        headers: { ...(type === undefined ? {} : { 'content-type': type }), ...headers },
        payload: bytes,
        token: s1Token,
      }) as Promise<Answer>;
    const upload = (bytes: Buffer, type: string, store = 'S1', token = s1Token) =>
      t.request({
        method: 'PUT',
        url: photoUrl(store, sha256(bytes)),
        headers: { 'content-type': type },
        payload: bytes,
        token,
      }) as Promise<Answer>;
    const expectRefusal = (answer: Answer, status: number, code: string, path?: string) => {
      expect(answer.statusCode, answer.body).toBe(status);
      const envelope = answer.json();
      expect(envelope).toMatchObject({ success: false, code });
      expect(envelope.message).not.toBe('');
      if (path !== undefined) expect(envelope.errors.map((e: { path: string }) => e.path)).toContain(path);
      return envelope;
    };

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      const stores = await t.post(`${API}/stores`, {
        stores: ['S1', 'S2', 'S3', 'S 4'].map((number) => storeInput(number)),
      });
      expect(stores.statusCode, stores.body).toBe(200);
      s1Token = await t.token('store', ['S1', 'S 4']);
      s2Token = await t.token('store', ['S2']);
      readToken = await t.token('read');
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('stores a JPEG, a PNG and a WebP: 201 with the path in the Ack, Location and ETag', async () => {
      for (const [bytes, type] of [
        [jpeg(), 'image/jpeg'],
        [png(), 'image/png'],
        [webp(), 'image/webp'],
      ] as const) {
        const hash = sha256(bytes);
        const answer = await upload(bytes, type);
        expect(answer.statusCode, answer.body).toBe(201);
        expect(answer.json()).toEqual({ success: true, data: photoUrl('S1', hash), message: 'stored' });
        expect(answer.headers.location).toBe(photoUrl('S1', hash));
        expect(answer.headers.etag).toBe(`"${hash}"`);

        const read = (await t.get(photoUrl('S1', hash), s1Token)) as Answer;
        expect(read.statusCode).toBe(200);
        expect(read.rawPayload.equals(bytes)).toBe(true);
        expect(read.headers['content-type']).toBe(type);
        expect(read.headers['content-length']).toBe(String(bytes.length));
      }
    });

    it('serves a photo as an image only: immutable private caching, nosniff, a sandboxing CSP, the hash as ETag', async () => {
      const bytes = jpeg();
      const hash = sha256(bytes);
      expect((await upload(bytes, 'image/jpeg')).statusCode).toBe(201);
      const read = (await t.get(photoUrl('S1', hash), s1Token)) as Answer;
      expect(read.headers).toMatchObject({
        'cache-control': 'private, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cross-origin-resource-policy': 'same-origin',
        etag: `"${hash}"`,
      });
      // Asked again with its ETag: 304, no bytes.
      for (const tag of [`"${hash}"`, `W/"${hash}"`, `"other", "${hash}"`, '*']) {
        const again = (await t.request({
          method: 'GET',
          url: photoUrl('S1', hash),
          headers: { 'if-none-match': tag },
          token: s1Token,
        })) as Answer;
        expect(again.statusCode, tag).toBe(304);
        expect(again.rawPayload.length).toBe(0);
        expect(again.headers).toMatchObject({
          etag: `"${hash}"`,
          'cache-control': 'private, max-age=31536000, immutable',
        });
      }
      const head = (await t.request({ method: 'HEAD', url: photoUrl('S1', hash), token: s1Token })) as Answer;
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-type']).toBe('image/jpeg');
      expect(head.rawPayload.length).toBe(0);
    });

    it('takes the same photo again as a no-op: 200, nothing changed, also under an Idempotency-Key', async () => {
      const bytes = png();
      const hash = sha256(bytes);
      expect((await upload(bytes, 'image/png')).statusCode).toBe(201);
      const again = await upload(bytes, 'image/png');
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ success: true, data: photoUrl('S1', hash), message: 'already stored' });
      const rows = await t.app.ctx.db
        .selectFrom('photos')
        .select(['created_by', 'byte_size', 'content_type'])
        .where('sha256', '=', hash)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ byte_size: bytes.length, content_type: 'image/png' });

      // The outbox sends every action under its own key: the first answer is replayed as it was.
      const keyed = webp();
      const first = await put('S1', sha256(keyed), keyed, 'image/webp', { 'idempotency-key': 'photo-1' });
      const replay = await put('S1', sha256(keyed), keyed, 'image/webp', { 'idempotency-key': 'photo-1' });
      expect(first.statusCode).toBe(201);
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json()).toEqual(first.json());
    });

    it('keeps one store’s photo apart from another’s: the same bytes are stored per store', async () => {
      const bytes = jpeg();
      expect((await upload(bytes, 'image/jpeg', 'S1')).statusCode).toBe(201);
      expect((await upload(bytes, 'image/jpeg', 'S2', s2Token)).statusCode).toBe(201);
      expect((await t.get(photoUrl('S3', sha256(bytes)))).statusCode).toBe(404);
    });

    it('refuses a body whose SHA-256 is not the path’s: 400 naming params.sha256', async () => {
      const bytes = jpeg();
      const wrong = sha256(Buffer.from('something else'));
      const envelope = expectRefusal(await put('S1', wrong, bytes, 'image/jpeg'), 400, 'VALIDATION_FAILED');
      expect(envelope.errors).toEqual([
        { path: 'params.sha256', message: `must be the SHA-256 of the body, which is ${sha256(bytes)}` },
      ]);
      expect((await t.get(photoUrl('S1', wrong))).statusCode).toBe(404);
    });

    it('refuses any other content type, or none: 415 naming the header', async () => {
      const bytes = jpeg();
      const hash = sha256(bytes);
      for (const type of ['image/gif', 'image/jpg', 'application/json', 'text/plain', 'application/octet-stream']) {
        const payload = type === 'application/json' ? '{"photo": 1}' : bytes;
        expectRefusal(await put('S1', hash, payload, type), 415, 'UNSUPPORTED_MEDIA_TYPE', 'headers.content-type');
      }
      // The bytes without a Content-Type, and no body at all.
      expectRefusal(await put('S1', hash, bytes), 415, 'UNSUPPORTED_MEDIA_TYPE', 'headers.content-type');
      expectRefusal(await put('S1', hash, undefined), 415, 'UNSUPPORTED_MEDIA_TYPE', 'headers.content-type');
      // Parameters and case do not matter to the type.
      expect((await put('S1', hash, bytes, 'Image/JPEG; q=1')).statusCode).toBe(201);
      // Every other route still takes JSON only.
      expectRefusal(
        (await t.request({
          method: 'POST',
          url: `${API}/stores`,
          headers: { 'content-type': 'image/jpeg' },
          payload: bytes,
        })) as Answer,
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });

    it('refuses bytes that are not of the declared type: 415 saying what they are', async () => {
      const pngBytes = png();
      const envelope = expectRefusal(
        await put('S1', sha256(pngBytes), pngBytes, 'image/jpeg'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'headers.content-type',
      );
      expect(envelope.message).toBe('The body is not a JPEG image as its Content-Type says: it is a PNG image');
      const html = Buffer.from('<html><script>alert(1)</script></html>');
      const other = expectRefusal(
        await put('S1', sha256(html), html, 'image/png'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'headers.content-type',
      );
      expect(other.message).toContain('none of image/jpeg, image/png, image/webp');
      expect((await t.get(photoUrl('S1', sha256(html)))).statusCode).toBe(404);
    });

    it('refuses an empty body: 400 naming the body', async () => {
      const empty = Buffer.alloc(0);
      expectRefusal(await put('S1', sha256(empty), empty, 'image/jpeg'), 400, 'VALIDATION_FAILED', 'body');
    });

    it(`refuses a photo over ${MAX_PHOTO_BYTES} bytes: 413 in the envelope, stating the limit`, async () => {
      const atLimit = jpeg(MAX_PHOTO_BYTES - 6);
      expect(atLimit.length).toBe(MAX_PHOTO_BYTES);
      expect((await upload(atLimit, 'image/jpeg')).statusCode).toBe(201);
      const over = jpeg(MAX_PHOTO_BYTES - 5);
      const envelope = expectRefusal(await upload(over, 'image/jpeg'), 413, 'PAYLOAD_TOO_LARGE', 'body');
      expect(envelope.message).toContain(String(MAX_PHOTO_BYTES));
    });

    it('lets a store token upload and read only its own stores’ photos; read tokens only read', async () => {
      const bytes = jpeg();
      const hash = sha256(bytes);
      expectRefusal(await upload(bytes, 'image/jpeg', 'S1', s2Token), 403, 'FORBIDDEN');
      expect((await upload(bytes, 'image/jpeg', 'S1')).statusCode).toBe(201);
      expectRefusal((await t.get(photoUrl('S1', hash), s2Token)) as Answer, 403, 'FORBIDDEN');
      expectRefusal((await t.get(photoUrl('S1', hash), null)) as Answer, 401, 'UNAUTHORIZED');
      expectRefusal(await upload(bytes, 'image/jpeg', 'S1', readToken), 403, 'FORBIDDEN');
      expect((await t.get(photoUrl('S1', hash), readToken)).statusCode).toBe(200);
      // A store number that needs escaping is named escaped in the path.
      const spaced = await upload(bytes, 'image/jpeg', 'S%204');
      expect(spaced.statusCode, spaced.body).toBe(201);
      expect(spaced.json().data).toBe(photoUrl('S%204', hash));
      expect((await t.get(spaced.json().data, s1Token)).statusCode).toBe(200);
    });

    it('answers 404 for an unknown photo and for an upload to an unknown store', async () => {
      const bytes = jpeg();
      const unknown = (await t.get(photoUrl('S1', sha256(bytes)))) as Answer;
      expectRefusal(unknown, 404, 'NOT_FOUND');
      // Not cached like a photo: it may arrive a moment later from the device's outbox.
      expect(unknown.headers['cache-control']).toBeUndefined();
      expect(unknown.headers.etag).toBeUndefined();
      const missing = (await t.request({
        method: 'GET',
        url: photoUrl('S1', sha256(bytes)),
        headers: { 'if-none-match': '*' },
      })) as Answer;
      expectRefusal(missing, 404, 'NOT_FOUND');
      const admin = (await t.request({
        method: 'PUT',
        url: photoUrl('NOPE', sha256(bytes)),
        headers: { 'content-type': 'image/jpeg' },
        payload: bytes,
      })) as Answer;
      expectRefusal(admin, 404, 'NOT_FOUND');
    });

    it('refuses hostile path values with a 400 naming the parameter', async () => {
      const bytes = jpeg();
      const hash = sha256(bytes);
      for (const bad of [
        hash.toUpperCase(),
        hash.slice(1),
        `${hash}0`,
        'z'.repeat(64),
        `${hash.slice(2)}%00`,
        '..%2F..%2Fstores',
      ]) {
        expectRefusal(await put('S1', bad, bytes, 'image/jpeg'), 400, 'VALIDATION_FAILED', 'params.sha256');
        expectRefusal((await t.get(photoUrl('S1', bad))) as Answer, 400, 'VALIDATION_FAILED', 'params.sha256');
      }
      const longStore = 'S'.repeat(65);
      expectRefusal(
        (await t.get(photoUrl(longStore, hash))) as Answer,
        400,
        'VALIDATION_FAILED',
        'params.store_number',
      );
      expectRefusal((await t.get(photoUrl('S%00', hash))) as Answer, 400, 'VALIDATION_FAILED', 'params.store_number');
    });

    it('refuses a store’s upload beyond its daily quota with 429 and Retry-After; a photo already stored is still a no-op', async () => {
      const s3Token = await t.token('store', ['S3']);
      const stored = jpeg();
      expect((await upload(stored, 'image/jpeg', 'S3', s3Token)).statusCode).toBe(201);
      // The day's bytes used up, as if by many uploads (only byte_size counts towards the quota).
      await t.app.ctx.db
        .insertInto('photos')
        .values({
          store_number: 'S3',
          sha256: '0'.repeat(64),
          content_type: 'image/jpeg',
          bytes: Buffer.from([0xff, 0xd8, 0xff]),
          byte_size: PHOTO_BYTES_PER_STORE_PER_DAY - stored.length,
          created_on: Date.now(),
          created_by: 'test',
        })
        .execute();
      const refused = await upload(jpeg(), 'image/jpeg', 'S3', s3Token);
      expectRefusal(refused, 429, 'RATE_LIMITED');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
      expect((await upload(stored, 'image/jpeg', 'S3', s3Token)).statusCode).toBe(200);
      // Another store's quota is its own.
      expect((await upload(jpeg(), 'image/jpeg', 'S2', s2Token)).statusCode).toBe(201);
    });

    it('is in the OpenAPI document: raw image bodies, a patterned sha256, binary answers', async () => {
      const document = (await t.get(`${API}/openapi.json`, null)).json();
      const item = document.paths[`${API}/stores/{store_number}/photos/{sha256}`];
      expect(Object.keys(item).sort()).toEqual(['get', 'put']);
      const sha = item.put.parameters.find((p: { name: string }) => p.name === 'sha256');
      expect(sha).toMatchObject({ in: 'path', required: true, schema: { pattern: '^[0-9a-f]{64}$', maxLength: 64 } });
      expect(Object.keys(item.put.requestBody.content).sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
      expect(item.put.requestBody.content['image/jpeg'].schema).toMatchObject({
        type: 'string',
        format: 'binary',
        maxLength: MAX_PHOTO_BYTES,
      });
      expect(Object.keys(item.put.responses)).toEqual(expect.arrayContaining(['200', '201', '4XX']));
      expect(Object.keys(item.get.responses['200'].content).sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    });
  });
}
