import { expect } from 'vitest';
import { API, type TestApp } from '../helpers/build.js';
import { productInput } from '../helpers/factories.js';
import { startReceiver, waitUntil, type FeedEvent, type Receiver, type Respond } from './receiver.js';

export const WEBHOOKS = `${API}/webhooks`;

/** Delivery timings short enough for a test to see retries (Config.webhookTimingForTests). */
export const QUICK_RETRIES = { firstRetryMs: 50, maxRetryMs: 300, answerTimeoutMs: 1_500, retryWindowMs: 120_000 };

/** Every event of the feed after `after`, page by page (the feed numbers what committed first). */
export async function followFeed(t: TestApp, after: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (;;) {
    const response = await t.get(`${API}/events?after=${after}&limit=1000`);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json() as { events: FeedEvent[]; next_after: number };
    events.push(...page.events);
    if (page.next_after === after) return events;
    after = page.next_after;
  }
}

/** What a subscription with these filters receives of `events` (chain-wide events pass a store filter). */
export function matching(events: readonly FeedEvent[], filter: { types?: string[]; stores?: string[] }): FeedEvent[] {
  return events.filter(
    (event) =>
      (filter.types === undefined || filter.types.includes(event.type)) &&
      (filter.stores === undefined || event.store_number === null || filter.stores.includes(event.store_number)),
  );
}

export interface Subscribed {
  id: number;
  start: number;
  secret: string;
  receiver: Receiver;
}

/** A receiver on loopback and a subscription of it (the app must allow private targets). */
export async function subscribe(
  t: TestApp,
  body: Record<string, unknown> = {},
  respond?: Respond,
): Promise<Subscribed> {
  let secret = '';
  const receiver = await startReceiver(() => secret, respond);
  const created = await t.post(WEBHOOKS, { url: receiver.url, ...body });
  expect(created.statusCode, created.body).toBe(201);
  secret = created.json().secret;
  return { id: created.json().id, start: created.json().after_sequence, secret, receiver };
}

/** The subscription as the API shows it. */
export async function subscriptionState(t: TestApp, id: number): Promise<Record<string, any>> {
  const response = await t.get(`${WEBHOOKS}/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/**
 * Waits until the feed after the subscription's start holds at least `atLeast` events (on
 * PostgreSQL a write is readable once numbered, within ~100 ms) and the subscription's cursor
 * has reached its end — every event it matches acknowledged; answers those events.
 */
export async function deliveredAll(
  t: TestApp,
  subscribed: Subscribed,
  atLeast: number,
  timeoutMs = 20_000,
): Promise<FeedEvent[]> {
  let events: FeedEvent[] = [];
  await waitUntil(
    async () => {
      events = await followFeed(t, subscribed.start);
      if (events.length < atLeast) return false;
      const last = events.length === 0 ? subscribed.start : events[events.length - 1]!.sequence;
      const state = await subscriptionState(t, subscribed.id);
      return state.after_sequence >= last && state.pending_events === 0;
    },
    `webhook ${subscribed.id} has delivered the whole feed`,
    timeoutMs,
  );
  return events;
}

/** Writes `count` products: as many `product.upserted` events, in one request. */
export async function writeProducts(t: TestApp, prefix: string, count: number): Promise<void> {
  const products = Array.from({ length: count }, (_, i) => productInput(`${prefix}${i}`));
  const response = await t.post(`${API}/products`, { products });
  expect(response.statusCode, response.body).toBe(200);
}
