import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import {
  assertNamedStores,
  assertRouteAccess,
  namedStoresReader,
  visibleStores,
  type AccessRule,
  type Principal,
} from '../shared/access.js';
import { AppError, unauthorized } from '../shared/errors.js';
import { findTokenByHash } from '../modules/tokens/repository.js';
import { hashToken, principalFromRow } from '../modules/tokens/service.js';
import { OAuthRuntime, type JwtAuthentication } from '../modules/oauth/runtime.js';
import { createExternalIssuer } from '../modules/identity-provider/index.js';
import { hookEachRoute } from './route-hooks.js';
import type { TokenRow } from '../modules/tokens/rows.js';

export const API_PREFIX = '/api/v2/public';

/** PRODUCT §2: a token created, revoked or expired elsewhere takes effect within 1 s. */
const CACHE_MILLIS = 1000;
/** Credentials kept per process; the least recently used goes first (issue 40: every cache bounded). */
const CACHE_MAX_ENTRIES = 10_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Our OAuth2 access tokens in this process (issue 41): the token endpoint issues, auth admits. */
    oauth: OAuthRuntime;
  }
}

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

/** A JWT in compact form: three base64url parts (a `sot_` token never has a dot). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** RFC 6750 §3: error_description is quoted text without `"` or `\`, printable ASCII only. */
function quoted(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, ' ').slice(0, 300);
}

/**
 * RFC 6750 §3 challenges: none of the error attributes when no credential came; `invalid_token`
 * for a bad, expired or revoked one; `insufficient_scope` with a 403 of the role checks.
 */
export function bearerChallenge(
  error: 'invalid_token' | 'insufficient_scope' | undefined,
  description?: string,
): string {
  if (error === undefined) return 'Bearer realm="store-ops"';
  return `Bearer realm="store-ops", error="${error}"${description ? `, error_description="${quoted(description)}"` : ''}`;
}

export async function registerAuth(app: FastifyInstance, db: Kysely<Database>, config: Config): Promise<void> {
  // Keyed by the credential as sent, so a cached request needs no hashing either; the
  // values live only in this process's memory, as they do while a request is handled.
  const cache = new LRUCache<string, { row: TokenRow | null; at: number }>({ max: CACHE_MAX_ENTRIES });
  const oauth = await OAuthRuntime.start(db, config);
  app.decorate('oauth', oauth);
  // The chain's own identity provider (AUTH_ISSUER), when configured.
  const external = config.externalIssuer === undefined ? undefined : createExternalIssuer(config.externalIssuer);
  if (external) app.addHook('onClose', async () => external.close());

  async function lookup(credential: string): Promise<TokenRow | undefined> {
    // The moment before the read: the cached answer is never older than its timestamp says.
    const at = Date.now();
    const row = await findTokenByHash(db, hashToken(credential));
    cache.set(credential, { row: row ?? null, at });
    return row;
  }

  function refuse(reply: FastifyReply, message: string): AppError {
    reply.header('www-authenticate', bearerChallenge('invalid_token', message));
    return unauthorized(message);
  }

  function admitPrincipal(request: FastifyRequest, reply: FastifyReply, rule: AccessRule, principal: Principal): void {
    request.principal = principal;
    const storeNumber = (request.params as { store_number?: string } | undefined)?.store_number;
    try {
      assertRouteAccess(principal, rule, request.method, storeNumber);
    } catch (error) {
      reply.header('www-authenticate', bearerChallenge('insufficient_scope'));
      throw error;
    }
  }

  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    rule: AccessRule,
    row: TokenRow | null | undefined,
  ): void {
    if (!row) throw refuse(reply, 'Unknown token');
    const authentication = principalFromRow(row, Date.now());
    if ('failure' in authentication) throw refuse(reply, authentication.failure);
    admitPrincipal(request, reply, rule, authentication.principal);
  }

  function admitJwt(request: FastifyRequest, reply: FastifyReply, rule: AccessRule, result: JwtAuthentication): void {
    if ('failure' in result) throw refuse(reply, result.failure);
    admitPrincipal(request, reply, rule, result.principal);
  }

  /**
   * A JWT: ours by its `iss`, else the chain provider's. A credential of that shape from
   * neither (one that does not decode, or names another issuer) is looked up as a token:
   * an operator's STORE_OPS_ADMIN_TOKEN may have any shape, dots included.
   */
  function authenticateJwt(
    request: FastifyRequest,
    reply: FastifyReply,
    rule: AccessRule,
    token: string,
    done: (error?: Error) => void,
  ): void {
    // The hot path: one of our tokens verified before, revoked clients read within the second.
    const known = oauth.verifyCached(token);
    if (known !== undefined) {
      admitJwt(request, reply, rule, known);
      return done();
    }
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      return authenticateToken(request, reply, rule, token, done);
    }
    if (issuer === oauth.issuer) {
      oauth.verify(token).then(
        (result) => {
          try {
            admitJwt(request, reply, rule, result);
            done();
          } catch (error) {
            done(error as Error);
          }
        },
        (error: Error) => done(error),
      );
      return;
    }
    if (external !== undefined && issuer === external.issuer) {
      external.verify(token).then(
        (result) => {
          try {
            if ('failure' in result) {
              if (result.status === 403) {
                reply.header('www-authenticate', bearerChallenge('insufficient_scope', result.failure));
                throw new AppError('FORBIDDEN', result.failure);
              }
              if (result.status === 503) {
                reply.header('retry-after', '5');
                throw new AppError('UNAVAILABLE', result.failure);
              }
              throw refuse(reply, result.failure);
            }
            const { identity } = result;
            admitPrincipal(request, reply, rule, {
              key: `external ${external.issuer} ${identity.subject}`,
              kind: 'external',
              tokenId: 0,
              expiresAt: identity.expiresAt,
              name: identity.name,
              role: identity.role,
              stores: identity.stores,
            });
            done();
          } catch (error) {
            done(error as Error);
          }
        },
        (error: Error) => done(error),
      );
      return;
    }
    // Not a JWT of ours nor of the provider: a token, or nothing this service knows (401 then).
    authenticateToken(request, reply, rule, token, done);
  }

  /** A `sot_` token (or the operator's admin token): cached for at most a second (PRODUCT §2). */
  function authenticateToken(
    request: FastifyRequest,
    reply: FastifyReply,
    rule: AccessRule,
    credential: string,
    done: (error?: Error) => void,
  ): void {
    try {
      const cached = cache.get(credential);
      if (cached && Date.now() - cached.at < CACHE_MILLIS) {
        admit(request, reply, rule, cached.row);
        return done();
      }
    } catch (error) {
      return done(error as Error);
    }
    lookup(credential).then(
      (row) => {
        try {
          admit(request, reply, rule, row);
          done();
        } catch (error) {
          done(error as Error);
        }
      },
      (error: Error) => done(error),
    );
  }

  // Callback style: a token seen within the last second is admitted without a promise.
  function authenticate(
    request: FastifyRequest,
    reply: FastifyReply,
    rule: AccessRule,
    done: (error?: Error) => void,
  ): void {
    try {
      const credential = credentialOf(request);
      if (credential === undefined) {
        reply.header('www-authenticate', bearerChallenge(undefined));
        throw unauthorized('Missing credential: send Authorization: Bearer <token>');
      }
      if (!credential.startsWith('sot_') && JWT_SHAPE.test(credential))
        return authenticateJwt(request, reply, rule, credential, done);
      authenticateToken(request, reply, rule, credential, done);
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
      return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) =>
        authenticate(request, reply, rule, done);
    },
  );

  // PRODUCT §4: the stores a body names (its StoreRef fields) are the token's too, checked
  // once the body is validated and before any work — and before an Idempotency-Key is
  // reserved (plugins/hook-order.ts). Only routes whose body schema names a store get it,
  // and only store tokens walk the body.
  hookEachRoute(
    app,
    'preHandler',
    (route) =>
      route.url.startsWith(API_PREFIX) &&
      route.config?.access !== 'public' &&
      namedStoresReader(route.schema?.body) !== undefined,
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
