/**
 * Process plumbing shared by the service, the baseline servers and the raw writers: free
 * ports, process trees, resident memory from /proc, and stopping a child for certain.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Parent pid of every live process (Linux /proc). */
function parentsByPid(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // the process ended while we looked
    }
  }
  return parents;
}

/**
 * The process that serves, among `pid`'s descendants: `npm start` runs
 * `exec tsx --min-semi-space-size=16 src/server.ts`, and tsx starts the server as a child of its own. Of that
 * chain (npm, tsx, server) the server is the one holding the app: the largest resident set.
 */
export function servingDescendant(pid: number): number {
  const parents = parentsByPid();
  const descendants: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const [child, parent] of parents) {
      if (parent === current) {
        descendants.push(child);
        queue.push(child);
      }
    }
  }
  if (descendants.length === 0) return pid;
  return descendants.reduce((best, candidate) =>
    (statusMb(candidate, 'VmRSS') ?? 0) > (statusMb(best, 'VmRSS') ?? 0) ? candidate : best,
  );
}

/** A field of /proc/<pid>/status in MB (VmRSS: now; VmHWM: the peak so far), undefined once the process is gone. */
export function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

const isAlive = (pid: number) => fs.existsSync(`/proc/${pid}`);

/**
 * SIGTERM to the child (npm forwards it to the script, tsx to the server), then wait for
 * the child and for `alsoWaitFor` (the serving process) to end; SIGKILL to the child's
 * whole process group after `graceMs` (children are spawned detached, so the group is
 * theirs alone and holds nothing of the bench).
 */
export async function terminate(child: ChildProcess, graceMs = 6_000, alsoWaitFor?: number): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => killGroup(child), graceMs);
    await exited(child);
    clearTimeout(timer);
  }
  const deadline = Date.now() + graceMs;
  while (alsoWaitFor !== undefined && isAlive(alsoWaitFor) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  // Nothing of the group may keep a port or a file open past this point.
  killGroup(child);
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

const children = new Set<ChildProcess>();
let cleanupInstalled = false;

/** Kills `child`'s group if the bench exits without stopping it (a crash, Ctrl-C). */
export function killOnExit(child: ChildProcess): void {
  if (!cleanupInstalled) {
    cleanupInstalled = true;
    process.once('exit', () => {
      for (const running of children) killGroup(running);
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        for (const running of children) killGroup(running);
        // The listener is gone now: the same signal again takes its default course.
        process.kill(process.pid, signal);
      });
    }
  }
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Collects a child's output (the last 20 kB), for the reason of a failure. */
export function outputOf(child: ChildProcess): () => string {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => output;
}

/** Polls `url` until it answers 200, the child exits or `timeoutMs` passes. */
export async function waitForOk(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`process exited before ${url} answered: ${output().slice(-2000)}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s: ${output().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A directory for one scenario's files, removed by the returned function. */
export function tempDir(label: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `store-ops-bench-${label}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
