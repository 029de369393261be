import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** PRODUCT §3 Limits: 32 MiB per body (413 beyond). */
export const BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * JSON bodies go through Fastify's own parser (prototype-poisoning safe, malformed →
 * 400); when an Idempotency-Key comes with the request, the raw text is hashed here,
 * where it is still at hand, so a replay is matched on exactly the bytes sent.
 */
export function registerJsonBody(app: FastifyInstance): void {
  // `__proto__` and `constructor.prototype` keys are dropped, like any unknown field (PRODUCT §3).
  const defaultParser = app.getDefaultJsonParser('remove', 'remove');
  // JSON only: any other body type is a 415 (PRODUCT §3), including Fastify's text/plain default.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    if (request.headers['idempotency-key'] !== undefined) {
      request.rawBodyHash = createHash('sha256').update(body as string).digest('hex');
    }
    defaultParser(request, body as string, done);
  });
}

const namesBySchema = new WeakMap<object, Map<string, string>>();

function canonicalNames(schema: object): Map<string, string> {
  let names = namesBySchema.get(schema);
  if (!names) {
    names = new Map();
    const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
    for (const name of Object.keys(properties)) names.set(name.toLowerCase(), name);
    namesBySchema.set(schema, names);
  }
  return names;
}

/**
 * Query parameter names match case-insensitively (PRODUCT §3: `Page_Size` = `page_size`,
 * `AppUserName` = `appUserName`): each name is mapped to the spelling the route's schema
 * declares before validation. The same name sent in two spellings is merged, as a
 * repeated parameter would be.
 */
export function registerCaseInsensitiveQuery(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const schema = request.routeOptions.schema?.querystring as object | undefined;
    const query = request.query as Record<string, unknown> | undefined;
    if (!schema || !query) return;
    const names = canonicalNames(schema);
    let rewritten: Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(query)) {
      const canonical = names.get(name.toLowerCase());
      if (canonical === undefined || canonical === name) continue;
      rewritten ??= { ...query };
      delete rewritten[name];
      const existing = rewritten[canonical];
      rewritten[canonical] = existing === undefined ? value : ([] as unknown[]).concat(existing, value);
    }
    if (rewritten) request.query = rewritten;
  });
}
