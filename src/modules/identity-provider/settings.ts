import { defaultRoleMap, parseRoleMap } from './claims.js';
import type { ExternalIssuerConfig } from './index.js';

/** The AUTH_* settings as the environment gives them (config.ts validates their types). */
export interface ExternalIssuerSettings {
  AUTH_ISSUER?: string;
  AUTH_AUDIENCE?: string;
  AUTH_JWKS_URL?: string;
  AUTH_ROLE_CLAIM: string;
  AUTH_ROLE_MAP?: string;
  AUTH_STORES_CLAIM: string;
  AUTH_CLOCK_SKEW_SECONDS: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https, or http on this machine only (a provider's keys over plain http could be swapped on the way). */
function urlProblem(name: string, text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${name} is not a URL`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return `${name} must be an https URL (http only on localhost)`;
}

/**
 * The chain provider's settings (issue 41): undefined without AUTH_ISSUER, else the verifier's
 * configuration or the list of what is wrong (a start refused with a clear message, never a
 * provider half-configured). AUTH_AUDIENCE is required: without it, a token the same tenant
 * issued for any other application would be accepted here.
 */
export function externalIssuerFromSettings(
  settings: ExternalIssuerSettings,
): ExternalIssuerConfig | undefined | { problems: string[] } {
  const others = [settings.AUTH_AUDIENCE, settings.AUTH_JWKS_URL, settings.AUTH_ROLE_MAP];
  if (settings.AUTH_ISSUER === undefined) {
    return others.some((value) => value !== undefined)
      ? { problems: ['AUTH_AUDIENCE, AUTH_JWKS_URL and AUTH_ROLE_MAP need AUTH_ISSUER'] }
      : undefined;
  }
  const problems: string[] = [];
  const issuerProblem = urlProblem('AUTH_ISSUER', settings.AUTH_ISSUER);
  if (issuerProblem) problems.push(issuerProblem);
  if (settings.AUTH_AUDIENCE === undefined)
    problems.push(
      "AUTH_AUDIENCE is required with AUTH_ISSUER (the aud this API's tokens carry: its application id URI or client id)",
    );
  const jwksProblem =
    settings.AUTH_JWKS_URL === undefined ? undefined : urlProblem('AUTH_JWKS_URL', settings.AUTH_JWKS_URL);
  if (jwksProblem) problems.push(jwksProblem);
  const roleMap = settings.AUTH_ROLE_MAP === undefined ? defaultRoleMap() : parseRoleMap(settings.AUTH_ROLE_MAP);
  if (typeof roleMap === 'string') problems.push(`AUTH_ROLE_MAP ${roleMap}`);
  const roleClaims = settings.AUTH_ROLE_CLAIM.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (roleClaims.length === 0) problems.push('AUTH_ROLE_CLAIM names no claim');
  if (problems.length > 0 || typeof roleMap === 'string') return { problems };
  return {
    issuer: settings.AUTH_ISSUER,
    audience: settings.AUTH_AUDIENCE!,
    ...(settings.AUTH_JWKS_URL === undefined ? {} : { jwksUrl: settings.AUTH_JWKS_URL }),
    mapping: { roleClaims, roleMap, storesClaim: settings.AUTH_STORES_CLAIM },
    clockSkewSeconds: settings.AUTH_CLOCK_SKEW_SECONDS,
  };
}
