import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { readdirSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONSOLE_HEADERS } from './security-headers.js';
import { consoleVendor, VENDOR_FILES } from './vendor.js';

export const CONSOLE_PATH = '/console';
const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

/** The only kinds of file the console ships: anything else in the folder (a source map, an editor backup) is never served. */
const SERVED = /\.(html|js|css|svg|webmanifest)$/;

/** The service worker, at the top of the console's folder so that it may control the whole console. */
const SERVICE_WORKER = `${CONSOLE_PATH}/sw.js`;

/**
 * The files the service worker keeps on the device so that the console starts without a
 * network (issue 43): every served file of the folder, read once at start, the page, and the
 * camera's barcode reader (vendor.ts), so that scanning with the camera works in a stockroom
 * without Wi-Fi too — at the price of about a megabyte once per device.
 */
function shellFiles(): string[] {
  const files = readdirSync(PUBLIC_DIR, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(sep).join('/'))
    .filter((file) => SERVED.test(file) && file !== 'sw.js' && file !== 'index.html')
    .sort();
  return [CONSOLE_PATH, ...files.map((file) => `${CONSOLE_PATH}/${file}`), ...VENDOR_FILES];
}

/**
 * The store console (issue 16, docs/console.md): static files — HTML, CSS, ES modules —
 * served by the same process at /console through @fastify/static (the same package and
 * version /docs uses). They carry no credential: the page calls the API with the token the
 * user pasted, so every API rule (auth, roles, stores, rate limit) applies to it unchanged.
 * Outside the API prefix these routes get no authentication or rate-limit hook
 * (plugins/auth.ts, plugins/rate-limit.ts), like /docs, and they are hidden from the
 * OpenAPI document, so the contract tests do not see them.
 */
export const consolePlugin: FastifyPluginAsync = async (app) => {
  // Scoped to this plugin: its responses only, errors and 304s included.
  app.addHook('onSend', async (request, reply, payload) => {
    reply.headers(CONSOLE_HEADERS);
    // The worker lives in /console/ but serves /console itself, the page's address, too.
    if (request.url.split('?')[0] === SERVICE_WORKER) reply.header('service-worker-allowed', CONSOLE_PATH);
    return payload;
  });
  await app.register(fastifyStatic, {
    root: PUBLIC_DIR,
    prefix: `${CONSOLE_PATH}/`,
    // /console itself serves the page too (below), not a redirect.
    redirect: false,
    index: 'index.html',
    // Revalidated on every load (cache-control: no-cache, set above): an ETag match is a 304.
    cacheControl: false,
    lastModified: false,
    etag: true,
    dotfiles: 'deny',
    allowedPath: (pathName) => pathName === '/' || SERVED.test(pathName),
    schemaHide: true,
  });
  await app.register(consoleVendor);
  const shell = { files: shellFiles() };
  app.get(`${CONSOLE_PATH}/shell.json`, { schema: { hide: true }, config: { access: 'public' } }, () => shell);
  app.get(CONSOLE_PATH, { schema: { hide: true }, config: { access: 'public' } }, (_request, reply) =>
    reply.sendFile('index.html'),
  );
};
