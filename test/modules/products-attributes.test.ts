import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput } from '../helpers/factories.js';

type Json = Record<string, any>;

for (const dialect of DIALECTS) {
  describe(`product attributes and free fields (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const importProducts = (products: unknown[]) => t.post(`${API}/products`, { products });
    const replace = (body: unknown) => t.put(`${API}/products/attributes`, body);
    const mergeFreeFields = (freeFields: unknown[]) =>
      t.post(`${API}/products/freefields`, { free_fields: freeFields });
    const read = async (...numbers: string[]): Promise<Json[]> =>
      (await t.get(`${API}/products?${numbers.map((n) => `product_number=${n}`).join('&')}`)).json().records;
    const updatedOn = async (productNumber: string) =>
      (
        await t.app.ctx.db
          .selectFrom('products')
          .select('updated_on')
          .where('product_number', '=', productNumber)
          .executeTakeFirstOrThrow()
      ).updated_on;

    describe('PUT /products/attributes', () => {
      const red = (n: string) => productInput(n, { color: 'red', brand_code: 'ACME' });

      it('replaces the value across every live product holding exactly old_value', async () => {
        await importProducts([
          red('A1'),
          red('A2'),
          productInput('A3', { color: 'green' }),
          red('A4'),
          productInput('A5', { color: 'Red' }),
        ]);
        await t.del(`${API}/products`, { product_number: ['A4'] });
        const before = await updatedOn('A3');
        const response = await replace({ attribute: 'color', old_value: 'red', new_value: 'blue' });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({ success: true, message: 'changed 2 products' });
        expect((await read('A1', 'A2', 'A3', 'A5')).map((p) => p.color)).toEqual(['blue', 'blue', 'green', 'Red']);
        expect(await updatedOn('A3')).toBe(before);
        const deleted = await t.app.ctx.db
          .selectFrom('products')
          .select('color')
          .where('product_number', '=', 'A4')
          .executeTakeFirstOrThrow();
        expect(deleted.color).toBe('red');
      });

      it('keeps identical-import detection right: the replaced value is now the stored content', async () => {
        const asReplaced = { ...red('A1'), color: 'blue' };
        expect((await importProducts([asReplaced])).json().message).toBe(
          'created 0, updated 0, unchanged 1, deleted 0',
        );
        expect((await importProducts([red('A2')])).json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
        expect((await read('A2'))[0]!.color).toBe('red');
      });

      it('reports zero when nothing holds old_value', async () => {
        expect((await replace({ attribute: 'size', old_value: 'XXL', new_value: 'XL' })).json().message).toBe(
          'changed 0 products',
        );
      });

      it('refuses attributes outside the whitelist, naming the field (400)', async () => {
        for (const attribute of ['product_number', 'barcode', 'price', 'free_fields', 'nonsense']) {
          const response = await replace({ attribute, old_value: 'A1', new_value: 'Z1' });
          expect(response.statusCode).toBe(400);
          expect(response.json().errors).toEqual([
            { path: 'attribute', message: expect.stringContaining('brand_code') },
          ]);
        }
        expect((await read('A1')).length).toBe(1);
      });

      it('refuses a missing field and a new_value longer than the attribute allows', async () => {
        const missing = await replace({ attribute: 'color' });
        expect(missing.statusCode).toBe(400);
        expect(
          missing
            .json()
            .errors.map((e: Json) => e.path)
            .sort(),
        ).toEqual(['new_value', 'old_value']);
        const tooLong = await replace({ attribute: 'color', old_value: 'blue', new_value: 'x'.repeat(65) });
        expect(tooLong.statusCode).toBe(400);
        expect(tooLong.json().errors[0].path).toBe('new_value');
        expect((await read('A1'))[0]!.color).toBe('blue');
      });
    });

    describe('POST /products/freefields', () => {
      const withFields = productInput('FF1', {
        free_fields: [
          { sort_order: 1, key: 'origin', value: 'NL' },
          { sort_order: 2, key: 'season', value: 'summer' },
        ],
      });

      it('merges by key: sent keys replace or add, other keys stay', async () => {
        await importProducts([withFields, productInput('FF2')]);
        const response = await mergeFreeFields([
          {
            country_code: 'NL',
            product_number: 'FF1',
            free_fields: [
              { key: 'season', value: 'winter' },
              { key: 'aisle', sort_order: 0, value: '7' },
            ],
          },
          { country_code: 'NL', product_number: 'FF2', free_fields: [{ key: 'origin', sort_order: 1, value: 'BE' }] },
        ]);
        expect(response.statusCode).toBe(200);
        expect(response.json().message).toBe('updated 2, unchanged 0');
        const [ff1, ff2] = await read('FF1', 'FF2');
        expect(ff1!.free_fields).toEqual([
          { sort_order: 0, key: 'aisle', value: '7' },
          { sort_order: 1, key: 'origin', value: 'NL' },
          { sort_order: 2, key: 'season', value: 'winter' },
        ]);
        expect(ff2!.free_fields).toEqual([{ sort_order: 1, key: 'origin', value: 'BE' }]);
      });

      it('changes nothing when the merge gives what is stored', async () => {
        const before = await updatedOn('FF1');
        const response = await mergeFreeFields([
          { country_code: 'NL', product_number: 'FF1', free_fields: [{ key: 'aisle', sort_order: 0, value: '7' }] },
        ]);
        expect(response.json().message).toBe('updated 0, unchanged 1');
        expect(await updatedOn('FF1')).toBe(before);
      });

      it('keeps identical-import detection right after a merge', async () => {
        expect((await importProducts([withFields])).json().message).toBe(
          'created 0, updated 1, unchanged 0, deleted 0',
        );
        expect((await read('FF1'))[0]!.free_fields.map((f: Json) => f.key)).toEqual(['origin', 'season']);
        expect((await importProducts([withFields])).json().message).toBe(
          'created 0, updated 0, unchanged 1, deleted 0',
        );
      });

      it('refuses unknown or deleted products (422 naming the line), changing nothing', async () => {
        await importProducts([productInput('FF3')]);
        await t.del(`${API}/products`, { product_number: ['FF3'] });
        const response = await mergeFreeFields([
          { country_code: 'NL', product_number: 'FF1', free_fields: [{ key: 'x', value: 'y' }] },
          { country_code: 'NL', product_number: 'NOPE', free_fields: [] },
          { country_code: 'NL', product_number: 'FF3', free_fields: [] },
        ]);
        expect(response.statusCode).toBe(422);
        expect(response.json().errors).toEqual([
          { path: 'free_fields[1].product_number', message: "unknown product 'NOPE'" },
          { path: 'free_fields[2].product_number', message: "unknown product 'FF3'" },
        ]);
        expect((await read('FF1'))[0]!.free_fields.map((f: Json) => f.key)).toEqual(['origin', 'season']);
      });

      it('needs country_code, product_number and a key per field (400)', async () => {
        const response = await mergeFreeFields([{ free_fields: [{ value: 'v' }] }]);
        expect(response.statusCode).toBe(400);
        expect(
          response
            .json()
            .errors.map((e: Json) => e.path)
            .sort(),
        ).toEqual([
          'free_fields[0].country_code',
          'free_fields[0].free_fields[0].key',
          'free_fields[0].product_number',
        ]);
      });
    });
  });
}
