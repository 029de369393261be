import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { fileURLToPath } from 'node:url';
import { CONSOLE_HEADERS } from './security-headers.js';

export const CONSOLE_PATH = '/console';
const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

/** The only kinds of file the console ships: anything else in the folder (a source map, an editor backup) is never served. */
const SERVED = /\.(html|js|css|svg)$/;

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
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(CONSOLE_HEADERS);
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
  app.get(CONSOLE_PATH, { schema: { hide: true }, config: { access: 'public' } }, (_request, reply) =>
    reply.sendFile('index.html'),
  );
};
