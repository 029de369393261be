import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * `npm run bench -- <filter> --profile`: a V8 CPU profile of the application side of the
 * first measured run of each scenario (main thread only; autocannon runs in a worker, so
 * the profile holds the server's work). Profiling slows the run down, so a profiled
 * bench does not write results.
 */
let profileDir: string | undefined;
const profiled = new Set<string>();
const written: string[] = [];

export function enableProfiling(): string {
  profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-bench-profiles-'));
  return profileDir;
}

export function isProfiling(): boolean {
  return profileDir !== undefined;
}

export function writtenProfiles(): readonly string[] {
  return written;
}

/** Runs `work`; when profiling is on and `label` was not profiled yet, records its CPU profile. */
export async function profileOnce<T>(label: string, work: () => Promise<T>): Promise<T> {
  if (profileDir === undefined || profiled.has(label)) return work();
  profiled.add(label);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // 100 µs instead of the default 1 ms: a single request of a few ms still gives a picture.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const file = path.join(profileDir, `${label}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    written.push(file);
  }
}
