import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDb } from '../../src/db/connect.js';
import { API } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { productInput, restartableDatabaseUrl } from '../helpers/factories.js';
import { callJson, sharedDatabaseConfig, startServer, type ServerProcess } from '../helpers/server-process.js';
import { assertDeliveredInOrder, startReceiver, waitUntil, type FeedEvent } from './receiver.js';

/**
 * PRODUCT §9 "one sender per subscription across all processes" and "a kill -9 mid-delivery
 * leads to redelivery, never loss": two real service processes on one database, a receiver
 * that holds the first delivery open, and a SIGKILL of the process that holds the
 * subscription's lease. The other process waits for the lease to run out (2 s here,
 * WEBHOOKS_LEASE_SECONDS), sends the same batch again under the same webhook-id and goes on.
 */

const ADMIN = 'kill-test-admin-token';
const PRODUCTS = 1_200;

/** Every event after `after` through a server's feed. */
async function feedOf(server: ServerProcess, after: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (;;) {
    const page = await callJson(server, ADMIN, 'GET', `${API}/events?after=${after}&limit=1000`);
    expect(page.status).toBe(200);
    events.push(...(page.json.events as FeedEvent[]));
    if (page.json.next_after === after) return events;
    after = page.json.next_after;
  }
}

for (const dialect of DIALECTS) {
  describe(`webhook sender killed with SIGKILL (${dialect.name})`, { timeout: 120_000 }, () => {
    afterAll(() => dialect.cleanup());

    it('is replaced by the other process once its lease expires: the held batch is sent again, nothing is lost, the order holds', async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      // Migrated, with the tests' admin token, before the servers start on it.
      await (await buildApp(sharedDatabaseConfig(databaseUrl, ADMIN))).close();
      const env = {
        DATABASE_URL: databaseUrl,
        STORE_OPS_ADMIN_TOKEN: ADMIN,
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        WEBHOOKS_LEASE_SECONDS: '2',
      };
      const servers = await Promise.all([startServer(env), startServer(env)]);
      const observer = createDb(databaseUrl);
      let secret = '';
      let releaseHeld: (status: number) => void = () => undefined;
      // The first delivery is held open until the test lets it go (its sender is dead by then).
      const receiver = await startReceiver(
        () => secret,
        (_delivery, index) => (index === 0 ? new Promise<number>((resolve) => (releaseHeld = resolve)) : 200),
      );
      try {
        const created = await callJson(servers[0]!, ADMIN, 'POST', `${API}/webhooks`, {
          url: receiver.url,
          types: ['product.upserted'],
        });
        expect(created.status, JSON.stringify(created.json)).toBe(201);
        secret = created.json.secret;
        const { id, after_sequence: start } = created.json;
        const written = await callJson(servers[1]!, ADMIN, 'POST', `${API}/products`, {
          products: Array.from({ length: PRODUCTS }, (_, i) => productInput(`K${i}`)),
        });
        expect(written.status).toBe(200);

        await waitUntil(() => receiver.deliveries.length === 1, 'the first batch is being delivered');
        const held = receiver.deliveries[0]!;
        const lease = await observer.db
          .selectFrom('webhook_subscriptions')
          .select(['lease_owner', 'batch_through'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(Number(lease.batch_through)).toBe(held.sequences[held.sequences.length - 1]);
        const senderPid = Number(lease.lease_owner!.split(':')[1]);
        const sender = servers.find((server) => server.child.pid === senderPid)!;
        const survivor = servers.find((server) => server !== sender)!;
        expect(sender).toBeDefined();
        // While the sender lives and renews its lease, the other process sends nothing.
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        expect(receiver.deliveries).toHaveLength(1);

        await sender.kill();
        await waitUntil(
          async () => {
            const state = await callJson(survivor, ADMIN, 'GET', `${API}/webhooks/${id}`);
            return state.json.pending_events === 0 && state.json.delivered_events >= PRODUCTS;
          },
          'the survivor delivered everything',
          60_000,
        );
        releaseHeld(200);

        const expected = (await feedOf(survivor, start))
          .filter((event) => event.type === 'product.upserted')
          .map((event) => event.sequence);
        expect(expected).toHaveLength(PRODUCTS);
        assertDeliveredInOrder(receiver.deliveries, expected);
        // The batch the dead sender held came again, whole, under its webhook-id.
        expect(receiver.deliveries[1]).toMatchObject({ webhookId: held.webhookId, sequences: held.sequences });
        const after = await observer.db
          .selectFrom('webhook_subscriptions')
          .select('lease_owner')
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(after.lease_owner === null || !after.lease_owner.includes(`:${senderPid}:`)).toBe(true);
      } finally {
        releaseHeld(200);
        await Promise.all(servers.map((server) => server.stop()));
        await receiver.close();
        await observer.close();
      }
    });
  });
}
