import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTHeaderParameters, type FlattenedJWSInput } from 'jose';

/**
 * The chain provider's signing keys (issue 41): where they are (AUTH_JWKS_URL, else discovered
 * from the issuer's metadata) and the key set itself, kept in memory.
 *
 * - Refreshed every REFRESH_MS in the background (the set held verifies meanwhile, so a slow
 *   provider holds up no token of a known key), and at once when a token names a key id the set lacks (the
 *   provider rotated) — but fetches are rate-limited (MIN_FETCH_INTERVAL_MS between attempts),
 *   so a flood of tokens with made-up key ids costs the provider one request per interval.
 * - A provider that is down or slow (FETCH_TIMEOUT_MS) leaves the set it had: tokens signed
 *   with a known key keep verifying; only a key never seen cannot be checked then
 *   (ProviderUnavailable: a 503 the client may retry, never a 500 or a hang: discovery and the
 *   key set together get FETCH_TIMEOUT_MS).
 * jose does the JWKS parsing and key selection (createLocalJWKSet); this file only decides
 * when to fetch. jose's own remote set drops every key once its cache age passes and the
 * provider cannot be reached, which is the outage case this must survive.
 */

export const REFRESH_MS = 10 * 60_000;
export const MIN_FETCH_INTERVAL_MS = 30_000;
export const FETCH_TIMEOUT_MS = 5_000;
/** Larger than any real JWKS or metadata document (Entra's JWKS is a few kB). */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

export class ProviderUnavailable extends Error {}

export interface ProviderKeysOptions {
  issuer: string;
  jwksUrl?: string;
  fetch: typeof fetch;
  now: () => number;
}

type Refresh = 'fetched' | 'failed' | 'skipped';

type KeyGetter = (header: JWTHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey | Uint8Array>;

async function fetchJson(fetchImpl: typeof fetch, url: string, signal: AbortSignal): Promise<unknown> {
  const response = await fetchImpl(url, { headers: { accept: 'application/json' }, redirect: 'error', signal });
  if (response.status !== 200) throw new ProviderUnavailable(`${url} answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_DOCUMENT_BYTES)
    throw new ProviderUnavailable(`${url} answered more than ${MAX_DOCUMENT_BYTES} bytes`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderUnavailable(`${url} answered no JSON`);
  }
}

/**
 * Where an issuer's metadata may be (OpenID Connect Discovery §4, then RFC 8414 §3, which puts
 * the well-known segment between the host and the issuer's path, then the path-suffixed
 * variant some servers use).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const base = `${url.origin}${path}`;
  return [
    ...new Set([
      `${base}/.well-known/openid-configuration`,
      `${url.origin}/.well-known/oauth-authorization-server${path}`,
      `${base}/.well-known/oauth-authorization-server`,
    ]),
  ];
}

export class ProviderKeys {
  private jwksUrl: string | undefined;
  private keys: KeyGetter | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<Refresh> | undefined;
  private lastFetchFailed = false;
  /** Key-set fetches made (tests: the rate limit). */
  fetches = 0;

  constructor(private readonly options: ProviderKeysOptions) {
    this.jwksUrl = options.jwksUrl;
  }

  /** The key for a token's header: jose's getter over the set held, refreshed as described above. */
  readonly keyFor: KeyGetter = async (header, token) => {
    // No set yet: wait for it. A set past its age: re-read in the background, verify with the set
    // held meanwhile (a slow provider must not hold up tokens of keys already known).
    if (this.keys === undefined) await this.refresh();
    else if (this.options.now() - this.fetchedAt >= REFRESH_MS) void this.refresh();
    if (this.keys === undefined)
      throw new ProviderUnavailable("the identity provider's signing keys could not be fetched");
    try {
      return await this.keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A key id the set lacks: the provider may have rotated. Fetch again, if not too soon.
      const outcome = await this.refresh();
      // The provider could not be asked (now, or at the last attempt): the key may be new (503).
      // Otherwise, asked and still missing or asked moments ago: a key the provider does not publish.
      if (outcome === 'failed' || (outcome === 'skipped' && this.lastFetchFailed))
        throw new ProviderUnavailable("the identity provider's signing keys could not be fetched again");
      if (outcome === 'skipped') throw error;
      return this.keys(header, token);
    }
  };

  /** One fetch at a time, at most one attempt per MIN_FETCH_INTERVAL_MS; a failure keeps what was held. */
  private async refresh(): Promise<Refresh> {
    if (this.pending !== undefined) return this.pending;
    if (this.options.now() - this.attemptedAt < MIN_FETCH_INTERVAL_MS) return 'skipped';
    this.attemptedAt = this.options.now();
    this.pending = this.load()
      .then(
        (): Refresh => {
          this.lastFetchFailed = false;
          return 'fetched';
        },
        (): Refresh => {
          this.lastFetchFailed = true;
          return 'failed';
        },
      )
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** Discovery and key set within one FETCH_TIMEOUT_MS, however many metadata places are tried. */
  private async load(): Promise<void> {
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    this.jwksUrl ??= await this.discover(signal);
    this.fetches++;
    const document = await fetchJson(this.options.fetch, this.jwksUrl, signal);
    const keys = (document as { keys?: unknown }).keys;
    if (!Array.isArray(keys)) throw new ProviderUnavailable(`${this.jwksUrl} holds no key set`);
    this.keys = createLocalJWKSet(document as JSONWebKeySet);
    this.fetchedAt = this.options.now();
  }

  /** The jwks_uri of the issuer's metadata, whose `issuer` must be the one configured (OIDC Discovery §4.3). */
  private async discover(signal: AbortSignal): Promise<string> {
    for (const url of metadataUrls(this.options.issuer)) {
      let metadata: unknown;
      try {
        metadata = await fetchJson(this.options.fetch, url, signal);
      } catch {
        continue;
      }
      const { issuer, jwks_uri: jwksUri } = metadata as { issuer?: unknown; jwks_uri?: unknown };
      if (issuer !== this.options.issuer)
        throw new ProviderUnavailable(`${url} names the issuer ${String(issuer)}, not ${this.options.issuer}`);
      if (typeof jwksUri !== 'string') throw new ProviderUnavailable(`${url} names no jwks_uri`);
      return jwksUri;
    }
    throw new ProviderUnavailable(`no metadata found for ${this.options.issuer}`);
  }
}
