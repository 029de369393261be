import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyAll } from '../../src/verify.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { balancesOf } from '../helpers/stock.js';
import { categoryInput, productInput, reasonCodeInput, storeInput } from '../helpers/factories.js';

const CA = (store: string) => `${API}/stores/${store}/countingassignments`;
const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

for (const dialect of DIALECTS) {
  describe(`counting assignments (${dialect.name})`, () => {
    let t: TestApp;
    let counter = 0;

    /** A product with a barcode and a unit barcode (6 each), priced 2.5 to buy. */
    async function newProduct(overrides: Record<string, unknown> = {}) {
      const n = ++counter;
      const p = { number: `CA-${n}`, barcode: `700${n}`, unit: `706${n}` };
      const response = await t.post(`${API}/products`, {
        products: [
          productInput(p.number, {
            barcode: p.barcode,
            purchase_price: 2.5,
            units: [{ unit_barcode: p.unit, unit_name: 'tray', unit_quantity: 6 }],
            ...overrides,
          }),
        ],
      });
      expect(response.statusCode).toBe(200);
      return p;
    }

    async function book(store: string, product: string, quantity: number, location?: string, at = ago(30)) {
      const response = await t.post(LOGS(store), {
        storeproductlog: [
          {
            product_number: product,
            quantity,
            location_code: location,
            modification_datetime: at,
            customer_order_line_number: 0,
          },
        ],
      });
      expect(response.statusCode, response.body).toBe(200);
    }

    async function create(body: Record<string, unknown>, store = 'C1', token?: string) {
      return t.post(CA(store), body, token);
    }

    async function started(body: Record<string, unknown>, store = 'C1'): Promise<number> {
      const created = await create(body, store);
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().counting_assignment_id as number;
      const start = await t.post(`${CA(store)}/${id}/start`, {});
      expect(start.statusCode, start.body).toBe(200);
      return id;
    }

    const lines = async (id: number, store = 'C1', token?: string) =>
      (await t.get(`${CA(store)}/${id}/lines?page_size=1000`, token)).json().list as Array<Record<string, any>>;
    const count = (id: number, counts: unknown[], store = 'C1', token?: string) =>
      t.post(`${CA(store)}/${id}/counts`, { counts }, token);
    const total = (product: string) => balancesOf(t.app.ctx.db, product, 'C1');

    beforeAll(async () => {
      t = await buildTestApp(dialect);
      await t.post(`${API}/stores`, { stores: [storeInput('C1'), storeInput('C2')] });
      await t.post(`${API}/stores/C1/locations`, {
        locations: [
          { location_code: 'A', default_stock_pool: 1 },
          { location_code: 'B', default_stock_pool: 1 },
        ],
      });
      await t.post(`${API}/reasoncodes`, {
        reason_codes: [
          reasonCodeInput(900, { reason_code_type: 6 }),
          reasonCodeInput(901, { reason_code_type: 1, is_loss: true }),
        ],
      });
      await t.post(`${API}/categories`, { categories: [categoryInput('CAT-1')] });
    });

    afterEach(async () => {
      expect(await verifyAll(t.app.ctx.handle)).toEqual([]);
    });

    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    it('creates an assignment (201, integer id, open), reads it and lists it by status', async () => {
      const p = await newProduct();
      const response = await create({
        counting_assignment_code: 'ERP-1',
        description: 'Shelf A',
        scope: { product_numbers: [p.number] },
        due_datetime: '2030-01-01T00:00:00Z',
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json();
      expect(Number.isInteger(body.counting_assignment_id)).toBe(true);
      expect(body).toMatchObject({
        counting_assignment_code: 'ERP-1',
        store_number: 'C1',
        scope: { product_numbers: [p.number] },
        blind: false,
        kind: 'spot',
        status: 'open',
        allow_extra_lines: false,
        due_datetime: '2030-01-01T00:00:00.000Z',
        progress: { lines_total: 0, lines_counted: 0, lines_remaining: 0, variance_quantity: 0, variance_value: 0 },
      });
      const one = await t.get(`${CA('C1')}/${body.counting_assignment_id}`);
      expect(one.json()).toEqual(body);
      const open = (await t.get(`${CA('C1')}?status=open&page_size=1000`)).json();
      expect(open.list.map((a: any) => a.counting_assignment_id)).toContain(body.counting_assignment_id);
      expect(open.list_filters).toEqual({ status: ['open'] });
      const closed = (await t.get(`${CA('C1')}?status=closed&page_size=1000`)).json();
      expect(closed.list.map((a: any) => a.counting_assignment_id)).not.toContain(body.counting_assignment_id);
      // The ERP's code is unique in the store while the assignment is not closed or cancelled.
      const again = await create({ counting_assignment_code: 'ERP-1', scope: { whole_store: true } });
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toContain(`Counting assignment ${body.counting_assignment_id}`);
      expect((await create({ counting_assignment_code: 'ERP-1', scope: { whole_store: true } }, 'C2')).statusCode).toBe(
        201,
      );
      await t.post(`${CA('C1')}/${body.counting_assignment_id}/cancel`, {});
      expect((await create({ counting_assignment_code: 'ERP-1', scope: { whole_store: true } })).statusCode).toBe(201);
    });

    it('refuses what the request alone breaks (400) and what refers to unknown data (422); unknown id is 404', async () => {
      const none = await create({ scope: {} });
      expect(none.statusCode).toBe(400);
      expect(none.json().errors).toEqual([{ path: 'scope', message: expect.any(String) }]);
      const full = await create({ scope: { whole_store: true }, kind: 'full' });
      expect(full.statusCode).toBe(400);
      expect(full.json().errors.map((e: any) => e.path)).toEqual(['zero_reason_code']);
      const both = await create({ scope: { whole_store: true, product_numbers: ['X'] } });
      expect(both.json().errors.map((e: any) => e.path)).toEqual(['scope.whole_store']);
      const wrongType = await create({ scope: { whole_store: true }, kind: 'full', zero_reason_code: 901 });
      expect(wrongType.statusCode).toBe(422);
      expect(wrongType.json().errors[0]).toMatchObject({
        path: 'zero_reason_code',
        message: expect.stringContaining('type 1'),
      });
      const unknown = await create({
        scope: { product_numbers: ['NOPE'], category_codes: ['NOCAT'], location_codes: ['NOLOC'] },
        kind: 'full',
        zero_reason_code: 12345,
      });
      expect(unknown.statusCode).toBe(422);
      expect(unknown.json().errors.map((e: any) => e.path)).toEqual([
        'zero_reason_code',
        'scope.product_numbers[0]',
        'scope.category_codes[0]',
        'scope.location_codes[0]',
      ]);
      expect((await t.get(`${CA('C1')}/999999`)).statusCode).toBe(404);
      expect((await t.post(`${CA('C1')}/999999/start`, {})).statusCode).toBe(404);
      expect((await t.get(`${CA('NOSTORE')}/1`)).statusCode).toBe(404);
    });

    it('fixes one line per store product × location at start with the level then; counts by number and barcode, recount replaces, add adds', async () => {
      const p = await newProduct();
      const q = await newProduct();
      const empty = await newProduct();
      await book('C1', p.number, 5, 'A');
      await book('C1', p.number, 3, 'B');
      await book('C1', q.number, 4);
      await t.post(`${API}/stores/C1/storeproducts`, { products: [{ product_number: empty.number }] });
      const id = await started({ scope: { product_numbers: [p.number, q.number, empty.number] } });
      await book('C1', p.number, 100, 'A', ago(1)); // after the start: not in the snapshot
      const fixed = await lines(id);
      expect(
        fixed.map((l) => [
          l.product_number,
          l.location_code,
          l.pool,
          l.expected_quantity,
          l.counted_quantity,
          l.status,
        ]),
      ).toEqual([
        [p.number, 'A', 1, 5, null, 'not_counted'],
        [p.number, 'B', 1, 3, null, 'not_counted'],
        [q.number, null, 1, 4, null, 'not_counted'],
        [empty.number, null, 1, 0, null, 'not_counted'],
      ]);
      const progress = (await t.get(`${CA('C1')}/${id}`)).json().progress;
      expect(progress).toMatchObject({ lines_total: 4, lines_counted: 0, lines_remaining: 4 });

      const at = ago(5);
      const first = await count(id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 4, counted_at: at, app_user_name: 'ann' },
        { barcode: p.unit, location_code: 'B', counted_quantity: 1, counted_at: at }, // a tray of 6
        { barcode: q.barcode, counted_quantity: 2, counted_at: at },
      ]);
      expect(first.statusCode, first.body).toBe(200);
      const recount = await count(id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 6, counted_at: at },
        { product_number: q.number, counted_quantity: 1, counted_at: at, mode: 'add' },
      ]);
      expect(recount.json().message).toBe('counted 2: lines 2, recounted 1, added to 1, extra lines 0');
      const now = await lines(id);
      expect(now.map((l) => [l.counted_quantity, l.variance_quantity, l.status])).toEqual([
        [6, 1, 'counted'],
        [6, 3, 'counted'],
        [3, -1, 'counted'],
        [null, null, 'not_counted'],
      ]);
      expect(now[0]!.app_user_name).toBe('ann');
      const after = (await t.get(`${CA('C1')}/${id}`)).json().progress;
      expect(after).toEqual({
        lines_total: 4,
        lines_counted: 3,
        lines_remaining: 1,
        lines_pending: 0,
        variance_quantity: 3,
        variance_value: 7.5,
      });
      expect((await t.post(`${CA('C1')}/${id}/cancel`, {})).json().status).toBe('cancelled');
      expect(await total(p.number)).toEqual({ 'A|1|-': 105, 'B|1|-': 3 }); // cancelled: nothing booked
    });

    it('refuses counts outside the lines (422 naming them), before start and after submission (409 naming the status)', async () => {
      const p = await newProduct();
      const other = await newProduct();
      await book('C1', p.number, 2, 'A');
      await book('C1', other.number, 2, 'A');
      const created = (await create({ scope: { product_numbers: [p.number] } })).json();
      const early = await count(created.counting_assignment_id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 1, counted_at: ago(1) },
      ]);
      expect(early.statusCode).toBe(409);
      expect(early.json().message).toContain('is open');
      const id = created.counting_assignment_id as number;
      await t.post(`${CA('C1')}/${id}/start`, {});
      const outside = await count(id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 1, counted_at: ago(1) },
        { product_number: other.number, location_code: 'A', counted_quantity: 1, counted_at: ago(1) },
        { product_number: p.number, location_code: 'B', counted_quantity: 1, counted_at: ago(1) },
      ]);
      expect(outside.statusCode).toBe(422);
      expect(outside.json().errors.map((e: any) => e.path)).toEqual(['counts[1]', 'counts[2]']);
      const unknown = await count(id, [
        { product_number: 'NOPE', counted_quantity: 1, counted_at: ago(1) },
        { barcode: 'NOBARCODE', counted_quantity: 1, counted_at: ago(1) },
        { product_number: p.number, location_code: 'NOLOC', counted_quantity: 1, counted_at: ago(1) },
      ]);
      expect(unknown.json().errors.map((e: any) => e.path)).toEqual([
        'counts[0].product_number',
        'counts[1].barcode',
        'counts[2].location_code',
      ]);
      const future = await count(id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 1, counted_at: '2099-01-01T00:00:00Z' },
      ]);
      expect(future.statusCode).toBe(400);
      expect(future.json().errors[0].path).toContain('counts[0].counted_at');
      expect((await count(id, [{ counted_quantity: 1, counted_at: ago(1) }])).statusCode).toBe(400);
      expect((await lines(id))[0]!.counted_quantity).toBeNull();
      expect((await t.post(`${CA('C1')}/${id}/submit`, {})).statusCode).toBe(200);
      const late = await count(id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 1, counted_at: ago(1) },
      ]);
      expect(late.statusCode).toBe(409);
      expect(late.json().message).toContain('is closed');
      expect((await t.post(`${CA('C1')}/${id}/start`, {})).statusCode).toBe(409);
      expect((await t.post(`${CA('C1')}/${id}/cancel`, {})).statusCode).toBe(409);
      expect((await t.post(`${CA('C1')}/${id}/submit`, {})).statusCode).toBe(409);
    });

    it('submission books each count at its counted_at: a sale booked after the scan stays on top', async () => {
      const p = await newProduct();
      const q = await newProduct();
      await book('C1', p.number, 10, 'A', ago(60));
      await book('C1', q.number, 7, 'A', ago(60));
      const id = await started({ scope: { product_numbers: [p.number, q.number] } });
      await count(id, [
        { product_number: p.number, location_code: 'A', counted_quantity: 8, counted_at: ago(20), app_user_name: 'bo' },
      ]);
      await book('C1', p.number, -3, 'A', ago(10)); // sold after the scan, before the submission
      const submitted = await t.post(`${CA('C1')}/${id}/submit`, {});
      expect(submitted.statusCode, submitted.body).toBe(200);
      const ids = submitted.json().data as number[];
      expect(ids).toHaveLength(1);
      expect(submitted.json().message).toBe('booked 1: counted 1, zeroed 0, pending review 0');
      expect(await total(p.number)).toEqual({ 'A|1|-': 5 }); // counted 8, less the later sale
      expect(await total(q.number)).toEqual({ 'A|1|-': 7 }); // spot: not counted, not touched
      const entry = (await t.get(`${API}/products/stock/storeproductlogs?article_number=${p.number}&page_size=1000`))
        .json()
        .list.find((e: any) => e.id === ids[0]);
      expect(entry).toMatchObject({
        counting_assignment_id: id,
        counting_lines_remaining: 1,
        counted_quantity: 8,
        expected_quantity: 10,
        app_user_name: 'bo',
        source: 'counting_assignment',
      });
      const assignment = (await t.get(`${CA('C1')}/${id}`)).json();
      expect(assignment.status).toBe('closed');
      expect(assignment.closed_datetime).not.toBeNull();
      expect((await lines(id)).map((l) => [l.status, l.log_entry_id])).toEqual([
        ['booked', ids[0]],
        ['not_counted', null],
      ]);
      const stamped = await t.app.ctx.db
        .selectFrom('store_products')
        .select(['last_counted_at', 'last_counted_by'])
        .where('store_number', '=', 'C1')
        .where('product_number', '=', p.number)
        .executeTakeFirstOrThrow();
      expect(Number(stamped.last_counted_at)).toBeGreaterThan(Date.now() - 25 * 60_000);
      expect(stamped.last_counted_by).toBe('bo');
    });

    it('full: uncounted lines are counted as zero at submission with the zero reason code', async () => {
      const counted = await newProduct({ category_code: 'CAT-1' });
      const missing = await newProduct({ category_code: 'CAT-1' });
      await book('C1', counted.number, 4, 'A');
      await book('C1', missing.number, 6, 'B');
      const id = await started({ scope: { category_codes: ['CAT-1'] }, kind: 'full', zero_reason_code: 900 });
      const before = (await lines(id)).filter((l) => [counted.number, missing.number].includes(l.product_number));
      expect(before).toHaveLength(2);
      await count(id, [
        { product_number: counted.number, location_code: 'A', counted_quantity: 4, counted_at: ago(2) },
      ]);
      // Other products of the category may be in scope from earlier tests: every one is zeroed.
      const submitted = await t.post(`${CA('C1')}/${id}/submit`, {});
      expect(submitted.statusCode, submitted.body).toBe(200);
      expect(await total(counted.number)).toEqual({ 'A|1|-': 4 });
      expect(await total(missing.number)).toEqual({});
      const zero = (
        await t.get(`${API}/products/stock/storeproductlogs?article_number=${missing.number}&page_size=1000`)
      )
        .json()
        .list.find((e: any) => e.counting_assignment_id === id);
      expect(zero).toMatchObject({ counted_quantity: 0, reason_code: 900, quantity: -6 });
      const all = await lines(id);
      expect(all.every((l) => l.status === 'booked')).toBe(true);
      const progress = (await t.get(`${CA('C1')}/${id}`)).json().progress;
      expect(progress.lines_remaining).toBe(0);
    });

    it('a line beyond a variance limit is booked pending; approving or rejecting the last one closes the assignment', async () => {
      const small = await newProduct();
      const big = await newProduct();
      const pricey = await newProduct({ purchase_price: 100 });
      await book('C1', small.number, 10, 'A');
      await book('C1', big.number, 10, 'A');
      await book('C1', pricey.number, 10, 'A');
      const id = await started({
        scope: { product_numbers: [small.number, big.number, pricey.number] },
        max_variance_quantity: 3,
        max_variance_value: 150,
        max_variance_percent: 50,
      });
      await count(id, [
        { product_number: small.number, location_code: 'A', counted_quantity: 8, counted_at: ago(2) }, // within
        { product_number: big.number, location_code: 'A', counted_quantity: 4, counted_at: ago(2) }, // 6 > 3
        { product_number: pricey.number, location_code: 'A', counted_quantity: 8, counted_at: ago(2) }, // 200 > 150
      ]);
      const submitted = await t.post(`${CA('C1')}/${id}/submit`, {});
      expect(submitted.json().message).toBe('booked 3: counted 3, zeroed 0, pending review 2');
      const [smallId, bigId, priceyId] = submitted.json().data as number[];
      expect(await total(small.number)).toEqual({ 'A|1|-': 8 });
      expect(await total(big.number)).toEqual({ 'A|1|-': 10 });
      let assignment = (await t.get(`${CA('C1')}/${id}`)).json();
      expect(assignment.status).toBe('submitted');
      expect(assignment.progress.lines_pending).toBe(2);
      expect((await lines(id)).map((l) => l.status)).toEqual(['booked', 'pending', 'pending']);
      const review = `${LOGS('C1')}/review`;
      expect((await t.post(review, { ids: [bigId], approve: true })).statusCode).toBe(200);
      expect(await total(big.number)).toEqual({ 'A|1|-': 4 });
      assignment = (await t.get(`${CA('C1')}/${id}`)).json();
      expect(assignment.status).toBe('submitted');
      expect((await t.post(review, { ids: [priceyId], approve: false })).statusCode).toBe(200);
      expect(await total(pricey.number)).toEqual({ 'A|1|-': 10 });
      assignment = (await t.get(`${CA('C1')}/${id}`)).json();
      expect(assignment.status).toBe('closed');
      expect(assignment.progress.lines_pending).toBe(0);
      expect((await lines(id)).map((l) => l.status)).toEqual(['booked', 'approved', 'rejected']);
      expect(smallId).toBeTypeOf('number');
    });

    it('extra lines: refused unless allowed; then a new line expecting the level at its moment', async () => {
      const p = await newProduct();
      const stray = await newProduct();
      await book('C1', p.number, 1, 'A');
      await book('C1', stray.number, 9, 'B', ago(30));
      const id = await started({ scope: { location_codes: ['A'] }, allow_extra_lines: true });
      const mine = (await lines(id)).filter((l) => l.product_number === p.number);
      expect(mine.map((l) => l.location_code)).toEqual(['A']);
      const extra = await count(id, [
        { product_number: stray.number, location_code: 'B', counted_quantity: 7, counted_at: ago(5) },
      ]);
      expect(extra.statusCode, extra.body).toBe(200);
      expect(extra.json().message).toContain('extra lines 1');
      const line = (await lines(id)).find((l) => l.product_number === stray.number)!;
      expect(line).toMatchObject({ location_code: 'B', expected_quantity: 9, counted_quantity: 7, is_extra: true });
      await t.post(`${CA('C1')}/${id}/submit`, {});
      expect(await total(stray.number)).toEqual({ 'B|1|-': 7 });
    });

    it('a product is counted by one assignment at a time: two starts racing, exactly one 409 naming the other', async () => {
      const p = await newProduct();
      await book('C1', p.number, 3, 'A');
      const a = (await create({ scope: { product_numbers: [p.number] } })).json().counting_assignment_id;
      const b = (await create({ scope: { product_numbers: [p.number] } })).json().counting_assignment_id;
      const [first, second] = await Promise.all([
        t.post(`${CA('C1')}/${a}/start`, {}),
        t.post(`${CA('C1')}/${b}/start`, {}),
      ]);
      const statuses = [first.statusCode, second.statusCode].sort();
      expect(statuses).toEqual([200, 409]);
      const refused = first.statusCode === 409 ? first : second;
      const winner = first.statusCode === 409 ? b : a;
      expect(refused.json().message).toContain(`Counting assignment ${winner}`);
      expect(refused.json().errors[0].message).toContain(p.number);
      // Once the winner is cancelled the other starts.
      await t.post(`${CA('C1')}/${winner}/cancel`, {});
      expect((await t.post(`${CA('C1')}/${winner === a ? b : a}/start`, {})).statusCode).toBe(200);
      await t.post(`${CA('C1')}/${winner === a ? b : a}/cancel`, {});
    });

    it('counts racing the submission are either counted and booked or refused 409, never lost or booked twice', async () => {
      const products = await Promise.all([1, 2, 3, 4, 5, 6].map(() => newProduct()));
      for (const p of products) await book('C1', p.number, 10, 'A');
      const id = await started({ scope: { product_numbers: products.map((p) => p.number) } });
      await count(id, [
        { product_number: products[0]!.number, location_code: 'A', counted_quantity: 1, counted_at: ago(3) },
      ]);
      const posts = products
        .slice(1)
        .map((p, i) =>
          count(id, [{ product_number: p.number, location_code: 'A', counted_quantity: i, counted_at: ago(2) }]),
        );
      const results = await Promise.all([...posts, t.post(`${CA('C1')}/${id}/submit`, {})]);
      const submit = results.pop()!;
      expect(submit.statusCode).toBe(200);
      const booked = new Set(submit.json().data as number[]);
      const logs = (
        await t.get(`${API}/products/stock/storeproductlogs?page_size=1000&source=counting_assignment`)
      ).json().list as Array<Record<string, any>>;
      const ofThis = logs.filter((e) => e.counting_assignment_id === id);
      expect(ofThis.map((e) => e.id).sort()).toEqual([...booked].sort());
      results.forEach((r, i) => {
        const p = products[i + 1]!;
        const entries = ofThis.filter((e) => e.product_number === p.number);
        if (r.statusCode === 200) {
          expect(entries).toHaveLength(1);
          expect(entries[0]!.counted_quantity).toBe(i);
        } else {
          expect(r.statusCode).toBe(409);
          expect(entries).toHaveLength(0);
        }
      });
    });

    it('blind: a store token never sees expected or variance until submitted; admin and read tokens do', async () => {
      const p = await newProduct();
      await book('C1', p.number, 5, 'A');
      const store = await t.token('store', ['C1']);
      const read = await t.token('read');
      const created = await create({ scope: { product_numbers: [p.number] }, blind: true }, 'C1', store);
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().counting_assignment_id;
      expect(created.json().progress.variance_quantity).toBeUndefined();
      expect((await t.post(`${CA('C1')}/${id}/start`, {}, store)).statusCode).toBe(200);
      expect(
        (
          await count(
            id,
            [{ product_number: p.number, location_code: 'A', counted_quantity: 3, counted_at: ago(1) }],
            'C1',
            store,
          )
        ).statusCode,
      ).toBe(200);
      const seen = (await lines(id, 'C1', store))[0]!;
      expect(seen).not.toHaveProperty('expected_quantity');
      expect(seen).not.toHaveProperty('variance_quantity');
      expect(seen.counted_quantity).toBe(3);
      const progress = (await t.get(`${CA('C1')}/${id}`, store)).json().progress;
      expect(progress).not.toHaveProperty('variance_quantity');
      expect(progress).not.toHaveProperty('variance_value');
      for (const token of [undefined, read]) {
        expect((await lines(id, 'C1', token))[0]).toMatchObject({ expected_quantity: 5, variance_quantity: -2 });
        expect((await t.get(`${CA('C1')}/${id}`, token)).json().progress.variance_quantity).toBe(-2);
      }
      const feed = async (token?: string) =>
        (
          (await t.get(`${API}/events?types=counting_assignment.changed&limit=1000`, token)).json().events as any[]
        ).filter((e) => e.data.counting_assignment_id === id);
      const storeEvents = await feed(store);
      expect(storeEvents.length).toBeGreaterThanOrEqual(3);
      expect(storeEvents.every((e) => e.store_number === 'C1' && e.data.progress.variance_quantity === undefined)).toBe(
        true,
      );
      expect((await feed()).at(-1).data.progress).toMatchObject({ variance_quantity: -2, lines_counted: 1 });
      expect((await t.post(`${CA('C1')}/${id}/submit`, {}, store)).statusCode).toBe(200);
      expect((await lines(id, 'C1', store))[0]).toMatchObject({ expected_quantity: 5, variance_quantity: -2 });
      expect((await feed(store)).at(-1).data).toMatchObject({ status: 'closed', progress: { variance_quantity: -2 } });
    });

    it('authority: a store token only its stores, a read token never writes', async () => {
      const store = await t.token('store', ['C2']);
      const read = await t.token('read');
      expect((await create({ scope: { whole_store: true } }, 'C1', store)).statusCode).toBe(403);
      expect((await t.get(CA('C1'), store)).statusCode).toBe(403);
      expect((await create({ scope: { whole_store: true } }, 'C1', read)).statusCode).toBe(403);
      const id = (await create({ scope: { whole_store: true } }, 'C2', store)).json().counting_assignment_id;
      expect((await t.post(`${CA('C2')}/${id}/cancel`, {}, read)).statusCode).toBe(403);
      expect((await t.get(`${CA('C1')}/${id}`)).statusCode).toBe(404); // another store's id
      // A step needs no body.
      const bare = await t.request({ method: 'POST', url: `${CA('C2')}/${id}/cancel`, token: store });
      expect(bare.statusCode, bare.body).toBe(200);
      expect(bare.json().status).toBe('cancelled');
    });

    it('Idempotency-Key: a repeated create answers the same assignment without making another', async () => {
      const key = `ca-${Date.now()}`;
      const send = () =>
        t.request({
          method: 'POST',
          url: CA('C2'),
          payload: { scope: { whole_store: true }, description: 'idem' },
          headers: { 'idempotency-key': key },
        });
      const first = await send();
      const second = await send();
      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(201);
      expect(second.json().counting_assignment_id).toBe(first.json().counting_assignment_id);
      const listed = (await t.get(`${CA('C2')}?page_size=1000`))
        .json()
        .list.filter((a: any) => a.description === 'idem');
      expect(listed).toHaveLength(1);
    });
  });
}
