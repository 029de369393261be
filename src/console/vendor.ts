import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The camera's barcode reader for browsers without a `BarcodeDetector` of their own (issue 43,
 * docs/decisions.md "Camera scanning"): the `barcode-detector` package, a stand-in for that
 * API on ZXing compiled to WebAssembly, served by this service like the console's own files.
 * The console has no build step and no import map (an inline script would need one), so the
 * package is bundled into one ES module; and its WebAssembly is served from here, because by
 * default the package fetches it from a public CDN, which the console's CSP refuses and the
 * stockroom may not reach.
 */

export const VENDOR_PATH = '/console/vendor';
export const BARCODE_DETECTOR_URL = `${VENDOR_PATH}/barcode-detector.js`;
export const ZXING_READER_URL = `${VENDOR_PATH}/zxing_reader.wasm`;
/** What the service worker keeps for the camera to work offline (plugin.ts puts them in the shell). */
export const VENDOR_FILES = [BARCODE_DETECTOR_URL, ZXING_READER_URL];

const require = createRequire(import.meta.url);
const HERE = fileURLToPath(new URL('.', import.meta.url));

/**
 * The module the console imports: the package's side-effect-free entry (it leaves
 * `globalThis` alone), told before anything reads a code that the WebAssembly is ours, and
 * `readerReady()`, which fetches and compiles it at once, so that a failure shows when the
 * camera opens rather than as frames that never read. A failed attempt is forgotten (and the
 * address set again: forgetting resets it to the CDN's), so the next scan tries again.
 */
const ENTRY = `
import { BarcodeDetector, prepareZXingModule, purgeZXingModule } from 'barcode-detector/ponyfill';
const overrides = { locateFile: (file, prefix) => (file.endsWith('.wasm') ? ${JSON.stringify(ZXING_READER_URL)} : prefix + file) };
prepareZXingModule({ overrides });
export const readerReady = () =>
  prepareZXingModule({ overrides, fireImmediately: true }).catch((error) => {
    purgeZXingModule();
    prepareZXingModule({ overrides });
    throw error;
  });
export { BarcodeDetector };
`;

interface Asset {
  body: Buffer;
  type: string;
  /** Strong: the content's own hash, so equal bytes give equal tags across restarts and servers. */
  etag: string;
}

const asset = (body: Buffer, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
});

/** The folder of an installed package, found from one of its entries (neither package exports its package.json). */
function packageDir(name: string, entry: string): string {
  for (let dir = dirname(require.resolve(entry)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === name) return dir;
    } catch {
      // no package.json at this level
    }
  }
  throw new Error(`${name} is not installed`);
}

const versionOf = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

async function bundleDetector(): Promise<Asset> {
  // Loaded here, not at the top: a server whose console never meets such a browser never starts esbuild.
  const { build } = await import('esbuild');
  const detectorDir = packageDir('barcode-detector', 'barcode-detector/ponyfill');
  const zxingDir = packageDir('zxing-wasm', 'zxing-wasm/reader');
  const licence = await readFile(join(detectorDir, 'LICENSE'), 'utf8');
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: HERE, loader: 'js', sourcefile: 'barcode-detector-entry.js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    // The minifier drops the packages' notices: the licence both carry goes at the top instead.
    banner: {
      js: `/*! barcode-detector ${versionOf(detectorDir)}, zxing-wasm ${versionOf(zxingDir)} (both under this licence)\n${licence.replaceAll('*/', '* /')}*/`,
    },
  });
  return asset(Buffer.from(result.outputFiles[0]!.contents), 'text/javascript; charset=utf-8');
}

async function readReaderWasm(): Promise<Asset> {
  return asset(await readFile(require.resolve('zxing-wasm/reader/zxing_reader.wasm')), 'application/wasm');
}

/** Made on the first request, then kept; a failed attempt is forgotten so that the next request tries again. */
function once(make: () => Promise<Asset>): () => Promise<Asset> {
  let made: Promise<Asset> | undefined;
  return () => {
    made ??= make().catch((error) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/** If-None-Match compares weakly (RFC 9110 13.1.2): a `W/` prefix or `*` matches too. */
const matches = (header: string | undefined, etag: string) =>
  header?.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === etag;
  }) ?? false;

function send(request: FastifyRequest, reply: FastifyReply, file: Asset) {
  reply.header('etag', file.etag);
  if (matches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

/** Registered inside the console's plugin, so its responses carry the console's headers too. */
export const consoleVendor: FastifyPluginAsync = async (app) => {
  const detector = once(bundleDetector);
  const wasm = once(readReaderWasm);
  const options = { schema: { hide: true }, config: { access: 'public' as const } };
  app.get(BARCODE_DETECTOR_URL, options, async (request, reply) => send(request, reply, await detector()));
  app.get(ZXING_READER_URL, options, async (request, reply) => send(request, reply, await wasm()));
};
