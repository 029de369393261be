/**
 * Forking and driving the local webhook receiver (lib/webhook-receiver.ts): a process of its
 * own (node with the tsx loader, its own process group), never the bench's or the service's.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit, REPO_ROOT, terminate } from './processes.js';
import type { ReceiverAnswer, ReceiverRequest, ReceiverStatus } from './webhook-receiver.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'webhook-receiver.ts');

export interface WebhookReceiver {
  /** Where the service delivers: http://127.0.0.1:<port>/hooks. */
  url: string;
  /** Forgets what it received; expects events after `after`; verifies with `secret` from now on; refusing (503) or not. */
  reset(secret: string, options: { verifyEvery: number; refuse: boolean; after: number }): Promise<void>;
  refuse(refuse: boolean): Promise<void>;
  /** What it received so far; the sequences themselves only when asked for. */
  status(withSequences?: boolean): Promise<ReceiverStatus>;
  stop(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const child = fork(SCRIPT, [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  killOnExit(child);
  let nextId = 0;
  const pending = new Map<number, (answer: ReceiverAnswer) => void>();
  const ready = new Promise<number>((resolve, reject) => {
    pending.set(-1, (answer) => resolve(answer.port!));
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (${code}) before listening`)));
  });
  child.on('message', (message: ReceiverAnswer) => {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  child.on('exit', (code) => {
    for (const settle of pending.values()) settle({ id: -2, error: `the webhook receiver exited (${code})` });
    pending.clear();
  });
  const send = async (request: ReceiverRequest): Promise<ReceiverAnswer> => {
    const id = nextId++;
    const answer = await new Promise<ReceiverAnswer>((resolve) => {
      pending.set(id, resolve);
      child.send({ id, request });
    });
    if (answer.error !== undefined) throw new Error(`webhook receiver (${request.op}): ${answer.error}`);
    return answer;
  };
  const port = await ready;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    async reset(secret, { verifyEvery, refuse, after }) {
      await send({ op: 'reset', secret, verifyEvery, refuse, after });
    },
    async refuse(refuse) {
      await send({ op: 'refuse', refuse });
    },
    async status(withSequences = false) {
      return (await send({ op: 'status', withSequences })).status!;
    },
    async stop() {
      if (child.connected) await send({ op: 'close' }).catch(() => undefined);
      await terminate(child, 2_000);
    },
  };
}
