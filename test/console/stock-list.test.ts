import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { productInput } from '../helpers/factories.js';
import { ConsoleBrowser, type ConsolePage, DESKTOP, describeInBrowser, HANDHELD, signIn } from './browser.js';
import { FLOOR, seedFloor } from './seed.js';

/**
 * The store's stock as a list in the console (issue 43): the filters a back office uses
 * (location, below zero, not counted since, text), checked against the API's own list, and
 * the CSV export of the filtered list downloaded as a file.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'console');
const NEGATIVE = '100400';

describeInBrowser('the stock list in a browser', (dialect) => {
  let t: TestApp;
  let origin: string;
  let storeToken: string;
  const browser = new ConsoleBrowser();

  /** The product numbers the API lists for these filters in the store. */
  const listed = async (filters: Record<string, string>): Promise<string[]> => {
    const query = new URLSearchParams({ store_number: FLOOR.store, page_size: '1000', ...filters });
    const answer = await t.get(`${API}/storeproducts/stock?${query}`);
    expect(answer.statusCode, answer.body).toBe(200);
    return (answer.json().list as { product_number: string }[]).map((item) => item.product_number).sort();
  };
  /** The product numbers the console's table shows. */
  const shown = async (page: ConsolePage): Promise<string[]> => {
    await page.locator('.paged[aria-busy="false"] .result-heading').waitFor();
    const cells = await page.locator('table.data tbody tr td:first-child').allInnerTexts();
    return cells.map((cell) => cell.trim()).sort();
  };
  const show = async (page: ConsolePage, hash: string) => {
    await page.evaluate((target) => {
      window.location.hash = target;
    }, hash);
    return shown(page);
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await buildTestApp(dialect);
    await seedFloor(t);
    const products = await t.post(`${API}/products`, {
      products: [productInput(NEGATIVE, { product_name: 'Rye bread, "sliced"', barcode: '8712345678920' })],
    });
    expect(products.statusCode, products.body).toBe(200);
    const stock = (entry: Record<string, unknown>, query = '') =>
      t.post(`${API}/stores/${FLOOR.store}/products/stock/storeproductlogs${query}`, {
        storeproductlog: [{ customer_order_line_number: 0, modification_datetime: new Date().toISOString(), ...entry }],
      });
    // Sold before it was booked in: below zero.
    expect((await stock({ product_number: NEGATIVE, quantity: -4, reason_code: 10 })).statusCode).toBe(200);
    // Counted today: not in "not counted since today".
    const counted = await stock(
      { product_number: FLOOR.otherProduct, quantity: 7, pool_location: 2 },
      '?is_counted_quantity=true',
    );
    expect(counted.statusCode, counted.body).toBe(200);
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

  it('filters by location, below zero, not counted since and text as the API does, from the form and the address', async () => {
    const page = await browser.open(`${origin}/console#/list`, DESKTOP, 'list');
    await signIn(page, storeToken);
    expect(await shown(page)).toEqual(await listed({}));
    expect(await shown(page)).toEqual([FLOOR.product, FLOOR.otherProduct, NEGATIVE].sort());

    // From the form, as an employee does it.
    await page.locator('select[name=location] option[value="A-01"]').waitFor({ state: 'attached' });
    await page.locator('select[name=location]').selectOption('A-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('.result-heading').getByText('at A-01').waitFor();
    expect(await shown(page)).toEqual(await listed({ location_code: 'A-01' }));
    expect(await shown(page)).toEqual([FLOOR.product]);

    expect(await show(page, '#/list?below=1')).toEqual([NEGATIVE]);
    expect(await listed({ below_zero: 'true' })).toEqual([NEGATIVE]);
    const today = await page.evaluate(() => new Date().toLocaleDateString('sv'));
    const startOfToday = await page.evaluate((day) => new Date(`${day}T00:00:00`).toISOString(), today);
    expect(await show(page, `#/list?since=${today}`)).toEqual(await listed({ not_counted_since: startOfToday }));
    expect(await show(page, `#/list?since=${today}`)).not.toContain(FLOOR.otherProduct);
    expect(await show(page, '#/list?text=rye')).toEqual([NEGATIVE]);
    expect(await show(page, '#/list?location=A-01')).toEqual([FLOOR.product]);
    await page.screenshot({ path: path.join(ARTIFACTS, `desktop-list-${dialect.name}.png`) });
    expect(await show(page, '#/list?text=rye')).toEqual([NEGATIVE]);
    expect(await page.locator('tr.short').count()).toBe(1);
    expect(page.problems).toEqual([]);
  });

  it('exports the filtered list as an RFC 4180 file, the same rows the API lists', async () => {
    const page = await browser.open(`${origin}/console#/list?since=2000-01-01`, HANDHELD, 'export');
    await signIn(page, storeToken);
    await shown(page);
    await page.screenshot({ path: path.join(ARTIFACTS, `handheld-list-${dialect.name}.png`) });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^stock-${FLOOR.store}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
    const file = readFileSync(await download.path(), 'utf8');
    const lines = file.split('\r\n');
    expect(lines.at(-1)).toBe('');
    const header = lines[0]!.split(',');
    const column = header.indexOf('product_number');
    expect(column).toBeGreaterThanOrEqual(0);
    // Nothing counted since 2000 except what was counted today: the rows are the API's.
    const numbers = lines
      .slice(1, -1)
      .map((line) => line.split(',')[column]!)
      .sort();
    const api = await t.get(
      `${API}/stores/${FLOOR.store}/storeproducts/stock.csv?not_counted_since=2000-01-01T00:00:00Z`,
    );
    expect(file).toBe(api.body);
    expect(numbers).toEqual(await listed({ not_counted_since: '2000-01-01T00:00:00Z' }));
    // The quoted name survives as one field, quotes doubled.
    expect(file).toContain('"Rye bread, ""sliced"""');
    await page.locator('.notice.success').getByText('Exported').waitFor();
    expect(page.problems).toEqual([]);
  });
});
