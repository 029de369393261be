/**
 * The raw write baselines' processes (baselines/raw-writer.ts on SQLite,
 * baselines/raw-pg-writer.ts on PostgreSQL), each forked once per scenario and driven by
 * messages: the timings are taken inside them, so sending a body to one costs the baseline
 * nothing, as the bytes on the wire to the service are not what its figure holds either —
 * both start from the body's text.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawPgWriterAnswer, RawPgWriterRequest } from '../baselines/raw-pg-writer.js';
import type { RawWriterAnswer, RawWriterRequest } from '../baselines/raw-writer.js';
import { killOnExit, REPO_ROOT, terminate } from './processes.js';

const BASELINES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'baselines');

/** A baseline process answering requests `{ op, … }` with `{ ms?, error?, … }`. */
export interface BaselineProcess<Request extends { op: string }, Answer extends { ms?: number; error?: string }> {
  send(request: Request): Promise<Answer>;
  /** A timed operation: its milliseconds. */
  timed(request: Request): Promise<number>;
  stop(): Promise<void>;
}

/** Forks `baselines/<script>` (node with the tsx loader, its own process group); `stop` sends `{ op: 'close' }` first. */
function forkBaseline<Request extends { op: string }, Answer extends { ms?: number; error?: string }>(
  script: string,
  what: string,
  close: Request,
): BaselineProcess<Request, Answer> {
  const child = fork(path.join(BASELINES, script), [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: true,
  });
  killOnExit(child);
  let nextId = 0;
  const pending = new Map<number, (answer: Answer) => void>();
  child.on('message', (message: Answer & { id: number }) => {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  child.on('exit', (code) => {
    for (const settle of pending.values()) settle({ error: `${what} exited (${code})` } as Answer);
    pending.clear();
  });
  const send = async (request: Request) => {
    const id = nextId++;
    const answer = await new Promise<Answer>((resolve) => {
      pending.set(id, resolve);
      child.send({ id, request });
    });
    if (answer.error !== undefined) throw new Error(`${what} (${request.op}): ${answer.error}`);
    return answer;
  };
  return {
    send,
    async timed(request) {
      const answer = await send(request);
      if (answer.ms === undefined) throw new Error(`${what} (${request.op}) reported no time`);
      return answer.ms;
    },
    stop: async () => {
      if (child.connected) await send(close).catch(() => undefined);
      child.disconnect?.();
      await terminate(child, 2_000);
    },
  };
}

export interface RawWriter extends BaselineProcess<RawWriterRequest, RawWriterAnswer> {
  /** Opens a fresh file with plain tables; refuses to go on unless SQLite took the synchronous mode asked for. */
  open(request: Extract<RawWriterRequest, { op: 'open' }>): Promise<void>;
}

export function startRawWriter(): RawWriter {
  const writer = forkBaseline<RawWriterRequest, RawWriterAnswer>('raw-writer.ts', 'raw baseline', { op: 'close' });
  return {
    ...writer,
    async open(request) {
      const { synchronous } = await writer.send(request);
      if (synchronous !== request.synchronous)
        throw new Error(`raw baseline runs with synchronous=${synchronous}, the service with ${request.synchronous}`);
    },
  };
}

/** The PostgreSQL raw writer (baselines/raw-pg-writer.ts): `open` a fresh schema, then timed `stock-batch`es over its connections. */
export type RawPgWriter = BaselineProcess<RawPgWriterRequest, RawPgWriterAnswer>;

export function startRawPgWriter(): RawPgWriter {
  return forkBaseline<RawPgWriterRequest, RawPgWriterAnswer>('raw-pg-writer.ts', 'raw pg baseline', { op: 'close' });
}
