import { generateKeyPair } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import {
  createExternalIssuer,
  type ExternalIssuerConfig,
  type ExternalVerification,
} from '../../src/modules/identity-provider/index.js';
import { defaultRoleMap, mapClaims, parseRoleMap } from '../../src/modules/identity-provider/claims.js';
import { metadataUrls, MIN_FETCH_INTERVAL_MS, REFRESH_MS } from '../../src/modules/identity-provider/provider-keys.js';
import { startTestProvider, type TestProvider } from '../helpers/identity-provider.js';

// The chain's own identity provider (issue 41, AUTH_ISSUER): tokens verified against a
// provider of the test's own on 127.0.0.1 — its metadata, its JWKS, its rotations and outages.

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('chain identity provider: verification', () => {
  const providers: TestProvider[] = [];
  afterEach(async () => {
    await Promise.all(providers.splice(0).map((p) => p.close()));
  });

  async function setUp(
    options: Parameters<typeof startTestProvider>[0] & {
      jwks?: boolean;
      config?: Partial<ExternalIssuerConfig>;
      fetch?: typeof fetch;
    } = {},
  ) {
    const provider = await startTestProvider(options);
    providers.push(provider);
    // The verifier's clock: real time plus what a test skips ahead (the fetch interval).
    const clock = { ahead: 0 };
    const issuer = createExternalIssuer(
      {
        issuer: provider.issuer,
        audience: provider.audience,
        ...(options.jwks ? { jwksUrl: provider.jwksUrl } : {}),
        mapping: { roleClaims: ['roles', 'scp'], roleMap: defaultRoleMap(), storesClaim: 'stores' },
        clockSkewSeconds: 60,
        ...options.config,
      },
      { now: () => Date.now() + clock.ahead, ...(options.fetch ? { fetch: options.fetch } : {}) },
    );
    const keyFetches = () => provider.hits.get(new URL(provider.jwksUrl).pathname) ?? 0;
    return { provider, issuer, keyFetches, clock };
  }

  const refusal = (result: ExternalVerification) => ('failure' in result ? result.status : 'admitted');

  it('admits a provider token and maps roles and stores (array and string shapes)', async () => {
    const { provider, issuer } = await setUp();
    const integration = await issuer.verify(
      await provider.sign({ roles: ['StoreOps.Integration'], preferred_username: 'erp@chain' }),
    );
    expect(integration).toMatchObject({
      identity: { subject: 'user-1', name: 'erp@chain', role: 'integration', stores: null },
    });
    expect(await issuer.verify(await provider.sign({ scp: 'profile read' }))).toMatchObject({
      identity: { role: 'read' },
    });
    expect(await issuer.verify(await provider.sign({ roles: ['store'], stores: ['S1', 'S2'] }))).toMatchObject({
      identity: { role: 'store', stores: ['S1', 'S2'] },
    });
    expect(await issuer.verify(await provider.sign({ roles: 'Store', stores: 'S1, S3 S4' }))).toMatchObject({
      identity: { role: 'store', stores: ['S1', 'S3', 'S4'] },
    });
    expect(await issuer.verify(await provider.sign({ roles: ['read', 'StoreOps.Admin'] }))).toMatchObject({
      identity: { role: 'admin' },
    });
  });

  it('refuses claims that map to no role, or to store and read at once, or a store role without stores: 403, never a default', async () => {
    const { provider, issuer } = await setUp();
    for (const claims of [
      {},
      { roles: ['Reader'] },
      { scp: 'User.Read' },
      { roles: [42] },
      { roles: ['store', 'read'], stores: ['S1'] },
      { roles: ['store'] },
      { roles: ['store'], stores: [] },
      { roles: ['store'], stores: { S1: true } },
    ]) {
      const result = await issuer.verify(await provider.sign(claims));
      expect(refusal(result), JSON.stringify(claims)).toBe(403);
    }
  });

  it('refuses another issuer, another audience, an expired token and one not valid yet beyond the skew: 401', async () => {
    const { provider, issuer } = await setUp();
    const roles = { roles: ['admin'] };
    expect(
      refusal(await issuer.verify(await provider.sign(roles, { issuer: 'https://login.example/other/v2.0' }))),
    ).toBe(401);
    expect(refusal(await issuer.verify(await provider.sign(roles, { audience: 'api://another-app' })))).toBe(401);
    expect(refusal(await issuer.verify(await provider.sign(roles, { expiresIn: -120 })))).toBe(401);
    expect(refusal(await issuer.verify(await provider.sign(roles, { notBefore: 600 })))).toBe(401);
    // Within the 60 s skew: a provider whose clock runs a little ahead.
    expect(refusal(await issuer.verify(await provider.sign(roles, { notBefore: 30 })))).toBe('admitted');
    expect(refusal(await issuer.verify(await provider.sign(roles, { expiresIn: -30 })))).toBe('admitted');
    const expired = await issuer.verify(await provider.sign(roles, { expiresIn: -120 }));
    expect(expired).toMatchObject({ failure: 'The access token has expired' });
  });

  it('refuses a tampered signature, alg none, an HS256 token keyed with the public key, another key and garbage: 401', async () => {
    const { provider, issuer } = await setUp();
    const good = await provider.sign({ roles: ['admin'] });
    const [header, , signature] = good.split('.');
    const widened = `${header}.${b64({ iss: provider.issuer, aud: provider.audience, sub: 'x', exp: Math.floor(Date.now() / 1000) + 600, roles: ['admin'] })}.${signature}`;
    expect(refusal(await issuer.verify(widened))).toBe(401);
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: provider.issuer, aud: provider.audience, sub: 'x', exp: Math.floor(Date.now() / 1000) + 600, roles: ['admin'] })}.`;
    expect(refusal(await issuer.verify(none))).toBe(401);
    const jwks = (await (await fetch(provider.jwksUrl)).json()) as { keys: object[] };
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]));
    expect(
      refusal(await issuer.verify(await provider.sign({ roles: ['admin'] }, { alg: 'HS256', key: secret as never }))),
    ).toBe(401);
    const stranger = await generateKeyPair('RS256');
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] }, { key: stranger.privateKey })))).toBe(
      401,
    );
    expect(refusal(await issuer.verify('a.b.c'))).toBe(401);
  });

  it('refuses an ID token (Keycloak typ ID) and admits a Keycloak access token (typ Bearer): 401', async () => {
    const { provider, issuer } = await setUp();
    expect(await issuer.verify(await provider.sign({ roles: ['admin'], typ: 'ID' }))).toMatchObject({
      failure: 'The token is not an access token (typ ID)',
      status: 401,
    });
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'], typ: 'Refresh' })))).toBe(401);
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'], typ: 'Bearer' })))).toBe('admitted');
  });

  it('finds a rotated key by fetching the key set again, and a flood of unknown key ids costs one fetch per interval', async () => {
    const { provider, issuer, keyFetches, clock } = await setUp();
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] })))).toBe('admitted');
    expect(keyFetches()).toBe(1);
    const kid = await provider.rotate();
    // Within the fetch interval of the first fetch the new key id is not asked for yet…
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] }, { kid })))).toBe(401);
    expect(keyFetches()).toBe(1);
    // …after it, the first token naming it fetches the set again and is admitted.
    clock.ahead = MIN_FETCH_INTERVAL_MS;
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] }, { kid })))).toBe('admitted');
    expect(keyFetches()).toBe(2);
    const flood = await Promise.all(
      Array.from({ length: 25 }, async (_, i) =>
        issuer.verify(await provider.sign({ roles: ['admin'] }, { kid: `made-up-${i}` })),
      ),
    );
    expect(flood.every((result) => refusal(result) === 401)).toBe(true);
    // The rotation's fetch was just made: within the interval nothing more is asked.
    expect(keyFetches()).toBe(2);
  });

  it('keeps verifying tokens of known keys while the provider is down; an unknown key then is a 503, not a 500 or a hang', async () => {
    const { provider, issuer, clock } = await setUp();
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] })))).toBe('admitted');
    provider.setDown(true);
    // Past the set's refresh age too: the refresh fails, the set held stays.
    clock.ahead = REFRESH_MS;
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['read'] })))).toBe('admitted');
    await provider.rotate();
    clock.ahead = REFRESH_MS + MIN_FETCH_INTERVAL_MS;
    const unknown = await issuer.verify(await provider.sign({ roles: ['read'] }));
    // A key never seen, and the provider cannot be asked: the client may try again (503).
    expect(refusal(unknown)).toBe(503);
    provider.setDown(false);
    clock.ahead += MIN_FETCH_INTERVAL_MS;
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['read'] })))).toBe('admitted');
    const first = await setUp();
    first.provider.setDown(true);
    expect(refusal(await first.issuer.verify(await first.provider.sign({ roles: ['read'] })))).toBe(503);
  });

  it('a slow provider holds up no token of a key already held; one that never answers is given up (503), never a hang', async () => {
    // A fetch that, while slow, answers only when released (or aborted): the fetches still open are counted.
    let slow = false;
    let open = 0;
    const releases: (() => void)[] = [];
    const slowFetch: typeof fetch = async (input, init) => {
      open++;
      try {
        if (slow) {
          await new Promise<void>((resolve, reject) => {
            releases.push(resolve);
            init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
          });
        }
        return await fetch(input, init);
      } finally {
        open--;
      }
    };
    const { provider, issuer, keyFetches, clock } = await setUp({ fetch: slowFetch });
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] })))).toBe('admitted');
    slow = true;
    // The set is past its age: it is re-read in the background; the held set verifies meanwhile —
    // the answer comes while the provider's is still awaited.
    clock.ahead = REFRESH_MS;
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['read'] })))).toBe('admitted');
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['store'], stores: ['S1'] })))).toBe('admitted');
    expect(open).toBe(1);
    slow = false;
    for (const release of releases.splice(0)) release();
    await expect.poll(keyFetches, { timeout: 30_000 }).toBe(2);
    // A process that has no keys yet and a provider that never answers: 503 after the fetch timeout.
    const silent = await setUp();
    silent.provider.setHanging(true);
    expect(refusal(await silent.issuer.verify(await silent.provider.sign({ roles: ['read'] })))).toBe(503);
  });

  it('finds the key set by OpenID discovery, by RFC 8414 metadata, or at AUTH_JWKS_URL without metadata', async () => {
    for (const [discovery, jwks] of [
      ['openid', false],
      ['rfc8414', false],
      ['none', true],
    ] as const) {
      const { provider, issuer } = await setUp({ discovery, jwks });
      expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] }))), discovery).toBe('admitted');
    }
    const { provider, issuer } = await setUp({ discovery: 'none' });
    expect(refusal(await issuer.verify(await provider.sign({ roles: ['admin'] })))).toBe(503);
  });
});

describe('chain identity provider: claims and settings', () => {
  it('maps claim values through AUTH_ROLE_MAP, case aside', () => {
    const roleMap = parseRoleMap('Inventory.Writer=integration, Shop.Staff=store');
    expect(roleMap).toBeInstanceOf(Map);
    const mapping = { roleClaims: ['groups'], roleMap: roleMap as Map<string, never>, storesClaim: 'shops' };
    expect(mapClaims({ groups: ['inventory.writer'] }, mapping)).toEqual({ role: 'integration', stores: null });
    expect(mapClaims({ groups: 'Shop.Staff', shops: '12,14' }, mapping)).toEqual({
      role: 'store',
      stores: ['12', '14'],
    });
    expect(mapClaims({ groups: ['admin'] }, mapping)).toHaveProperty('refusal');
    expect(parseRoleMap('x=owner')).toMatch(/not a role/);
    expect(parseRoleMap('novalue')).toMatch(/value=role/);
  });

  it('reads the AUTH_* settings, and refuses to start on a half-configured provider', () => {
    const config = loadConfig({
      AUTH_ISSUER: 'https://login.microsoftonline.com/t1/v2.0',
      AUTH_AUDIENCE: 'api://store-ops',
      AUTH_STORES_CLAIM: 'shops',
    });
    expect(config.externalIssuer).toMatchObject({
      issuer: 'https://login.microsoftonline.com/t1/v2.0',
      audience: 'api://store-ops',
      clockSkewSeconds: 60,
      mapping: { roleClaims: ['roles', 'scp'], storesClaim: 'shops' },
    });
    expect(loadConfig({}).externalIssuer).toBeUndefined();
    expect(() => loadConfig({ AUTH_ISSUER: 'https://login.example/t1' })).toThrow(/AUTH_AUDIENCE is required/);
    expect(() => loadConfig({ AUTH_AUDIENCE: 'api://x' })).toThrow(/need AUTH_ISSUER/);
    expect(() => loadConfig({ AUTH_ISSUER: 'http://idp.example/realms/chain', AUTH_AUDIENCE: 'x' })).toThrow(
      ConfigError,
    );
    expect(() =>
      loadConfig({ AUTH_ISSUER: 'https://idp.example/realms/chain', AUTH_AUDIENCE: 'x', AUTH_ROLE_MAP: 'a=owner' }),
    ).toThrow(/AUTH_ROLE_MAP/);
    expect(() =>
      loadConfig({
        AUTH_ISSUER: 'https://idp.example/realms/chain',
        AUTH_AUDIENCE: 'x',
        AUTH_CLOCK_SKEW_SECONDS: '900',
      }),
    ).toThrow(ConfigError);
    expect(
      loadConfig({ AUTH_ISSUER: 'http://127.0.0.1:9000/realms/chain', AUTH_AUDIENCE: 'x' }).externalIssuer?.issuer,
    ).toBe('http://127.0.0.1:9000/realms/chain');
  });

  it('looks for metadata where OpenID Discovery and RFC 8414 put it', () => {
    expect(metadataUrls('https://login.microsoftonline.com/t1/v2.0')).toEqual([
      'https://login.microsoftonline.com/t1/v2.0/.well-known/openid-configuration',
      'https://login.microsoftonline.com/.well-known/oauth-authorization-server/t1/v2.0',
      'https://login.microsoftonline.com/t1/v2.0/.well-known/oauth-authorization-server',
    ]);
    expect(metadataUrls('https://idp.example/')).toEqual([
      'https://idp.example/.well-known/openid-configuration',
      'https://idp.example/.well-known/oauth-authorization-server',
    ]);
  });
});
