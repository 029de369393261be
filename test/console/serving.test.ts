import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/console/security-headers.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';

/**
 * How the console's files are served (issue 16: "Nothing of the console weakens the API"):
 * a strict Content-Security-Policy and the other security headers on every file, no inline
 * script or style in the page, nothing served that is not in the console folder, and the
 * API's own checks untouched. The files are the same on every database: SQLite serves them.
 */

const PUBLIC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/console/public');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

const FILES = filesUnder(PUBLIC_DIR).map((file) => path.relative(PUBLIC_DIR, file).split(path.sep).join('/'));

describe('the console is served safely', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp(DIALECTS[0]!, { rateLimitPerMinute: 3 });
  });
  afterAll(() => t.close());

  it('serves the page at /console and /console/ with a strict CSP and the other security headers', async () => {
    for (const url of ['/console', '/console/']) {
      const response = await t.get(url, null);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toBe(CONTENT_SECURITY_POLICY);
      for (const directive of [
        "default-src 'none'",
        // Scripts from this origin only; WebAssembly may be compiled (the camera's barcode reader), JavaScript text never.
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",
      ]) {
        expect(csp.split('; ')).toContain(directive);
      }
      expect(csp).not.toMatch(/unsafe-inline|(?<!wasm-)unsafe-eval|\*|https?:|data:/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['permissions-policy']).toMatch(/^camera=\(self\), microphone=\(\)/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('has no inline script, event handler or style in the page', async () => {
    const html = (await t.get('/console', null)).body;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/console\//);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/javascript:/i);
    expect(html).not.toMatch(/https?:\/\//i);
  });

  it('builds the DOM without HTML strings or eval in any script', () => {
    for (const file of FILES.filter((name) => name.endsWith('.js'))) {
      const source = readFileSync(path.join(PUBLIC_DIR, file), 'utf8');
      expect(source, file).not.toMatch(
        /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\s*\(|new Function\b|setAttribute\(\s*['"]style['"]/,
      );
      expect(source, file).not.toMatch(/localStorage|document\.cookie/);
    }
  });

  it('serves every file of the console folder with its type and the same headers, and answers 304 to a matching ETag', async () => {
    // Both JavaScript types load ES modules (a browser refuses a module of any other type).
    const types: Record<string, RegExp> = {
      html: /^text\/html; charset=utf-8$/,
      js: /^(text|application)\/javascript; charset=utf-8$/,
      css: /^text\/css; charset=utf-8$/,
      svg: /^image\/svg\+xml/,
    };
    for (const file of FILES.filter((name) => name !== 'index.html')) {
      const response = await t.get(`/console/${file}`, null);
      expect(response.statusCode, file).toBe(200);
      expect(response.headers['content-type'], file).toMatch(types[path.extname(file).slice(1)]!);
      expect(response.headers['content-security-policy'], file).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers['x-content-type-options'], file).toBe('nosniff');
      expect(response.body, file).toBe(readFileSync(path.join(PUBLIC_DIR, file), 'utf8'));
      const again = await t.request({
        method: 'GET',
        url: `/console/${file}`,
        token: null,
        headers: { 'if-none-match': String(response.headers.etag) },
      });
      expect(again.statusCode, file).toBe(304);
      expect(again.headers['content-security-policy'], file).toBe(CONTENT_SECURITY_POLICY);
    }
  });

  it('serves nothing outside the console folder', async () => {
    for (const url of [
      '/console/plugin.ts',
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/js/../../plugin.ts',
      '/console/public/index.html',
      '/console/nope.js',
    ]) {
      const response = await t.get(url, null);
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('consolePlugin');
    }
  });

  it('leaves the API as it was: the console is not in the contract, and API calls still need a token and meet the rate limit', async () => {
    const document = (await t.get(`${API}/openapi.json`, null)).json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((p) => p.includes('console'))).toEqual([]);

    // Console files are not API calls: loading the page does not use up a token's budget…
    for (let i = 0; i < 5; i++) expect((await t.get('/console/js/app.js', null)).statusCode).toBe(200);
    // …and the API answers the console exactly as any client: a credential, then the limit of 3 a minute.
    expect((await t.get(`${API}/tokens/current`, null)).statusCode).toBe(401);
    const token = await t.token('read');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.get(`${API}/tokens/current`, token)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
