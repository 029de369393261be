// The console's only way to the service: the same public API every other client uses,
// with the token the user signed in with. Nothing here can do more than that token may.

import { ApiFailure, failureFromAnswer, networkFailure, unreadableAnswer } from './failures.js';
import * as deviceDb from './offline/device-db.js';

export const API_PREFIX = '/api/v2/public';

/** How many last known answers a device keeps, and how often (in reads kept) the oldest beyond them are pruned. */
const READS_KEPT = 2000;
const PRUNE_EVERY = 200;

/** `/stores/{s}/products/{p}/stock` from parts: each part is encoded, so a scanned value stays one path segment. */
export function path(...parts) {
  return parts.map((part, index) => (index % 2 === 0 ? part : encodeURIComponent(String(part)))).join('');
}

export class Api {
  /**
   * @param {() => string | null} readToken where the token lives (the tab's session storage)
   * @param {(failure: ApiFailure) => void} onUnauthorized called when the service refuses the token
   */
  constructor(readToken, onUnauthorized) {
    this.readToken = readToken;
    this.onUnauthorized = onUnauthorized;
    /** Called with the moment a read's answer was known when the network failed and it was shown instead. */
    this.onStaleRead = () => undefined;
    this.readsKeptSincePrune = 0;
  }

  /**
   * A read. Its answer is kept on the device, so that without a network the last known
   * answer is shown instead, and `onStaleRead(knownAt)` says how old it is (issue 43).
   */
  async get(route, query) {
    const url = this.url(route, query).toString();
    try {
      const answer = await this.call('GET', route, { query });
      void this.keep(url, answer);
      return answer;
    } catch (failure) {
      if (failure.kind !== 'network') throw failure;
      const known = await deviceDb.get(deviceDb.READS, url).catch(() => undefined);
      if (!known) throw failure;
      this.onStaleRead(known.at);
      return known.answer;
    }
  }

  /** Keeps an answer read another way (sign-in's explicit token) as the last known one. */
  async remember(route, query, answer) {
    await this.keep(this.url(route, query).toString(), answer);
  }

  /** Keeps one answer as the last known one; a device that fails to keep it just has no offline copy. */
  async keep(url, answer) {
    try {
      await deviceDb.put(deviceDb.READS, { url, answer, at: new Date().toISOString() });
      if (++this.readsKeptSincePrune < PRUNE_EVERY) return;
      this.readsKeptSincePrune = 0;
      await deviceDb.keepNewest(deviceDb.READS, READS_KEPT);
    } catch {
      // Storage full or refused: reads still work online.
    }
  }

  url(route, query) {
    const url = new URL(API_PREFIX + route, window.location.origin);
    for (const [name, value] of Object.entries(query ?? {})) {
      // An array repeats the parameter (`product_number=a&product_number=b`).
      for (const one of Array.isArray(value) ? value : [value]) {
        if (one !== undefined && one !== null && one !== '') url.searchParams.append(name, String(one));
      }
    }
    return url;
  }

  /**
   * A file the service answers (the stock list as CSV): its bytes and the name the service
   * gives it. Fetched with the token like any call, so the page hands it to the browser as a
   * download (no link can carry the token).
   */
  async download(route, query) {
    let response;
    try {
      response = await fetch(this.url(route, query), {
        headers: { authorization: `Bearer ${this.readToken()}` },
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw networkFailure();
    }
    if (!response.ok) {
      const answer = await response.json().catch(() => undefined);
      const failure = failureFromAnswer(
        response.status,
        answer,
        Number(response.headers.get('retry-after')) || undefined,
      );
      if (failure.kind === 'unauthorized') this.onUnauthorized(failure);
      throw failure;
    }
    // The exact name (filename*, RFC 6266) before the ASCII stand-in (filename).
    const disposition = response.headers.get('content-disposition') ?? '';
    const exact = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
    const plain = /filename="([^"]+)"/.exec(disposition);
    const filename = exact ? decodeURIComponent(exact[1]) : (plain?.[1] ?? 'download');
    return { blob: await response.blob(), filename };
  }

  post(route, body) {
    return this.call('POST', route, { body });
  }

  /**
   * One call; `token` is an explicit one (sign-in checks a token before it is kept), `raw` a
   * body sent as it is under `contentType` (a photo) instead of JSON.
   */
  async call(method, route, { query, body, raw, contentType, token, headers: extra } = {}) {
    const credential = token ?? this.readToken();
    const url = this.url(route, query);
    const headers = { ...extra, accept: 'application/json' };
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (raw !== undefined) headers['content-type'] = contentType;
    let response;
    try {
      // No cookies exist for the API; `omit` keeps it so, and the page sends no referrer.
      response = await fetch(url, {
        method,
        headers,
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw networkFailure();
    }
    let answer;
    try {
      answer = await response.json();
    } catch {
      if (response.ok) throw unreadableAnswer();
    }
    if (response.ok) return answer;
    const retryAfter = Number(response.headers.get('retry-after')) || undefined;
    const failure = failureFromAnswer(response.status, answer, retryAfter);
    if (failure.kind === 'unauthorized' && token === undefined) this.onUnauthorized(failure);
    throw failure;
  }
}

export { ApiFailure };
