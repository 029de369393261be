/**
 * The raw write baseline's process (baselines/raw-writer.ts), forked once per scenario and
 * driven by messages: the timings are taken inside it, so sending a body to it costs the
 * baseline nothing, as the bytes on the wire to the service are not what its figure holds
 * either — both start from the body's text.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawWriterAnswer, RawWriterRequest } from '../baselines/raw-writer.js';
import { killOnExit, REPO_ROOT, terminate } from './processes.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'baselines', 'raw-writer.ts');

export interface RawWriter {
  send(request: RawWriterRequest): Promise<RawWriterAnswer>;
  /** Opens a fresh file with plain tables; refuses to go on unless SQLite took the synchronous mode asked for. */
  open(request: Extract<RawWriterRequest, { op: 'open' }>): Promise<void>;
  /** A timed operation: its milliseconds. */
  timed(request: RawWriterRequest): Promise<number>;
  stop(): Promise<void>;
}

export function startRawWriter(): RawWriter {
  const child = fork(SCRIPT, [], { cwd: REPO_ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
  killOnExit(child);
  let nextId = 0;
  const pending = new Map<number, (answer: RawWriterAnswer) => void>();
  child.on('message', (message: RawWriterAnswer & { id: number }) => {
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  child.on('exit', (code) => {
    for (const settle of pending.values()) settle({ error: `raw writer exited (${code})` });
    pending.clear();
  });
  const send = async (request: RawWriterRequest) => {
    const id = nextId++;
    const answer = await new Promise<RawWriterAnswer>((resolve) => {
      pending.set(id, resolve);
      child.send({ id, request });
    });
    if (answer.error !== undefined) throw new Error(`raw baseline (${request.op}): ${answer.error}`);
    return answer;
  };
  return {
    send,
    async open(request) {
      const { synchronous } = await send(request);
      if (synchronous !== request.synchronous) throw new Error(`raw baseline runs with synchronous=${synchronous}, the service with ${request.synchronous}`);
    },
    async timed(request) {
      const answer = await send(request);
      if (answer.ms === undefined) throw new Error(`raw baseline (${request.op}) reported no time`);
      return answer.ms;
    },
    stop: async () => {
      if (child.connected) await send({ op: 'close' }).catch(() => undefined);
      child.disconnect?.();
      await terminate(child, 2_000);
    },
  };
}
