import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaySubscription } from '../../src/modules/webhooks/service.js';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { stockLogInput, storeInput } from '../helpers/factories.js';
import { assertDeliveredInOrder, waitUntil, type Delivery } from './receiver.js';
import {
  deliveredAll,
  matching,
  QUICK_RETRIES,
  subscribe,
  subscriptionState,
  WEBHOOKS,
  writeProducts,
  type Subscribed,
} from './support.js';

/**
 * Deliveries as a receiver sees them (PRODUCT §9): every event once acknowledged, in order,
 * signed (each receiver verifies with `standardwebhooks`), in batches; a failing, slow or
 * unreachable receiver gets the same batch again under the same webhook-id until it
 * acknowledges; 24 h of failures pause a subscription (shortened here), resume and replay.
 * Every receiver listens on 127.0.0.1.
 */

const LOGS = (store: string) => `${API}/stores/${store}/products/stock/storeproductlogs`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of DIALECTS) {
  describe(`webhook deliveries (${dialect.name})`, () => {
    let t: TestApp;
    const subscribed: Subscribed[] = [];

    const track = (s: Subscribed) => (subscribed.push(s), s);
    /** Ends a test's subscriptions, so later tests' events go to no one else. */
    const unsubscribe = async (...list: Subscribed[]) => {
      for (const s of list) expect((await t.del(`${WEBHOOKS}/${s.id}`)).statusCode).toBe(200);
    };

    beforeAll(async () => {
      t = await buildTestApp(dialect, { webhooksAllowPrivate: true, webhookTimingForTests: QUICK_RETRIES });
      expect((await t.post(`${API}/stores`, { stores: [storeInput('D1'), storeInput('D2')] })).statusCode).toBe(200);
    });
    afterAll(async () => {
      await t.close();
      await Promise.all(subscribed.map((s) => s.receiver.close()));
      await dialect.cleanup();
    });

    it('delivers every event in order, signed, in batches of at most 500, to each subscription by its filters', async () => {
      const everything = track(await subscribe(t));
      const filter = { types: ['stock.changed', 'product.upserted'], stores: ['D1'] };
      const narrow = track(await subscribe(t, filter));
      await writeProducts(t, 'DP', 1100);
      for (const store of ['D1', 'D2']) {
        const posted = await t.post(LOGS(store), {
          storeproductlog: [
            stockLogInput('DP1', 4, '2026-01-10T10:00:00Z'),
            stockLogInput('DP2', 2, '2026-01-10T10:00:00Z'),
          ],
        });
        expect(posted.statusCode, posted.body).toBe(200);
      }

      const feed = await deliveredAll(t, everything, 1104);
      expect(feed.length).toBeGreaterThan(1100);
      assertDeliveredInOrder(
        everything.receiver.deliveries,
        feed.map((e) => e.sequence),
      );
      // The events are the feed's own objects (a batch re-sent after a slow answer counted once).
      const batches = new Map(everything.receiver.deliveries.map((d) => [d.webhookId, d.events]));
      expect([...batches.values()].flat()).toEqual(feed);
      expect(everything.receiver.deliveries.length).toBeGreaterThanOrEqual(3);
      expect(everything.receiver.deliveries.every((d) => d.events.length <= 500)).toBe(true);

      await deliveredAll(t, narrow, 1104);
      const expected = matching(feed, filter);
      expect(expected.some((e) => e.type === 'stock.changed' && e.store_number === 'D1')).toBe(true);
      assertDeliveredInOrder(
        narrow.receiver.deliveries,
        expected.map((e) => e.sequence),
      );
      expect(narrow.receiver.deliveries.flatMap((d) => d.events).some((e) => e.store_number === 'D2')).toBe(false);

      const state = await subscriptionState(t, everything.id);
      expect(state).toMatchObject({
        status: 'active',
        pending_events: 0,
        delivered_events: feed.length,
        failing_since: null,
      });
      expect(state.last_delivered_at).not.toBeNull();
      await unsubscribe(everything, narrow);
    });

    it('sends a failing, slow or unreachable receiver the same batch again under the same webhook-id until it acknowledges', async () => {
      let answered = 0;
      const flaky = track(
        await subscribe(t, {}, async (_delivery: Delivery, index: number) => {
          if (index < 3) return 500;
          // Slower than the answer timeout (1.5 s here, 10 s in production): a failure.
          if (index === 3) await sleep(2_500);
          answered++;
          return 200;
        }),
      );
      await writeProducts(t, 'FA', 700);
      await waitUntil(() => flaky.receiver.deliveries.length >= 2, 'the receiver failed once');
      const failing = await subscriptionState(t, flaky.id);
      expect(failing.status).toBe('active');
      expect(failing.failing_since).not.toBeNull();
      expect(failing.last_error).toMatch(/^HTTP 500/);
      await waitUntil(() => answered >= 1, 'the receiver acknowledged a batch');

      // Down for a while: connections are refused until it is back.
      await flaky.receiver.down();
      await writeProducts(t, 'FB', 300);
      await waitUntil(
        async () =>
          /ECONNREFUSED|socket hang up|ECONNRESET/.test((await subscriptionState(t, flaky.id)).last_error ?? ''),
        'a delivery found the receiver down',
      );
      await sleep(500);
      await flaky.receiver.up();

      const feed = await deliveredAll(t, flaky, 1000);
      const deliveries = flaky.receiver.deliveries;
      assertDeliveredInOrder(
        deliveries,
        feed.map((e) => e.sequence),
      );
      // The first four attempts were all the same batch.
      expect(new Set(deliveries.slice(0, 5).map((d) => d.webhookId)).size).toBe(1);
      expect(deliveries[4]!.status).toBe(200);
      expect(await subscriptionState(t, flaky.id)).toMatchObject({
        status: 'active',
        failing_since: null,
        pending_events: 0,
      });
      await unsubscribe(flaky);
    });

    it('pauses a subscription once its retry window is over, sends nothing while paused, and resumes with the same batch', async () => {
      // A window of 600 ms stands in for PRODUCT §9's 24 h.
      const short = await buildTestApp(dialect, {
        webhooksAllowPrivate: true,
        webhookTimingForTests: { ...QUICK_RETRIES, retryWindowMs: 600 },
      });
      try {
        let status = 503;
        const down = await subscribe(short, {}, () => status);
        await writeProducts(short, 'PA', 5);
        await waitUntil(
          async () => (await subscriptionState(short, down.id)).status === 'paused',
          'the subscription paused',
          10_000,
        );
        const paused = await subscriptionState(short, down.id);
        expect(paused.last_error).toBe('HTTP 503: receiver says 503');
        expect(paused.failing_since).not.toBeNull();
        expect(Date.parse(paused.last_error_at) - Date.parse(paused.failing_since)).toBeGreaterThanOrEqual(600);
        expect(down.receiver.deliveries.length).toBeGreaterThan(1);
        expect(new Set(down.receiver.deliveries.map((d) => d.webhookId)).size).toBe(1);
        const attempts = down.receiver.deliveries.length;
        await sleep(400);
        expect(down.receiver.deliveries.length).toBe(attempts);

        status = 200;
        const resumed = await short.post(`${WEBHOOKS}/${down.id}/resume`, {});
        expect(resumed.statusCode).toBe(200);
        expect(resumed.json()).toMatchObject({ status: 'active', failing_since: null });
        const feed = await deliveredAll(short, down, 5);
        assertDeliveredInOrder(
          down.receiver.deliveries,
          feed.map((e) => e.sequence),
        );
        expect(down.receiver.deliveries[attempts]!.webhookId).toBe(down.receiver.deliveries[0]!.webhookId);
        await down.receiver.close();
      } finally {
        await short.close();
      }
    });

    it('replays from a sequence: the events from it on arrive again, in order, after what was delivered', async () => {
      const replayed = track(await subscribe(t));
      await writeProducts(t, 'RP', 30);
      const feed = await deliveredAll(t, replayed, 30);
      const before = replayed.receiver.deliveries.length;
      const from = feed[10]!.sequence;
      const moved = await replaySubscription(t.app.ctx.handle, replayed.id, from);
      expect(moved).toMatchObject({ after_sequence: from - 1, pending_events: feed.length - 10 });
      await deliveredAll(t, replayed, 30);
      const again = replayed.receiver.deliveries.slice(before);
      assertDeliveredInOrder(
        again,
        feed.slice(10).map((e) => e.sequence),
      );
      await unsubscribe(replayed);
    });
  });
}
