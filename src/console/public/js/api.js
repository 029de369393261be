// The console's only way to the service: the same public API every other client uses,
// with the token the user signed in with. Nothing here can do more than that token may.

import { ApiFailure, failureFromAnswer, networkFailure, unreadableAnswer } from './failures.js';

export const API_PREFIX = '/api/v2/public';

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
  }

  get(route, query) {
    return this.call('GET', route, { query });
  }

  post(route, body) {
    return this.call('POST', route, { body });
  }

  /** One call with an explicit token (sign-in checks a token before it is kept). */
  async call(method, route, { query, body, token } = {}) {
    const credential = token ?? this.readToken();
    const url = new URL(API_PREFIX + route, window.location.origin);
    for (const [name, value] of Object.entries(query ?? {})) {
      // An array repeats the parameter (`product_number=a&product_number=b`).
      for (const one of Array.isArray(value) ? value : [value]) {
        if (one !== undefined && one !== null && one !== '') url.searchParams.append(name, String(one));
      }
    }
    const headers = { accept: 'application/json' };
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      // No cookies exist for the API; `omit` keeps it so, and the page sends no referrer.
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
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
