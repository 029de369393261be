/**
 * `npm run soak` (issue 40 item 8, outside CI): the service started by `npm start` in its own
 * process, a store chain's mixed load against it for minutes (scripts/lib/mixed-load.ts), and
 * once a minute its resident memory and its heap used (from its own /metrics) with the minute's
 * floor (the lowest of 5-second polls: heap used just after a collection). At the end the
 * medians by quarter and each quarter's floor, so a service that grows under steady load shows it; `verify` must be
 * clean and no answer may be a 5xx.
 *
 *   npm run soak -- --minutes 10 --clients 12 --database postgres [--heap-snapshots]
 *
 * --database: `postgres` (a fresh schema on TEST_DATABASE_URL or the local PostgreSQL, dropped
 * afterwards), `sqlite` (a temporary file) or a DATABASE_URL. --heap-snapshots starts the
 * service with --heapsnapshot-signal=SIGUSR2 and takes a snapshot after warm-up and one at
 * the end (into $TMPDIR/store-ops-soak-snapshots/), to compare in Chromium's DevTools (Memory → Load) or with
 * `npm run soak -- --compare A.heapsnapshot B.heapsnapshot` (what grew, by constructor).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { verifyAll } from '../src/verify.js';
import { tempDir } from '../bench/lib/processes.js';
import { startServiceAt } from '../bench/lib/service.js';
import { sharedDatabaseConfig } from '../test/helpers/server-process.js';
import { compareSnapshots } from './lib/heap-compare.js';
import { MIXED_TOKEN, mixedStores, seedMixed, startMixedLoad, type MixedAnswer } from './lib/mixed-load.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    clients: { type: 'string', default: '12' },
    database: { type: 'string', default: 'postgres' },
    products: { type: 'string', default: '2000' },
    stores: { type: 'string', default: '4' },
    'sample-seconds': { type: 'string', default: '60' },
    'heap-snapshots': { type: 'boolean', default: false },
    compare: { type: 'string', multiple: true },
  },
  allowPositionals: true,
});

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function heapUsedMb(baseUrl: string): Promise<number> {
  const text = await fetch(`${baseUrl}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  const match = /^nodejs_heap_size_used_bytes\s+([\d.e+]+)/m.exec(text);
  return match ? Number(match[1]) / 1024 / 1024 : Number.NaN;
}

async function database(choice: string): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (choice === 'sqlite') {
    const temp = tempDir('soak');
    return { url: `sqlite:${path.join(temp.dir, 'soak.sqlite')}`, cleanup: async () => temp.remove() };
  }
  if (choice !== 'postgres') return { url: choice, cleanup: async () => undefined };
  const base = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const schema = `soak_${randomBytes(4).toString('hex')}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

async function snapshot(pid: number, dir: string, label: string): Promise<string | undefined> {
  const before = new Set(fs.readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 120_000; waited += 500) {
    await pause(500);
    const made = fs.readdirSync(dir).filter((name) => !before.has(name) && name.endsWith('.heapsnapshot'));
    // Written in one go by V8: done once its size stops changing.
    if (made.length > 0) {
      const file = path.join(dir, made[0]!);
      const size = fs.statSync(file).size;
      await pause(1_000);
      if (fs.statSync(file).size === size) {
        const named = path.join(dir, `${label}-${made[0]!}`);
        fs.renameSync(file, named);
        return named;
      }
    }
  }
  return undefined;
}

async function main(): Promise<void> {
  if (args.compare !== undefined) {
    if (args.compare.length !== 2) throw new Error('--compare takes two snapshot files: --compare A --compare B');
    process.stdout.write(compareSnapshots(args.compare[0]!, args.compare[1]!));
    return;
  }
  const minutes = Number(args.minutes);
  const clients = Number(args.clients);
  const sampleMs = Number(args['sample-seconds']) * 1000;
  const stores = mixedStores(Number(args.stores));
  const products = Number(args.products);
  const db = await database(args.database!);
  const snapshotDir = path.join(os.tmpdir(), 'store-ops-soak-snapshots');
  if (args['heap-snapshots']) fs.mkdirSync(snapshotDir, { recursive: true });
  const env: Record<string, string> = args['heap-snapshots']
    ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}` }
    : {};
  const service = await startServiceAt(db.url, db.url, env);
  let polling = false;
  try {
    process.stdout.write(
      `soak: ${minutes} min, ${clients} clients, ${stores.length} stores × ${products} products, ${args.database}; service pid ${service.pid}\n`,
    );
    await seedMixed(service.baseUrl, { stores, products });
    const counts = { requests: 0, fiveHundreds: 0, noAnswer: 0, byStatus: new Map<string, number>() };
    const fiveHundredSamples: string[] = [];
    const load = startMixedLoad({
      target: () => service.baseUrl,
      token: MIXED_TOKEN,
      clients,
      stores,
      products,
      keep: false,
      importShare: 0.001,
      onAnswer: (answer: MixedAnswer) => {
        counts.requests++;
        const key = `${answer.kind} ${answer.status}`;
        counts.byStatus.set(key, (counts.byStatus.get(key) ?? 0) + 1);
        if (answer.status === 'no answer') counts.noAnswer++;
        else if (answer.status >= 500) {
          counts.fiveHundreds++;
          if (fiveHundredSamples.length < 5)
            fiveHundredSamples.push(`${answer.method} ${answer.path}: ${answer.status} ${answer.text}`);
        }
      },
    });
    const samples: Array<{ minute: number; rss: number; heap: number; floor: number }> = [];
    // Heap used between collections swings with the garbage of the moment; its lowest reading
    // over a minute of 5-second polls (just after a collection) follows the live heap.
    let floor = Number.POSITIVE_INFINITY;
    polling = true;
    const poller = (async () => {
      while (polling) {
        const heap = await heapUsedMb(service.baseUrl);
        if (Number.isFinite(heap)) floor = Math.min(floor, heap);
        await pause(5_000);
      }
    })();
    const started = Date.now();
    const end = started + minutes * 60_000;
    const warmUpAt = started + Math.min(2 * 60_000, (minutes * 60_000) / 4);
    let warmSnapshot: Promise<string | undefined> | undefined;
    let lastRequests = 0;
    while (Date.now() < end) {
      await pause(Math.min(sampleMs, end - Date.now()));
      const heap = await heapUsedMb(service.baseUrl);
      const sample = {
        minute: (Date.now() - started) / 60_000,
        rss: service.rssMb(),
        heap,
        floor: Math.min(floor, heap),
      };
      floor = Number.POSITIVE_INFINITY;
      samples.push(sample);
      process.stdout.write(
        `${sample.minute.toFixed(1).padStart(5)} min  rss ${sample.rss.toFixed(0).padStart(4)} MB  heap used ${sample.heap.toFixed(1).padStart(6)} MB  ` +
          `floor ${sample.floor.toFixed(1).padStart(6)} MB  ` +
          `requests ${counts.requests} (+${counts.requests - lastRequests})  5xx ${counts.fiveHundreds}\n`,
      );
      lastRequests = counts.requests;
      if (!fs.existsSync(`/proc/${service.pid}`)) {
        const lines = service.output().split('\n');
        throw new Error(
          `the service exited:\n${lines
            .filter((line) => !/database (unavailable|busy)/.test(line))
            .slice(-40)
            .join('\n')
            .slice(-8000)}`,
        );
      }
      if (args['heap-snapshots'] && warmSnapshot === undefined && Date.now() >= warmUpAt)
        warmSnapshot = snapshot(service.pid, snapshotDir, 'warm');
    }
    polling = false;
    await poller;
    await load.stop();
    const warm = await warmSnapshot;
    const last = args['heap-snapshots'] ? await snapshot(service.pid, snapshotDir, 'end') : undefined;

    const quarterOf = (minute: number) => Math.min(3, Math.floor((minute / minutes) * 4 - 1e-9));
    const quarters = [0, 1, 2, 3].map((q) => samples.filter((s) => quarterOf(s.minute) === q));
    process.stdout.write(`\nby quarter (median of the minutes; floor: the quarter's lowest heap used):\n`);
    quarters.forEach((q, i) =>
      process.stdout.write(
        `  Q${i + 1}: rss ${median(q.map((s) => s.rss)).toFixed(0)} MB, heap used ${median(q.map((s) => s.heap)).toFixed(1)} MB, ` +
          `heap floor ${Math.min(...q.map((s) => s.floor)).toFixed(1)} MB (${q.length} samples)\n`,
      ),
    );
    process.stdout.write(`requests ${counts.requests}, 5xx ${counts.fiveHundreds}, unanswered ${counts.noAnswer}\n`);
    for (const line of fiveHundredSamples) process.stdout.write(`  5xx: ${line}\n`);
    process.stdout.write(
      `answers: ${[...counts.byStatus]
        .sort()
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ')}\n`,
    );
    if (warm && last)
      process.stdout.write(
        `heap snapshots: ${warm}\n                ${last}\n  compare: npm run soak -- --compare ${warm} --compare ${last}\n`,
      );

    const audit = await buildApp(sharedDatabaseConfig(db.url, MIXED_TOKEN));
    try {
      const problems = await verifyAll(audit.ctx.handle);
      process.stdout.write(`verify: ${problems.length === 0 ? 'clean' : JSON.stringify(problems).slice(0, 2000)}\n`);
      if (problems.length > 0 || counts.fiveHundreds > 0) process.exitCode = 1;
    } finally {
      await audit.close();
    }
  } finally {
    polling = false;
    await service.stop();
    await db.cleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
