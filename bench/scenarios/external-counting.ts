import { API, expectStatus, startBenchApp, tempDir, type BenchApp } from '../lib/app.js';
import type { Scenario, Session } from '../lib/scenario.js';
import { timed } from '../lib/stats.js';

const LINES = 20_000;
const PRODUCTS = 18_000;
const STORE = 'EC1';

/** Product i has barcode 870…i and a tray barcode 876…i counting 6. */
const barcode = (i: number) => `870${String(i).padStart(9, '0')}`;
const trayBarcode = (i: number) => `876${String(i).padStart(9, '0')}`;

async function seed(bench: BenchApp): Promise<void> {
  expectStatus(
    await bench.inject('POST', `${API}/stores`, JSON.stringify({ stores: [{ store_number: STORE, store_name: 'Counted', is_active: true, is_active_data_exchange: true, is_warehouse: false }] })),
    200,
    'seed store',
  );
  for (let from = 0; from < PRODUCTS; from += 9_000) {
    const products = Array.from({ length: Math.min(9_000, PRODUCTS - from) }, (_, k) => {
      const i = from + k;
      return {
        product_number: `EC-${i}`,
        product_name: `Counted product ${i}`,
        carrier_item_quantity: 1,
        is_counted: true,
        price_compare_multiplier: 1,
        barcode: barcode(i),
        units: [{ unit_barcode: trayBarcode(i), unit_name: 'tray', unit_quantity: 6 }],
      };
    });
    expectStatus(await bench.inject('POST', `${API}/products`, JSON.stringify({ products })), 200, 'seed products');
  }
}

/** 20,000 lines: 10% unit (tray) barcodes, 1% unknown barcodes, some products scanned twice. */
function countingBody(run: number): string {
  const lines = Array.from({ length: LINES }, (_, i) => {
    if (i % 100 === 99) return { product_barcode: `999${run}${i}`, counted_quantity: 1 };
    const product = i % PRODUCTS;
    return { product_barcode: i % 10 === 3 ? trayBarcode(product) : barcode(product), counted_quantity: (i % 7) + 1 };
  });
  return JSON.stringify({ CountingDateTime: new Date(Date.UTC(2026, 5, 1, run)).toISOString(), StoreNo: STORE, Lines: lines });
}

/** The same products counted through the stock log endpoint: one count per product, already resolved. */
function directCountsBody(run: number): string {
  const totals = new Map<number, number>();
  for (let i = 0; i < LINES; i++) {
    if (i % 100 === 99) continue;
    const product = i % PRODUCTS;
    totals.set(product, (totals.get(product) ?? 0) + ((i % 7) + 1) * (i % 10 === 3 ? 6 : 1));
  }
  const at = new Date(Date.UTC(2026, 6, 1, run)).toISOString();
  const entries = [...totals].map(([product, quantity]) => ({ product_number: `EC-${product}`, quantity, customer_order_line_number: 0, modification_datetime: at }));
  return JSON.stringify({ storeproductlog: entries });
}

/** Peak resident memory while `work` runs, sampled every 5 ms. */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, peakRssMb: peak / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

export const externalCounting: Scenario = {
  name: 'counting.external.20k',
  description:
    'POST /externalcountinglines with 20,000 lines (10% unit barcodes, 1% unknown) in one request, vs the same per-product counts ' +
    'posted already resolved to POST …/storeproductlogs?is_counted_quantity=true (one count per product); lines/s and peak RSS reported',
  unit: 'ms',
  valueLabel: 'external counting',
  baselineLabel: 'resolved counts via storeproductlogs',
  target: { ratio: 2, comparison: '<=', description: 'resolving 20,000 scans costs at most 2 × posting the resolved counts' },
  async prepare(): Promise<Session> {
    const dir = tempDir('external-counting');
    const bench = await startBenchApp(dir.dir, 'counting');
    try {
      await seed(bench);
    } catch (error) {
      await bench.close();
      dir.remove();
      throw error;
    }
    return {
      async measure(run) {
        const counting = countingBody(run);
        const direct = directCountsBody(run);
        const external = await withPeakRss(() =>
          timed(() => bench.inject('POST', `${API}/externalcountinglines`, counting)),
        );
        expectStatus(external.result.result, 200, 'POST /externalcountinglines');
        const baseline = await timed(() => bench.inject('POST', `${API}/stores/${STORE}/products/stock/storeproductlogs?is_counted_quantity=true`, direct));
        expectStatus(baseline.result, 200, 'POST storeproductlogs (counts)');
        return {
          value: external.result.ms,
          baseline: baseline.ms,
          extra: { 'lines/s': Math.round(LINES / (external.result.ms / 1000)), 'peak RSS MB': Math.round(external.peakRssMb) },
        };
      },
      async close() {
        await bench.close();
        dir.remove();
      },
    };
  },
};
