import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, storeInput } from '../helpers/factories.js';

// Issue 31 read scaling without DATABASE_READ_URL: no write answers `x-read-after` (its query
// would cost every write for nothing); on PostgreSQL a GET still checks a token it is sent (400
// when malformed) and is served by the primary; SQLite ignores the header. No `x-served-by`.

for (const dialect of DIALECTS) {
  describe(`x-read-after without standbys (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it(
      dialect.name === 'postgres' ? 'a write answers no token; a read checks the one it is sent' : 'no token on SQLite',
      async () => {
        const write = await t.post(`${API}/stores`, { stores: [storeInput('H1')] });
        expect(write.statusCode).toBe(200);
        expect((await t.post(`${API}/products`, { products: [productInput('H-1')] })).statusCode).toBe(200);
        const url = `${API}/stores/H1/products/H-1/stock`;
        const plain = await t.get(url);
        expect(plain.statusCode).toBe(200);
        expect(plain.headers['x-served-by']).toBeUndefined();
        expect(write.headers['x-read-after']).toBeUndefined();
        if (dialect.name === 'sqlite') return;
        // A token from a process that has standbys: checked, then the primary answers.
        const token = '0/16B3748';
        const read = await t.request({ method: 'GET', url, headers: { 'x-read-after': token } });
        expect(read.statusCode).toBe(200);
        const bad = await t.request({ method: 'GET', url, headers: { 'x-read-after': 'latest' } });
        expect(bad.statusCode).toBe(400);
        expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'headers.x-read-after' }] });
        // A refused write carries none.
        const refused = await t.post(`${API}/stores`, { stores: [{}] });
        expect(refused.statusCode).toBe(400);
        expect(refused.headers['x-read-after']).toBeUndefined();
      },
    );
  });
}
