import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { assertNamedStores, assertRouteAccess, namedStoresReader, visibleStores, type AccessRule } from '../shared/access.js';
import { unauthorized } from '../shared/errors.js';
import { findTokenByHash } from '../modules/tokens/repository.js';
import { hashToken, principalFromRow } from '../modules/tokens/service.js';
import { hookEachRoute } from './route-hooks.js';
import type { TokenRow } from '../modules/tokens/rows.js';

export const API_PREFIX = '/api/v2/public';

/** PRODUCT §2: a token created, revoked or expired elsewhere takes effect within 1 s. */
const CACHE_MILLIS = 1000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * `Authorization: Bearer <token>` or `Authorization: <token>` (PRODUCT §4: both forms,
 * the interface leaves the scheme open); routes marked `apiKey` also take `api_key`.
 * This is one split on a space, so it is written here rather than pulled in: the
 * bearer-auth plugins insist on the scheme word, which the interface does not.
 */
function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') {
    const value = header.trim();
    const space = value.indexOf(' ');
    if (space === -1) return value;
    return value.slice(0, space).toLowerCase() === 'bearer' ? value.slice(space + 1).trim() : value;
  }
  const apiKey = request.headers['api_key'] ?? request.headers['api-key'];
  if (request.routeOptions.config.apiKey && typeof apiKey === 'string' && apiKey !== '') return apiKey;
  return undefined;
}

export function registerAuth(app: FastifyInstance, db: Kysely<Database>): void {
  // Keyed by the credential as sent, so a cached request needs no hashing either; the
  // values live only in this process's memory, as they do while a request is handled.
  const cache = new Map<string, { row: TokenRow | undefined; at: number }>();

  async function lookup(credential: string): Promise<TokenRow | undefined> {
    // The moment before the read: the cached answer is never older than its timestamp says.
    const at = Date.now();
    const row = await findTokenByHash(db, hashToken(credential));
    if (cache.size >= CACHE_MAX_ENTRIES) cache.clear();
    cache.set(credential, { row, at });
    return row;
  }

  function admit(request: FastifyRequest, rule: AccessRule, row: TokenRow | undefined): void {
    if (!row) throw unauthorized('Unknown token');
    const authentication = principalFromRow(row, Date.now());
    if ('failure' in authentication) throw unauthorized(authentication.failure);
    request.principal = authentication.principal;
    const storeNumber = (request.params as { store_number?: string } | undefined)?.store_number;
    assertRouteAccess(authentication.principal, rule, request.method, storeNumber);
  }

  // Callback style: a token seen within the last second is admitted without a promise.
  function authenticate(request: FastifyRequest, rule: AccessRule, done: (error?: Error) => void): void {
    try {
      const credential = credentialOf(request);
      if (credential === undefined) throw unauthorized('Missing credential: send Authorization: Bearer <token>');
      const cached = cache.get(credential);
      if (cached && Date.now() - cached.at < CACHE_MILLIS) {
        admit(request, rule, cached.row);
        return done();
      }
      lookup(credential).then(
        (row) => {
          try {
            admit(request, rule, row);
            done();
          } catch (error) {
            done(error as Error);
          }
        },
        (error: Error) => done(error),
      );
    } catch (error) {
      done(error as Error);
    }
  }

  // Each guarded route gets a hook that already knows its access rule.
  hookEachRoute(
    app,
    'onRequest',
    (route) => route.url.startsWith(API_PREFIX) && route.config?.access !== 'public',
    (route) => {
      const rule: AccessRule = route.config?.access ?? 'master';
      return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => authenticate(request, rule, done);
    },
  );

  // PRODUCT §4: the stores a body names (its StoreRef fields) are the token's too, checked
  // once the body is validated and before any work — and before an Idempotency-Key is
  // reserved (plugins/hook-order.ts). Only routes whose body schema names a store get it,
  // and only store tokens walk the body.
  hookEachRoute(
    app,
    'preHandler',
    (route) => route.url.startsWith(API_PREFIX) && route.config?.access !== 'public' && namedStoresReader(route.schema?.body) !== undefined,
    (route) => {
      const namedStores = namedStoresReader(route.schema!.body)!;
      return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
        const principal = request.principal;
        if (principal === undefined || visibleStores(principal) === null) return done();
        try {
          assertNamedStores(principal, namedStores(request.body));
          done();
        } catch (error) {
          done(error as Error);
        }
      };
    },
  );
}
