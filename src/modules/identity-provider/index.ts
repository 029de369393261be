import { errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Role } from '../../shared/access.js';
import { mapClaims, type ClaimMapping } from './claims.js';
import { ProviderKeys, ProviderUnavailable } from './provider-keys.js';

/**
 * Access tokens of the chain's own identity provider (issue 41, AUTH_ISSUER: Entra ID, Keycloak,
 * Auth0, …; docs/security.md "Your own identity provider"). jose verifies the signature with the
 * provider's keys (provider-keys.ts) and the registered claims; claims.ts maps the rest to our
 * role and stores. A verified token is kept until it expires (bounded), so a caller's next
 * requests cost a lookup, not a signature check.
 */

export interface ExternalIssuerConfig {
  /** `iss` exactly as the provider writes it (Entra v2: https://login.microsoftonline.com/<tenant>/v2.0). */
  issuer: string;
  /** `aud` the token must carry: this API's application id URI or client id. */
  audience: string;
  /** The provider's key set; absent: discovered from the issuer's metadata. */
  jwksUrl?: string;
  mapping: ClaimMapping;
  /** Allowed clock difference for exp and nbf, seconds. */
  clockSkewSeconds: number;
}

export interface ExternalIdentity {
  subject: string;
  /** What logs and stored records name as the actor. */
  name: string;
  role: Role;
  stores: string[] | null;
  /** When the token expires (epoch ms). */
  expiresAt: number;
}

export type ExternalVerification = { identity: ExternalIdentity } | { failure: string; status: 401 | 403 | 503 };

export interface ExternalIssuer {
  readonly issuer: string;
  verify(token: string): Promise<ExternalVerification>;
  close(): void;
}

/** Signature algorithms a provider may use: asymmetric only (an HS* token "signed" with a public key is refused). */
export const PROVIDER_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

const VERIFIED_MAX = 10_000;

/**
 * `typ` claim values naming a token that is not an access token (Keycloak writes `ID` in its ID
 * tokens, `Refresh`/`Offline` and `Logout` in others, `Bearer` in access tokens). An ID token of a
 * client whose id is AUTH_AUDIENCE would otherwise pass every other check.
 */
const NOT_ACCESS_TOKEN_TYPES = new Set(['id', 'id_token', 'refresh', 'offline', 'logout']);

/** What a caller is called in logs: the provider's user or application name where it gives one. */
function nameOf(payload: JWTPayload, subject: string): string {
  for (const claim of ['preferred_username', 'upn', 'azp', 'appid', 'client_id']) {
    const value = payload[claim];
    if (typeof value === 'string' && value !== '' && value.length <= 200) return value;
  }
  return subject;
}

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `The access token's ${error.claim} claim is not accepted (${error.reason})`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The access token's signature does not verify";
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'The access token is signed with an algorithm this service does not accept';
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The access token names a key the identity provider does not publish';
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return 'The access token is malformed';
  return 'The access token is not valid';
}

export function createExternalIssuer(
  config: ExternalIssuerConfig,
  options: { fetch?: typeof fetch; now?: () => number } = {},
): ExternalIssuer {
  const now = options.now ?? Date.now;
  const keys = new ProviderKeys({ issuer: config.issuer, jwksUrl: config.jwksUrl, fetch: options.fetch ?? fetch, now });
  const verified = new LRUCache<string, ExternalVerification & { identity: ExternalIdentity }>({ max: VERIFIED_MAX });

  async function verify(token: string): Promise<ExternalVerification> {
    const known = verified.get(token);
    if (known !== undefined) {
      if (known.identity.expiresAt + config.clockSkewSeconds * 1000 > now()) return known;
      verified.delete(token);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys.keyFor, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: PROVIDER_ALGORITHMS,
        clockTolerance: config.clockSkewSeconds,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(now()),
      }));
    } catch (error) {
      if (error instanceof ProviderUnavailable)
        return {
          failure: `The identity provider cannot be reached to check this token's key: try again shortly (${error.message})`,
          status: 503,
        };
      return { failure: describe(error), status: 401 };
    }
    if (typeof payload.typ === 'string' && NOT_ACCESS_TOKEN_TYPES.has(payload.typ.toLowerCase())) {
      return { failure: `The token is not an access token (typ ${payload.typ})`, status: 401 };
    }
    const subject = payload.sub!;
    const mapped = mapClaims(payload as Record<string, unknown>, config.mapping);
    if ('refusal' in mapped) return { failure: mapped.refusal, status: 403 };
    const result = {
      identity: {
        subject,
        name: nameOf(payload, subject),
        role: mapped.role,
        stores: mapped.stores,
        expiresAt: payload.exp! * 1000,
      },
    };
    verified.set(token, result);
    return result;
  }

  return {
    issuer: config.issuer,
    verify,
    close: () => verified.clear(),
  };
}
