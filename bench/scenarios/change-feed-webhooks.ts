/**
 * Issue 30, webhook delivery: "webhook delivery to a local receiver must reach ≥ 5,000
 * events/s".
 *
 * The service (`npm start` on a fresh schema or file, `WEBHOOKS_ALLOW_PRIVATE=true` so it may
 * send to loopback — the only address any delivery of the bench goes to) has one subscription,
 * created over the API (`POST /webhooks {url}`, every event type, every store), pointing at the
 * local receiver: a process of its own (lib/webhook-receiver.ts, `http.createServer` on
 * 127.0.0.1) that answers each delivery 204 as soon as its body is in, and verifies the
 * Standard Webhooks signature of a sample with the `standardwebhooks` package.
 *
 * What is timed is the sender draining a backlog, so the figure is the delivery's own rate and
 * not the rate the events are written at. Each run:
 * 1. the receiver refuses (503): the receiver is down, as in an outage;
 * 2. 8 clients post 1,000-entry stock requests (one per store, one in flight each) — ~95,000
 *    `stock.changed` events; the sender's first attempt (and any retry) is refused, so the
 *    subscription is failing, its events waiting;
 * 3. once every event is numbered, the receiver accepts again and the bench resumes the
 *    subscription over the API (`POST /webhooks/{id}/resume`: the failed batch is sent again at
 *    once), as an operator does after an outage;
 * 4. the figure: events received ÷ the time from the first accepted delivery's arrival to the
 *    last event's (the receiver's clock), events/s, against the 5,000 (kind `absolute`).
 *
 * Checked after each run, else FAILED: the events received for the first time are exactly the
 * feed's events after the subscription's cursor at the start of the run, in sequence order
 * (every event once, in order); a batch received again must carry the same webhook-id and the
 * same events (a re-sent batch, the one duplicate at-least-once allows); every sampled
 * signature verifies; the subscription reads active with nothing pending.
 */
import { call, expectStatus } from '../lib/client.js';
import { picker, storeNumberOf } from '../lib/data.js';
import { freshDatabase, requirePostgres, type BenchDialect } from '../lib/ledger-db.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt } from '../lib/service.js';
import {
  StockClock,
  seedAssortment,
  seedStockMasterData,
  stockBody,
  stockEntries,
  timedStockPost,
} from '../lib/stock.js';
import { startWebhookReceiver } from '../lib/webhook-receiver-client.js';

const STORES = 8;
const PRODUCTS = 5_000;
const ENTRIES = 1_000;
/** Posts per store per run: ~95,000 events (one per balance per request, ~985 per post), a drain of a few seconds. */
const POSTS_PER_STORE = 12;
const WARMUP_POSTS_PER_STORE = 1;
/** The absolute target. */
const TARGET_EVENTS_PER_SECOND = 5_000;
/** Every how many deliveries the receiver verifies a signature (the first always). */
const VERIFY_EVERY = 10;
const DRAIN_TIMEOUT_MS = 90_000;

interface SubscriptionView {
  id: number;
  status: string;
  after_sequence: number;
  pending_events: number;
  delivered_events: number;
  last_error: string | null;
  failing_since: string | null;
}

function webhooksDelivery(dialect: BenchDialect): Scenario {
  const name = `webhooks.delivery.${dialect === 'postgres' ? 'pg' : 'sqlite'}`;
  return {
    name,
    description:
      `${dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'}: one webhook subscription (POST ${API}/webhooks, every event) to a local receiver (own process, http.createServer on 127.0.0.1, ` +
      `204 at once, Standard Webhooks signatures verified with standardwebhooks on every ${VERIFY_EVERY}th delivery), service started with WEBHOOKS_ALLOW_PRIVATE=true: ` +
      `the receiver refuses (503) while ${STORES} clients post ${STORES * POSTS_PER_STORE} stock requests of ${ENTRIES.toLocaleString('en-US')} entries (~${Math.round((STORES * POSTS_PER_STORE * 985) / 1000).toLocaleString('en-US')},000 stock.changed events), ` +
      `then accepts and the subscription is resumed over the API: events/s from the first accepted delivery to the last event received, against the issue's ` +
      `${TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s; every event checked to arrive once and in order (a batch again only under its webhook-id)`,
    unit: 'events/s',
    valueLabel: 'delivered',
    baselineLabel: 'target',
    baselineKind: 'absolute',
    target: {
      ratio: 1,
      comparison: '>=',
      description: `webhook delivery to a local receiver ≥ ${TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s (issue 30)`,
    },
    defaultRuns: 3,

    prepare: () =>
      new Resources().preparing(async (resources) => {
        if (dialect === 'postgres') await requirePostgres();
        const db = await freshDatabase(resources, dialect, 'webhooks');
        const receiver = resources.add(await startWebhookReceiver(), (r) => r.stop());
        const file = dialect === 'sqlite' ? db.url.slice('sqlite:'.length) : db.url;
        const service = resources.add(await startServiceAt(db.url, file, { WEBHOOKS_ALLOW_PRIVATE: 'true' }), (s) =>
          s.stop(),
        );
        await seedStockMasterData(service.baseUrl, PRODUCTS, STORES);
        for (let i = 0; i < STORES; i++) await seedAssortment(service.baseUrl, storeNumberOf(i), PRODUCTS);
        const created = expectStatus(
          await call(service.baseUrl, 'POST', `${API}/webhooks`, JSON.stringify({ url: receiver.url })),
          201,
          'creating the webhook subscription',
        ).json<SubscriptionView & { secret: string }>();
        const subscription = async () =>
          expectStatus(
            await call(service.baseUrl, 'GET', `${API}/webhooks/${created.id}`),
            200,
            'reading the subscription',
          ).json<SubscriptionView>();

        const pickers = Array.from({ length: STORES }, (_, i) => picker(5000 + i));
        const clocks = Array.from({ length: STORES }, () => new StockClock());
        /** The stores' posts, one client per store, one request in flight each: entries/s. */
        const write = async (postsPerStore: number) => {
          const start = performance.now();
          await Promise.all(
            Array.from({ length: STORES }, async (_, i) => {
              for (let k = 0; k < postsPerStore; k++) {
                await timedStockPost(
                  service.baseUrl,
                  stockBody(stockEntries(pickers[i]!, clocks[i]!, ENTRIES, PRODUCTS)),
                  ENTRIES,
                  storeNumberOf(i),
                );
              }
            }),
          );
          return (STORES * postsPerStore * ENTRIES * 1000) / (performance.now() - start);
        };
        /** Every event numbered (PostgreSQL's sequencer), then the feed's sequences after `after`, in order. */
        const feedAfter = async (after: number) => {
          const deadline = Date.now() + 30_000;
          while (
            dialect === 'postgres' &&
            Number((await db.query<{ n: unknown }>('select count(*) as n from events where sequence is null'))[0]?.n) >
              0
          ) {
            if (Date.now() > deadline) throw new Error('events still unnumbered 30 s after the last post');
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          const rows = await db.query<{ sequence: unknown }>(
            `select sequence from events where sequence > ${after} order by sequence`,
          );
          await db.disconnect();
          return rows.map((row) => Number(row.sequence));
        };
        /** The subscription caught up: active, nothing pending; its cursor. */
        const caughtUp = async () => {
          const deadline = Date.now() + 30_000;
          for (;;) {
            const view = await subscription();
            if (view.status === 'active' && view.pending_events === 0 && view.failing_since === null) return view;
            if (Date.now() > deadline) throw new Error(`the subscription has not caught up: ${JSON.stringify(view)}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        };

        /** One cycle: outage while writing, then resume and drain; checked. */
        const cycle = async (postsPerStore: number) => {
          const before = await caughtUp();
          await receiver.reset(created.secret, {
            verifyEvery: VERIFY_EVERY,
            refuse: true,
            after: before.after_sequence,
          });
          const writeRate = await write(postsPerStore);
          const expected = await feedAfter(before.after_sequence);
          const last = expected[expected.length - 1]!;
          await receiver.refuse(false);
          const resumedAt = performance.timeOrigin + performance.now();
          expectStatus(
            await call(service.baseUrl, 'POST', `${API}/webhooks/${created.id}/resume`),
            200,
            'resuming the subscription',
          );
          const deadline = Date.now() + DRAIN_TIMEOUT_MS;
          let status = await receiver.status();
          while (status.lastSequence < last) {
            if (Date.now() > deadline)
              throw new Error(
                `the receiver got ${status.received} of ${expected.length} events in ${DRAIN_TIMEOUT_MS / 1000} s (up to ${status.lastSequence} of ${last})`,
              );
            await new Promise((resolve) => setTimeout(resolve, 50));
            status = await receiver.status();
          }
          // A moment for a re-sent batch still on its way, then everything the receiver saw.
          await new Promise((resolve) => setTimeout(resolve, 300));
          status = await receiver.status(true);
          const problems = [...status.problems];
          const received = status.sequences!;
          if (received.length !== expected.length || received.some((sequence, i) => sequence !== expected[i])) {
            const at = received.findIndex((sequence, i) => sequence !== expected[i]);
            problems.push(
              `received ${received.length} events, the feed holds ${expected.length} after ${before.after_sequence}; first difference at #${at}: ${received[at]} vs ${expected[at]}`,
            );
          }
          if (status.verified === 0) problems.push('no signature was verified');
          if (status.refused === 0)
            problems.push('the receiver refused no delivery while the events were written: no backlog was built');
          const after = await caughtUp();
          if (after.after_sequence !== last)
            problems.push(`the subscription's cursor is ${after.after_sequence}, the last event ${last}`);
          if (problems.length > 0) throw new Error(`webhook delivery: ${problems.join('; ')}`);
          const accepted = status.deliveries - status.refused;
          const drainMs = status.lastAt! - status.firstAt!;
          return {
            rate: (received.length * 1000) / drainMs,
            extra: {
              'events delivered': received.length,
              'drain ms': drainMs,
              'resume to first delivery ms': status.firstAt! - resumedAt,
              'deliveries accepted': accepted,
              'events per delivery': (received.length + status.resentEvents) / accepted,
              're-sent batches': status.resentBatches,
              'refused attempts': status.refused,
              'signatures verified': status.verified,
              'write entries/s': writeRate,
              'service peak RSS MB': service.peakRssMb(),
            },
          };
        };

        await cycle(WARMUP_POSTS_PER_STORE); // untimed, checked like a run

        return {
          async measure(): Promise<Sample> {
            const { rate, extra } = await cycle(POSTS_PER_STORE);
            return { value: rate, baseline: TARGET_EVENTS_PER_SECOND, extra };
          },
          close: () => resources.release(),
        };
      }),
  };
}

export const webhooksDeliveryPg = webhooksDelivery('postgres');
export const webhooksDeliverySqlite = webhooksDelivery('sqlite');
