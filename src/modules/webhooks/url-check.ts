import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may send (PRODUCT §9): http(s) URLs whose every address is public. The
 * ranges come from ipaddr.js (its `range()` of an address), never from a list of our own: only
 * `unicast` is public. Everything else (private, loopback, link-local, unique-local,
 * carrier-grade NAT, reserved, documentation, benchmarking, 6to4, Teredo, NAT64…) is refused
 * unless the operator sets WEBHOOKS_ALLOW_PRIVATE=true; even then unspecified, broadcast and
 * multicast addresses stay refused (no HTTP receiver lives there). The same rule runs when a
 * subscription is made (checkWebhookUrl) and on every connection (guardedLookup), so a name
 * that later resolves to a private address (DNS rebinding) is refused too.
 */

/** Longest URL a subscription takes. */
export const MAX_URL_LENGTH = 2048;

const NEVER_ALLOWED = new Set(['unspecified', 'broadcast', 'multicast']);

/** How names resolve: the system resolver in production, a fake in the URL check's tests. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export interface TargetPolicy {
  /** WEBHOOKS_ALLOW_PRIVATE: private, loopback and link-local targets are allowed too. */
  allowPrivate: boolean;
  resolve?: Resolve;
}

/** Why an address is refused, or undefined when a webhook may connect to it. */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return `'${address}' is not an IP address`;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return undefined;
  if (allowPrivate && !NEVER_ALLOWED.has(range)) return undefined;
  return `${address} is a ${range} address${NEVER_ALLOWED.has(range) ? '' : ' (allowed only with WEBHOOKS_ALLOW_PRIVATE=true)'}`;
}

/** How long a subscription's URL check waits for DNS. */
const RESOLVE_TIMEOUT_MS = 5_000;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`resolving '${hostname}' took longer than ${RESOLVE_TIMEOUT_MS / 1000} s`)), RESOLVE_TIMEOUT_MS);
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(addresses);
    });
  });

/** The host of a URL as an address or a name: `[::1]` → `::1`. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Whether a subscription may send to `text`: undefined when it may, else why not (the
 * message of a 400 naming `url`). A name must resolve, and every address it resolves to must
 * be allowed: a name with one private address among public ones is refused as a whole.
 */
export async function checkWebhookUrl(text: string, policy: TargetPolicy): Promise<string | undefined> {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http or https URL, not ${url.protocol.slice(0, -1)}`;
  // Credentials in a URL end up in logs and listings; the signature is what authenticates a delivery.
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  const host = hostOf(url);
  if (host === '') return 'must name a host';
  if (isIP(host) !== 0) return refusedAddress(host, policy.allowPrivate);
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch (error) {
    return `the host '${host}' does not resolve (${(error as { code?: string }).code ?? (error as Error).message})`;
  }
  if (addresses.length === 0) return `the host '${host}' does not resolve`;
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy.allowPrivate);
    if (refused !== undefined) return `the host '${host}' resolves to ${refused}`;
  }
  return undefined;
}

/** A delivery to a refused address: recorded as the attempt's error, never sent. */
export class RefusedTarget extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http's connections: the name is resolved here and the socket connects
 * only to what this answers, so an address that changed since the subscription was checked
 * is judged again at every connection. Node calls it with `all: true` (Happy Eyeballs) or
 * without; both are answered.
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    (policy.resolve ?? systemResolve)(hostname).then(
      (addresses) => {
        const refused = addresses.map(({ address }) => refusedAddress(address, policy.allowPrivate)).find((reason) => reason !== undefined);
        if (addresses.length === 0 || refused !== undefined) {
          callback(new RefusedTarget(`refused target: '${hostname}' resolves to ${refused ?? 'nothing'}`), options.all ? [] : '');
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };
}
