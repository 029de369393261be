import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';

for (const dialect of DIALECTS) {
  describe(`smoke (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('imports and lists stores', async () => {
      const created = await t.post(`${API}/stores`, { stores: [storeInput('S1'), storeInput('S2', { is_warehouse: true })] });
      expect(created.statusCode).toBe(200);
      expect(created.json().message).toBe('created 2, updated 0, unchanged 0, deleted 0');
      const listed = await t.get(`${API}/stores?is_warehouse=true`);
      expect(listed.json().list.map((s: { store_number: string }) => s.store_number)).toEqual(['S2']);
    });
  });
}
