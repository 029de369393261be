import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver for the tests: an HTTP server on 127.0.0.1 only (PRODUCT §9: no test
 * sends anywhere but loopback). It verifies every delivery with the `standardwebhooks`
 * package, as an integrator's receiver would, records it, and answers as the test's
 * `respond` says: a status, after a delay, or never (a promise the test settles).
 */

export interface FeedEvent {
  sequence: number;
  type: string;
  occurred_at: string;
  store_number: string | null;
  data: Record<string, unknown>;
}

export interface Delivery {
  webhookId: string;
  timestamp: number;
  events: FeedEvent[];
  sequences: number[];
  /** Whether Webhook.verify accepted the signature (a delivery that fails it is answered 401). */
  verified: boolean;
  /** The status answered, once answered. */
  status?: number;
}

/** What to answer a delivery: its status (after whatever the promise waits for). */
export type Respond = (delivery: Delivery, index: number) => number | Promise<number>;

export interface Receiver {
  url: string;
  port: number;
  /** Every delivery received, in arrival order. */
  deliveries: Delivery[];
  respond: Respond;
  /** Stops listening and drops open connections (the receiver is down); `up` listens again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(secret: () => string, respond: Respond = () => 200): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    deliveries: [],
    respond,
    down: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
    up: () => listen(receiver.port),
    close: () => receiver.down(),
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const headers = request.headers as Record<string, string>;
    let verified = true;
    try {
      new Webhook(secret()).verify(raw, headers);
    } catch {
      verified = false;
    }
    const events = (JSON.parse(raw) as { events: FeedEvent[] }).events;
    const delivery: Delivery = {
      webhookId: headers['webhook-id']!,
      timestamp: Number(headers['webhook-timestamp']),
      events,
      sequences: events.map((event) => event.sequence),
      verified,
    };
    const index = receiver.deliveries.push(delivery) - 1;
    const status = verified ? await receiver.respond(delivery, index) : 401;
    if (response.destroyed) return;
    delivery.status = status;
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `receiver says ${status}`);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        receiver.port = typeof address === 'object' && address !== null ? address.port : port;
        receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
        resolve();
      });
    });
  await listen(0);
  return receiver;
}

/** Resolves when `condition` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * PRODUCT §9's promise, as a receiver sees it: the batches, taken once each in the order they
 * first arrived, carry exactly `expected` (every event, in order, none twice); a batch that
 * arrives again is the same events under the same webhook-id, and never after a later batch
 * (a retry comes before the sender moves on). Every delivery verified.
 */
export function assertDeliveredInOrder(deliveries: readonly Delivery[], expected: readonly number[]): void {
  const batches = new Map<string, { index: number; sequences: string }>();
  let latest = -1;
  for (const delivery of deliveries) {
    if (!delivery.verified) throw new Error(`delivery ${delivery.webhookId} failed signature verification`);
    const sequences = delivery.sequences.join(',');
    const known = batches.get(delivery.webhookId);
    if (known === undefined) {
      batches.set(delivery.webhookId, { index: batches.size, sequences });
      latest = batches.size - 1;
      continue;
    }
    if (known.sequences !== sequences)
      throw new Error(`webhook-id ${delivery.webhookId} was sent with different events`);
    if (known.index !== latest) throw new Error(`batch ${delivery.webhookId} was re-sent after a later batch`);
  }
  const received = [...batches.values()].flatMap((batch) =>
    batch.sequences === '' ? [] : batch.sequences.split(',').map(Number),
  );
  const missing = expected.filter((sequence) => !received.includes(sequence));
  if (received.join(',') !== expected.join(',')) {
    throw new Error(
      `received ${received.length} events, expected ${expected.length}; missing ${missing.slice(0, 10).join(',')}; first received ${received.slice(0, 10).join(',')}`,
    );
  }
}
