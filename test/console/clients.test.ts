import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, API, buildTestApp, type TestApp } from '../helpers/build.js';
import { storeInput } from '../helpers/factories.js';
import { createToken } from '../../src/modules/tokens/service.js';
import { ConsoleBrowser, describeInBrowser, HANDHELD, sidewaysOverflow, signIn } from './browser.js';

/**
 * The console's Clients view in a real browser (issue 41): an admin registers an OAuth2 client
 * and sees its secret once, the secret works at POST /oauth2/token, a new secret is shown once
 * with the old one's grace, and revoking ends the client's access tokens. Other roles are told
 * clients need an admin token.
 */

describeInBrowser('the Clients view in a browser', (dialect) => {
  let t: TestApp;
  let origin: string;
  const browser = new ConsoleBrowser();

  const tokenFor = (clientId: string, secret: string) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }).toString(),
    });

  beforeAll(async () => {
    t = await buildTestApp(dialect);
    expect((await t.post(`${API}/stores`, { stores: [storeInput('C1')] })).statusCode).toBe(200);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await browser.launch();
  });
  afterEach(() => browser.closeTabs());
  afterAll(async () => {
    await browser.close();
    await t?.close();
  });

  async function openClients(token = ADMIN_TOKEN, viewport?: typeof HANDHELD) {
    const page = await browser.open(`${origin}/console`, viewport);
    await signIn(page, token);
    await page.locator('nav a', { hasText: 'Clients' }).click();
    await page.locator('h1', { hasText: 'API clients' }).waitFor();
    return page;
  }

  it('registers a client whose shown secret fetches tokens, gives it a new secret, and revokes it', async () => {
    const page = await openClients();
    await expect.poll(() => page.locator('.result-heading').innerText()).toBe('No API clients');
    await page.locator('#client-name').fill('erp-tap');
    await page.locator('#client-role').selectOption('integration');
    await page.locator('#client-create').click();
    await expect.poll(() => page.locator('.result-heading').innerText()).toBe('1 client: 1 live, 0 revoked');
    const clientId = await page.locator('[data-notice="secret"] [data-field="client_id"]').innerText();
    const secret = await page.locator('[data-notice="secret"] [data-field="client_secret"]').innerText();
    expect(await page.locator('[data-notice="secret"]').innerText()).toContain('shown only this once');
    const issued = await tokenFor(clientId, secret);
    expect(issued.statusCode, issued.body).toBe(200);
    const access = (issued.json() as { access_token: string }).access_token;
    expect((await t.get(`${API}/stores`, access)).statusCode).toBe(200);

    // A new secret: shown once; the old one keeps working for the grace period.
    await page.getByRole('button', { name: 'New secret for erp-tap' }).click();
    await expect
      .poll(() => page.locator('.notice.success').first().innerText())
      .toMatch(/New secret for erp-tap; the previous one works until/);
    const rotated = await page.locator('[data-notice="secret"] [data-field="client_secret"]').innerText();
    expect(rotated).not.toBe(secret);
    expect((await tokenFor(clientId, rotated)).statusCode).toBe(200);
    expect((await tokenFor(clientId, secret)).statusCode).toBe(200);
    expect(await page.locator('tr.client-row', { hasText: 'erp-tap' }).innerText()).toMatch(/previous secret until/);

    // Revoking asks first; then the client's tokens are refused.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke erp-tap' }).click();
    await expect.poll(() => page.locator('.result-heading').innerText()).toBe('1 client: 0 live, 1 revoked');
    await expect.poll(async () => (await t.get(`${API}/stores`, access)).statusCode, { timeout: 10_000 }).toBe(401);
    expect((await tokenFor(clientId, rotated)).statusCode).toBe(401);
    expect(page.problems).toEqual([]);
  });

  it('keeps a client when the revoke is not confirmed', async () => {
    expect((await t.post(`${API}/clients`, { name: 'kept', role: 'read' })).statusCode).toBe(201);
    const page = await openClients();
    await page.locator('tr.client-row', { hasText: 'kept' }).waitFor();
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Revoke kept' }).click();
    expect(await page.locator('tr.client-row', { hasText: 'kept' }).innerText()).toContain('Live');
    const listed = (await t.get(`${API}/clients`)).json() as {
      clients: Array<{ name: string; revoked: string | null }>;
    };
    expect(listed.clients.find((c) => c.name === 'kept')?.revoked ?? null).toBeNull();
  });

  it('tells a token of another role that clients need an admin token, and fits a handheld', async () => {
    const token = await createToken(t.app.ctx.db, {
      name: 'console-integration',
      role: 'integration',
      createdBy: 'test',
    });
    const page = await openClients(token, HANDHELD);
    await expect
      .poll(() => page.locator('[data-notice="role"]').innerText())
      .toMatch(/managed with an admin token.*integration role/);
    expect(await page.locator('#client-create').count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  });
});
