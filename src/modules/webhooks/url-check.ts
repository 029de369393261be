import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may send (PRODUCT §9): http(s) URLs whose every address is public. The
 * ranges come from ipaddr.js (its `range()` of an address), plus two of our own for IPv6 (the
 * IPv4-compatible ::/96 and anything outside 2000::/3, which ipaddr.js calls unicast): only
 * `unicast` is public. Everything else (private, loopback,
 * link-local, unique-local, site-local, carrier-grade NAT, reserved, documentation, benchmarking,
 * IPv4-compatible, 6to4, Teredo, NAT64…) is refused
 * unless the operator sets WEBHOOKS_ALLOW_PRIVATE=true; even then unspecified, broadcast and
 * multicast addresses stay refused (no HTTP receiver lives there). An IPv6 address that wraps
 * an IPv4 address is judged as that address too (embeddedIPv4). The same rule runs when a
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

/** An IPv4 address out of 32 bits of an IPv6 address (`high` and `low`: its 16-bit parts). */
const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** Global unicast (RFC 4291 as assigned by IANA): everything else of IPv6 is special or unassigned. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * The IPv4 addresses an IPv6 address carries, which a packet sent to it may reach (issue 40:
 * each is judged as well): IPv4-mapped `::ffff:a.b.c.d` and translated `::ffff:0:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` and the local-use `64:ff9b:1::/48`
 * (the last 32 bits, RFC 6052's /96 layout: the other layouts are refused with the range
 * unless WEBHOOKS_ALLOW_PRIVATE; docs/decisions.md), 6to4 `2002:AABB:CCDD::` (bits 16–47), Teredo
 * `2001:0:SSSS:SSSS:…:CCCC:CCCC` (the server, bits 32–63, and the client, the last 32 bits
 * inverted) and ISATAP interface identifiers `…:0000:5efe:a.b.c.d` / `…:0200:5efe:a.b.c.d`.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const range = address.range();
  const last = ipv4Of(p[6]!, p[7]!);
  if (range === 'ipv4Mapped' || range === 'rfc6145') return [last];
  if (p.slice(0, 6).every((part) => part === 0)) return range === 'unspecified' || range === 'loopback' ? [] : [last]; // ::a.b.c.d
  if (range === 'rfc6052') return [last];
  if (range === '6to4') return [ipv4Of(p[1]!, p[2]!)];
  if (range === 'teredo') return [ipv4Of(p[2]!, p[3]!), ipv4Of(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) return [last]; // ISATAP
  return [];
}

const DOTTED_TAIL = /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * An address as ipaddr.js reads it, except that an IPv6 address ending in dotted IPv4 keeps
 * its bits: ipaddr.js 2.5 reads `::8.8.8.8` (IPv4-compatible, as glibc's inet_ntop writes it
 * and so as a name may resolve) as `::ffff:8.8.8.8` (IPv4-mapped), another address.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const dotted = text.includes(':') ? DOTTED_TAIL.exec(text) : null;
  if (dotted === null) return ipaddr.parse(text);
  const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
  return ipaddr.parse(`${text.slice(0, dotted.index)}:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
}

/** The range an IPv6 address is judged by: ipaddr.js's, with IPv4-compatible and unassigned space named. */
function rangeOfIPv6(address: ipaddr.IPv6): string {
  const range = address.range();
  if (range !== 'unicast') return range;
  if (address.parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  return address.match(GLOBAL_UNICAST) ? 'unicast' : 'reserved';
}

function refusedRange(range: string, allowPrivate: boolean): boolean {
  if (range === 'unicast') return false;
  return !allowPrivate || NEVER_ALLOWED.has(range);
}

const allowNote = (range: string) =>
  NEVER_ALLOWED.has(range) ? '' : ' (allowed only with WEBHOOKS_ALLOW_PRIVATE=true)';

/**
 * Why an address is refused, or undefined when a webhook may connect to it. An IPv6 address
 * is judged by its own range and by every IPv4 address it wraps (embeddedIPv4): refused when
 * either is (docs/events.md "Refused URLs").
 */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  if (!ipaddr.isValid(address)) return `'${address}' is not an IP address`;
  const parsed = parseAddress(address);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return refusedRange(range, allowPrivate) ? `${address} is a ${range} address${allowNote(range)}` : undefined;
  }
  const v6 = parsed as ipaddr.IPv6;
  for (const inner of embeddedIPv4(v6)) {
    const range = inner.range();
    if (refusedRange(range, allowPrivate))
      return `${address} wraps ${inner.toString()}, a ${range} address${allowNote(range)}`;
  }
  // IPv4-mapped (::ffff:93.184.215.14): judged as the IPv4 address it carries, nothing more.
  if (v6.range() === 'ipv4Mapped') return undefined;
  const own = rangeOfIPv6(v6);
  return refusedRange(own, allowPrivate) ? `${address} is a ${own} address${allowNote(own)}` : undefined;
}

/** How long a subscription's URL check waits for DNS. */
const RESOLVE_TIMEOUT_MS = 5_000;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`resolving '${hostname}' took longer than ${RESOLVE_TIMEOUT_MS / 1000} s`)),
      RESOLVE_TIMEOUT_MS,
    );
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be an http or https URL, not ${url.protocol.slice(0, -1)}`;
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
        const refused = addresses
          .map(({ address }) => refusedAddress(address, policy.allowPrivate))
          .find((reason) => reason !== undefined);
        if (addresses.length === 0 || refused !== undefined) {
          callback(
            new RefusedTarget(`refused target: '${hostname}' resolves to ${refused ?? 'nothing'}`),
            options.all ? [] : '',
          );
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ''),
    );
  };
}
