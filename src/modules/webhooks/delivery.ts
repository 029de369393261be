import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { guardedLookup, hostOf, refusedAddress, type TargetPolicy } from './url-check.js';

/**
 * One delivery attempt over HTTP (PRODUCT §9, Standard Webhooks 1.0): a POST of the batch's
 * body with `webhook-id`, `webhook-timestamp` (Unix seconds of this attempt) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, made by the
 * `standardwebhooks` package with the secret's key). A 2xx acknowledges; any other status, a
 * redirect included (never followed), a connection error or no answer within the timeout is
 * a failure. Connections go only to addresses the target policy allows (url-check.ts).
 */

export interface Attempt {
  url: string;
  webhookId: string;
  /** The exact bytes signed and sent: `{"events":[…]}`. */
  body: string;
  secret: string;
  timeoutMs: number;
  /** Aborted when the process stops or the sender lost its lease: no outcome is recorded. */
  signal: AbortSignal;
}

export type Outcome = { ok: true; status: number } | { ok: false; error: string } | { aborted: true };

/** Longest error text kept as last_error. */
const MAX_ERROR_LENGTH = 300;

export const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** The three Standard Webhooks headers of a body sent now. */
export function signedHeaders(
  webhookId: string,
  secret: string,
  body: string,
  at = new Date(),
): Record<(typeof SIGNATURE_HEADERS)[number], string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(webhookId, at, body),
  };
}

/** The HTTP client of one process's deliveries: kept-alive connections, checked at every connect. */
export class DeliveryClient {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 16 });

  constructor(private readonly policy: TargetPolicy) {}

  send(attempt: Attempt): Promise<Outcome> {
    let url: URL;
    try {
      url = new URL(attempt.url);
    } catch {
      return Promise.resolve({ ok: false, error: `not a URL: ${attempt.url}` });
    }
    // A literal address never reaches the lookup: it is judged here.
    const host = hostOf(url);
    const refused = isIP(host) !== 0 ? refusedAddress(host, this.policy.allowPrivate) : undefined;
    if (refused !== undefined) return Promise.resolve({ ok: false, error: `refused target: ${refused}` });
    if (attempt.signal.aborted) return Promise.resolve({ aborted: true });

    const secure = url.protocol === 'https:';
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        attempt.signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: guardedLookup(this.policy),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(attempt.body),
          'user-agent': 'store-ops-webhooks',
          ...signedHeaders(attempt.webhookId, attempt.secret, attempt.body),
        },
      });
      const onAbort = () => {
        settle({ aborted: true });
        request.destroy();
      };
      const timer = setTimeout(() => {
        settle({ ok: false, error: `no answer within ${formatSeconds(attempt.timeoutMs)}` });
        request.destroy();
      }, attempt.timeoutMs);
      attempt.signal.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) => settle({ ok: false, error: clip(`could not deliver: ${error.message}`) }));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          // The status acknowledges; the rest of the answer is read and dropped.
          response.resume();
          settle({ ok: true, status });
          return;
        }
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < MAX_ERROR_LENGTH) text += chunk;
        });
        response.on('error', () => settle({ ok: false, error: clip(`HTTP ${status}`) }));
        response.on('end', () =>
          settle({ ok: false, error: clip(`HTTP ${status}${text.trim() === '' ? '' : `: ${text.trim()}`}`) }),
        );
      });
      request.end(attempt.body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

const clip = (text: string) => (text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text);

const formatSeconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
