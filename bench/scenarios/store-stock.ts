import { API, expectStatus, tempDir, type BenchApp } from '../lib/app.js';
import { picker } from '../lib/data.js';
import { compareThroughput } from '../lib/http.js';
import { profileOnce } from '../lib/profile.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { median, timed } from '../lib/stats.js';
import {
  REASON, STOCK_LOCATIONS, STOCK_STORE, StockClock, productNumber, startStockApp, stockBody, stockEntries, timedStockPost, type StockEntry,
} from '../lib/stock.js';

// ---------------------------------------------------------------- one product

const SINGLE = 'stock.single.get';
const SINGLE_PRODUCTS = 2_000;
const SINGLE_PRODUCT = productNumber(0);
const SINGLE_PATH = `${API}/stores/${STOCK_STORE}/products/${SINGLE_PRODUCT}/stock`;
const SINGLE_QUERY = '?include_locations=true';

/** The product read: stock at every location and unlocated, in two pools, after a history of changes. */
function singleProductHistory(clock: StockClock): StockEntry[] {
  const p = picker(11);
  const entry = (location_code: string | undefined, quantity: number, extra: Partial<StockEntry> = {}): StockEntry => ({
    product_number: SINGLE_PRODUCT,
    quantity,
    customer_order_line_number: 0,
    modification_datetime: clock.next(p),
    ...(location_code === undefined ? {} : { location_code }),
    ...extra,
  });
  return [
    entry(undefined, 48),
    ...STOCK_LOCATIONS.map((l) => entry(l.location_code, 24)),
    entry(STOCK_LOCATIONS[0].location_code, 6, { pool_location: 2 }),
    entry(STOCK_LOCATIONS[1].location_code, 3, { reason_code: REASON.loss }),
    entry(undefined, -5),
  ];
}

/** Issue 5: the single-product stock read (the handheld's most frequent call) ≥ 0.4 × serving its bytes. */
export const stockSingleGet: Scenario = {
  name: SINGLE,
  description:
    `GET ${API}/stores/{s}/products/{p}/stock${SINGLE_QUERY} over HTTP (autocannon) for a product with stock at 4 locations and unlocated, ` +
    `in 2 pools, in a store of ${SINGLE_PRODUCTS} products with a stock history, against a bare Fastify route serving the same response bytes`,
  unit: 'req/s',
  valueLabel: 'app',
  baselineLabel: 'bare fastify, same bytes',
  target: { ratio: 0.4, comparison: '>=', description: 'app throughput ≥ 0.4 × a bare Fastify route serving the same JSON bytes' },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-single'), (t) => t.remove());
      const bench = await startStockApp(resources, SINGLE_PRODUCTS, temp.dir, 'app');
      const clock = new StockClock();
      const history = stockEntries(picker(7), clock, 1_000, SINGLE_PRODUCTS);
      await timedStockPost(bench, stockBody(history), history.length);
      const own = singleProductHistory(clock);
      await timedStockPost(bench, stockBody(own), own.length);
      const answer = expectStatus(await bench.inject('GET', `${SINGLE_PATH}${SINGLE_QUERY}`), 200, 'reading the product stock once');
      const locations = (answer.json() as { products: Array<{ store_locations?: unknown[] }> }).products[0]?.store_locations ?? [];
      if (locations.length < STOCK_LOCATIONS.length + 1) throw new Error(`the product reads back ${locations.length} location lines, expected ${STOCK_LOCATIONS.length + 1} or more`);
      return compareThroughput(resources, { name: SINGLE, bench, path: SINGLE_PATH, query: SINGLE_QUERY, bytes: answer.rawPayload });
    }),
};

// ---------------------------------------------------------------- the list, deep by scroll_id

const SCROLL = 'stock.list.scroll';
const SCROLL_PRODUCTS = 50_000;
const PAGE_SIZE = 100;
const DEEP_PAGE = 500;
const SEED_BATCH = 10_000;
const LIST_PATH = `${API}/storeproducts/stock`;
const LIST_QUERY = `?store_number=${STOCK_STORE}&page_size=${PAGE_SIZE}&include_locations=true`;
/** Requests of each page per run, alternating page 1 and the deep page; the run's figures are their medians. */
const REQUESTS_PER_RUN = 8;

interface Page {
  page_start: number;
  total_count: number;
  list: Array<{ id: number; product_number?: string; store_locations?: unknown[] }>;
  scroll_id: string | null;
}

async function readPage(bench: BenchApp, url: string, what: string): Promise<{ ms: number; page: Page }> {
  const { ms, result } = await timed(() => bench.inject('GET', url));
  expectStatus(result, 200, what);
  return { ms, page: result.json() as Page };
}

/**
 * Every product of the store gets stock through the ledger: one entry each, in product
 * order, located at one of the four locations or (a fifth) unlocated, posted in requests
 * of 10,000 entries.
 */
async function stockEveryProduct(bench: BenchApp): Promise<void> {
  const p = picker(13);
  const clock = new StockClock();
  for (let from = 0; from < SCROLL_PRODUCTS; from += SEED_BATCH) {
    const entries = Array.from({ length: Math.min(SEED_BATCH, SCROLL_PRODUCTS - from) }, (_, i): StockEntry => {
      const entry: StockEntry = { product_number: productNumber(from + i), quantity: p.int(1, 48), customer_order_line_number: 0, modification_datetime: clock.next(p) };
      if (!p.chance(0.2)) entry.location_code = p.pick(STOCK_LOCATIONS).location_code;
      return entry;
    });
    await timedStockPost(bench, stockBody(entries), entries.length);
  }
}

/** Issue 5: page 500 of the stock list by scroll_id costs what page 1 does (keyset paging, PRODUCT §3.1). */
export const stockListScroll: Scenario = {
  name: SCROLL,
  description:
    `GET ${LIST_PATH}${LIST_QUERY.replace(STOCK_STORE, '…')} (app.inject) on a store with ${SCROLL_PRODUCTS} store products with stock ` +
    `(seeded through POST …/storeproductlogs in requests of ${SEED_BATCH} entries): page ${DEEP_PAGE} by the scroll_id a client walking the ` +
    `pages gets (walked once, untimed) against page 1; ${REQUESTS_PER_RUN} requests of each per run, alternating, median latency of each`,
  unit: 'ms',
  valueLabel: `page ${DEEP_PAGE}`,
  baselineLabel: 'page 1',
  target: { ratio: 1.5, comparison: '<=', description: `page ${DEEP_PAGE} by scroll_id ≤ 1.5 × the latency of page 1` },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-scroll'), (t) => t.remove());
      const bench = await startStockApp(resources, SCROLL_PRODUCTS, temp.dir, 'app');
      await stockEveryProduct(bench);

      const firstUrl = `${LIST_PATH}${LIST_QUERY}`;
      const first = (await readPage(bench, firstUrl, 'page 1')).page;
      if (first.total_count !== SCROLL_PRODUCTS || first.list.length !== PAGE_SIZE) {
        throw new Error(`page 1 says ${first.total_count} store products and holds ${first.list.length}, expected ${SCROLL_PRODUCTS} and ${PAGE_SIZE}`);
      }
      // Walk as a client does: each page's scroll_id fetches the next one.
      let cursor = first.scroll_id;
      for (let number = 2; number < DEEP_PAGE; number++) {
        if (cursor === null) throw new Error(`page ${number - 1} gives no scroll_id`);
        cursor = (await readPage(bench, `${firstUrl}&scroll_id=${cursor}`, `walking to page ${number}`)).page.scroll_id;
      }
      if (cursor === null) throw new Error(`page ${DEEP_PAGE - 1} gives no scroll_id`);
      const deepUrl = `${firstUrl}&scroll_id=${cursor}`;
      const deep = (await readPage(bench, deepUrl, `page ${DEEP_PAGE}`)).page;
      if (deep.page_start !== DEEP_PAGE || deep.list.length !== PAGE_SIZE || deep.list[0]?.product_number !== productNumber((DEEP_PAGE - 1) * PAGE_SIZE)) {
        throw new Error(`the cursor reads page ${deep.page_start} starting at ${deep.list[0]?.product_number}, expected page ${DEEP_PAGE} starting at ${productNumber((DEEP_PAGE - 1) * PAGE_SIZE)}`);
      }
      // Untimed warm-up of both requests (JIT, SQLite page cache).
      for (let i = 0; i < 3; i++) {
        await readPage(bench, firstUrl, 'page 1');
        await readPage(bench, deepUrl, `page ${DEEP_PAGE}`);
      }

      return {
        async measure(run) {
          const firstMs: number[] = [];
          const deepMs: number[] = [];
          // Profiled as a whole (a single request is too short to show anything): both pages.
          await profileOnce(SCROLL, async () => {
            for (let i = 0; i < REQUESTS_PER_RUN; i++) {
              // Alternate who goes first, so a drift in machine speed favours neither page.
              if ((run + i) % 2 === 1) firstMs.push((await readPage(bench, firstUrl, 'page 1')).ms);
              deepMs.push((await readPage(bench, deepUrl, `page ${DEEP_PAGE}`)).ms);
              if ((run + i) % 2 === 0) firstMs.push((await readPage(bench, firstUrl, 'page 1')).ms);
            }
          });
          return { value: median(deepMs), baseline: median(firstMs) };
        },
        close: () => resources.release(),
      };
    }),
};
