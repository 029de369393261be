import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_LISTED_ERRORS, validationFailed } from '../shared/errors.js';
import type { FieldError } from '../shared/validation.js';
import { hookEachRoute, hookRoutes } from './route-hooks.js';

/** PRODUCT §3 Limits: 32 MiB per body (413 beyond). */
export const BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * JSON bodies go through Fastify's own parser (prototype-poisoning safe, malformed →
 * 400); for bulk imports and requests with an Idempotency-Key the raw text is hashed
 * here, where it is still at hand, so replays and identical imports are matched on
 * exactly the bytes sent.
 */
export function registerJsonBody(app: FastifyInstance): void {
  // `__proto__` and `constructor.prototype` keys are dropped, like any unknown field (PRODUCT §3).
  const defaultParser = app.getDefaultJsonParser('remove', 'remove');
  // JSON only: any other body type is a 415 (PRODUCT §3), including Fastify's text/plain default.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    if (request.headers['idempotency-key'] !== undefined || request.routeOptions.config.bulkImport) {
      request.rawBodyHash = createHash('sha256').update(body as string).digest('hex');
    }
    const text = body as string;
    if (!text.includes('\\u0000') || !NUL_ESCAPE.test(text)) return defaultParser(request, text, done);
    defaultParser(request, text, (error, parsed) => {
      const nulErrors = error ? [] : nulCharacterErrors(parsed, undefined);
      if (error || nulErrors.length === 0) return done(error, parsed);
      done(validationFailed(NUL_SENTENCE, nulErrors), undefined);
    });
  });
}

/**
 * U+0000 is refused in every string (PRODUCT §3 hostile input): PostgreSQL text cannot
 * hold it (a 500) and SQLite reads it as the end of a LIKE pattern (a search matching
 * everything), so it is a 400 on both. In JSON text it can only arrive as `\u0000`.
 */
const NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/;
const NUL_SENTENCE = 'Strings must not contain the NUL character (\\u0000)';

/** Every string (or key) holding U+0000, by path; iterative, so deep nesting is no risk. */
function nulCharacterErrors(root: unknown, prefix: string | undefined): FieldError[] {
  type Node = { value: unknown; parent?: Node; key?: string | number };
  const pathOf = (node: Node): string => {
    const keys: Array<string | number> = [];
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
    const path = keys
      .reverse()
      .reduce<string>((at, key) => (typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`), prefix ?? '');
    return path || 'body';
  };
  const errors: FieldError[] = [];
  const stack: Node[] = [{ value: root }];
  while (stack.length > 0 && errors.length < MAX_LISTED_ERRORS) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      if (value.includes('\0')) errors.push({ path: pathOf(node), message: 'must not contain the NUL character' });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: node, key: i });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        if (key.includes('\0')) errors.push({ path: pathOf(node), message: 'must not contain a key with the NUL character' });
        else stack.push({ value: item, parent: node, key });
      }
    }
  }
  return errors;
}

/** The same rule for query strings and path parameters. */
export function registerNulGuard(app: FastifyInstance): void {
  hookRoutes(app, 'preValidation', () => true, (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    // A NUL can only reach the query or path percent-encoded: the HTTP parser refuses a raw one.
    if (!request.url.includes('%00')) return done();
    const errors = [...nulCharacterErrors(request.query, 'query'), ...nulCharacterErrors(request.params, 'params')];
    done(errors.length > 0 ? validationFailed(NUL_SENTENCE, errors) : undefined);
  });
}

/** Lower-case name → the spelling a querystring schema declares; made once per route. */
function canonicalNames(schema: object): Map<string, string> {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  return new Map(Object.keys(properties).map((name) => [name.toLowerCase(), name]));
}

/**
 * Query parameter names match case-insensitively (PRODUCT §3: `Page_Size` = `page_size`,
 * `AppUserName` = `appUserName`): each name is mapped to the spelling the route's schema
 * declares before validation. The same name sent in two spellings is merged, as a
 * repeated parameter would be.
 */
export function registerCaseInsensitiveQuery(app: FastifyInstance): void {
  hookEachRoute(
    app,
    'preValidation',
    (route) => route.schema?.querystring !== undefined,
    (route) => {
      const names = canonicalNames(route.schema!.querystring as object);
      return (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
        canonicaliseQueryNames(request, names);
        done();
      };
    },
  );
}

function canonicaliseQueryNames(request: FastifyRequest, names: ReadonlyMap<string, string>): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query) return;
  let rewritten: Record<string, unknown> | undefined;
  for (const name in query) {
    const canonical = names.get(name.toLowerCase());
    if (canonical === undefined || canonical === name) continue;
    rewritten ??= { ...query };
    delete rewritten[name];
    const existing = rewritten[canonical];
    rewritten[canonical] = existing === undefined ? query[name] : ([] as unknown[]).concat(existing, query[name]);
  }
  if (rewritten) request.query = rewritten;
}
