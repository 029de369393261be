import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReasonCodes } from '../../src/modules/reason-codes/repository.js';
import { DEMO_REASON_CODES, seedDemoData } from '../../src/seed.js';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { reasonCodeInput, unchecked } from '../helpers/factories.js';

type ReasonCodeRead = Record<string, unknown> & { code: number };
type FieldErrors = Array<{ path: string; message: string }>;

const REQUIRED_FIELDS = [
  'default_review_status',
  'is_comment_mandatory',
  'is_gain',
  'is_image_mandatory',
  'is_loss',
  'is_order_number_mandatory',
  'is_picking_list',
  'is_sales_order_discount',
  'is_store',
  'reason_code',
  'reason_code_description',
  'reason_code_type',
];

for (const dialect of DIALECTS) {
  describe(`reason codes (${dialect.name})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    const post = (reasonCodes: unknown[], query = '', token?: string) =>
      t.post(`${API}/reasoncodes${query}`, { reason_codes: reasonCodes }, token);
    const list = async (query = '', token?: string): Promise<ReasonCodeRead[]> => {
      const response = await t.get(`${API}/reasoncodes${query}`, token);
      expect(response.statusCode).toBe(200);
      return response.json();
    };
    const codes = async (query = '') => (await list(query)).map((r) => r.code);
    const errorsOf = (response: { json(): { errors: FieldErrors } }) => response.json().errors;
    const storedRow = (code: number) =>
      t.app.ctx.db
        .selectFrom('reason_codes')
        .select(['updated_on', 'deleted_on', 'modified_by'])
        .where('reason_code', '=', code)
        .executeTakeFirstOrThrow();

    it('creates reason codes and reads them as a bare array in the §2.6 shape, misspelling included', async () => {
      const created = await post([
        reasonCodeInput(30, {
          reason_code_description: 'Broken in transit',
          code_description: 'Damaged goods',
          reason_code_type: 3,
          default_review_status: 1,
          is_comment_mandatory: true,
          is_image_mandatory: true,
          is_loss: true,
          is_order_number_mandatory: true,
          is_picking_list: true,
          is_sales_order_discount: true,
          is_store: true,
          function_key: 'F7',
          store_type: 'CITY',
        }),
        reasonCodeInput(10),
      ]);
      expect(created.statusCode).toBe(200);
      expect(created.json()).toEqual({ success: true, message: 'created 2, updated 0, unchanged 0, deleted 0' });

      const response = await t.get(`${API}/reasoncodes`);
      expect(Array.isArray(response.json())).toBe(true);
      const [plain, full] = response.json() as ReasonCodeRead[];
      expect(full).toEqual({
        code: 30,
        description: 'Broken in transit',
        code_description: 'Damaged goods',
        function_key: 'F7',
        store_type: 'CITY',
        reason_code_type: 3,
        review_status: 1,
        is_comment_mandatory: true,
        is_gain: false,
        is_image_mandatory: true,
        is_loss: true,
        is_order_number_mandatory: true,
        is_picking_list: true,
        is_rollback_allowed: false,
        is_sales_order_discsount: true,
        is_store: true,
      });
      expect(full).not.toHaveProperty('is_sales_order_discount');
      expect(full).not.toHaveProperty('reason_code');
      expect(plain).toMatchObject({
        code: 10,
        description: 'Reason 10',
        review_status: 0,
        is_sales_order_discsount: false,
      });
      expect(plain).not.toHaveProperty('code_description');
    });

    it('leaves everything alone on an identical re-send, updated_on included, and counts a change', async () => {
      const batch = [reasonCodeInput(40), reasonCodeInput(41, { code_description: 'x' })];
      expect((await post(batch)).json().message).toBe('created 2, updated 0, unchanged 0, deleted 0');
      const before = await storedRow(41);
      expect((await post(batch)).json().message).toBe('created 0, updated 0, unchanged 2, deleted 0');
      expect(await storedRow(41)).toEqual(before);

      const changed = await post([reasonCodeInput(41, { code_description: 'y', is_rollback_allowed: true })]);
      expect(changed.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
      expect(await list('?code=41')).toEqual([
        expect.objectContaining({ code: 41, code_description: 'y', is_rollback_allowed: true }),
      ]);
    });

    it('lists every missing required field of every line in one 400, code_description not among them', async () => {
      const response = await post([{}, reasonCodeInput(50, { reason_code_type: undefined })]);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
      const paths = errorsOf(response)
        .map((e) => e.path)
        .sort();
      expect(paths).toEqual(
        [...REQUIRED_FIELDS.map((field) => `reason_codes[0].${field}`), 'reason_codes[1].reason_code_type'].sort(),
      );
      expect((await t.post(`${API}/reasoncodes`, {})).statusCode).toBe(400);
      expect(await list('?code=50')).toEqual([]);
    });

    it('refuses wrong types and out-of-range values with 400 naming each path', async () => {
      const response = await post([
        reasonCodeInput(60, { reason_code_type: 0 }),
        reasonCodeInput(61, { reason_code_type: 10 }),
        reasonCodeInput(62, { reason_code_description: 'd'.repeat(251) }),
        reasonCodeInput(63, { code_description: 'c'.repeat(501) }),
        reasonCodeInput(64, { default_review_status: 2 }),
        reasonCodeInput(65, unchecked({ is_loss: 'true' })),
        reasonCodeInput(66, { reason_code_type: 2.5 }),
        reasonCodeInput(-1),
        reasonCodeInput(2_147_483_648),
        { ...reasonCodeInput(0), reason_code: '67' },
        reasonCodeInput(68, { reason_code_description: '' }),
      ]);
      expect(response.statusCode).toBe(400);
      const paths = errorsOf(response).map((e) => e.path);
      expect(new Set(paths)).toEqual(
        new Set([
          'reason_codes[0].reason_code_type',
          'reason_codes[1].reason_code_type',
          'reason_codes[2].reason_code_description',
          'reason_codes[3].code_description',
          'reason_codes[4].default_review_status',
          'reason_codes[5].is_loss',
          'reason_codes[6].reason_code_type',
          'reason_codes[7].reason_code',
          'reason_codes[8].reason_code',
          'reason_codes[9].reason_code',
          'reason_codes[10].reason_code_description',
        ]),
      );
    });

    it('accepts the longest descriptions the interface allows and every reason_code_type 1–9', async () => {
      const response = await post(
        [1, 2, 3, 4, 5, 6, 7, 8, 9].map((type) =>
          reasonCodeInput(700 + type, {
            reason_code_type: type,
            reason_code_description: 'd'.repeat(250),
            code_description: 'c'.repeat(500),
          }),
        ),
      );
      expect(response.statusCode).toBe(200);
      const stored = (await list()).filter((r) => r.code > 700 && r.code < 710);
      expect(stored.map((r) => r.reason_code_type)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect((stored[0]!.description as string).length).toBe(250);
    });

    it('refuses a duplicate reason_code and a code that is both gain and loss with 400', async () => {
      const response = await post([
        reasonCodeInput(80),
        reasonCodeInput(81, { is_gain: true, is_loss: true }),
        reasonCodeInput(80),
      ]);
      expect(response.statusCode).toBe(400);
      expect(
        errorsOf(response)
          .map((e) => e.path)
          .sort(),
      ).toEqual(['reason_codes[1].is_loss', 'reason_codes[2].reason_code']);
      expect(await list('?code=80')).toEqual([]);
    });

    it('filters by code, code_description, function_key, store_type and the booleans, ordered by code', async () => {
      expect(
        (
          await post([
            reasonCodeInput(93, {
              is_loss: true,
              is_store: true,
              code_description: 'Damaged GOODS',
              function_key: 'F1',
            }),
            reasonCodeInput(91, { is_gain: true, code_description: '50% off', function_key: 'F2', store_type: 'MALL' }),
            reasonCodeInput(92, { is_loss: true, code_description: 'goods expired', function_key: 'F1' }),
          ])
        ).statusCode,
      ).toBe(200);
      const mine = (items: number[]) => items.filter((code) => code >= 91 && code <= 93);
      expect(mine(await codes())).toEqual([91, 92, 93]);
      expect(await codes('?code=92')).toEqual([92]);
      expect(await codes('?code=0092')).toEqual([92]);
      expect(await codes('?code=9999999999')).toEqual([]);
      expect(mine(await codes('?code_description=goods'))).toEqual([92, 93]);
      expect(mine(await codes('?code_description=%25'))).toEqual([91]);
      expect(mine(await codes('?code_description=d_g'))).toEqual([]);
      expect(mine(await codes('?function_key=F1'))).toEqual([92, 93]);
      expect(mine(await codes('?function_key=f1'))).toEqual([]);
      expect(await codes('?store_type=MALL')).toEqual([91]);
      expect(mine(await codes('?is_gain=true'))).toEqual([91]);
      expect(mine(await codes('?is_loss=true&is_store=true'))).toEqual([93]);
      expect(mine(await codes('?is_loss=false'))).toEqual([91]);
      expect(mine(await codes('?Is_Loss=true'))).toEqual([92, 93]);
      expect(mine(await codes('?CODE=91&Function_Key=F2'))).toEqual([91]);
    });

    it('refuses a non-numeric code filter and a non-boolean flag filter with 400', async () => {
      const byCode = await t.get(`${API}/reasoncodes?code=abc`);
      expect(byCode.statusCode).toBe(400);
      expect(errorsOf(byCode).map((e) => e.path)).toEqual(['query.code']);
      expect((await t.get(`${API}/reasoncodes?code=-5`)).statusCode).toBe(400);
      expect((await t.get(`${API}/reasoncodes?code=12345678901`)).statusCode).toBe(400);
      expect((await t.get(`${API}/reasoncodes?is_gain=maybe`)).statusCode).toBe(400);
    });

    it('flush soft-deletes the absent codes (rows kept) and a re-send restores them', async () => {
      const own = await buildTestApp(dialect);
      try {
        const send = (reasonCodes: unknown[], query = '') =>
          own.post(`${API}/reasoncodes${query}`, { reason_codes: reasonCodes });
        const listed = async () =>
          ((await own.get(`${API}/reasoncodes`)).json() as ReasonCodeRead[]).map((r) => r.code);
        expect((await send([reasonCodeInput(1), reasonCodeInput(2), reasonCodeInput(3)])).statusCode).toBe(200);

        const flushed = await send([reasonCodeInput(2), reasonCodeInput(4)], '?flush=true');
        expect(flushed.json().message).toBe('created 1, updated 0, unchanged 1, deleted 2');
        expect(await listed()).toEqual([2, 4]);
        const kept = await own.app.ctx.db
          .selectFrom('reason_codes')
          .select(['reason_code', 'deleted_on'])
          .orderBy('reason_code')
          .execute();
        expect(kept.map((r) => [r.reason_code, r.deleted_on === null])).toEqual([
          [1, false],
          [2, true],
          [3, false],
          [4, true],
        ]);

        const found = await findReasonCodes(own.app.ctx.db, [1, 2, 4, 99, 2]);
        expect([...found.keys()].sort()).toEqual([2, 4]);
        expect(found.get(2)).toMatchObject({ reason_code: 2, reason_code_type: 1, is_loss: 0 });

        const restored = await send([reasonCodeInput(1)]);
        expect(restored.json().message).toBe('created 0, updated 1, unchanged 0, deleted 0');
        expect(await listed()).toEqual([1, 2, 4]);
        expect(
          (await send([reasonCodeInput(1), reasonCodeInput(2), reasonCodeInput(4)], '?flush=true')).json().message,
        ).toBe('created 0, updated 0, unchanged 3, deleted 0');
      } finally {
        await own.close();
      }
    });

    it('lets every role read; only admin and integration tokens write, and the writer is recorded', async () => {
      const store = await t.token('store', ['1001']);
      const reader = await t.token('read');
      const integration = await t.token('integration');
      expect((await t.get(`${API}/reasoncodes`, store)).statusCode).toBe(200);
      expect((await t.get(`${API}/reasoncodes`, reader)).statusCode).toBe(200);
      const forbidden = await post([reasonCodeInput(500)], '', store);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('FORBIDDEN');
      expect((await post([reasonCodeInput(501)], '', reader)).statusCode).toBe(403);
      expect((await t.get(`${API}/reasoncodes`, null)).statusCode).toBe(401);
      expect(await codes('?code=500')).toEqual([]);
      expect((await post([reasonCodeInput(502)], '', integration)).statusCode).toBe(200);
      expect((await storedRow(502)).modified_by).toMatch(/^integration-/);
    });

    it('seeds a reason code of every type idempotently, and verify accepts them but not a both-ways code', async () => {
      const own = await buildTestApp(dialect);
      try {
        await seedDemoData(own.app.ctx);
        const again = await seedDemoData(own.app.ctx);
        expect(again.find((line) => line.startsWith('reason codes:'))).toBe(
          `reason codes: created 0, updated 0, unchanged ${DEMO_REASON_CODES.length}, deleted 0`,
        );
        const types = ((await own.get(`${API}/reasoncodes`)).json() as ReasonCodeRead[]).map((r) => r.reason_code_type);
        expect(new Set(types)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]));
        expect(await verifyAll(own.app.ctx.handle)).toEqual([]);

        await own.app.ctx.db
          .updateTable('reason_codes')
          .set({ is_gain: 1, is_loss: 1 })
          .where('reason_code', '=', 101)
          .execute();
        expect(await verifyAll(own.app.ctx.handle)).toEqual([
          { check: 'reason codes', detail: 'reason code 101 is both a gain and a loss code' },
        ]);
      } finally {
        await own.close();
      }
    });
  });
}
