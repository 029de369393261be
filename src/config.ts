import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { externalIssuerFromSettings } from './modules/identity-provider/settings.js';
import type { ExternalIssuerConfig } from './modules/identity-provider/index.js';

/**
 * The environment the service reads (PRODUCT.md §2). One schema gives defaults,
 * coercion ("8080" → 8080) and a clear error for a bad value.
 */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.String({ minLength: 1, default: 'sqlite:./data/store-ops.sqlite' }),
  STORE_OPS_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 6000 }),
  // PRODUCT §2: an acknowledged write survives a power loss unless the operator trades it away.
  SQLITE_SYNCHRONOUS: Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')], { default: 'FULL' }),
  // PRODUCT §9: how long the change feed keeps its events.
  EVENTS_RETENTION_DAYS: Type.Number({ exclusiveMinimum: 0, maximum: 3650, default: 30 }),
  // PRODUCT §9: webhooks refuse private, link-local and loopback targets unless an operator allows them.
  WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  // PRODUCT §9: one sender per subscription; a crashed sender's lease runs out after this many seconds.
  WEBHOOKS_LEASE_SECONDS: Type.Number({ minimum: 1, maximum: 3600, default: 30 }),
  // Issue 31: standbys serving the GET routes that may lag (PostgreSQL only; absent: every read on the primary).
  DATABASE_READ_URL: Type.Optional(Type.String({ minLength: 1 })),
  // A standby further behind than this many seconds serves no read until it catches up.
  DATABASE_READ_MAX_LAG_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 86_400, default: 5 }),
  // Issue 41 (docs/security.md): our OAuth2 token endpoint. The issuer of our access tokens
  // (absent: the one stored in the database by the first process, http://HOST:PORT then).
  OAUTH_ISSUER: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  // The `aud` of our access tokens (absent: the issuer followed by /api/v2/public).
  OAUTH_AUDIENCE: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  OAUTH_ACCESS_TOKEN_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 3600 }),
  // Failed client authentications per client_id and per address per minute (0 = off).
  OAUTH_FAILED_AUTH_PER_MINUTE: Type.Integer({ minimum: 0, default: 10 }),
  // Issue 41 (docs/security.md "Your own identity provider"): access tokens of the chain's
  // provider (Entra ID, Keycloak, …) accepted too. AUTH_AUDIENCE is required with AUTH_ISSUER.
  AUTH_ISSUER: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  AUTH_AUDIENCE: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  // The provider's key set (absent: discovered from the issuer's metadata).
  AUTH_JWKS_URL: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  // Claims naming roles, comma-separated (Entra: app roles in `roles`, delegated scopes in `scp`).
  AUTH_ROLE_CLAIM: Type.String({ minLength: 1, maxLength: 200, default: 'roles,scp' }),
  // value=role pairs (absent: admin, integration, store, read and StoreOps.<Role>).
  AUTH_ROLE_MAP: Type.Optional(Type.String({ minLength: 1, maxLength: 4000 })),
  AUTH_STORES_CLAIM: Type.String({ minLength: 1, maxLength: 200, default: 'stores' }),
  AUTH_CLOCK_SKEW_SECONDS: Type.Integer({ minimum: 0, maximum: 300, default: 60 }),
  // The bench's feed-off baseline only (bench/, issue 30): bookings write no stock.changed events.
  BENCH_WITHOUT_STOCK_EVENTS: Type.Boolean({ default: false }),
});

/** SQLite's `synchronous` setting: FULL (default) or NORMAL (an operator's documented choice). */
export type SqliteSynchronous = Static<typeof EnvSchema>['SQLITE_SYNCHRONOUS'];

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Standbys for reads (PostgreSQL, issue 31; docs/operations.md "Read scaling"). */
  databaseReadUrl?: string;
  /** Seconds of replay lag past which a standby serves no read (default 5). */
  databaseReadMaxLagSeconds?: number;
  /** Bootstrap admin token, taken verbatim; only its hash is stored. */
  adminToken?: string;
  logLevel: Static<typeof EnvSchema>['LOG_LEVEL'];
  /** Requests per token per minute; 0 switches the limit off. */
  rateLimitPerMinute: number;
  /**
   * SQLite only. FULL (the default when unset) syncs the WAL on every commit, so a 2xx
   * survives a power cut; NORMAL may lose the last commits on a power cut (never on a crash).
   */
  sqliteSynchronous?: SqliteSynchronous;
  /** Days the change feed keeps its events (PRODUCT §9); a cursor older than that gets 410. */
  eventsRetentionDays?: number;
  /** Let webhooks target private, link-local and loopback addresses (tests, on-premise receivers). */
  webhooksAllowPrivate?: boolean;
  /**
   * Seconds a webhook sender's lease lasts unless renewed (PRODUCT §9, modules/webhooks): a
   * sender that died (kill -9) holds its subscription this long, then another process
   * redelivers its batch. Default 30.
   */
  webhooksLeaseSeconds?: number;
  /**
   * Tests only: shorter webhook timings than PRODUCT §9's (an answer within 10 s, first retry
   * within 5 s, backoff capped at 10 min, 24 h of failures before pausing), so a test sees a
   * timeout, a retry or a pause without waiting for them. Never set from the environment.
   */
  webhookTimingForTests?: {
    answerTimeoutMs?: number;
    firstRetryMs?: number;
    maxRetryMs?: number;
    retryWindowMs?: number;
  };
  /**
   * Bench only: bookings write no `stock.changed` events, so the bench can measure what writing
   * them costs (feed on vs off). The feed then misses stock changes; the server warns at start.
   */
  benchWithoutStockEvents?: boolean;
  /** Issuer (`iss`) of our access tokens; absent: the one stored in the database (docs/security.md). */
  oauthIssuer?: string;
  /** Audience (`aud`) of our access tokens; absent: the issuer + /api/v2/public. */
  oauthAudience?: string;
  /** Lifetime of our access tokens in seconds (default 3600, at most 86400). */
  oauthAccessTokenSeconds?: number;
  /** Failed client authentications per client_id and per address per minute before 429 (default 10; 0 = off). */
  oauthFailedAuthPerMinute?: number;
  /** Tests only: the clock skew allowed on our tokens' `exp` (default 5 s). Never set from the environment. */
  oauthClockSkewSeconds?: number;
  /** The chain's own identity provider (AUTH_ISSUER …; modules/identity-provider). */
  externalIssuer?: ExternalIssuerConfig;
  /** Called once with a generated admin token when the database has none (first start). */
  onGeneratedAdminToken?: (token: string) => void;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    if (env[key] !== undefined && env[key] !== '') picked[key] = env[key];
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, picked));
  if (!Value.Check(EnvSchema, withDefaults)) {
    const problems = [...Value.Errors(EnvSchema, withDefaults)].map((e) => `${e.path.slice(1)}: ${e.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  const parsed = withDefaults as Static<typeof EnvSchema>;
  const externalIssuer = externalIssuerFromSettings(parsed);
  if (externalIssuer !== undefined && 'problems' in externalIssuer)
    throw new ConfigError(`Invalid environment: ${externalIssuer.problems.join('; ')}`);
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    databaseReadUrl: parsed.DATABASE_READ_URL,
    databaseReadMaxLagSeconds: parsed.DATABASE_READ_MAX_LAG_SECONDS,
    adminToken: parsed.STORE_OPS_ADMIN_TOKEN,
    logLevel: parsed.LOG_LEVEL,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    sqliteSynchronous: parsed.SQLITE_SYNCHRONOUS,
    eventsRetentionDays: parsed.EVENTS_RETENTION_DAYS,
    webhooksAllowPrivate: parsed.WEBHOOKS_ALLOW_PRIVATE,
    webhooksLeaseSeconds: parsed.WEBHOOKS_LEASE_SECONDS,
    benchWithoutStockEvents: parsed.BENCH_WITHOUT_STOCK_EVENTS,
    oauthIssuer: parsed.OAUTH_ISSUER,
    oauthAudience: parsed.OAUTH_AUDIENCE,
    oauthAccessTokenSeconds: parsed.OAUTH_ACCESS_TOKEN_SECONDS,
    oauthFailedAuthPerMinute: parsed.OAUTH_FAILED_AUTH_PER_MINUTE,
    ...(externalIssuer === undefined ? {} : { externalIssuer }),
  };
}
