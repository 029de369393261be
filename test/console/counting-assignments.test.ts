import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { productInput, reasonCodeInput } from '../helpers/factories.js';
import {
  ConsoleBrowser,
  type ConsolePage,
  DESKTOP,
  describeInBrowser,
  HANDHELD,
  sidewaysOverflow,
  signIn,
} from './browser.js';
import { FLOOR, seedFloor } from './seed.js';

/**
 * Counting assignments in the console (issue 44), in a real browser on both databases: the back
 * office creates and starts a blind full count; a store token counts it on a 360 px handheld
 * (a scan, a recount, an add) without ever seeing what the books expect, and submits; the
 * count beyond the variance limit waits for review and the back office approves it; offline,
 * counts and the submission wait through a reload and are booked once each at their scanned moments.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'console');
const ZERO_REASON = 60;
const OFFLINE_PRODUCT = '100400';
const OFFLINE_BARCODE = '8712345678920';

interface Line {
  line_id: number;
  product_number: string;
  location_code: string | null;
  pool: number;
  expected_quantity?: number;
  counted_quantity: number | null;
  variance_quantity?: number | null;
  counted_at: string | null;
  status: string;
  log_entry_id: number | null;
}
interface Assignment {
  counting_assignment_id: number;
  status: string;
  blind: boolean;
  kind: string;
  zero_reason_code: number | null;
  max_variance_quantity: number | null;
  progress: Record<string, number>;
}
interface QueuedAction {
  kind: string;
  state: string;
  scannedAt: string;
  line?: string;
  entryIds?: number[];
  failure?: { sentence: string };
}

describeInBrowser('counting assignments in the console', (dialect) => {
  let t: TestApp;
  let origin: string;
  let storeToken: string;
  let blindId: number;
  const browser = new ConsoleBrowser();

  const assignment = async (id: number, token?: string): Promise<Assignment> => {
    const answer = await t.get(`${API}/stores/${FLOOR.store}/countingassignments/${id}`, token);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json() as Assignment;
  };
  const lines = async (id: number, token?: string): Promise<Line[]> => {
    const answer = await t.get(`${API}/stores/${FLOOR.store}/countingassignments/${id}/lines?page_size=1000`, token);
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().list as Line[];
  };
  const outboxOf = (page: ConsolePage): Promise<QueuedAction[]> =>
    // A string, so that the test's own module loader leaves the page's import() alone.
    page.evaluate("import('/console/js/offline/device-db.js').then((db) => db.getAll('outbox'))");
  const allSent = (page: ConsolePage, count: number) =>
    expect
      .poll(async () => (await outboxOf(page)).map((a) => a.state).join(','), { timeout: 30_000 })
      .toBe(Array(count).fill('sent').join(','));
  const momentsOf = async (ids: number[]): Promise<number[]> => {
    const rows = await t.app.ctx.db
      .selectFrom('stock_logs')
      .select(['id', 'modification_at'])
      .where('id', 'in', ids.length > 0 ? ids : [-1])
      .execute();
    return rows.map((row) => Number(row.modification_at)).sort((a, b) => a - b);
  };
  /** Until the view's last message says `text`; else what the page and its outbox show. */
  const said = (page: ConsolePage, text: string) =>
    page
      .locator('.messages .notice')
      .getByText(text)
      .last()
      .waitFor({ timeout: 10_000 })
      .catch(async (error) => {
        const outbox = JSON.stringify(await outboxOf(page).catch(String)).slice(0, 3000);
        throw new Error(
          `${error.message}\n${await page.locator('main').innerText()}\n${outbox}\n${page.problems.join('\n')}`,
        );
      });
  /** One count as a scanner does it: the code and Enter, the location (Enter, or the line `product|location|pool` chosen), the quantity and Enter. */
  const count = async (
    page: ConsolePage,
    code: string,
    quantity: number,
    { location, add = false }: { location?: string; add?: boolean } = {},
  ) => {
    const field = page.locator('form.floor-task input[name=code]');
    await field.fill(code);
    await field.press('Enter');
    const select = page.locator('form.floor-task select[name=location]');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('location');
    if (location) await select.selectOption(`line:${location}`);
    await select.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('counted');
    if (add) await page.locator('form.floor-task input[name=add]').check();
    await page.locator('form.floor-task input[name=counted]').fill(String(quantity));
    await page.locator('form.floor-task input[name=counted]').press('Enter');
  };
  const lineAt = (all: Line[], product: string, location: string | null, pool?: number) =>
    all.find(
      (l) => l.product_number === product && l.location_code === location && (pool === undefined || l.pool === pool),
    )!;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await buildTestApp(dialect);
    await seedFloor(t);
    const reason = await t.post(`${API}/reasoncodes`, {
      reason_codes: [
        reasonCodeInput(ZERO_REASON, { reason_code_description: 'Not found at count', reason_code_type: 6 }),
      ],
    });
    expect(reason.statusCode, reason.body).toBe(200);
    const product = await t.post(`${API}/products`, {
      products: [productInput(OFFLINE_PRODUCT, { product_name: 'Yoghurt 500 g', barcode: OFFLINE_BARCODE })],
    });
    expect(product.statusCode, product.body).toBe(200);
    for (const [location, quantity] of [
      ['A-01', 5],
      ['BR-1', 3],
    ] as const) {
      const stock = await t.post(`${API}/stores/${FLOOR.store}/products/stock/storeproductlogs`, {
        storeproductlog: [
          {
            customer_order_line_number: 0,
            modification_datetime: new Date().toISOString(),
            product_number: OFFLINE_PRODUCT,
            quantity,
            location_code: location,
            reason_code: 20,
          },
        ],
      });
      expect(stock.statusCode, stock.body).toBe(200);
    }
    storeToken = await t.token('store', [FLOOR.store]);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await browser.launch();
  });
  afterEach(() => browser.closeTabs());
  afterAll(async () => {
    await browser.close();
    await t?.close();
    await dialect.cleanup();
  });

  it('the back office creates a blind full assignment and starts it', async () => {
    const page = await browser.open(`${origin}/console#/assignments`, DESKTOP, 'back-office');
    await signIn(page, ADMIN_TOKEN);
    await page.locator('details.create-assignment summary').click();
    const form = page.locator('form.assignment-form');
    await form.getByLabel('Description').fill('Dairy, blind and full');
    await form.getByLabel('Count', { exact: true }).selectOption('product_numbers');
    await form.getByLabel('Which').fill(`${FLOOR.product}, ${FLOOR.otherProduct}`);
    await form.getByLabel('Kind').selectOption('full');
    await form.getByLabel('Reason code for the zeroed lines').selectOption(String(ZERO_REASON));
    await form.getByLabel('Variance limit: quantity').fill('5');
    await form.getByLabel(/^Blind/).check();
    await form.getByRole('button', { name: 'Create assignment' }).click();
    await said(page, 'created. Start it when the store may count.');
    const card = page.locator('details.assignment-card').first();
    blindId = Number(await card.getAttribute('data-assignment'));
    expect(blindId).toBeGreaterThan(0);
    await card.locator('summary').click();
    await card.locator('button[data-action=start]').click();
    await said(page, 'started:');

    const started = await assignment(blindId);
    expect(started).toMatchObject({
      status: 'counting',
      blind: true,
      kind: 'full',
      zero_reason_code: ZERO_REASON,
      max_variance_quantity: 5,
    });
    const all = await lines(blindId);
    expect(started.progress.lines_total).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(3);
    // The back office sees what the books expect, even while blind.
    expect(await page.locator('main').innerText()).toContain(`${all.length} lines to count`);
    expect(page.problems).toEqual([]);
  });

  it('a store token counts on a 360 px handheld — a scan, a recount, an add — never sees expected or variance, and submits', async () => {
    const expected = await lines(blindId);
    const shelf = lineAt(expected, FLOOR.product, 'A-01');
    const backroom = lineAt(expected, FLOOR.product, 'BR-1');
    const others = expected.filter((l) => l !== shelf && l !== backroom);
    // Left uncounted: the full count zeroes it, 6 below what the books say — beyond the limit of 5.
    const zeroed = lineAt(expected, FLOOR.product, null, 1);
    expect(zeroed.expected_quantity).toBe(6);
    const answers: string[] = [];
    const page = await browser.open(`${origin}/console#/countlist`, HANDHELD, 'handheld');
    page.on('response', (response) => {
      if (response.url().includes('/countingassignments'))
        void response
          .text()
          .then((body) => answers.push(body))
          .catch(() => undefined);
    });
    await signIn(page, storeToken);
    await page.locator(`a.link-card[data-assignment="${blindId}"]`).click();
    await page.locator('form.floor-task').waitFor();
    await page.locator('table.data').waitFor();
    expect(await page.locator('.count-list .notice.info').first().innerText()).toContain('Blind count');

    await count(page, FLOOR.barcode, shelf.expected_quantity! + 3);
    await said(page, `Counted ${FLOOR.product} at A-01: ${shelf.expected_quantity! + 3}.`);
    // A recount replaces; the first line still to count (BR-1) is suggested, so the shelf is chosen.
    await count(page, FLOOR.product, shelf.expected_quantity!, { location: `${FLOOR.product}|A-01|${shelf.pool}` });
    await said(page, `Recounted ${FLOOR.product} at A-01: ${shelf.expected_quantity}.`);
    await count(page, FLOOR.barcode, backroom.expected_quantity! - 2);
    await said(page, `Counted ${FLOOR.product} at BR-1: ${backroom.expected_quantity! - 2}.`);
    await count(page, FLOOR.barcode, 2, { location: `${FLOOR.product}|BR-1|${backroom.pool}`, add: true });
    await said(page, `Added ${FLOOR.product} at BR-1: ${backroom.expected_quantity} (`);
    for (const line of others.filter((l) => l !== zeroed)) {
      await count(page, line.product_number, line.expected_quantity!, {
        location: `${line.product_number}|${line.location_code ?? ''}|${line.pool}`,
      });
      await said(page, `Counted ${line.product_number}`);
    }
    await allSent(page, 4 + others.length - 1);

    // Counted through the outbox at the scanned moments: the recount and the add are the lines' last.
    const counted = await lines(blindId);
    const actions = (await outboxOf(page)).filter((a) => a.kind === 'assignment-count');
    expect(lineAt(counted, FLOOR.product, 'A-01').counted_quantity).toBe(shelf.expected_quantity);
    expect(lineAt(counted, FLOOR.product, 'BR-1').counted_quantity).toBe(backroom.expected_quantity);
    for (const line of counted.filter((l) => l.counted_quantity !== null)) {
      const last = actions
        .filter((a) => a.line === `${line.product_number}|${line.location_code ?? ''}|${line.pool}`)
        .at(-1)!;
      expect(new Date(line.counted_at!).getTime()).toBe(new Date(last.scannedAt).getTime());
    }
    expect(lineAt(counted, FLOOR.product, null, 1).counted_quantity).toBeNull();

    // Blind: not on the page, not in what the API gave this token.
    await page.locator('table.data').getByText('✓ counted').first().waitFor();
    const text = await page.locator('main').innerText();
    expect(text).not.toMatch(/expected|variance/i);
    const blindLines = await lines(blindId, storeToken);
    expect(blindLines.every((l) => !('expected_quantity' in l) && !('variance_quantity' in l))).toBe(true);
    const blindProgress = (await assignment(blindId, storeToken)).progress;
    expect('variance_quantity' in blindProgress || 'variance_value' in blindProgress).toBe(false);
    expect(answers.length).toBeGreaterThan(0);
    for (const body of answers) expect(body).not.toMatch(/"(expected_quantity|variance_quantity|variance_value)"/);

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `handheld-assignment-${dialect.name}.png`), fullPage: true });
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);

    await page.getByRole('button', { name: 'Submit count' }).click();
    await said(page, '1 line is not counted. This is a full count: submitting counts them as zero.');
    await page.getByRole('button', { name: 'Submit with 1 line not counted' }).click();
    await allSent(page, 5 + others.length - 1);
    const submitted = await assignment(blindId);
    expect(submitted.status).toBe('submitted');
    expect(submitted.progress.lines_pending).toBeGreaterThanOrEqual(1);
    expect(lineAt(await lines(blindId), FLOOR.product, null, 1).status).toBe('pending');
    await said(page, 'Submitted:');
    expect(page.problems).toEqual([]);
  });

  it('the back office approves the count beyond the limit, and the assignment is closed', async () => {
    const page = await browser.open(`${origin}/console#/assignments?status=submitted`, DESKTOP, 'back-office');
    await signIn(page, ADMIN_TOKEN);
    const card = page.locator(`details.assignment-card[data-assignment="${blindId}"]`);
    await card.locator('tr.review-row').first().waitFor();
    // Submitted, the count is no longer blind: the variance by value is there for the back office.
    expect(await card.locator('.figures').innerText()).not.toContain('not shown');
    await page.screenshot({ path: path.join(ARTIFACTS, `desktop-assignments-${dialect.name}.png`), fullPage: true });
    const pending = await lines(blindId);
    const zeroed = lineAt(pending, FLOOR.product, null, 1);
    const before = await t.get(`${API}/stores/${FLOOR.store}/products/${FLOOR.product}/stock`);
    const stockBefore = before.json().products[0].most_likely_stock as number;
    for (let left = pending.filter((l) => l.status === 'pending').length; left > 0; left -= 1) {
      await card.locator('tr.review-row button[data-action=approve]').first().click();
      await said(page, 'Approved: the count of');
    }
    await said(page, 'is closed: every line is booked or decided.');
    expect((await assignment(blindId)).status).toBe('closed');
    expect(lineAt(await lines(blindId), FLOOR.product, null, 1).status).toBe('approved');
    if (pending.filter((l) => l.status === 'pending').length === 1) {
      // The zeroing alone waited: approved, it takes the line's 6 off the product's stock.
      const after = await t.get(`${API}/stores/${FLOOR.store}/products/${FLOOR.product}/stock`);
      expect(after.json().products[0].most_likely_stock).toBe(stockBefore - zeroed.expected_quantity!);
    }
    expect(page.problems).toEqual([]);
  });

  it('offline: counts and the submission wait through a reload, then each is booked once at its counted moment', async () => {
    const created = await t.post(`${API}/stores/${FLOOR.store}/countingassignments`, {
      counting_assignment_code: 'YOG-1',
      description: 'Yoghurt',
      scope: { product_numbers: [OFFLINE_PRODUCT] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as Assignment).counting_assignment_id;
    expect((await t.post(`${API}/stores/${FLOOR.store}/countingassignments/${id}/start`, undefined)).statusCode).toBe(
      200,
    );
    const page = await browser.open(`${origin}/console#/countlist?assignment=${id}`, HANDHELD, 'offline');
    await signIn(page, storeToken);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.locator('form.floor-task').waitFor();
    await page.locator('table.data').getByText(OFFLINE_PRODUCT).first().waitFor();
    // Not blind: the store sees what the books expect.
    expect(await page.locator('table.data').innerText()).toMatch(/Expected/i);

    await page.context().setOffline(true);
    await page.reload();
    await page.locator('#status').getByText('Offline').waitFor();
    await page.locator('form.floor-task').waitFor();
    await count(page, OFFLINE_BARCODE, 4);
    await said(page, `Counted ${OFFLINE_PRODUCT} at A-01: 4.`);
    await count(page, OFFLINE_BARCODE, 3);
    await said(page, `Counted ${OFFLINE_PRODUCT} at BR-1: 3.`);
    await page.locator('table.data').getByText('4 (waiting)').waitFor();
    await page.getByRole('button', { name: 'Submit count' }).click();
    await page.locator('#status[data-waiting="3"]').waitFor();

    await page.reload();
    await page.locator('#status[data-waiting="3"]').waitFor();
    expect((await lines(id)).every((l) => l.counted_quantity === null)).toBe(true);

    await page.context().setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await allSent(page, 3);
    const done = await assignment(id);
    expect(done.status).toBe('closed');
    const booked = await lines(id);
    expect(booked.map((l) => [l.location_code, l.counted_quantity, l.status])).toEqual(
      expect.arrayContaining([
        ['A-01', 4, 'booked'],
        ['BR-1', 3, 'booked'],
      ]),
    );
    const actions = await outboxOf(page);
    const counts = actions.filter((a) => a.kind === 'assignment-count');
    const countedAt = counts.map((a) => new Date(a.scannedAt).getTime()).sort((a, b) => a - b);
    expect(booked.map((l) => new Date(l.counted_at!).getTime()).sort((a, b) => a - b)).toEqual(countedAt);
    // The submission booked one entry a line, each at its own counted moment.
    const entries = actions.find((a) => a.kind === 'assignment-submit')!.entryIds ?? [];
    expect(entries).toHaveLength(2);
    expect(await momentsOf(entries)).toEqual(countedAt);
    expect(booked.map((l) => l.log_entry_id).sort()).toEqual([...entries].sort());
    const stock = await t.get(`${API}/stores/${FLOOR.store}/products/${OFFLINE_PRODUCT}/stock`);
    expect(stock.json().products[0].most_likely_stock).toBe(7);
    await page.locator('.messages .notice.info').getByText('Closed: every line is booked.').waitFor();
    expect(page.problems).toEqual([]);
  });
});
