import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hierarchyProblems } from '../../src/modules/categories/hierarchy.js';
import { verifyAll } from '../../src/verify.js';
import { seedDemoData } from '../../src/seed.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { categoryInput, unchecked } from '../helpers/factories.js';

type CategoryRead = Record<string, unknown> & {
  category_code: string;
  parent_category_code: string;
  updated_on: string;
};
type FieldErrors = Array<{ path: string; message: string }>;

describe('category hierarchy rules', () => {
  const tree = (links: Record<string, string>) => (code: string) => links[code];

  it('accepts a forest whose parents are the root or known codes', () => {
    expect(hierarchyProblems(['A', 'B', 'C'], tree({ A: '0', B: 'A', C: 'B' }))).toEqual([]);
  });

  it('reports an unknown parent for the code naming it', () => {
    expect(hierarchyProblems(['A', 'B'], tree({ A: '0', B: 'X' }))).toEqual([
      { kind: 'unknown-parent', code: 'B', parent: 'X' },
    ]);
  });

  it('reports a self-parent and a longer cycle once each, from their first member', () => {
    expect(hierarchyProblems(['S', 'C', 'A', 'B'], tree({ S: 'S', A: 'B', B: 'C', C: 'A' }))).toEqual([
      { kind: 'cycle', code: 'S', cycle: ['S', 'S'] },
      { kind: 'cycle', code: 'C', cycle: ['C', 'A', 'B', 'C'] },
    ]);
  });

  it('finds a problem exactly when some walk up the parents fails to reach the root', () => {
    const codes = ['A', 'B', 'C', 'D', 'E'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom('0', ...codes, 'X'), { minLength: 5, maxLength: 5 }), (parents) => {
        const links = Object.fromEntries(codes.map((code, i) => [code, parents[i]!]));
        const reachesRoot = (code: string) => {
          let current: string | undefined = code;
          for (let steps = 0; steps <= codes.length; steps++) {
            if (current === '0') return true;
            current = links[current!];
            if (current === undefined) return false;
          }
          return false;
        };
        const problems = hierarchyProblems(codes, tree(links));
        expect(problems.length === 0).toBe(codes.every(reachesRoot));
        for (const problem of problems) {
          if (problem.kind !== 'cycle') continue;
          // Each reported cycle is real: every member's parent is the next one.
          problem.cycle.slice(0, -1).forEach((code, i) => expect(links[code]).toBe(problem.cycle[i + 1]));
        }
      }),
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`categories (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const post = (categories: unknown[], query = '', token?: string) =>
      t.post(`${API}/categories${query}`, { categories }, token);
    const list = async (query = '', token?: string): Promise<CategoryRead[]> => {
      const response = await t.get(`${API}/categories${query}`, token);
      expect(response.statusCode).toBe(200);
      return response.json().list;
    };
    const codes = (items: CategoryRead[]) => items.map((c) => c.category_code).sort();
    const errorsOf = (response: { json(): { errors: FieldErrors } }) => response.json().errors;

    it('creates categories and reads them in the PRODUCT §6 shape, parent defaulting to the root', async () => {
      const created = await post([
        categoryInput('C-FRUIT', {
          category_name: 'Fruit',
          friendly_category_name: 'Fresh fruit',
          is_adjust_min_max: true,
          is_markdown: true,
          markdown_percentages: '10, 25.5,100',
          expiration_offset: -3,
          receipt_offset: 7,
        }),
      ]);
      expect(created.statusCode).toBe(200);
      expect(created.json()).toEqual({ success: true, message: 'created 1, updated 0, unchanged 0, deleted 0' });

      const [fruit] = await list('?search_text=Fruit');
      expect(fruit).toEqual({
        id: expect.any(Number),
        category_code: 'C-FRUIT',
        category_name: 'Fruit',
        friendly_category_name: 'Fresh fruit',
        parent_category_code: '0',
        is_adjust_min_max: true,
        is_markdown: true,
        markdown_percentages: '10, 25.5,100',
        expiration_offset: -3,
        receipt_offset: 7,
        created_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updated_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
    });

    it('leaves everything alone on an identical re-send, updated_on included, and counts a change', async () => {
      const batch = [categoryInput('R-1'), categoryInput('R-2', { parent_category_code: 'R-1' })];
      expect((await post(batch)).json().message).toBe('created 2, updated 0, unchanged 0, deleted 0');
      const before = await list('?search_text=Category R-');
      const again = await post(batch);
      expect(again.json().message).toBe('created 0, updated 0, unchanged 2, deleted 0');
      expect(await list('?search_text=Category R-')).toEqual(before);

      const changed = await post([
        categoryInput('R-2', { parent_category_code: 'R-1', category_name: 'Category R-2 renamed' }),
      ]);
      expect(changed.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      const renamed = (await list('?search_text=R-2 renamed'))[0]!;
      expect(Date.parse(renamed.updated_on)).toBeGreaterThanOrEqual(
        Date.parse(before.find((c) => c.category_code === 'R-2')!.updated_on),
      );
    });

    it('accepts a parent sent later in the same request, and a stored live parent', async () => {
      const response = await post([
        categoryInput('P-GRANDCHILD', { parent_category_code: 'P-CHILD' }),
        categoryInput('P-CHILD', { parent_category_code: 'P-ROOT' }),
        categoryInput('P-ROOT'),
      ]);
      expect(response.statusCode).toBe(200);
      const stored = await post([categoryInput('P-OTHER', { parent_category_code: 'P-GRANDCHILD' })]);
      expect(stored.statusCode).toBe(200);
      expect(codes(await list('?parent_category_code=P-GRANDCHILD'))).toEqual(['P-OTHER']);
    });

    it('refuses an unknown parent with 422 naming the line and the code, storing nothing', async () => {
      const response = await post([categoryInput('U-1'), categoryInput('U-2', { parent_category_code: 'NOPE' })]);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'UNPROCESSABLE' });
      expect(errorsOf(response)).toEqual([
        { path: 'categories[1].parent_category_code', message: expect.stringContaining("'NOPE'") },
      ]);
      expect(await list('?search_text=Category U-')).toEqual([]);
    });

    it('refuses a self-parent and a cycle with 422 naming the codes in the cycle', async () => {
      const self = await post([categoryInput('Y-SELF', { parent_category_code: 'Y-SELF' })]);
      expect(self.statusCode).toBe(422);
      expect(errorsOf(self)).toEqual([
        { path: 'categories[0].parent_category_code', message: expect.stringContaining('Y-SELF → Y-SELF') },
      ]);

      const cycle = await post([
        categoryInput('Y-OK'),
        categoryInput('Y-A', { parent_category_code: 'Y-B' }),
        categoryInput('Y-B', { parent_category_code: 'Y-C' }),
        categoryInput('Y-C', { parent_category_code: 'Y-A' }),
      ]);
      expect(cycle.statusCode).toBe(422);
      expect(errorsOf(cycle)).toEqual([
        { path: 'categories[1].parent_category_code', message: expect.stringContaining('Y-A → Y-B → Y-C → Y-A') },
      ]);
      expect(await list('?search_text=Category Y-')).toEqual([]);
    });

    it('refuses a cycle closed through stored categories', async () => {
      expect(
        (await post([categoryInput('Z-TOP'), categoryInput('Z-MID', { parent_category_code: 'Z-TOP' })])).statusCode,
      ).toBe(200);
      expect((await post([categoryInput('Z-LOW', { parent_category_code: 'Z-MID' })])).statusCode).toBe(200);
      const response = await post([categoryInput('Z-TOP', { parent_category_code: 'Z-LOW' })]);
      expect(response.statusCode).toBe(422);
      expect(errorsOf(response)[0]).toEqual({
        path: 'categories[0].parent_category_code',
        message: expect.stringContaining('Z-TOP → Z-LOW → Z-MID → Z-TOP'),
      });
      const top = await list('?search_text=Category Z-TOP');
      expect(top[0]!.parent_category_code).toBe('0');
    });

    it('two imports at once cannot close a cycle between them: one of them is refused', async () => {
      for (let round = 0; round < 5; round++) {
        const [a, b] = [`R${round}-A`, `R${round}-B`];
        expect((await post([categoryInput(a), categoryInput(b)])).statusCode).toBe(200);
        // Each alone is a valid re-parenting; together they would make A → B → A.
        const answers = await Promise.all([
          post([categoryInput(a, { parent_category_code: b })]),
          post([categoryInput(b, { parent_category_code: a })]),
        ]);
        expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 422]);
      }
      expect((await verifyAll(t.app.ctx.handle)).filter((v) => v.check === 'categories')).toEqual([]);
    });

    it('re-parents a stored category when no cycle results', async () => {
      expect(
        (
          await post([
            categoryInput('M-A'),
            categoryInput('M-B'),
            categoryInput('M-C', { parent_category_code: 'M-A' }),
          ])
        ).statusCode,
      ).toBe(200);
      const moved = await post([categoryInput('M-C', { parent_category_code: 'M-B' })]);
      expect(moved.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      expect(codes(await list('?parent_category_code=M-B'))).toEqual(['M-C']);
    });

    it('refuses an over-long code, bad types and out-of-range offsets, listing every path in one 400', async () => {
      const response = await post([
        {},
        categoryInput('V-1', unchecked({ is_markdown: 'yes', expiration_offset: 1.5, receipt_offset: 99_999 })),
        categoryInput('x'.repeat(65), { category_name: '' }),
      ]);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
      const paths = errorsOf(response).map((e) => e.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          'categories[0].category_code',
          'categories[0].category_name',
          'categories[0].is_adjust_min_max',
          'categories[0].is_markdown',
          'categories[1].is_markdown',
          'categories[1].expiration_offset',
          'categories[1].receipt_offset',
          'categories[2].category_code',
          'categories[2].category_name',
        ]),
      );
      expect(errorsOf(response).find((e) => e.path === 'categories[0].category_code')!.message).toBe('is required');
      expect((await t.post(`${API}/categories`, {})).statusCode).toBe(400);
    });

    it('refuses the reserved code "0", duplicate codes and bad markdown percentages with 400', async () => {
      const response = await post([
        categoryInput('0'),
        categoryInput('D-1', { markdown_percentages: '10,abc, 150,20.125' }),
        categoryInput('D-1'),
        categoryInput('D-2', { markdown_percentages: '' }),
      ]);
      expect(response.statusCode).toBe(400);
      const errors = errorsOf(response);
      expect(errors.map((e) => e.path).sort()).toEqual([
        'categories[0].category_code',
        'categories[1].markdown_percentages',
        'categories[2].category_code',
      ]);
      expect(errors.find((e) => e.path === 'categories[1].markdown_percentages')!.message).toContain(
        "'abc', '150', '20.125'",
      );

      const emptyIsFine = await post([categoryInput('D-2', { markdown_percentages: '' })]);
      expect(emptyIsFine.statusCode).toBe(200);
      expect((await list('?search_text=Category D-2'))[0]!.markdown_percentages).toBe('');
    });

    it('flush soft-deletes the absent, needs the request to hold its parents, and restores on re-send', async () => {
      // A fresh app: flush replaces the whole set.
      const own = await buildTestApp(dialect);
      try {
        const send = (categories: unknown[], query = '') => own.post(`${API}/categories${query}`, { categories });
        const listed = async () =>
          ((await own.get(`${API}/categories`)).json().list as CategoryRead[]).map((c) => c.category_code).sort();
        expect(
          (
            await send([
              categoryInput('F-ROOT'),
              categoryInput('F-KID', { parent_category_code: 'F-ROOT' }),
              categoryInput('F-GONE'),
            ])
          ).statusCode,
        ).toBe(200);

        const orphan = await send([categoryInput('F-KID', { parent_category_code: 'F-ROOT' })], '?flush=true');
        expect(orphan.statusCode).toBe(422);
        expect(errorsOf(orphan)).toEqual([
          { path: 'categories[0].parent_category_code', message: expect.stringContaining('flush=true') },
        ]);
        expect(await listed()).toEqual(['F-GONE', 'F-KID', 'F-ROOT']);

        const flushed = await send(
          [categoryInput('F-ROOT'), categoryInput('F-KID', { parent_category_code: 'F-ROOT' })],
          '?flush=true',
        );
        expect(flushed.json().message).toBe('created 0, updated 0, unchanged 2, deleted 1');
        expect(await listed()).toEqual(['F-KID', 'F-ROOT']);
        const row = await own.app.ctx.db
          .selectFrom('categories')
          .select(['deleted_on'])
          .where('category_code', '=', 'F-GONE')
          .executeTakeFirstOrThrow();
        expect(row.deleted_on).not.toBeNull();

        // A soft-deleted category is no parent until restored.
        const underDeleted = await send([categoryInput('F-NEW', { parent_category_code: 'F-GONE' })]);
        expect(underDeleted.statusCode).toBe(422);
        expect(errorsOf(underDeleted)[0]!.message).toContain("'F-GONE'");

        const restored = await send([categoryInput('F-GONE')]);
        expect(restored.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
        expect(await listed()).toEqual(['F-GONE', 'F-KID', 'F-ROOT']);
      } finally {
        await own.close();
      }
    });

    it('filters by parent and by name (case-insensitive, literal), echoing module_id without filtering on it', async () => {
      expect(
        (
          await post([
            categoryInput('S-ROOT', { category_name: 'Snacks' }),
            categoryInput('S-CHIPS', { category_name: 'Crisps & CHIPS', parent_category_code: 'S-ROOT' }),
            categoryInput('S-NUTS', { category_name: 'Nuts 100%', parent_category_code: 'S-ROOT' }),
          ])
        ).statusCode,
      ).toBe(200);
      expect(codes(await list('?parent_category_code=S-ROOT'))).toEqual(['S-CHIPS', 'S-NUTS']);
      expect(codes(await list('?search_text=chips'))).toEqual(['S-CHIPS']);
      expect(codes(await list('?search_text=100%25'))).toEqual(['S-NUTS']);
      expect(codes(await list('?search_text=S_C'))).toEqual([]);
      expect(codes(await list('?Parent_Category_Code=S-ROOT&SEARCH_TEXT=NUTS'))).toEqual(['S-NUTS']);

      const response = await t.get(`${API}/categories?module_id=7&parent_category_code=S-ROOT`);
      expect(response.json().list_filters).toEqual({ module_id: ['7'], parent_category_code: ['S-ROOT'] });
      expect(response.json().total_count).toBe(2);
      expect((await t.get(`${API}/categories?module_id=abc`)).statusCode).toBe(400);
    });

    it('pages with page_size, next_page and scroll_id', async () => {
      const own = await buildTestApp(dialect);
      try {
        await own.post(`${API}/categories`, {
          categories: ['G-1', 'G-2', 'G-3', 'G-4', 'G-5'].map((code) => categoryInput(code)),
        });
        const first = (await own.get(`${API}/categories?page_size=2`)).json();
        expect(first).toMatchObject({
          page_size: 2,
          page_start: 1,
          total_count: 5,
          next_page: 2,
          previous_page: null,
          sort_column: 'id',
          sort_order: 'asc',
        });
        expect(first.project_last_modified_date).toEqual(expect.any(String));
        const second = (
          await own.get(`${API}/categories?page_size=2&scroll_id=${encodeURIComponent(first.scroll_id)}`)
        ).json();
        const third = (await own.get(`${API}/categories?page_size=2&page_start=3`)).json();
        const seen = [...first.list, ...second.list, ...third.list].map((c: CategoryRead) => c.category_code);
        expect(seen).toEqual(['G-1', 'G-2', 'G-3', 'G-4', 'G-5']);
        expect(third.next_page).toBeNull();
        expect(third.scroll_id).toBeNull();
        expect((await own.get(`${API}/categories?page_start=9`)).json().list).toEqual([]);
      } finally {
        await own.close();
      }
    });

    it('lets every role read; only admin and integration tokens write, and the writer is recorded', async () => {
      const store = await t.token('store', ['1001']);
      const reader = await t.token('read');
      const integration = await t.token('integration');
      expect((await t.get(`${API}/categories`, store)).statusCode).toBe(200);
      expect((await t.get(`${API}/categories`, reader)).statusCode).toBe(200);
      expect((await post([categoryInput('A-STORE')], '', store)).statusCode).toBe(403);
      expect((await post([categoryInput('A-READ')], '', reader)).statusCode).toBe(403);
      expect((await t.get(`${API}/categories`, null)).statusCode).toBe(401);
      expect((await post([categoryInput('A-INT')], '', integration)).statusCode).toBe(200);
      const row = await t.app.ctx.db
        .selectFrom('categories')
        .select(['created_by', 'modified_by'])
        .where('category_code', '=', 'A-INT')
        .executeTakeFirstOrThrow();
      expect(row.created_by).toMatch(/^integration-/);
      expect(codes(await list('?search_text=Category A-'))).toEqual(['A-INT']);
    });

    it('seeds demo categories idempotently and verify finds a broken tree', async () => {
      const own = await buildTestApp(dialect);
      try {
        const first = await seedDemoData(own.app.ctx);
        expect(first.find((line) => line.startsWith('categories:'))).toMatch(/created [1-9]/);
        const second = await seedDemoData(own.app.ctx);
        expect(second.find((line) => line.startsWith('categories:'))).toMatch(
          /created 0, updated 0, unchanged [1-9]\d*, deleted 0/,
        );
        expect(await verifyAll(own.app.ctx.handle)).toEqual([]);

        await own.app.ctx.db
          .updateTable('categories')
          .set({ parent_category_code: 'MISSING' })
          .where('category_code', '=', 'FOOD')
          .execute();
        await own.app.ctx.db
          .updateTable('categories')
          .set({ parent_category_code: 'HOUSEHOLD' })
          .where('category_code', '=', 'NONFOOD')
          .execute();
        const details = (await verifyAll(own.app.ctx.handle))
          .filter((v) => v.check === 'categories')
          .map((v) => v.detail);
        expect(details).toEqual([
          expect.stringContaining("'FOOD' has parent 'MISSING'"),
          expect.stringContaining('HOUSEHOLD → NONFOOD → HOUSEHOLD'),
        ]);
      } finally {
        await own.close();
      }
    });
  });
}
