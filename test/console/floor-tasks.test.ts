import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
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
 * The handheld's floor tasks in a real browser (issue 43): count, loss and move through the
 * outbox, checked against the API afterwards; offline — the shell from the service worker,
 * ten actions queued, a reload, the network back — each applied exactly once at its scanned
 * moment and a refused one shown; two tabs of one device sending nothing twice.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'console');

interface Entry {
  id: number;
  quantity: number;
  location_code?: string;
  source?: string;
  remarks?: string;
  created_on: string;
}

interface QueuedAction {
  key: string;
  kind: string;
  state: string;
  scannedAt: string;
  entryIds?: number[];
  failure?: { sentence: string; whatToDo: string };
}

describeInBrowser('the handheld floor tasks in a browser', (dialect) => {
  let t: TestApp;
  let origin: string;
  let storeToken: string;
  const browser = new ConsoleBrowser();

  const locationQuantity = async (code: string): Promise<number> => {
    const answer = await t.get(`${API}/stores/${FLOOR.store}/products/${FLOOR.product}/stock?include_locations=true`);
    const line = answer.json().products[0] as { store_locations?: { store_location_code: string; quantity: number }[] };
    return line.store_locations?.find((l) => l.store_location_code === code)?.quantity ?? 0;
  };
  const consoleEntries = async (): Promise<Entry[]> => {
    const answer = await t.get(
      `${API}/products/stock/storeproductlogs?store_number=${FLOOR.store}&article_number=${FLOOR.product}&page_size=1000`,
    );
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json() as { list?: Entry[]; storeproductlog?: Entry[] };
    return (body.list ?? body.storeproductlog ?? []).filter((entry) => entry.source === 'store console');
  };
  /** Each entry's moment as the ledger holds it (the log listing shows when it arrived, not this). */
  const momentsOf = async (ids: number[]): Promise<Map<number, number>> => {
    const rows = await t.app.ctx.db
      .selectFrom('stock_logs')
      .select(['id', 'modification_at'])
      .where('id', 'in', ids.length > 0 ? ids : [-1])
      .execute();
    return new Map(rows.map((row) => [Number(row.id), Number(row.modification_at)]));
  };
  /** The outbox as the device holds it. */
  const outboxOf = (page: ConsolePage): Promise<QueuedAction[]> =>
    // A string, so that the test's own module loader leaves the page's import() alone.
    page.evaluate("import('/console/js/offline/device-db.js').then((db) => db.getAll('outbox'))");
  /** Until the device's outbox holds `count` sent actions and none waiting (the status line redraws only every 100 ms). */
  const waitForSent = async (page: ConsolePage, count: number) => {
    await expect
      .poll(async () => {
        const actions = await outboxOf(page);
        return [actions.filter((a) => a.state === 'sent').length, actions.filter((a) => a.state === 'waiting').length];
      })
      .toEqual([count, 0]);
  };

  async function queue(page: ConsolePage, view: string, fill: (page: ConsolePage) => Promise<void>): Promise<void> {
    if (!(await page.evaluate((name) => window.location.hash.startsWith(`#/${name}`), view))) {
      await page.evaluate((name) => {
        window.location.hash = `#/${name}`;
      }, view);
    }
    await page.locator('form.floor-task button[type=submit]').waitFor();
    await fill(page);
    await page.locator('form.floor-task button[type=submit]').click();
    await page
      .locator('.messages .notice.success')
      .getByText('Queued:')
      .waitFor({ timeout: 10_000 })
      .catch(async (error) => {
        const outbox = await outboxOf(page).catch((e) => String(e));
        throw new Error(
          `${error.message}\n${await page.locator('main').innerText()}\n${JSON.stringify(outbox).slice(0, 3000)}\n${page.problems.join('\n')}`,
        );
      });
  }
  const scan = async (page: ConsolePage, code: string) => {
    const field = page.locator('form.floor-task input[name=code]');
    await field.fill(code);
    await field.press('Enter');
  };
  const countAt = (location: string, counted: number) => async (page: ConsolePage) => {
    await scan(page, FLOOR.barcode);
    await page.locator('select[name=location]').selectOption(location);
    await page.locator('input[name=counted]').fill(String(counted));
  };
  const lossAt =
    (location: string, lost: number, remark = '') =>
    async (page: ConsolePage) => {
      await scan(page, FLOOR.product);
      await page.locator('select[name=location]').selectOption(location);
      await page.locator('input[name=lost]').fill(String(lost));
      await page.locator('select[name=reason]').selectOption('10');
      if (remark) await page.locator('textarea[name=remark]').fill(remark);
    };
  const moveOf = (from: string, to: string, moved: number) => async (page: ConsolePage) => {
    await scan(page, FLOOR.product);
    await page.locator('select[name=from]').selectOption(from);
    await page.locator('select[name=to]').selectOption(to);
    await page.locator('input[name=quantity]').fill(String(moved));
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await buildTestApp(dialect);
    await seedFloor(t);
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

  it('counts, records a loss with a remark and moves stock online; the API shows each once', async () => {
    const page = await browser.open(`${origin}/console#/count`, DESKTOP, 'online');
    await signIn(page, storeToken);
    const before = { a: await locationQuantity('A-01'), br: await locationQuantity('BR-1') };

    await queue(page, 'count', countAt('A-01', 40));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `desktop-count-${dialect.name}.png`) });
    await waitForSent(page, 1);
    expect(await locationQuantity('A-01')).toBe(40);

    await queue(page, 'loss', lossAt('A-01', 2, 'dropped pallet'));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `desktop-loss-${dialect.name}.png`) });
    await waitForSent(page, 2);
    expect(await locationQuantity('A-01')).toBe(38);

    await queue(page, 'move', moveOf('A-01', 'BR-1', 5));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `desktop-move-${dialect.name}.png`) });
    await waitForSent(page, 3);
    expect(await locationQuantity('A-01')).toBe(33);
    expect(await locationQuantity('BR-1')).toBe(before.br + 5);

    await page.evaluate(() => {
      window.location.hash = '#/outbox';
    });
    await page.locator('.outbox-item.sent').first().waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, `desktop-outbox-${dialect.name}.png`) });
    const entries = await consoleEntries();
    const sent = (await outboxOf(page)).filter((action) => action.state === 'sent');
    expect(sent.map((action) => action.kind)).toEqual(['count', 'loss', 'move']);
    // The count and the loss are booked at the moment they were scanned (PRODUCT §5).
    const moments = await momentsOf(sent.flatMap((action) => action.entryIds ?? []));
    for (const action of sent.slice(0, 2)) {
      const [id] = action.entryIds ?? [];
      expect(
        entries.find((one) => one.id === id),
        action.kind,
      ).toBeDefined();
      expect(moments.get(id!), action.kind).toBe(new Date(action.scannedAt).getTime());
    }
    expect(page.problems).toEqual([]);
  });

  it('offline: the shell loads, ten actions wait through a reload, and the network back applies each once at its scanned moment; a refused one is shown with what to do', async () => {
    const page = await browser.open(`${origin}/console#/loss`, HANDHELD, 'offline');
    await signIn(page, storeToken);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // The forms' reads (locations, reason codes, the product) are known on the device once.
    await page.locator('form.floor-task button[type=submit]').waitFor();
    await scan(page, FLOOR.product);
    await page.locator('.product-found').getByText(`Product ${FLOOR.product}`).waitFor();
    await page.evaluate(() => {
      window.location.hash = '#/move';
    });
    await page.locator('select[name=from]').waitFor();
    const startA = await locationQuantity('A-01');
    const startEntries = (await consoleEntries()).length;

    await page.context().setOffline(true);
    await page.reload();
    await page.locator('#status').getByText('Offline').waitFor();
    for (let i = 0; i < 9; i += 1) await queue(page, 'loss', lossAt('A-01', 1));
    // More than the backroom holds: refused when it arrives, not lost.
    await queue(page, 'move', moveOf('BR-1', 'A-01', 100000));
    await expect.poll(async () => page.locator('#status').getAttribute('data-waiting')).toBe('10');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `handheld-offline-${dialect.name}.png`) });

    await page.reload();
    await page.locator('#status[data-waiting="10"]').waitFor();
    expect(await consoleEntries()).toHaveLength(startEntries);

    await page.context().setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await expect
      .poll(async () => (await outboxOf(page)).map((action) => action.state).sort(), { timeout: 30_000 })
      .toEqual(['refused', ...Array(9).fill('sent')]);
    await page.locator('#status[data-waiting="0"][data-refused="1"]').waitFor({ timeout: 30_000 });

    const actions = await outboxOf(page);
    const losses = actions.filter((action) => action.kind === 'loss' && action.state === 'sent');
    expect(losses).toHaveLength(9);
    const entries = await consoleEntries();
    expect(entries).toHaveLength(startEntries + 9);
    const moments = await momentsOf(losses.flatMap((action) => action.entryIds ?? []));
    for (const action of losses) {
      const booked = entries.filter((entry) => action.entryIds?.includes(entry.id));
      expect(booked).toHaveLength(1);
      expect(moments.get(booked[0]!.id)).toBe(new Date(action.scannedAt).getTime());
    }
    expect(await locationQuantity('A-01')).toBe(startA - 9);

    const refused = actions.find((action) => action.state === 'refused');
    expect(refused?.kind).toBe('move');
    await page.evaluate(() => {
      window.location.hash = '#/outbox';
    });
    const item = page.locator('.outbox-item.refused');
    await item.waitFor();
    expect(await item.locator('.what-to-do').textContent()).toContain('discard');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(ARTIFACTS, `handheld-outbox-${dialect.name}.png`) });
    await item.getByRole('button', { name: 'Discard' }).click();
    await item.waitFor({ state: 'detached' });
    expect(page.problems).toEqual([]);
  });

  it('two tabs of one device, offline then online, send each action once', async () => {
    const first = await browser.open(`${origin}/console#/loss`, DESKTOP, 'two-tabs');
    await signIn(first, storeToken);
    await first.locator('form.floor-task button[type=submit]').waitFor();
    await scan(first, FLOOR.product);
    await first.locator('.product-found').getByText(`Product ${FLOOR.product}`).waitFor();
    const second = await browser.open(`${origin}/console#/loss`, DESKTOP, 'two-tabs');
    await signIn(second, storeToken);
    const startEntries = (await consoleEntries()).length;

    await first.context().setOffline(true);
    for (let i = 0; i < 3; i += 1) await queue(first, 'loss', lossAt('A-01', 1));
    await queue(second, 'loss', lossAt('A-01', 1));
    await first.context().setOffline(false);
    await Promise.all([first, second].map((tab) => tab.evaluate(() => window.dispatchEvent(new Event('online')))));
    await waitForSent(first, 4);
    expect(await consoleEntries()).toHaveLength(startEntries + 4);
    expect([...first.problems, ...second.problems]).toEqual([]);
  });

  it('finds a product by part of its name: one match shows its stock, several a list to choose from', async () => {
    const page = await browser.open(`${origin}/console#/stock?code=milk`, DESKTOP, 'search');
    await signIn(page, storeToken);
    await page.locator(`.stock-result[data-product="${FLOOR.product}"]`).waitFor();
    await page.locator('#stock-code').fill('100');
    await page.locator('#stock-code').press('Enter');
    const list = page.locator('.search-result');
    await list.waitFor();
    expect(await list.locator('a').allInnerTexts()).toEqual(expect.arrayContaining(['Whole milk 1 L', 'Butter 250 g']));
    await list.getByRole('link', { name: 'Butter 250 g' }).click();
    await page.locator(`.stock-result[data-product="${FLOOR.otherProduct}"]`).waitFor();
    expect(page.problems).toEqual([]);
  });

  it('a floor task takes a product by name when one matches, and names the matches when several do', async () => {
    const page = await browser.open(`${origin}/console#/count`, DESKTOP, 'by-name');
    await signIn(page, storeToken);
    await page.locator('form.floor-task button[type=submit]').waitFor();
    await scan(page, '100');
    await page.locator('.product-found').getByText('2 products match “100”').waitFor();
    await scan(page, 'butter');
    await page.locator('.product-found').getByText(`Product ${FLOOR.otherProduct}:`).waitFor();
    expect(page.problems).toEqual([]);
  });

  it('at 360 px the header and navigation take at most the top 15 % and every control is at least 44 px high', async () => {
    const page = await browser.open(`${origin}/console#/count`, HANDHELD, 'layout');
    await signIn(page, storeToken);
    await page.locator('form.floor-task button[type=submit]').waitFor();
    const header = await page.locator('#top').boundingBox();
    expect(header!.y + header!.height).toBeLessThanOrEqual(HANDHELD.height * 0.15);
    const small = await page.evaluate(() =>
      [...document.querySelectorAll('main button, main input, main select, nav a, #top button, #top select')]
        .filter((element) => (element as HTMLElement).offsetParent !== null)
        .filter((element) => element.getBoundingClientRect().height < 44)
        .map((element) => element.outerHTML.slice(0, 80)),
    );
    expect(small).toEqual([]);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(ARTIFACTS, `handheld-count-${dialect.name}.png`) });
    expect(page.problems).toEqual([]);
  });
});
