import { postStock } from '../test/faults/stock-posts.js';

// The short stock-write load both operations scripts measure with (ha-drill.ts --bench,
// pgbouncer-bench.ts): one client per store, each posting `lines`-entry requests for a while.

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

export const percentile = (xs: readonly number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
};

export interface WriteLoad {
  token: string;
  /** One client per store: client i posts to stores[i], on baseUrlOf(i). */
  stores: readonly string[];
  products: readonly string[];
  baseUrlOf(client: number): string;
  lines: number;
  seconds: number;
  /** Makes each request's reference unique across runs. */
  tag: string;
}

/** Entries/s and commits/s over the time to the last answer, latency p50/p99, non-2xx answers. */
export async function runWriteLoad(load: WriteLoad) {
  const startedAt = Date.now();
  const until = startedAt + load.seconds * 1000;
  const latencies: number[] = [];
  let entries = 0;
  let failures = 0;
  let n = 0;
  await Promise.all(
    load.stores.map(async (store, i) => {
      while (Date.now() < until) {
        const outcome = await postStock(load.baseUrlOf(i), {
          token: load.token,
          store,
          reference: `${load.tag}-${n++}`,
          products: load.products,
          lines: load.lines,
          timeoutMillis: 30_000,
        });
        if (outcome.status === 200) {
          entries += load.lines;
          latencies.push(outcome.endedAt - outcome.startedAt);
        } else failures++;
      }
    }),
  );
  const elapsed = (Date.now() - startedAt) / 1000;
  return {
    entriesPerSecond: entries / elapsed,
    commitsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
  };
}
