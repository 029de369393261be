import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkWebhookUrl,
  guardedLookup,
  refusedAddress,
  RefusedTarget,
  type Resolve,
} from '../../src/modules/webhooks/url-check.js';
import { refusedSecret, generateSecret } from '../../src/modules/webhooks/secret.js';
import { failureAfter, POLL_EVERY_MS, PRODUCT_TIMING, retryDelay } from '../../src/modules/webhooks/retry.js';
import { DeliveryClient } from '../../src/modules/webhooks/delivery.js';
import { startReceiver } from './receiver.js';

/**
 * The pure rules of the webhooks (PRODUCT §9): which targets are refused, which secrets are
 * taken, how retries are spaced and when a subscription pauses. Nothing here opens a socket:
 * names resolve through a fake resolver, and the refusal of private ranges is judged on the
 * check itself, never by letting a delivery go out.
 */

/** A resolver that knows a few names, as DNS would answer them. */
const fakeDns: Resolve = async (hostname) => {
  const table: Record<string, LookupAddress[]> = {
    'public.example': [{ address: '93.184.215.14', family: 4 }],
    'internal.example': [{ address: '10.0.0.5', family: 4 }],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'mixed.example': [
      { address: '93.184.215.14', family: 4 },
      { address: '192.168.0.7', family: 4 },
    ],
    'v6-local.example': [{ address: 'fd12:3456::1', family: 6 }],
    'v6-public.example': [{ address: '2606:4700:4700::1111', family: 6 }],
    'rebound.example': [{ address: '127.0.0.1', family: 4 }],
  };
  const found = table[hostname];
  if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

const strict = { allowPrivate: false, resolve: fakeDns };
const lenient = { allowPrivate: true, resolve: fakeDns };

describe('webhook target check', () => {
  it('refuses every non-public range, and takes public unicast addresses', () => {
    const refused = [
      '10.0.0.1',
      '10.255.255.255',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1', // private
      '127.0.0.1',
      '127.8.9.10',
      '::1', // loopback
      '169.254.169.254',
      'fe80::1', // link-local
      'fc00::1',
      'fd00:abcd::2', // unique-local
      '0.0.0.0',
      '::', // unspecified
      '224.0.0.1',
      'ff02::1',
      '255.255.255.255', // multicast, broadcast
      '100.64.0.1',
      '192.0.2.10',
      '198.51.100.7',
      '203.0.113.9',
      '240.0.0.1',
      '2001:db8::1', // CGNAT, documentation, reserved
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1', // IPv4-mapped private addresses
      '2002:0a00:0001::1',
      '64:ff9b::a00:1', // 6to4 and NAT64 wrapping 10.0.0.1
    ];
    for (const address of refused) expect(refusedAddress(address, false), address).toBeDefined();
    for (const address of ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.215.14']) {
      expect(refusedAddress(address, false), address).toBeUndefined();
    }
    expect(refusedAddress('10.0.0.1', false)).toContain('private');
    expect(refusedAddress('169.254.169.254', false)).toContain('linkLocal');
  });

  it('allows private, loopback and link-local targets with WEBHOOKS_ALLOW_PRIVATE, but never unspecified, broadcast or multicast', () => {
    for (const address of ['10.0.0.1', '192.168.1.1', '127.0.0.1', '::1', '169.254.1.1', 'fc00::1'])
      expect(refusedAddress(address, true), address).toBeUndefined();
    for (const address of ['0.0.0.0', '::', '255.255.255.255', '224.0.0.1', 'ff02::1'])
      expect(refusedAddress(address, true), address).toBeDefined();
  });

  it('judges a URL by its scheme, its credentials and every address its host resolves to', async () => {
    const cases: Array<[string, boolean]> = [
      ['https://public.example/hook', true],
      ['http://public.example:8443/a/b?c=d', true],
      ['http://v6-public.example/', true],
      ['http://[2606:4700:4700::1111]/hook', true],
      ['http://93.184.215.14/hook', true],
      ['http://internal.example/hook', false],
      ['http://metadata.example/latest', false],
      ['http://mixed.example/hook', false],
      ['http://v6-local.example/hook', false],
      ['http://rebound.example/hook', false],
      ['http://unknown.example/hook', false],
      ['http://10.0.0.1/hook', false],
      ['http://0x7f.1/hook', false], // 127.0.0.1 spelled in hex and short form
      ['http://2130706433/hook', false], // 127.0.0.1 as one number
      ['http://[::ffff:192.168.0.1]/', false],
      ['ftp://public.example/', false],
      ['javascript:alert(1)', false],
      ['//public.example/hook', false],
      ['http://user:secret@public.example/hook', false],
      [`https://public.example/${'a'.repeat(2048)}`, false],
    ];
    for (const [url, allowed] of cases)
      expect(await checkWebhookUrl(url, strict), url).toSatisfy((problem) => (problem === undefined) === allowed);
    expect(await checkWebhookUrl('http://internal.example/hook', lenient)).toBeUndefined();
    expect(await checkWebhookUrl('http://unknown.example/hook', lenient)).toMatch(/does not resolve.*ENOTFOUND/);
    expect(await checkWebhookUrl('http://mixed.example/hook', strict)).toMatch(
      /resolves to 192\.168\.0\.7 is a private address/,
    );
  });

  it('refuses `localhost` through the system resolver', async () => {
    expect(await checkWebhookUrl('http://localhost:8080/hook', { allowPrivate: false })).toMatch(/loopback/);
    expect(await checkWebhookUrl('http://localhost:8080/hook', { allowPrivate: true })).toBeUndefined();
  });

  it('connects only to allowed addresses: the lookup a delivery uses judges the name again (DNS rebinding)', async () => {
    const lookup = guardedLookup(strict);
    const resolve = (hostname: string, all: boolean) =>
      new Promise<{ error: Error | null; address: unknown }>((done) =>
        lookup(hostname, { all }, (error, address) => done({ error, address })),
      );
    expect(await resolve('public.example', false)).toEqual({ error: null, address: '93.184.215.14' });
    expect(await resolve('public.example', true)).toEqual({
      error: null,
      address: [{ address: '93.184.215.14', family: 4 }],
    });
    for (const hostname of ['rebound.example', 'internal.example', 'mixed.example']) {
      for (const all of [false, true])
        expect((await resolve(hostname, all)).error, hostname).toBeInstanceOf(RefusedTarget);
    }
    expect((await resolve('unknown.example', true)).error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('webhook delivery client', () => {
  // Only loopback targets: were the check broken, the request would still stay on this machine.
  it('refuses at connection time an address the policy refuses, literal or resolved, and sends nothing; signs what it sends', async () => {
    const secret = generateSecret();
    const receiver = await startReceiver(() => secret);
    const attempt = (url: string) => ({
      url,
      webhookId: 'msg_1_1_1',
      body: '{"events":[]}',
      secret,
      timeoutMs: 5_000,
      signal: new AbortController().signal,
    });
    const strictClient = new DeliveryClient(strict);
    const lenientClient = new DeliveryClient(lenient);
    try {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', 'rebound.example']) {
        const outcome = await strictClient.send(attempt(`http://${host}:${receiver.port}/hook`));
        expect(outcome, host).toMatchObject({
          ok: false,
          error: expect.stringMatching(/^(refused target|could not deliver: refused target)/),
        });
      }
      expect(receiver.deliveries).toHaveLength(0);
      expect(await lenientClient.send(attempt(`http://rebound.example:${receiver.port}/hook`))).toEqual({
        ok: true,
        status: 200,
      });
      expect(receiver.deliveries).toHaveLength(1);
      expect(receiver.deliveries[0]).toMatchObject({ webhookId: 'msg_1_1_1', verified: true, events: [] });
    } finally {
      strictClient.close();
      lenientClient.close();
      await receiver.close();
    }
  });
});

describe('webhook secrets', () => {
  it('generates whsec_ secrets of 32 random bytes that its own check takes', () => {
    const secrets = new Set(Array.from({ length: 20 }, generateSecret));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      expect(refusedSecret(secret)).toBeUndefined();
    }
  });

  it('takes whsec_ and canonical base64 of 24 to 64 bytes, nothing else', () => {
    const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;
    for (const bytes of [24, 25, 32, 48, 64]) expect(refusedSecret(of(bytes)), String(bytes)).toBeUndefined();
    for (const bytes of [0, 1, 23, 65, 128]) expect(refusedSecret(of(bytes)), String(bytes)).toBeDefined();
    for (const secret of [
      '',
      'whsec',
      'WHSEC_' + of(32).slice(6),
      of(32).slice(6),
      of(32).replace(/=$/, ''),
      `${of(32)}=`,
      of(32).replace('B', '-'),
      `${of(31)}x`,
    ]) {
      expect(refusedSecret(secret), secret).toBeDefined();
    }
  });
});

describe('webhook retries', () => {
  const timing = PRODUCT_TIMING;

  it('waits with full jitter under an exponential ceiling: the first retry within 5 s, none later than 10 min', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempts, random) => {
          const delay = retryDelay(attempts, timing, () => random);
          const ceiling = Math.min(timing.maxRetryMs, timing.firstRetryMs * 2 ** (attempts - 1));
          return delay >= 0 && delay < Math.max(ceiling, 1) && delay <= timing.maxRetryMs;
        },
      ),
    );
    // Due within 4.8 s: sent at the dispatcher's next look (every 200 ms), within 5 s.
    expect(retryDelay(1, timing, () => 0.999) + POLL_EVERY_MS).toBeLessThan(5_000);
    expect(retryDelay(2, timing, () => 0.999)).toBeGreaterThan(5_000);
    expect(retryDelay(60, timing, () => 0.999)).toBeLessThan(600_000);
  });

  it('counts the run of failures from its first, retries until 24 h after it, then pauses', () => {
    const start = Date.UTC(2026, 0, 1);
    const first = failureAfter({ attempts: 0, failingSince: null }, 'HTTP 500', start, timing, () => 0.5);
    expect(first).toMatchObject({
      attempts: 1,
      failingSince: start,
      pause: false,
      nextAttemptAt: start + 2_400,
      error: 'HTTP 500',
    });
    const later = failureAfter(
      { attempts: 100, failingSince: start },
      'HTTP 502',
      start + 23 * 3_600_000,
      timing,
      () => 0.999,
    );
    expect(later.pause).toBe(false);
    expect(later.failingSince).toBe(start);
    expect(later.nextAttemptAt - later.at).toBeLessThanOrEqual(600_000);
    // A retry never lands past the window: the last one comes as it closes, and its failure pauses.
    const last = failureAfter(
      { attempts: 200, failingSince: start },
      'HTTP 502',
      start + 86_400_000 - 1_000,
      timing,
      () => 0.999,
    );
    expect(last).toMatchObject({ pause: false, nextAttemptAt: start + 86_400_000 });
    const pausing = failureAfter(
      { attempts: 201, failingSince: start },
      'timeout',
      start + 86_400_000,
      timing,
      () => 0.999,
    );
    expect(pausing).toMatchObject({ pause: true, attempts: 202, error: 'timeout' });
  });
});

/**
 * Issue 40 item 4: IPv6 forms that wrap an IPv4 address are judged as that address (as well as
 * by their own range), IPv6 special ranges are refused, and the IPv4 spellings a URL parser
 * normalizes are judged as the address the connection goes to. Only the check itself: nothing
 * is sent anywhere.
 */
describe('webhook target check: every embedding of an IPv4 address, every special IPv6 range', () => {
  // Each form wrapping a refused IPv4 address, with the address it wraps.
  const wrapping: Array<[string, string]> = [
    ['::ffff:127.0.0.1', '127.0.0.1'], // IPv4-mapped
    ['::ffff:0:7f00:1', '127.0.0.1'], // IPv4-translated (RFC 6145)
    ['::127.0.0.1', '127.0.0.1'], // IPv4-compatible, the case
    ['::7f00:1', '127.0.0.1'], // the same, in hex
    ['::a00:1', '10.0.0.1'],
    ['::169.254.169.254', '169.254.169.254'],
    ['64:ff9b::7f00:1', '127.0.0.1'], // NAT64 well-known prefix
    ['64:ff9b::192.168.1.1', '192.168.1.1'],
    ['64:ff9b:1::7f00:1', '127.0.0.1'], // local-use NAT64, /96 layout
    ['2002:7f00:1::', '127.0.0.1'], // 6to4, bits 16–47
    ['2002:a9fe:a9fe::1', '169.254.169.254'],
    ['2001:0:7f00:1::1', '127.0.0.1'], // Teredo server, bits 32–63
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1'], // Teredo client, the last 32 bits inverted
    ['2606:4700::5efe:10.0.0.1', '10.0.0.1'], // ISATAP interface identifier
    ['2606:4700::200:5efe:127.0.0.1', '127.0.0.1'],
  ];

  it('refuses each form, naming the IPv4 address it wraps', () => {
    for (const [address, inner] of wrapping) {
      const problem = refusedAddress(address, false);
      expect(problem, address).toBeDefined();
      expect(problem, address).toContain(`wraps ${inner}`);
    }
    // The Teredo client is named as the address it is, not as the inverted bits.
    expect(refusedAddress('2001:0:4136:e378:8000:63bf:80ff:fffe', false)).toMatch(
      /wraps 127\.0\.0\.1, a loopback address/,
    );
  });

  it('with WEBHOOKS_ALLOW_PRIVATE the wrapped address still decides: never multicast, broadcast or unspecified', () => {
    for (const address of [
      '::224.0.0.1',
      '64:ff9b::e000:1',
      '64:ff9b:1::ffff:ffff',
      '2002:e000:1::',
      '2001:0:e000:1::1',
      '2001:0:808:808::1fff:fffe',
      '2606:4700::5efe:224.0.0.1',
    ]) {
      expect(refusedAddress(address, true), address).toMatch(/wraps .*(multicast|broadcast|unspecified)/);
    }
    for (const [address] of wrapping) expect(refusedAddress(address, true), address).toBeUndefined();
  });

  it('refuses the IPv6 special ranges, and takes global unicast', () => {
    const refused = [
      '::1',
      '::', // loopback, unspecified
      'fc00::1',
      'fdff:ffff::1', // unique local fc00::/7
      'fe80::1',
      'febf::1', // link-local fe80::/10
      'fec0::1',
      'feff::1', // site-local fec0::/10
      'ff02::1',
      'ff0e::1', // multicast
      '2001:db8::1',
      '3fff::1', // documentation
      '100::1', // discard-only
      '4000::1',
      '1::1', // outside 2000::/3 (unassigned)
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:0:808:808::f7f7:f7f7', // NAT64, 6to4, Teredo: refused as ranges even around a public address
      '64:ff9b:1:7f00:0:100::',
      '64:ff9b:1:7f:0:1::',
      '64:ff9b:1:0:7f:0:100::', // local-use NAT64 in its /48, /56, /64 layouts: the range
      '::8.8.8.8', // IPv4-compatible (deprecated) around a public address
    ];
    for (const address of refused) expect(refusedAddress(address, false), address).toBeDefined();
    for (const address of [
      '2606:4700:4700::1111',
      '2a00:1450:4001:82b::200e',
      '::ffff:8.8.8.8',
      '2606:4700::200:5efe:8.8.8.8',
    ]) {
      expect(refusedAddress(address, false), address).toBeUndefined();
    }
  });

  it('judges the host a URL connects to: every spelling the URL parser normalizes', async () => {
    const refusedUrls = [
      'http://[::127.0.0.1]/',
      'http://[::7f00:1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[2002:7f00:1::]/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      'http://[fe80::1]/',
      'http://[fec0::1]/',
      'http://[fd00::1]/',
      'http://[ff02::1]/',
      'http://[::]/',
      'http://[::1]/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://127.0.0.1./',
      'http://0/',
      'http://%31%32%37.0.0.1/',
      'http://[::ffff:a9fe:a9fe]/latest',
    ];
    for (const url of refusedUrls) {
      const problem = await checkWebhookUrl(url, {
        allowPrivate: false,
        resolve: async () => [{ address: '93.184.215.14', family: 4 }],
      });
      expect(problem, url).toBeDefined();
    }
    // The host judged is the one the connection gets: the parser's own normalization.
    expect(new URL('http://0x7f.1/').hostname).toBe('127.0.0.1');
    expect(new URL('http://[::127.0.0.1]/').hostname).toBe('[::7f00:1]');
  });

  it('at connection: a name resolving to any of these forms is refused by the delivery lookup', async () => {
    const forms = [
      '::7f00:1',
      '64:ff9b::a00:1',
      '2002:c0a8:101::',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      'fec0::1',
      '2606:4700::5efe:10.0.0.1',
      '4000::1',
    ];
    for (const form of forms) {
      const lookup = guardedLookup({ allowPrivate: false, resolve: async () => [{ address: form, family: 6 }] });
      for (const all of [false, true]) {
        const error = await new Promise<Error | null>((done) => lookup('rebinding.example', { all }, (e) => done(e)));
        expect(error, form).toBeInstanceOf(RefusedTarget);
      }
      expect(
        await checkWebhookUrl('http://rebinding.example/hook', {
          allowPrivate: false,
          resolve: async () => [{ address: form, family: 6 }],
        }),
        form,
      ).toMatch(/resolves to/);
    }
  });
});
