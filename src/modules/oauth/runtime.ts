import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTHeaderParameters, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { Principal } from '../../shared/access.js';
import { ensureSigningKey, KeyStore, SIGNING_ALGORITHM } from './keys.js';
import { revokedClientIdsSince, type ClientRow } from './repository.js';
import { grantOfScope, type Grant } from './scope.js';

/** PRODUCT §4: a revoked client's tokens are refused within a second on every process. */
const REVOCATION_CHECK_MILLIS = 1000;
/** Clock skew allowed on `exp` between the process that issued a token and the one reading it. */
const DEFAULT_CLOCK_SKEW_SECONDS = 5;
/** Verified tokens kept per process (least recently used evicted): a token seen again costs no signature check. */
const VERIFIED_CACHE_MAX = 10_000;
/** A revocation older than the longest token lifetime (a day) plus skew can concern no valid token. */
const REVOCATION_HORIZON_MILLIS = (86_400 + 120) * 1000;

export const DEFAULT_ACCESS_TOKEN_SECONDS = 3600;

export type JwtAuthentication = { principal: Principal } | { failure: string };

interface Verified {
  principal: Principal;
  clientId: string;
  /** exp in ms. */
  expiresAt: number;
}

/**
 * The issuer every process uses (issue 41, docs/decisions.md): OAUTH_ISSUER, else the one the
 * first process stored in the database (`http://HOST:PORT` of that process), so processes on
 * other ports, and restarts, keep accepting each other's tokens.
 */
export async function resolveIssuer(
  db: Kysely<Database>,
  config: Pick<Config, 'oauthIssuer' | 'host' | 'port'>,
): Promise<string> {
  if (config.oauthIssuer !== undefined) return config.oauthIssuer.replace(/\/+$/, '');
  const host =
    config.host === '0.0.0.0' || config.host === '::'
      ? 'localhost'
      : config.host.includes(':')
        ? `[${config.host}]`
        : config.host;
  await db
    .insertInto('meta')
    .values({ key: 'oauth_issuer', value: `http://${host}:${config.port}` })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await db.selectFrom('meta').select('value').where('key', '=', 'oauth_issuer').executeTakeFirstOrThrow())
    .value;
}

export interface OAuthRuntimeOptions {
  issuer: string;
  audience: string;
  accessTokenSeconds: number;
  clockSkewSeconds?: number;
}

/**
 * Our access tokens in one process: issuing them (the token endpoint) and admitting them (the
 * auth hook) — the signature with keys held in memory (keys.ts), `iss`, `aud`, `exp` with a
 * small skew, `typ: at+jwt`, RS256 only (so `alg: none` and HMAC tricks fail), and the client
 * not revoked: the revoked clients are reread at most once a second, the only database read
 * on the hot path (one per process per second, whatever the load).
 */
export class OAuthRuntime {
  readonly keys: KeyStore;
  readonly issuer: string;
  readonly audience: string;
  readonly accessTokenSeconds: number;
  private readonly skewSeconds: number;
  private readonly verified = new LRUCache<string, Verified>({ max: VERIFIED_CACHE_MAX });
  private revoked = new Set<string>();
  /** The moment before the last read of the revoked clients. */
  private revokedAt = -Infinity;
  private revokedLoading: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    options: OAuthRuntimeOptions,
  ) {
    this.keys = new KeyStore(db);
    this.issuer = options.issuer;
    this.audience = options.audience;
    this.accessTokenSeconds = options.accessTokenSeconds;
    this.skewSeconds = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  }

  static async start(db: Kysely<Database>, config: Config): Promise<OAuthRuntime> {
    const issuer = await resolveIssuer(db, config);
    await ensureSigningKey(db);
    return new OAuthRuntime(db, {
      issuer,
      audience: config.oauthAudience ?? `${issuer}/api/v2/public`,
      accessTokenSeconds: config.oauthAccessTokenSeconds ?? DEFAULT_ACCESS_TOKEN_SECONDS,
      clockSkewSeconds: config.oauthClockSkewSeconds,
    });
  }

  /** Signs an access token for `client` with `grant` (RFC 9068). */
  async issue(client: ClientRow, scope: string): Promise<{ accessToken: string; expiresIn: number }> {
    const { kid, key } = await this.keys.signingKey();
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({ client_id: client.client_id, scope, client_name: client.name })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: 'at+jwt', kid })
      .setIssuer(this.issuer)
      .setSubject(client.client_id)
      .setAudience(this.audience)
      .setIssuedAt(now)
      .setExpirationTime(now + this.accessTokenSeconds)
      .setJti(randomUUID())
      .sign(key);
    return { accessToken, expiresIn: this.accessTokenSeconds };
  }

  private refreshRevoked(): Promise<void> {
    this.revokedLoading ??= (async () => {
      const at = Date.now();
      try {
        this.revoked = new Set(await revokedClientIdsSince(this.db, at - REVOCATION_HORIZON_MILLIS));
        this.revokedAt = at;
      } finally {
        this.revokedLoading = undefined;
      }
    })();
    return this.revokedLoading;
  }

  private admitVerified(entry: Verified, now: number): JwtAuthentication {
    if (entry.expiresAt + this.skewSeconds * 1000 <= now) return { failure: 'The access token has expired' };
    if (this.revoked.has(entry.clientId)) return { failure: 'The client of this access token has been revoked' };
    return { principal: entry.principal };
  }

  /**
   * Admission without a promise when the token was verified before and the revoked clients
   * were read within the last second (the common case); undefined: call `verify`.
   */
  verifyCached(token: string, now = Date.now()): JwtAuthentication | undefined {
    if (now - this.revokedAt >= REVOCATION_CHECK_MILLIS) return undefined;
    const entry = this.verified.get(token);
    return entry === undefined ? undefined : this.admitVerified(entry, now);
  }

  async verify(token: string): Promise<JwtAuthentication> {
    if (Date.now() - this.revokedAt >= REVOCATION_CHECK_MILLIS) await this.refreshRevoked();
    const cached = this.verified.get(token);
    if (cached !== undefined) return this.admitVerified(cached, Date.now());
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyFor(header), {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: [SIGNING_ALGORITHM],
        typ: 'at+jwt',
        clockTolerance: this.skewSeconds,
        requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id', 'scope'],
      }));
    } catch (error) {
      return { failure: describeFailure(error) };
    }
    const clientId = payload.client_id;
    const grant = grantOfScope(payload.scope);
    if (typeof clientId !== 'string' || clientId !== payload.sub || grant === undefined)
      return { failure: 'The access token has claims this service never issues' };
    const entry: Verified = {
      principal: principalOf(clientId, payload, grant),
      clientId,
      expiresAt: payload.exp! * 1000,
    };
    this.verified.set(token, entry);
    return this.admitVerified(entry, Date.now());
  }

  private async keyFor(header: JWTHeaderParameters) {
    const key = await this.keys.verifyingKey(header.kid);
    if (key === undefined) throw new UnknownKeyError();
    return key;
  }
}

class UnknownKeyError extends Error {}

function principalOf(clientId: string, payload: JWTPayload, grant: Grant): Principal {
  const name = typeof payload.client_name === 'string' && payload.client_name !== '' ? payload.client_name : clientId;
  return {
    key: `client ${clientId}`,
    kind: 'client',
    tokenId: 0,
    clientId,
    expiresAt: payload.exp! * 1000,
    name,
    role: grant.role,
    stores: grant.stores,
  };
}

function describeFailure(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The access token has expired';
  if (error instanceof UnknownKeyError)
    return 'The access token is signed with a key this service does not have (unknown or retired kid)';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The access token signature does not verify';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return `The access token must be signed with ${SIGNING_ALGORITHM}`;
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `The access token's ${error.claim} claim is not valid here`;
  return 'The access token is malformed';
}
