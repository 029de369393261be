import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { reasonCodeInput } from '../helpers/factories.js';
import { ConsoleBrowser, type ConsolePage, describeInBrowser, HANDHELD, signIn } from './browser.js';
import { FLOOR, seedFloor } from './seed.js';

/**
 * A loss with a photo from the handheld (issue 43, docs/photos.md): the photo scaled and named
 * on the device, sent before the entry that names it, online and offline; shown back in the
 * Review view, read with the token.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'console');

interface QueuedAction {
  kind: string;
  state: string;
  route: string;
  body?: { storeproductlog: { loss_image?: string }[] };
}

describeInBrowser('a loss with a photo in a browser', (dialect) => {
  let t: TestApp;
  let origin: string;
  let storeToken: string;
  const browser = new ConsoleBrowser();

  const outboxOf = (page: ConsolePage): Promise<QueuedAction[]> =>
    page.evaluate("import('/console/js/offline/device-db.js').then((db) => db.getAll('outbox'))");
  /** A 2,400 × 1,800 picture drawn by the browser itself: bigger than the console sends. */
  const picture = async (page: ConsolePage, colour: string): Promise<Buffer> => {
    const url = await page.evaluate((fill) => {
      const canvas = document.createElement('canvas');
      canvas.width = 2400;
      canvas.height = 1800;
      const draw = canvas.getContext('2d')!;
      draw.fillStyle = fill;
      draw.fillRect(0, 0, 2400, 1800);
      draw.fillStyle = '#fff';
      draw.fillRect(600, 400, 1200, 900);
      return canvas.toDataURL('image/png');
    }, colour);
    return Buffer.from(url.split(',')[1]!, 'base64');
  };
  const bookLoss = async (page: ConsolePage, photo: Buffer, shoot = false) => {
    const code = page.locator('form.floor-task input[name=code]');
    await code.fill(FLOOR.product);
    await code.press('Enter');
    await page.locator('input[name=lost]').fill('1');
    await page.locator('select[name=reason]').selectOption('10');
    await page.locator('textarea[name=remark]').fill('crushed in the cold store');
    await page.locator('input[name=photo]').setInputFiles({ name: 'loss.png', mimeType: 'image/png', buffer: photo });
    await page.locator('.field-hint').getByText('Photo ready').waitFor();
    if (shoot)
      await page.screenshot({ path: path.join(ARTIFACTS, `handheld-loss-photo-${dialect.name}.png`), fullPage: true });
    await page.locator('form.floor-task button[type=submit]').click();
    await page.locator('.notice.success').getByText('with a photo').waitFor();
  };
  const sentPhotos = async (page: ConsolePage, count: number) => {
    await expect
      .poll(async () => (await outboxOf(page)).map((a) => `${a.kind}:${a.state}`).join(','), { timeout: 30_000 })
      .toBe(Array(count).fill('photo:sent,loss:sent').join(','));
    return outboxOf(page);
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await buildTestApp(dialect);
    await seedFloor(t);
    const broken = await t.post(`${API}/reasoncodes`, {
      reason_codes: [
        reasonCodeInput(11, { reason_code_description: 'Damaged', is_loss: true, is_image_mandatory: true }),
      ],
    });
    expect(broken.statusCode, broken.body).toBe(200);
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

  it('sends the scaled photo before the loss that names it, online and offline, and shows it in Review', async () => {
    const page = await browser.open(`${origin}/console#/loss`, HANDHELD, 'photo');
    await signIn(page, storeToken);
    await page.locator('form.floor-task button[type=submit]').waitFor();
    // A reason that requires a photo (is_image_mandatory) is not booked without one.
    await page.locator('form.floor-task input[name=code]').fill(FLOOR.product);
    await page.locator('input[name=lost]').fill('1');
    await page.locator('select[name=reason]').selectOption('11');
    await page.locator('form.floor-task button[type=submit]').click();
    await page.locator('.notice.error').getByText('This reason needs a photo').waitFor();
    expect(await outboxOf(page)).toEqual([]);
    await bookLoss(page, await picture(page, '#b03020'), true);
    const online = await sentPhotos(page, 1);

    await page.context().setOffline(true);
    await bookLoss(page, await picture(page, '#2050b0'));
    await page.locator('#status[data-waiting="2"]').waitFor();
    await page.context().setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    const actions = await sentPhotos(page, 2);
    expect(actions.slice(0, 2)).toEqual(online);

    for (const [upload, loss] of [actions.slice(0, 2), actions.slice(2, 4)] as const) {
      const image = loss!.body!.storeproductlog[0]!.loss_image!;
      expect(image).toBe(`/api/v2/public/stores/${FLOOR.store}/photos/${upload!.route.split('/').pop()}`);
      const stored = await t.get(image);
      expect(stored.statusCode).toBe(200);
      expect(stored.headers['content-type']).toBe('image/jpeg');
      const bytes = stored.rawPayload;
      // Scaled on the device: a JPEG well under the service's 2 MiB, named by its own hash.
      expect(bytes.length).toBeLessThan(2 * 1024 * 1024);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(upload!.route.split('/').pop());
      const entries = await t.get(
        `${API}/products/stock/storeproductlogs?store_number=${FLOOR.store}&article_number=${FLOOR.product}&page_size=1000`,
      );
      const list = (entries.json().list ?? entries.json().storeproductlog) as { exception_image?: string }[];
      expect(list.filter((entry) => entry.exception_image === image)).toHaveLength(1);
    }

    // A manager sees the photo of an entry waiting for review.
    const image = actions[1]!.body!.storeproductlog[0]!.loss_image!;
    const pending = await t.post(`${API}/stores/${FLOOR.store}/products/stock/storeproductlogs`, {
      storeproductlog: [
        {
          customer_order_line_number: 0,
          modification_datetime: new Date().toISOString(),
          product_number: FLOOR.product,
          quantity: 2,
          reason_code: FLOOR.reviewReason,
          loss_image: image,
        },
      ],
    });
    expect(pending.statusCode, pending.body).toBe(200);
    await page.evaluate(() => {
      window.location.hash = '#/review';
    });
    await page.getByRole('button', { name: 'Show photo' }).click();
    const shown = page.locator('.entry-photo img');
    await shown.waitFor();
    await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1600);
    expect(page.problems).toEqual([]);
  });
});
