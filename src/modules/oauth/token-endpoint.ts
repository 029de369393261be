import { isUtf8 } from 'node:buffer';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import { authenticateClient, clientCeiling } from './clients.js';
import { narrow, ROLE_SCOPES } from './scope.js';
import { SIGNING_ALGORITHM } from './keys.js';

/**
 * POST /oauth2/token (RFC 6749 §4.4 client credentials; issue 41, PRODUCT §4) and the
 * discovery documents. This endpoint speaks OAuth, not the API envelope: form-encoded
 * requests, RFC 6749 §5.1 answers and §5.2 errors, because OAuth clients parse those.
 */

export const TOKEN_PATH = '/oauth2/token';
export const JWKS_PATH = '/.well-known/jwks.json';
export const METADATA_PATH = '/.well-known/oauth-authorization-server';

/** A token request is a few hundred bytes; anything past this is refused (413) before it is read whole. */
export const TOKEN_BODY_LIMIT_BYTES = 16 * 1024;

const FORM = 'application/x-www-form-urlencoded';
const GRANT = 'client_credentials';

type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'temporarily_unavailable'
  | 'server_error';

/** An RFC 6749 §5.2 error: its status, code, description and extra headers. */
class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: OAuthErrorCode,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

const invalidRequest = (description: string, status = 400) => new OAuthError(status, 'invalid_request', description);

/** RFC 6749 §5.2: error_description is printable ASCII without `"` and `\`. */
const asciiDescription = (text: string) => text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?').slice(0, 500);

function sendError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply
    .code(error.status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...error.headers })
    .type('application/json; charset=utf-8')
    .send({ error: error.code, error_description: asciiDescription(error.message) });
}

/** The form's parameters; RFC 6749 §3.2: none more than once, and an empty one is as if omitted. */
function parseForm(body: unknown): Map<string, string> {
  if (!Buffer.isBuffer(body))
    throw invalidRequest(`The token request must be a form (Content-Type: ${FORM}), RFC 6749 §4.4.2`);
  if (!isUtf8(body)) throw invalidRequest('The form is not valid UTF-8');
  const params = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(body.toString('utf8'))) {
    if (params.has(name))
      throw invalidRequest(`The parameter '${name.slice(0, 64)}' is sent more than once (RFC 6749 §3.2)`);
    if (name.includes('\0') || value.includes('\0')) throw invalidRequest('The form holds a NUL character');
    params.set(name, value);
  }
  for (const [name, value] of params) if (value === '') params.delete(name);
  return params;
}

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="store-ops", charset="UTF-8"' };

/** RFC 6749 §2.3.1: `Basic base64(urlencode(client_id) ":" urlencode(client_secret))`. */
function parseBasic(header: string): { clientId: string; secret: string } {
  const match = /^basic[ ]+([A-Za-z0-9+/=_-]+)[ ]*$/i.exec(header.trim());
  if (!match)
    throw new OAuthError(
      401,
      'invalid_client',
      'Client authentication must be HTTP Basic (RFC 6749 §2.3.1) or client_id and client_secret in the form',
      BASIC_CHALLENGE,
    );
  const decoded = Buffer.from(match[1]!, 'base64');
  const colon = decoded.indexOf(':');
  if (!isUtf8(decoded) || colon < 1)
    throw new OAuthError(
      401,
      'invalid_client',
      'The Basic credentials are not client_id:client_secret',
      BASIC_CHALLENGE,
    );
  const text = decoded.toString('utf8');
  try {
    const unform = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: unform(text.slice(0, colon)), secret: unform(text.slice(colon + 1)) };
  } catch {
    throw new OAuthError(
      401,
      'invalid_client',
      'The Basic credentials are not form-urlencoded (RFC 6749 §2.3.1)',
      BASIC_CHALLENGE,
    );
  }
}

/**
 * Failed client authentications per client_id and per remote address (issue 41): past
 * `perMinute` failures in a minute every attempt from that client_id or address is 429
 * until the minute is over, the right secret included (else the limit would still answer
 * guesses). In-process counters, like the request rate limit.
 */
class FailureLimiter {
  private readonly windows = new LRUCache<string, { start: number; failures: number }>({ max: 50_000 });
  constructor(private readonly perMinute: number) {}

  /** Seconds until `key` may try again, or 0. */
  blockedFor(keys: string[], now = Date.now()): number {
    if (this.perMinute <= 0) return 0;
    let wait = 0;
    for (const key of keys) {
      const window = this.windows.get(key);
      if (window && now - window.start < 60_000 && window.failures >= this.perMinute)
        wait = Math.max(wait, Math.ceil((window.start + 60_000 - now) / 1000));
    }
    return wait;
  }

  fail(keys: string[], now = Date.now()): void {
    if (this.perMinute <= 0) return;
    for (const key of keys) {
      const window = this.windows.get(key);
      if (!window || now - window.start >= 60_000) this.windows.set(key, { start: now, failures: 1 });
      else window.failures++;
    }
  }
}

function oauthErrorOf(error: FastifyError | Error): OAuthError {
  if (error instanceof OAuthError) return error;
  const fastifyError = error as FastifyError;
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) return invalidRequest(`The token request is larger than ${TOKEN_BODY_LIMIT_BYTES} bytes`, 413);
  if (status === 415)
    return invalidRequest(`The token request must be a form (Content-Type: ${FORM}), RFC 6749 §4.4.2`);
  if (status >= 400 && status < 500)
    return invalidRequest(
      /JSON/i.test(error.message) ? `The token request must be a form (Content-Type: ${FORM})` : error.message,
    );
  return new OAuthError(503, 'temporarily_unavailable', 'The token could not be issued just now; try again shortly', {
    'retry-after': '2',
  });
}

/** The token endpoint and the discovery documents, in their own plugin: the form parser and OAuth's errors stay here. */
export const oauthEndpoints: FastifyPluginAsync<{ config: Config }> = async (app, options) => {
  const oauth = app.oauth;
  const limiter = new FailureLimiter(options.config.oauthFailedAuthPerMinute ?? 10);

  // Kept as bytes: parsed by parseForm, which also refuses a repeated parameter.
  app.addContentTypeParser(FORM, { parseAs: 'buffer', bodyLimit: TOKEN_BODY_LIMIT_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const oauthError = oauthErrorOf(error);
    if (oauthError.status >= 500) request.log.error({ err: error }, 'token endpoint failed');
    return sendError(reply, oauthError);
  });

  app.post(
    TOKEN_PATH,
    { bodyLimit: TOKEN_BODY_LIMIT_BYTES, schema: { hide: true } },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const form = parseForm(request.body);
      const grantType = form.get('grant_type');
      if (grantType === undefined) throw invalidRequest('grant_type is missing');
      if (grantType !== GRANT)
        throw new OAuthError(400, 'unsupported_grant_type', `Only grant_type=${GRANT} is supported`);

      const authorization = request.headers.authorization;
      let clientId: string | undefined;
      let secret: string | undefined;
      const basic = typeof authorization === 'string' && authorization.trim() !== '';
      if (basic) {
        ({ clientId, secret } = parseBasic(authorization));
        if (form.has('client_secret'))
          throw invalidRequest(
            'Use one client authentication method: HTTP Basic or client_secret in the form, not both',
          );
        if (form.has('client_id') && form.get('client_id') !== clientId)
          throw invalidRequest('client_id in the form is not the one of the Basic credentials');
      } else {
        clientId = form.get('client_id');
        secret = form.get('client_secret');
        if (clientId === undefined) throw invalidRequest('client_id is missing');
        if (secret === undefined) throw invalidRequest('client_secret is missing');
      }

      const keys = [`client ${clientId}`, `ip ${request.ip}`];
      const wait = limiter.blockedFor(keys);
      if (wait > 0)
        throw new OAuthError(
          429,
          'temporarily_unavailable',
          `Too many failed client authentications; retry in ${wait} s`,
          { 'retry-after': String(wait) },
        );
      const client = await authenticateClient(request.server.ctx.db, clientId, secret);
      if (!client) {
        limiter.fail(keys);
        throw new OAuthError(401, 'invalid_client', 'Unknown client, wrong secret or revoked client', BASIC_CHALLENGE);
      }
      const ceiling = clientCeiling(client);
      if (!ceiling)
        throw new OAuthError(
          400,
          'unauthorized_client',
          'This client has a role or scope the service no longer knows; register it again',
        );
      const narrowed = narrow(ceiling, form.get('scope'));
      if ('error' in narrowed) throw new OAuthError(400, 'invalid_scope', narrowed.error);
      const { accessToken, expiresIn } = await oauth.issue(client, narrowed.scope);
      return reply
        .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
        .send({ access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope: narrowed.scope });
    },
  );

  app.get(
    JWKS_PATH,
    {
      schema: {
        tags: ['oauth'],
        summary:
          "The public keys that verify this service's access tokens (RFC 7517; a retired key leaves once every token it signed has expired)",
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { keys: await oauth.keys.publicJwks() };
    },
  );

  app.get(
    METADATA_PATH,
    {
      schema: {
        tags: ['oauth'],
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414): issuer, token endpoint, JWKS, grants and scopes',
        security: [],
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return {
        issuer: oauth.issuer,
        token_endpoint: `${oauth.issuer}${TOKEN_PATH}`,
        jwks_uri: `${oauth.issuer}${JWKS_PATH}`,
        grant_types_supported: [GRANT],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        // Plus store:<store_number> for store clients (docs/security.md "Scopes").
        scopes_supported: [...ROLE_SCOPES],
        response_types_supported: [],
        access_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
        service_documentation: `${oauth.issuer}/docs`,
      };
    },
  );
};
