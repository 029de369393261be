import { call, expectStatus, postOk } from '../lib/client.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API, startService, type Service } from '../lib/service.js';
import { timed } from '../lib/stats.js';

// The most lines one request may carry (PRODUCT §3 bulk limit, docs/decisions.md External counting).
const NAME = 'counting.external.10k';
const LINES = 10_000;
const PRODUCTS = 9_000;
const STORE = 'EC1';
/** A stock log request holds at most 10,000 entries (BulkArray): the resolved counts go in two. */
const MAX_ENTRIES = 10_000;

/**
 * Every count is later than every count before it (in each run the side going first counts
 * at the even hour, the other at the odd hour after), so neither side books a late count.
 */
const BASE = Date.now() - 2 * 86_400_000;
const countingMoment = (run: number, side: 0 | 1) => new Date(BASE + (2 * run + side) * 3_600_000).toISOString();

/** Product i has barcode 870…i and a tray barcode 876…i counting 6. */
const barcode = (i: number) => `870${String(i).padStart(9, '0')}`;
const trayBarcode = (i: number) => `876${String(i).padStart(9, '0')}`;

async function seed(baseUrl: string): Promise<void> {
  await postOk(
    baseUrl,
    `${API}/stores`,
    {
      stores: [
        {
          store_number: STORE,
          store_name: 'Counted',
          is_active: true,
          is_active_data_exchange: true,
          is_warehouse: false,
        },
      ],
    },
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
    await postOk(baseUrl, `${API}/products`, { products }, 'seed products');
  }
}

/** 10,000 lines: 10% unit (tray) barcodes, 1% unknown barcodes, some products scanned twice. */
function countingBody(run: number, moment: string): string {
  const lines = Array.from({ length: LINES }, (_, i) => {
    if (i % 100 === 99) return { product_barcode: `999${run}${i}`, counted_quantity: 1 };
    const product = i % PRODUCTS;
    return { product_barcode: i % 10 === 3 ? trayBarcode(product) : barcode(product), counted_quantity: (i % 7) + 1 };
  });
  return JSON.stringify({ CountingDateTime: moment, StoreNo: STORE, Lines: lines });
}

/** The same products counted through the stock log endpoint: one count per product, already resolved, in requests of ≤ 10,000. */
function directCountsBodies(moment: string): string[] {
  const totals = new Map<number, number>();
  for (let i = 0; i < LINES; i++) {
    if (i % 100 === 99) continue;
    const product = i % PRODUCTS;
    totals.set(product, (totals.get(product) ?? 0) + ((i % 7) + 1) * (i % 10 === 3 ? 6 : 1));
  }
  const at = moment;
  const entries = [...totals].map(([product, quantity]) => ({
    product_number: `EC-${product}`,
    quantity,
    customer_order_line_number: 0,
    modification_datetime: at,
  }));
  const bodies: string[] = [];
  for (let from = 0; from < entries.length; from += MAX_ENTRIES)
    bodies.push(JSON.stringify({ storeproductlog: entries.slice(from, from + MAX_ENTRIES) }));
  return bodies;
}

/** Peak resident memory of the service process while `work` runs, sampled every 5 ms from /proc. */
async function withPeakRss<T>(service: Service, work: () => Promise<T>): Promise<{ result: T; peakRssMb: number }> {
  let peak = service.rssMb();
  const timer = setInterval(() => (peak = Math.max(peak, service.rssMb())), 5);
  try {
    const result = await work();
    peak = Math.max(peak, service.rssMb());
    return { result, peakRssMb: peak };
  } finally {
    clearInterval(timer);
  }
}

/** Issue 6: external counting of 10,000 scans in one request — lines/s and peak RSS, reported. */
export const externalCounting: Scenario = {
  name: NAME,
  description:
    'POST /externalcountinglines with 10,000 lines (10% unit barcodes, 1% unknown) in one request, vs the same per-product counts ' +
    'posted already resolved to POST …/storeproductlogs?is_counted_quantity=true (one count per product, requests of ≤ 10,000); ' +
    "over HTTP, same service and database, every count later than the ones before; lines/s and the service process's peak RSS during the request reported",
  unit: 'ms',
  valueLabel: 'external counting',
  baselineLabel: 'resolved counts via storeproductlogs',
  baselineKind: 'service',
  defaultRuns: 5,
  target: {
    ratio: 2,
    comparison: '<=',
    description: 'resolving 10,000 scans costs at most 2 × posting the resolved counts',
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('external-counting'), (t) => t.remove());
      const service = resources.add(await startService(temp.dir, 'service'), (s) => s.stop());
      await seed(service.baseUrl);
      const external = async (run: number, moment: string) => {
        const body = countingBody(run, moment);
        const { result, peakRssMb } = await withPeakRss(service, () =>
          timed(() => call(service.baseUrl, 'POST', `${API}/externalcountinglines`, body)),
        );
        expectStatus(result.result, 200, 'POST /externalcountinglines');
        return { ms: result.ms, peakRssMb };
      };
      const resolved = async (moment: string) => {
        let ms = 0;
        for (const body of directCountsBodies(moment)) {
          const posted = await timed(() =>
            call(
              service.baseUrl,
              'POST',
              `${API}/stores/${STORE}/products/stock/storeproductlogs?is_counted_quantity=true`,
              body,
            ),
          );
          expectStatus(posted.result, 200, 'POST storeproductlogs (counts)');
          ms += posted.ms;
        }
        return ms;
      };
      return {
        async measure(run) {
          // Alternate who goes first, so a drift in machine speed favours neither side.
          const externalFirst = run % 2 === 0;
          const baselineFirst = externalFirst ? undefined : await resolved(countingMoment(run, 0));
          const counted = await external(run, countingMoment(run, externalFirst ? 0 : 1));
          const baseline = baselineFirst ?? (await resolved(countingMoment(run, 1)));
          return {
            value: counted.ms,
            baseline,
            extra: {
              'lines/s': Math.round(LINES / (counted.ms / 1000)),
              'service RSS peak during request MB': Math.round(counted.peakRssMb),
              'service peak RSS MB': service.peakRssMb(),
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
