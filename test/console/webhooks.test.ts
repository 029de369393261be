import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { productInput, storeInput } from '../helpers/factories.js';
import { ConsoleBrowser, DESKTOP, describeInBrowser, HANDHELD, sidewaysOverflow, signIn } from './browser.js';

/**
 * The console's Webhooks view in a real browser (issue 30): the subscriptions with the health
 * of their deliveries — one delivering to a receiver that answers, one paused after its
 * receiver failed for the whole (shortened) retry window — and Resume bringing the paused one
 * back. Tokens that may not see subscriptions are told which may. The receiver is loopback,
 * as every webhook test's (WEBHOOKS_ALLOW_PRIVATE for the test app only).
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'console');

interface Listed {
  id: number;
  url: string;
  status: string;
  pending_events: number;
  delivered_events: number;
  last_error: string | null;
}

describeInBrowser('the Webhooks view in a browser', (dialect) => {
  let t: TestApp;
  let origin: string;
  let receiver: Server;
  let receiverUrl: string;
  /** The flaky receiver's answer: down (500) until the test brings it back. */
  let flakyUp = false;
  const browser = new ConsoleBrowser();
  let healthy: Listed;
  let failing: Listed;

  const list = async () => ((await t.get(`${API}/webhooks`)).json() as { webhooks: Listed[] }).webhooks;
  const byId = async (id: number) => (await list()).find((webhook) => webhook.id === id)!;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.url === '/flaky' && !flakyUp) response.writeHead(500).end('down for maintenance');
        else response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // Retries within milliseconds and a retry window of a moment: the failing one pauses at once.
    t = await buildTestApp(dialect, {
      webhooksAllowPrivate: true,
      webhookTimingForTests: { answerTimeoutMs: 2000, firstRetryMs: 20, maxRetryMs: 50, retryWindowMs: 300 },
    });
    expect((await t.post(`${API}/stores`, { stores: [storeInput('1001')] })).statusCode).toBe(200);
    const create = async (body: Record<string, unknown>) => {
      const response = await t.post(`${API}/webhooks`, body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as Listed;
    };
    healthy = await create({
      url: `${receiverUrl}/ok`,
      types: ['product.upserted', 'stock.changed'],
      stores: ['1001'],
    });
    failing = await create({ url: `${receiverUrl}/flaky` });
    expect(
      (await t.post(`${API}/products`, { products: [productInput('600100'), productInput('600200')] })).statusCode,
    ).toBe(200);
    await vi.waitFor(async () => expect((await byId(failing.id)).status).toBe('paused'), {
      timeout: 60_000,
      interval: 100,
    });
    await vi.waitFor(async () => expect((await byId(healthy.id)).delivered_events).toBe(2), {
      timeout: 60_000,
      interval: 100,
    });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await browser.launch();
  });
  afterEach(() => browser.closeTabs());
  afterAll(async () => {
    await browser.close();
    await t?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await dialect.cleanup();
  });

  async function openWebhooks(token = ADMIN_TOKEN, viewport = DESKTOP) {
    const page = await browser.open(`${origin}/console`, viewport);
    await signIn(page, token);
    await page.goto(`${origin}/console#/webhooks`);
    return page;
  }

  const row = (page: Awaited<ReturnType<typeof openWebhooks>>, url: string) =>
    page.locator('tr.webhook-row', { hasText: url });
  const cells = (page: Awaited<ReturnType<typeof openWebhooks>>, url: string) =>
    row(page, url).locator('td').allInnerTexts();

  it('lists the subscriptions with their health, and resumes a paused one with the keyboard', async () => {
    const page = await openWebhooks();
    await expect.poll(() => page.locator('.result-heading').innerText()).toBe('2 subscriptions: 1 active, 1 paused');
    const clock = '\\d{1,2}:\\d{2}:\\d{2}\\s?[AP]M';
    const { after_sequence: healthyAfter } = (await byId(healthy.id)) as Listed & { after_sequence: number };
    expect(await cells(page, `${receiverUrl}/ok`)).toEqual([
      expect.stringMatching(new RegExp(`^${receiverUrl}/ok\\n#${healthy.id} · by admin · ${clock}$`)),
      'product.upserted, stock.changed\nstore 1001',
      'Active',
      `0\nafter sequence ${healthyAfter}`,
      expect.stringMatching(new RegExp(`^${clock}\\n2 events delivered$`)),
      '–',
      '–',
    ]);
    expect((await cells(page, `${receiverUrl}/flaky`)).slice(1)).toEqual([
      'Every type\nevery store',
      expect.stringMatching(new RegExp(`^Paused\\nfailing since ${clock}$`)),
      expect.stringMatching(/^2\nafter sequence \d+$/),
      'Never\n0 events delivered',
      expect.stringMatching(new RegExp(`^HTTP 500\\b.*down for maintenance.*\\nat ${clock}$`)),
      'Resume',
    ]);
    await page.screenshot({ path: path.join(ARTIFACTS, `webhooks-1280-${dialect.name}.png`), fullPage: true });

    // The receiver is back; Resume by keyboard sends the batch again at once.
    flakyUp = true;
    await page.getByRole('button', { name: `Resume subscription ${failing.id}` }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('.notice.success').innerText())
      .toBe(`Subscription ${failing.id} resumed: its batch goes to ${receiverUrl}/flaky again now.`);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('notice'))).toBe(true);
    await expect
      .poll(async () => (await byId(failing.id)).delivered_events, { timeout: 30_000, interval: 100 })
      .toBe(2);
    await page.locator('#webhooks-refresh').click();
    // The heading says 2 active from the resume's own answer already: the refreshed list is
    // awaited by its cells (read once, they raced the refresh on a fast machine).
    await expect.poll(() => page.locator('.result-heading').innerText()).toBe('2 subscriptions: 2 active, 0 paused');
    await expect
      .poll(async () => (await cells(page, `${receiverUrl}/flaky`)).slice(2, 5), { timeout: 30_000 })
      .toEqual(['Active', expect.stringMatching(/^0\n/), expect.stringMatching(/\n2 events delivered$/)]);
    expect(page.problems).toEqual([]);
  });

  it('marks an active subscription that keeps failing, and retries it now on request', async () => {
    // An answer of the API's shape for a state the shortened timings pass through too fast to catch.
    const now = Date.now();
    const failingOne = {
      id: 41,
      url: 'https://erp.example.com/hooks/stock',
      types: ['stock.changed'],
      stores: null,
      status: 'active',
      after_sequence: 120,
      pending_events: 12_000,
      last_error: 'HTTP 503: busy',
      last_error_at: new Date(now - 5_000).toISOString(),
      failing_since: new Date(now - 60_000).toISOString(),
      last_delivered_at: null,
      delivered_events: 0,
      next_attempt_at: new Date(now + 30_000).toISOString(),
      created_at: new Date(now - 3_600_000).toISOString(),
      created_by: 'erp',
    };
    const page = await openWebhooks();
    await page.route('**/api/v2/public/webhooks', (route) => route.fulfill({ json: { webhooks: [failingOne] } }));
    const resumed: string[] = [];
    await page.route('**/api/v2/public/webhooks/41/resume', (route) => {
      resumed.push(route.request().method());
      return route.fulfill({ json: { ...failingOne, failing_since: null } });
    });
    await page.locator('#webhooks-refresh').click();
    await expect
      .poll(() => page.locator('.result-heading').innerText())
      .toBe('1 subscription: 1 active, 0 paused; 1 failing');
    const clock = '\\d{1,2}:\\d{2}:\\d{2}\\s?[AP]M';
    expect((await cells(page, failingOne.url)).slice(1)).toEqual([
      'stock.changed\nevery store',
      expect.stringMatching(new RegExp(`^Active Failing\\nfailing since ${clock}\\nnext attempt ${clock}$`)),
      '10,000 or more\nafter sequence 120',
      'Never\n0 events delivered',
      expect.stringMatching(new RegExp(`^HTTP 503: busy\\nat ${clock}$`)),
      'Retry now',
    ]);
    await page.getByRole('button', { name: 'Retry subscription 41 now' }).click();
    await expect
      .poll(() => page.locator('.notice.success').innerText())
      .toBe(`Subscription 41 retried: its batch goes to ${failingOne.url} again now.`);
    expect(resumed).toEqual(['POST']);
    expect(page.problems).toEqual([]);
  });

  it('tells a store or read token that subscriptions need an admin or integration token', async () => {
    for (const [role, stores] of [
      ['store', ['1001']],
      ['read', undefined],
    ] as const) {
      const token = await t.token(role, stores ? [...stores] : undefined);
      const page = await openWebhooks(token);
      const notice = page.locator('[data-notice="role"]');
      await expect
        .poll(() => notice.innerText())
        .toMatch(
          new RegExp(
            `^Webhook subscriptions need an admin or integration token\\. Your token \\(${role}-[^)]+\\) has the ${role} role\\.\\n+Your token may not do this\\.`,
          ),
        );
      expect(await page.locator('table').count()).toBe(0);
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(page.problems).toEqual([]);
    }
  });

  it('fits a 360 px handheld without sideways scrolling', async () => {
    const page = await openWebhooks(ADMIN_TOKEN, HANDHELD);
    await page.locator('tr.webhook-row').first().waitFor();
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(ARTIFACTS, `webhooks-360-${dialect.name}.png`), fullPage: true });
    expect(page.problems).toEqual([]);
  });
});
