import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_LISTED_ERRORS, validationFailed } from '../shared/errors.js';
import type { FieldError } from '../shared/validation.js';
import { hookEachRoute, hookRoutes } from './route-hooks.js';

/** PRODUCT §3 Limits: 32 MiB per body (413 beyond). */
export const BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * JSON bodies go through Fastify's own parser (prototype-poisoning safe, malformed →
 * 400); for bulk imports the raw bytes are hashed here, where they are still at hand, so
 * the identical-import shortcut (db/versions.ts) matches exactly the bytes sent (a miss only
 * costs the item-by-item comparison). Idempotency-Key replays are matched on the request's
 * meaning instead (request-meaning.ts).
 */
export function registerJsonBody(app: FastifyInstance): void {
  // `__proto__` and `constructor.prototype` keys are dropped, like any unknown field (PRODUCT §3).
  const defaultParser = app.getDefaultJsonParser('remove', 'remove');
  // JSON only: any other body type is a 415 (PRODUCT §3), including Fastify's text/plain default.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
    (request, body, done) => {
      const bytes = body as Buffer;
      // JSON is UTF-8 (RFC 8259): other bytes would be decoded to U+FFFD, storing text the
      // client never sent, so they are refused instead (docs/decisions.md).
      if (!isUtf8(bytes))
        return done(
          validationFailed(NOT_UTF8_SENTENCE, [{ path: 'body', message: 'must be UTF-8 encoded' }]),
          undefined,
        );
      if (request.routeOptions.config.bulkImport) {
        request.rawBodyHash = createHash('sha256').update(bytes).digest('hex');
      }
      const text = bytes.toString('utf8');
      // The hot path: only a body whose text holds a `\u0000` or surrogate escape is walked.
      if (!text.includes('\\u') || !SUSPECT_ESCAPE.test(text)) return defaultParser(request, text, done);
      return defaultParser(request, text, (error, parsed) => {
        const errors = error ? [] : malformedStringErrors(parsed, undefined);
        if (error || errors.length === 0) return done(error, parsed);
        done(validationFailed(MALFORMED_STRING_SENTENCE, errors), undefined);
      });
    },
  );
}

/**
 * Strings a database cannot store as sent are refused in every body string or key, query
 * value and path parameter (PRODUCT §3 hostile input), with a 400 naming the field:
 * - U+0000: PostgreSQL text cannot hold it (a 500) and SQLite reads it as the end of a
 *   LIKE pattern (a search matching everything);
 * - a lone surrogate (`\ud800` without its pair): not Unicode text at all; both drivers
 *   would store U+FFFD instead, a key the client never sent.
 * In JSON text both can only arrive as escapes (`\u0000`, `\ud800`–`\udfff`); an escape
 * preceded by an odd number of backslashes is literal text, not an escape.
 */
const SUSPECT_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;
const LONE_SURROGATE = /\p{Surrogate}/u;
const MALFORMED_STRING_SENTENCE = 'Strings must be well-formed Unicode without the NUL character (\\u0000)';
const NOT_UTF8_SENTENCE = 'The request body is not valid UTF-8';

function stringProblem(text: string): string | undefined {
  if (text.includes('\0')) return 'must not contain the NUL character';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (a lone surrogate is not)';
  return undefined;
}

const MAX_PATH_DEPTH = 32;

/** Every string (or key) that is not storable text, by path; iterative, so deep nesting is no risk. */
function malformedStringErrors(root: unknown, prefix: string | undefined): FieldError[] {
  type Node = { value: unknown; parent?: Node; key?: string | number };
  const pathOf = (node: Node): string => {
    const keys: Array<string | number> = [];
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
    keys.reverse();
    const path = keys
      .slice(0, MAX_PATH_DEPTH)
      .reduce<string>(
        (at, key) => (typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`),
        prefix ?? '',
      );
    // A string a million arrays deep is named by its first levels, not by a megabyte of path.
    return (path || 'body') + (keys.length > MAX_PATH_DEPTH ? '…' : '');
  };
  const errors: FieldError[] = [];
  const stack: Node[] = [{ value: root }];
  while (stack.length > 0 && errors.length < MAX_LISTED_ERRORS) {
    const node = stack.pop()!;
    const { value } = node;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) errors.push({ path: pathOf(node), message: problem });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: node, key: i });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const problem = stringProblem(key);
        if (problem)
          errors.push({
            path: pathOf(node),
            message: `must not contain a key that ${problem.replace(/^must /, 'does not ')}`,
          });
        else stack.push({ value: item, parent: node, key });
      }
    }
  }
  return errors;
}

/**
 * The same rule for query strings and path parameters, plus: a query value whose
 * percent-encoding is not valid UTF-8 (`%zz`, `%C0%AF`) is a 400 naming it — the query
 * parser would otherwise pass the raw text on as if it were the value. (The router
 * refuses such a path before this runs: `frameworkErrorHandler`.)
 */
export function registerNulGuard(app: FastifyInstance): void {
  hookRoutes(
    app,
    'preValidation',
    () => true,
    (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      // Only percent-encoding can carry these: the HTTP parser refuses raw NULs and decodes no bytes itself.
      if (!request.url.includes('%')) return done();
      const errors = [
        ...undecodableQueryErrors(request.url),
        ...malformedStringErrors(request.query, 'query'),
        ...malformedStringErrors(request.params, 'params'),
      ];
      done(
        errors.length > 0
          ? validationFailed(
              errors.some((e) => e.message.includes('percent')) ? BAD_QUERY_SENTENCE : MALFORMED_STRING_SENTENCE,
              errors,
            )
          : undefined,
      );
    },
  );
}

const BAD_QUERY_SENTENCE = 'The query string is not valid percent-encoded UTF-8';

/** Query names and values whose percent-encoding does not decode to UTF-8, by name. */
function undecodableQueryErrors(url: string): FieldError[] {
  const start = url.indexOf('?');
  if (start < 0 || !url.includes('%', start)) return [];
  const errors: FieldError[] = [];
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    const decodedName = decodeQueryComponent(name);
    const valueDecodes = equals < 0 || decodeQueryComponent(pair.slice(equals + 1)) !== undefined;
    if (decodedName === undefined)
      errors.push({ path: 'query', message: 'a parameter name must be valid percent-encoded UTF-8' });
    else if (!valueDecodes)
      errors.push({ path: `query.${decodedName.slice(0, 64)}`, message: 'must be valid percent-encoded UTF-8' });
    if (errors.length >= MAX_LISTED_ERRORS) break;
  }
  return errors;
}

function decodeQueryComponent(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
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
