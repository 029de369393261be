import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { BROWSER_MISSING, findChromium, requireBrowser } from '../helpers/chromium.js';
import { DIALECTS, type TestDialect } from '../helpers/dialects.js';

/**
 * What the console's browser tests share: a suite per database when a Chromium is there
 * (skipped and said why when not, failed in CI), and tabs of the console that fail their
 * test on any script error.
 */

export const HANDHELD = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };

const executablePath = findChromium();

export function describeInBrowser(name: string, suite: (dialect: TestDialect) => void): void {
  if (!executablePath && requireBrowser()) {
    describe(name, () => {
      it('needs Chromium in CI', () => {
        throw new Error(`The browser tests cannot run: ${BROWSER_MISSING}. CI must have it (.ci/run installs it).`);
      });
    });
  } else if (!executablePath) {
    console.warn(`Skipping ${name}: ${BROWSER_MISSING}.`);
    describe.skip(`${name} — skipped: ${BROWSER_MISSING}`, () => {
      it('drives the console', () => undefined);
    });
  } else {
    for (const dialect of DIALECTS) describe(`${name} (${dialect.name})`, () => suite(dialect));
  }
}

export type ConsolePage = Page & { problems: string[] };

/** The browser and the tabs a suite opens on the console at `origin`. */
export class ConsoleBrowser {
  private browser?: Browser;
  /** One context per screen size: a new tab in it is quicker to open than a new context, and has its own session storage all the same. */
  private readonly contexts = new Map<string, Promise<BrowserContext>>();
  private readonly tabs: Page[] = [];

  async launch(): Promise<void> {
    this.browser = await chromium.launch({
      executablePath,
      headless: true,
      args: [
        '--no-sandbox',
        // A camera that shows a test pattern, allowed without a prompt: the Camera button's tests (camera.js).
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
      ],
    });
  }

  /**
   * A fresh tab (its own session storage) at the given size; `problems` collects its script errors.
   * Tabs of one `device` share its storage (IndexedDB, the service worker), like tabs of one handheld.
   */
  async open(url: string, viewport = DESKTOP, device = 'shared'): Promise<ConsolePage> {
    const size = `${device}:${viewport.width}x${viewport.height}`;
    if (!this.contexts.has(size))
      this.contexts.set(size, this.browser!.newContext({ viewport, locale: 'en-US', timezoneId: 'Europe/Amsterdam' }));
    const context = await this.contexts.get(size)!;
    const page = (await context.newPage()) as ConsolePage;
    this.tabs.push(page);
    page.problems = [];
    page.on('pageerror', (error) => page.problems.push(error.message));
    page.on('console', (message) => {
      // A refused call the page shows in words is a "failed resource" to the browser, not a script error.
      if (message.type() === 'error' && !message.text().includes('Failed to load resource'))
        page.problems.push(message.text());
    });
    await page.goto(url);
    return page;
  }

  /** Closes the tabs opened so far (a Changes view left open goes on asking the feed every second). */
  async closeTabs(): Promise<void> {
    for (const tab of this.tabs.splice(0)) await tab.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const context of this.contexts.values()) await (await context).close().catch(() => undefined);
    await this.browser?.close();
  }
}

export async function signIn(page: Page, token: string): Promise<void> {
  await page.locator('#token').fill(token);
  await page.keyboard.press('Enter');
  await page.locator('#store-select').waitFor();
}

/** How far the page scrolls sideways (0 or less: it fits). */
export const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
