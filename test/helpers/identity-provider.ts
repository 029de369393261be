import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A chain identity provider of the test's own (issue 41): an HTTP server on 127.0.0.1 only,
 * serving OpenID metadata and a JWKS, and signing access tokens as Entra ID or Keycloak would.
 * Keys can be rotated and the server taken down; it counts what was fetched.
 */
export interface TestProvider {
  issuer: string;
  jwksUrl: string;
  audience: string;
  /** Requests per path. */
  hits: Map<string, number>;
  sign(
    claims: JWTPayload,
    options?: {
      kid?: string;
      alg?: string;
      expiresIn?: number;
      notBefore?: number;
      key?: CryptoKey;
      issuer?: string;
      audience?: string;
    },
  ): Promise<string>;
  /** A new key published beside the old ones (or instead of them); returns its kid. */
  rotate(options?: { dropOld?: boolean }): Promise<string>;
  /** Answers 503 to everything while down. */
  setDown(down: boolean): void;
  /** While hanging, requests get no answer (a provider that is slow); set false, they are answered. */
  setHanging(hanging: boolean): void;
  close(): Promise<void>;
}

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(kid: string, alg = 'RS256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startTestProvider(
  options: { path?: string; discovery?: 'openid' | 'rfc8414' | 'none' } = {},
): Promise<TestProvider> {
  const path = options.path ?? '/tenant-1/v2.0';
  const discovery = options.discovery ?? 'openid';
  let keys: Key[] = [await newKey('key-1')];
  let down = false;
  let hanging = false;
  const held: (() => void)[] = [];
  const hits = new Map<string, number>();
  let issuer = '';
  const server = http.createServer(function handle(request, response) {
    const url = request.url ?? '/';
    if (hanging) {
      held.push(() => handle(request, response));
      return;
    }
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (down) return json(503, { error: 'down' });
    const metadata = { issuer, jwks_uri: `${issuer}/discovery/keys`, token_endpoint: `${issuer}/token` };
    if (discovery === 'openid' && url === `${path}/.well-known/openid-configuration`) return json(200, metadata);
    if (discovery === 'rfc8414' && url === `/.well-known/oauth-authorization-server${path}`) return json(200, metadata);
    if (url === `${path}/discovery/keys`) return json(200, { keys: keys.map((key) => key.jwk) });
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const audience = 'api://store-ops-test';
  let rotations = 1;
  return {
    issuer,
    jwksUrl: `${issuer}/discovery/keys`,
    audience,
    hits,
    async sign(claims, signOptions = {}) {
      const key = keys[keys.length - 1]!;
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT({ ...claims })
        .setProtectedHeader({ alg: signOptions.alg ?? 'RS256', typ: 'JWT', kid: signOptions.kid ?? key.kid })
        .setIssuer(signOptions.issuer ?? issuer)
        .setAudience(signOptions.audience ?? audience)
        .setIssuedAt(now)
        .setExpirationTime(now + (signOptions.expiresIn ?? 3600));
      if (claims.sub === undefined) jwt.setSubject('user-1');
      if (signOptions.notBefore !== undefined) jwt.setNotBefore(now + signOptions.notBefore);
      return jwt.sign(signOptions.key ?? key.privateKey);
    },
    async rotate(rotateOptions = {}) {
      const key = await newKey(`key-${++rotations}`);
      keys = rotateOptions.dropOld ? [key] : [...keys, key];
      return key.kid;
    },
    setDown(value) {
      down = value;
    },
    setHanging(value) {
      hanging = value;
      if (!value) for (const answer of held.splice(0)) answer();
    },
    close: () => {
      hanging = false;
      held.length = 0;
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
