import type { Config } from '../../config.js';
import type { Failure } from './delivery-state.js';

/** The timings of PRODUCT §9's deliveries; tests shorten them through Config.webhookTimingForTests. */
export interface WebhookTiming {
  /** A delivery not answered within this is a failure. */
  answerTimeoutMs: number;
  /** The first retry comes within this; each later one within twice the one before … */
  firstRetryMs: number;
  /** … up to this. */
  maxRetryMs: number;
  /** Failures for this long, counted from the first, pause the subscription. */
  retryWindowMs: number;
  /** How long a sender's lease lasts unless renewed (WEBHOOKS_LEASE_SECONDS). */
  leaseMs: number;
}

/** How often each process looks for subscriptions due (dispatcher.ts): a due retry goes out at the next look. */
export const POLL_EVERY_MS = 200;

export const PRODUCT_TIMING = {
  answerTimeoutMs: 10_000,
  // "First retry within 5 s": due within 4.8 s, sent at the next poll at the latest.
  firstRetryMs: 5_000 - POLL_EVERY_MS,
  maxRetryMs: 10 * 60_000,
  retryWindowMs: 24 * 60 * 60_000,
} as const;

export const DEFAULT_LEASE_SECONDS = 30;

export function timingOf(config: Config): WebhookTiming {
  return {
    ...PRODUCT_TIMING,
    ...config.webhookTimingForTests,
    leaseMs: (config.webhooksLeaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000,
  };
}

/**
 * Exponential backoff with full jitter: the wait before retry `attempts` (1 = the first) is
 * drawn uniformly below min(maxRetryMs, firstRetryMs · 2^(attempts−1)). Full jitter spreads the
 * retries of many subscriptions that failed together (one receiver down) instead of sending
 * them back in waves.
 */
export function retryDelay(
  attempts: number,
  timing: Pick<WebhookTiming, 'firstRetryMs' | 'maxRetryMs'>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(timing.maxRetryMs, timing.firstRetryMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.floor(random() * ceiling);
}

/**
 * What a failed attempt leaves: one attempt more, the run of failures dated from its first,
 * and either the next attempt — never later than the end of the retry window, so the last
 * one comes when the window closes — or, once the window is over, the pause.
 */
export function failureAfter(
  previous: { attempts: number; failingSince: number | null },
  error: string,
  now: number,
  timing: Pick<WebhookTiming, 'firstRetryMs' | 'maxRetryMs' | 'retryWindowMs'>,
  random: () => number = Math.random,
): Failure {
  const attempts = previous.attempts + 1;
  const failingSince = previous.failingSince ?? now;
  const windowEnd = failingSince + timing.retryWindowMs;
  const pause = now >= windowEnd;
  return {
    attempts,
    failingSince,
    error,
    at: now,
    nextAttemptAt: pause ? now : Math.min(now + retryDelay(attempts, timing, random), windowEnd),
    pause,
  };
}
