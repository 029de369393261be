import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/console/security-headers.js';
import { BARCODE_DETECTOR_URL, VENDOR_PATH, ZXING_READER_URL } from '../../src/console/vendor.js';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { findChromium } from '../helpers/chromium.js';
import { DIALECTS } from '../helpers/dialects.js';
import { describeInBrowser, HANDHELD, signIn } from './browser.js';
import { FLOOR, seedFloor } from './seed.js';

/**
 * The camera where the browser has no barcode detector of its own (issue 43): the library
 * the service bundles and serves (src/console/vendor.ts), and a real read with it — Chromium
 * (which has no `BarcodeDetector` on Linux) shown an EAN-13 this test draws, as its camera.
 */

// EAN-13 (ISO/IEC 15420): the first digit is carried by the L/G pattern of the left six.
const L_CODES = [
  '0001101',
  '0011001',
  '0010011',
  '0111101',
  '0100011',
  '0110001',
  '0101111',
  '0111011',
  '0110111',
  '0001011',
];
const invert = (bits: string) => bits.replace(/[01]/g, (bit) => (bit === '0' ? '1' : '0'));
const R_CODES = L_CODES.map(invert);
const G_CODES = R_CODES.map((bits) => [...bits].reverse().join(''));
const PARITY = ['LLLLLL', 'LLGLGG', 'LLGGLG', 'LLGGGL', 'LGLLGG', 'LGGLLG', 'LGGGLL', 'LGLGLG', 'LGLGGL', 'LGGLGL'];

const checkDigit = (first12: string) =>
  (10 - ([...first12].reduce((sum, digit, i) => sum + Number(digit) * (i % 2 === 0 ? 1 : 3), 0) % 10)) % 10;

/** The 95 modules of an EAN-13, 1 for a bar. */
function ean13Modules(code: string): string {
  expect(code).toMatch(/^\d{13}$/);
  expect(checkDigit(code.slice(0, 12))).toBe(Number(code[12]));
  const digits = [...code].map(Number);
  const parity = PARITY[digits[0]!]!;
  const left = digits.slice(1, 7).map((d, i) => (parity[i] === 'L' ? L_CODES : G_CODES)[d]);
  const right = digits.slice(7).map((d) => R_CODES[d]);
  return `101${left.join('')}01010${right.join('')}101`;
}

/**
 * A YUV4MPEG2 video (what Chromium's fake camera plays from a file) of the barcode on white:
 * 4:2:0, modules `module` pixels wide, centred, bars over the middle two thirds of the height.
 */
function barcodeVideo(code: string, width = 640, height = 480, module = 5, frames = 4): Buffer {
  const modules = ean13Modules(code);
  expect(modules).toHaveLength(95);
  // At least ten modules of quiet zone on both sides.
  const left = Math.floor((width - modules.length * module) / 2);
  expect(left).toBeGreaterThanOrEqual(10 * module);
  const luma = Buffer.alloc(width * height, 235);
  for (let y = Math.floor(height / 6); y < Math.ceil((height * 5) / 6); y++)
    for (let x = 0; x < modules.length * module; x++)
      if (modules[Math.floor(x / module)] === '1') luma[y * width + left + x] = 16;
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma]);
  return Buffer.concat([
    Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420\n`),
    ...Array<Buffer>(frames).fill(frame),
  ]);
}

const WASM_FILE = createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm');

describe("the camera's barcode library is served by the console", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(DIALECTS[0]!);
  });
  afterAll(() => t.close());

  it('answers the bundled module and its WebAssembly with their types, the console headers and strong ETags', async () => {
    const wasm = readFileSync(WASM_FILE);
    for (const [url, type] of [
      [BARCODE_DETECTOR_URL, 'text/javascript; charset=utf-8'],
      [ZXING_READER_URL, 'application/wasm'],
    ] as const) {
      const response = await t.get(url, null);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toBe(type);
      expect(response.headers['content-security-policy'], url).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['cross-origin-resource-policy'], url).toBe('same-origin');
      expect(response.headers['cache-control'], url).toBe('no-cache');
      const etag = String(response.headers.etag);
      expect(etag, url).toMatch(/^"[\w-]{43}"$/);
      for (const match of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const again = await t.request({ method: 'GET', url, token: null, headers: { 'if-none-match': match } });
        expect(again.statusCode, `${url} ${match}`).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers['content-security-policy'], url).toBe(CONTENT_SECURITY_POLICY);
      }
      const other = await t.request({ method: 'GET', url, token: null, headers: { 'if-none-match': '"other"' } });
      expect(other.statusCode, url).toBe(200);
      expect(other.headers.etag, url).toBe(etag);
    }
    const module = (await t.get(BARCODE_DETECTOR_URL, null)).body;
    // One module: nothing left to resolve, no bare import for the browser to refuse.
    expect(module).not.toMatch(/\bimport\s*[{*"'\w]|\bimport\s*\(|\brequire\s*\(/);
    expect(module).toMatch(/export\s*\{/);
    expect(module).toContain(JSON.stringify(ZXING_READER_URL));
    expect(module).toMatch(/^\/\*! barcode-detector \d+\.\d+\.\d+, zxing-wasm \d+\.\d+\.\d+/);
    // The package's JavaScript expects exactly this WebAssembly: the hash it carries is the file's.
    const { ZXING_WASM_SHA256 } = await import('barcode-detector/ponyfill');
    expect(createHash('sha256').update(wasm).digest('hex')).toBe(ZXING_WASM_SHA256);
    expect((await t.get(ZXING_READER_URL, null)).rawPayload.equals(wasm)).toBe(true);
  });

  it('puts both in the shell the service worker keeps for offline use', async () => {
    const shell = (await t.get('/console/shell.json', null)).json() as { files: string[] };
    expect(shell.files).toEqual(expect.arrayContaining([BARCODE_DETECTOR_URL, ZXING_READER_URL]));
  });
});

describeInBrowser("scanning with the camera through the console's barcode library", (dialect) => {
  let t: TestApp;
  let origin: string;
  let storeToken: string;
  let browser: Browser;
  const videoDir = mkdtempSync(path.join(tmpdir(), 'camera-'));

  beforeAll(async () => {
    t = await buildTestApp(dialect);
    await seedFloor(t);
    storeToken = await t.token('store', [FLOOR.store]);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const video = path.join(videoDir, 'barcode.y4m');
    writeFileSync(video, barcodeVideo(FLOOR.barcode));
    browser = await chromium.launch({
      executablePath: findChromium(),
      headless: true,
      args: [
        '--no-sandbox',
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
        // The fake camera plays this file instead of its test pattern.
        `--use-file-for-fake-video-capture=${video}`,
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await dialect.cleanup();
    rmSync(videoDir, { recursive: true, force: true });
  });

  /** A tab on a device of its own, without any detector of the browser's; every request of the tab and its worker noted. */
  async function openDevice(url: string) {
    const context = await browser.newContext({ viewport: HANDHELD, locale: 'en-US', timezoneId: 'Europe/Amsterdam' });
    // Should a later Chromium bring its own detector, it is taken away: these tests are about the library.
    await context.addInitScript(() => {
      delete (globalThis as { BarcodeDetector?: unknown }).BarcodeDetector;
    });
    const requested: string[] = [];
    context.on('request', (request) => requested.push(request.url()));
    const page: Page = await context.newPage();
    const pageRequested: string[] = [];
    page.on('request', (request) => pageRequested.push(new URL(request.url()).pathname));
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // The offline test's refused API calls are "failed resources" to the browser, not script errors.
      if (message.type() === 'error' && !message.text().includes('Failed to load resource'))
        problems.push(message.text());
    });
    await page.goto(url);
    return { context, page, requested, pageRequested, problems };
  }

  /** Presses the Camera button and waits for the product of the barcode the fake camera shows. */
  async function scanWithCamera(page: Page, problems: string[]) {
    await page.getByRole('button', { name: 'Scan with the camera' }).click();
    await page
      .locator('.product-found')
      .getByText(`Product ${FLOOR.product}`)
      .waitFor({ timeout: 30_000 })
      .catch(async (error) => {
        throw new Error(`${error.message}\n${await page.locator('main').innerText()}\n${problems.join('\n')}`);
      });
    expect(await page.locator('form.floor-task input[name=code]').inputValue()).toBe(FLOOR.barcode);
    expect(await page.locator('dialog.camera').count()).toBe(0);
  }

  it('reads a real EAN-13 from the camera with the library, loaded on the press only and from this service only', async () => {
    const { context, page, requested, pageRequested, problems } = await openDevice(`${origin}/console#/count`);
    await signIn(page, storeToken);
    await page.getByRole('button', { name: 'Scan with the camera' }).waitFor();
    // A page that has not scanned has not loaded the library (its service worker may have kept it).
    expect(pageRequested.filter((url) => url.startsWith(`${VENDOR_PATH}/`))).toEqual([]);

    await scanWithCamera(page, problems);
    expect(await page.evaluate(() => typeof (globalThis as { BarcodeDetector?: unknown }).BarcodeDetector)).toBe(
      'undefined',
    );
    expect(pageRequested).toEqual(expect.arrayContaining([BARCODE_DETECTOR_URL, ZXING_READER_URL]));
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('reads with the camera offline too: the service worker kept the library when it installed', async () => {
    const { context, page, requested, pageRequested, problems } = await openDevice(`${origin}/console#/count`);
    await signIn(page, storeToken);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // The product's stock is known on the device once, typed as a scanner would; the camera never used online.
    await page.locator('form.floor-task input[name=code]').fill(FLOOR.barcode);
    await page.keyboard.press('Enter');
    await page.locator('.product-found').getByText(`Product ${FLOOR.product}`).waitFor();
    expect(pageRequested.filter((url) => url.startsWith(`${VENDOR_PATH}/`))).toEqual([]);

    await context.setOffline(true);
    await page.reload();
    await page.locator('#status').getByText('Offline').waitFor();
    const served: { url: string; fromWorker: boolean }[] = [];
    page.on('response', (response) =>
      served.push({ url: new URL(response.url()).pathname, fromWorker: response.fromServiceWorker() }),
    );
    await scanWithCamera(page, problems);
    for (const url of [BARCODE_DETECTOR_URL, ZXING_READER_URL])
      expect(served.find((response) => response.url === url)?.fromWorker, url).toBe(true);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
