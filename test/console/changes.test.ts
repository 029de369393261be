import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { purgeExpiredEvents } from '../../src/modules/events/upkeep.js';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { productInput } from '../helpers/factories.js';
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
 * The console's Changes view in a real browser (issue 30): it opens at the end of the change
 * feed with the last few changes, and a change made through the API appears on top within
 * seconds; the type and store filters, pausing, a store token's scope, failures in words and a
 * cursor the retention overtook.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'console');
/** A change must show within this long (the view asks every second). */
const SEEN_WITHIN_MS = 5000;

describeInBrowser('the Changes view in a browser', (dialect) => {
  let t: TestApp;
  let origin: string;
  const browser = new ConsoleBrowser();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await buildTestApp(dialect);
    await seedFloor(t);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await browser.launch();
  });
  afterEach(() => browser.closeTabs());
  afterAll(async () => {
    await browser.close();
    await t?.close();
    await dialect.cleanup();
  });

  /** The console signed in, on the Changes view, once it follows the feed. */
  async function openChanges(token = ADMIN_TOKEN, query = '', viewport = DESKTOP): Promise<ConsolePage> {
    const page = await browser.open(`${origin}/console`, viewport);
    await signIn(page, token);
    await page.goto(`${origin}/console#/changes${query}`);
    await following(page);
    return page;
  }

  const following = (page: ConsolePage) =>
    expect
      .poll(() => page.locator('.feed-state').innerText(), { timeout: SEEN_WITHIN_MS })
      .toMatch(/^Following live: up to sequence \d+/);
  const rowTexts = (page: ConsolePage) => page.locator('tbody tr').allInnerTexts();
  const sequences = async (page: ConsolePage) =>
    await page
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => Number((row as HTMLElement).dataset.sequence)));

  /** One stock entry through the API; its id. */
  async function book(store: string, entry: Record<string, unknown>): Promise<number> {
    const response = await t.post(`${API}/stores/${store}/products/stock/storeproductlogs`, {
      storeproductlog: [
        {
          customer_order_line_number: 0,
          modification_datetime: new Date().toISOString(),
          product_number: FLOOR.product,
          reason_code: 20,
          ...entry,
        },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: number[] }).data[0]!;
  }

  it('opens at the feed’s end with the last few changes, newest on top, and shows a change made through the API within seconds', async () => {
    const page = await openChanges();
    // The seed's last changes are there, newest first, and none of the oldest (the view did not page from the start).
    const opened = await sequences(page);
    expect(opened.length).toBeGreaterThan(3);
    expect(opened).toEqual([...opened].sort((a, b) => b - a));
    expect((await rowTexts(page)).join('\n')).toMatch(/Delivery PO-7001: Receiving/);
    expect(await page.title()).toBe(`Changes · ${FLOOR.store} Amsterdam Centrum · Store console`);

    const booked = Date.now();
    const entry = await book(FLOOR.store, { quantity: 2, location_code: 'A-01' });
    const top = page.locator('tbody tr').first();
    await expect.poll(() => top.innerText(), { timeout: SEEN_WITHIN_MS }).toContain(`(entry ${entry})`);
    const seenAfterMs = Date.now() - booked;
    expect(seenAfterMs).toBeLessThan(SEEN_WITHIN_MS);
    // Sequence, local time, type, store, and the change in words.
    const cells = await top.locator('td').allInnerTexts();
    expect(cells[0]).toMatch(/^\d+$/);
    expect(Number(cells[0])).toBeGreaterThan(opened[0]!);
    expect(cells[1]).toMatch(/^\d{1,2}:\d{2}:\d{2}\s?[AP]M$/);
    expect(cells.slice(2)).toEqual([
      'stock.changed',
      FLOOR.store,
      `${FLOOR.product} @ A-01 pool 1 → 21 (entry ${entry})`,
    ]);
    expect(await top.getAttribute('class')).toContain('fresh');
    expect(page.problems).toEqual([]);
  });

  it('filters by type on the feed and by store in the page, with the keyboard', async () => {
    const page = await openChanges();
    await page.locator('#changes-types').focus();
    await page.locator('#changes-types').selectOption('master');
    await expect.poll(() => page.evaluate(() => window.location.hash)).toBe('#/changes?types=master');
    await following(page);
    expect(await page.locator('tbody tr code').allInnerTexts()).not.toContain('stock.changed');

    await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });
    expect(
      (await t.post(`${API}/products`, { products: [productInput('555001', { product_name: 'Oat milk' })] }))
        .statusCode,
    ).toBe(200);
    await expect
      .poll(() => page.locator('tbody tr').first().innerText(), { timeout: SEEN_WITHIN_MS })
      .toContain('Product 555001 created or changed');
    expect(await page.locator('tbody tr').first().locator('td').nth(3).innerText()).toBe('chain-wide');
    expect(await page.locator('tbody tr code').allInnerTexts()).not.toContain('stock.changed');

    // Stock only, this store (and chain-wide): another store's change is read and left out.
    await page.goto(`${origin}/console#/changes?types=stock`);
    await following(page);
    const other = await book(FLOOR.otherStore, { quantity: 3, pool_location: 1 });
    const mine = await book(FLOOR.store, { quantity: 1, location_code: 'BR-1' });
    await expect
      .poll(() => page.locator('tbody tr').first().innerText(), { timeout: SEEN_WITHIN_MS })
      .toContain(`(entry ${mine})`);
    expect((await rowTexts(page)).join('\n')).not.toContain(`(entry ${other})`);
    // Every store the token sees: the same recent changes, the other store's among them.
    await page.locator('#changes-stores').selectOption('all');
    await following(page);
    await expect
      .poll(() =>
        page
          .locator('tbody tr', { hasText: `(entry ${other})` })
          .locator('td')
          .allInnerTexts(),
      )
      .toEqual([
        expect.stringMatching(/^\d+$/),
        expect.any(String),
        'stock.changed',
        FLOOR.otherStore,
        `${FLOOR.product} not at a location, pool 1 → 3 (entry ${other})`,
      ]);
    expect(await page.locator('h1').innerText()).toBe('Changes in every store');
    expect(page.problems).toEqual([]);
  });

  it('pauses and resumes from where it paused, nothing skipped', async () => {
    const page = await openChanges();
    const pause = page.locator('#changes-pause');
    await pause.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.feed-state').innerText()).toMatch(/^Paused at sequence \d+\./);
    expect(await pause.innerText()).toBe('Resume');
    const first = await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });
    const second = await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });
    await page.waitForTimeout(1200);
    expect((await rowTexts(page)).join('\n')).not.toContain(`(entry ${first})`);

    await page.keyboard.press('Enter');
    expect(await pause.innerText()).toBe('Pause');
    await expect
      .poll(() => page.locator('tbody tr').first().innerText(), { timeout: SEEN_WITHIN_MS })
      .toContain(`(entry ${second})`);
    expect(await page.locator('tbody tr').nth(1).innerText()).toContain(`(entry ${first})`);
    expect(page.problems).toEqual([]);
  });

  it('shows a store token its stores’ changes and chain-wide ones only', async () => {
    const storeToken = await t.token('store', [FLOOR.otherStore]);
    const page = await openChanges(storeToken, '?stores=all');
    expect(await page.locator('#changes-stores option').allInnerTexts()).toEqual([
      `${FLOOR.otherStore} Utrecht Centraal and chain-wide`,
      'All stores of your token',
    ]);
    const hidden = await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });
    expect((await t.post(`${API}/products`, { products: [productInput('555002')] })).statusCode).toBe(200);
    const shown = await book(FLOOR.otherStore, { quantity: 1, pool_location: 1 });
    await expect
      .poll(() => page.locator('tbody tr').first().innerText(), { timeout: SEEN_WITHIN_MS })
      .toContain(`(entry ${shown})`);
    const texts = (await rowTexts(page)).join('\n');
    expect(texts).toContain('Product 555002 created or changed');
    expect(texts).not.toContain(`(entry ${hidden})`);
    expect(await page.locator('tbody tr td:nth-child(4)').allInnerTexts()).toSatisfy((stores: string[]) =>
      stores.every((store) => store === FLOOR.otherStore || store === 'chain-wide'),
    );
    expect(page.problems).toEqual([]);
  });

  it('says in words when the feed fails, and goes on when it answers again', async () => {
    const page = await openChanges();
    const feedCalls = '**/api/v2/public/events?*';
    await page.route(feedCalls, (route) =>
      route.fulfill({
        status: 503,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          success: false,
          code: 'UNAVAILABLE',
          message: 'The database is unavailable; try again shortly',
          errors: [],
        }),
      }),
    );
    const alert = page.getByRole('alert');
    await expect
      .poll(() => alert.innerText())
      .toBe('The service is unavailable right now. The database is unavailable; try again shortly. Try again shortly.');
    const entry = await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });
    await page.unroute(feedCalls);
    await expect
      .poll(() => page.locator('tbody tr').first().innerText(), { timeout: SEEN_WITHIN_MS })
      .toContain(`(entry ${entry})`);
    expect(await alert.count()).toBe(0);
    expect(page.problems).toEqual([]);
  });

  it('fits a 360 px handheld without sideways scrolling; screenshots at 360 and 1280 px', async () => {
    for (const [name, viewport] of [
      ['360', HANDHELD],
      ['1280', DESKTOP],
    ] as const) {
      const page = await openChanges(ADMIN_TOKEN, '', viewport);
      expect(await sidewaysOverflow(page), `changes at ${name} px scrolls sideways`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `changes-${name}-${dialect.name}.png`), fullPage: false });
      expect(page.problems).toEqual([]);
    }
  });

  // Last: the purge empties the feed of everything before it.
  it('tells the user when retention overtook the page, and goes on from the oldest change kept', async () => {
    const page = await openChanges();
    await page.locator('#changes-pause').click();
    await expect.poll(() => page.locator('.feed-state').innerText()).toMatch(/^Paused at sequence (\d+)\./);
    const pausedAt = Number(/sequence (\d+)/.exec(await page.locator('.feed-state').innerText())![1]);
    // Written while paused, then past a 30-day retention as seen from 31 days on.
    await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });
    // A read numbers what committed (PostgreSQL's sequencer), so the purge sees that change too.
    expect((await t.get(`${API}/events?after=${pausedAt}`)).json()).toMatchObject({ next_after: pausedAt + 1 });
    await purgeExpiredEvents(t.app.ctx.handle, Date.now() + 31 * 24 * 3600 * 1000, 30);
    const after = await book(FLOOR.store, { quantity: 1, location_code: 'A-01' });

    await page.locator('#changes-pause').click();
    const notice = page.locator('.notice.info');
    await expect
      .poll(() => notice.innerText(), { timeout: SEEN_WITHIN_MS })
      .toMatch(
        new RegExp(
          `^The feed no longer keeps the changes after sequence ${pausedAt}: they are older than its retention\\. Following on from the oldest change kept, sequence ${pausedAt + 2}; the ones in between are not shown\\.$`,
        ),
      );
    await expect
      .poll(() => page.locator('tbody tr').first().innerText(), { timeout: SEEN_WITHIN_MS })
      .toContain(`(entry ${after})`);
    expect(page.problems).toEqual([]);
  });
});
