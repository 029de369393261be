/**
 * The local webhook receiver of `webhooks.delivery` (a process of its own, forked by
 * lib/webhook-receiver-client.ts, driven by IPC messages): `http.createServer` on 127.0.0.1
 * answering every delivery 204 as soon as its body has arrived — before looking at it — and
 * only then recording it: its `webhook-id`, its events' sequences, the arrival times. A sample
 * of the deliveries (the first, then every `verifyEvery`-th) has its Standard Webhooks
 * signature verified with the `standardwebhooks` package, as PRODUCT §9 tells receivers to.
 *
 * What it checks as deliveries arrive: a batch whose webhook-id it has seen before is a re-sent
 * batch (allowed: at-least-once) and must carry exactly the same events; every other batch
 * must start after the last event received and be in ascending sequence. The bench compares
 * the events received with the feed afterwards.
 */
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

export type ReceiverRequest =
  | { op: 'reset'; secret: string; verifyEvery: number; refuse?: boolean; after?: number }
  | { op: 'refuse'; refuse: boolean }
  | { op: 'status'; withSequences?: boolean }
  | { op: 'close' };

export interface ReceiverStatus {
  /** Deliveries answered (204 or, while refusing, 503). */
  deliveries: number;
  refused: number;
  /** Batches received a second time under the same webhook-id (and the events they carried). */
  resentBatches: number;
  resentEvents: number;
  /** Events received for the first time: how many, the last one, and (when asked for) all of them in arrival order. */
  received: number;
  lastSequence: number;
  sequences?: number[];
  /** Epoch ms (fractional, comparable across processes): the first accepted delivery's request arrived; the last one that brought new events was complete. */
  firstAt: number | null;
  lastAt: number | null;
  verified: number;
  problems: string[];
}

export interface ReceiverAnswer {
  id: number;
  error?: string;
  port?: number;
  status?: ReceiverStatus;
}

let webhook: Webhook | undefined;
let verifyEvery = 10;
let refuse = false;
let state: ReceiverStatus & { sequences: number[] };
/** webhook-id → the batch's first and last sequence and size. */
let batches = new Map<string, { first: number; last: number; count: number }>();
let lastSequence = 0;

function reset(after = 0): void {
  state = {
    deliveries: 0,
    refused: 0,
    resentBatches: 0,
    resentEvents: 0,
    received: 0,
    lastSequence: 0,
    sequences: [],
    firstAt: null,
    lastAt: null,
    verified: 0,
    problems: [],
  };
  batches = new Map();
  lastSequence = after;
  state.lastSequence = after;
}
reset();

const problem = (text: string) => {
  if (state.problems.length < 20) state.problems.push(text);
};

function record(headers: http.IncomingHttpHeaders, text: string, arrivedAt: number, completeAt: number): void {
  const delivery = state.deliveries++;
  const id = String(headers['webhook-id'] ?? '');
  if (id === '') problem(`delivery ${delivery} has no webhook-id`);
  if (webhook !== undefined && (delivery === 0 || delivery % verifyEvery === 0)) {
    try {
      webhook.verify(text, {
        'webhook-id': id,
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      });
      state.verified++;
    } catch (error) {
      problem(
        `delivery ${delivery} (${id}): the signature does not verify: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  let sequences: number[];
  try {
    sequences = (JSON.parse(text) as { events: Array<{ sequence: number }> }).events.map((event) => event.sequence);
  } catch (error) {
    problem(
      `delivery ${delivery} (${id}): not a batch of events: ${error instanceof Error ? error.message : String(error)}`,
    );
    return;
  }
  const shape = { first: sequences[0] ?? -1, last: sequences[sequences.length - 1] ?? -1, count: sequences.length };
  const seen = batches.get(id);
  if (seen !== undefined) {
    state.resentBatches++;
    state.resentEvents += sequences.length;
    if (seen.first !== shape.first || seen.last !== shape.last || seen.count !== shape.count) {
      problem(
        `delivery ${delivery} re-sends ${id} with events ${shape.first}–${shape.last} (${shape.count}); first sent with ${seen.first}–${seen.last} (${seen.count})`,
      );
    }
    return;
  }
  batches.set(id, shape);
  if (sequences.length === 0) problem(`delivery ${delivery} (${id}) carries no events`);
  for (const sequence of sequences) {
    if (!(sequence > lastSequence))
      problem(`delivery ${delivery} (${id}): event ${sequence} arrived after ${lastSequence}`);
    lastSequence = Math.max(lastSequence, sequence);
    state.sequences.push(sequence);
  }
  state.received = state.sequences.length;
  state.lastSequence = lastSequence;
  state.firstAt ??= arrivedAt;
  state.lastAt = completeAt;
}

const now = () => performance.timeOrigin + performance.now();

const server = http.createServer((request, response) => {
  const arrivedAt = now();
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (refuse) {
      state.deliveries++;
      state.refused++;
      response.writeHead(503).end();
      return;
    }
    // Acknowledge first: the service waits for this answer, not for the bookkeeping below.
    response.writeHead(204).end();
    record(request.headers, Buffer.concat(chunks).toString('utf8'), arrivedAt, now());
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ id: -1, port: typeof address === 'object' && address ? address.port : 0 } satisfies ReceiverAnswer);
});

process.on('message', ({ id, request }: { id: number; request: ReceiverRequest }) => {
  const answer = (body: Omit<ReceiverAnswer, 'id'> = {}) => process.send!({ id, ...body } satisfies ReceiverAnswer);
  try {
    if (request.op === 'reset') {
      webhook = new Webhook(request.secret);
      verifyEvery = Math.max(1, request.verifyEvery);
      refuse = request.refuse ?? false;
      reset(request.after ?? 0);
      answer();
    } else if (request.op === 'refuse') {
      refuse = request.refuse;
      answer();
    } else if (request.op === 'status') {
      answer({ status: request.withSequences ? state : { ...state, sequences: undefined } });
    } else {
      server.close();
      server.closeAllConnections();
      answer();
      process.disconnect();
    }
  } catch (error) {
    answer({ error: error instanceof Error ? error.message : String(error) });
  }
});
