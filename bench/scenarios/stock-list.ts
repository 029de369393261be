import { startStockPageFloor } from '../lib/baseline-servers.js';
import { getOk } from '../lib/client.js';
import { picker } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API } from '../lib/service.js';
import { median, timed } from '../lib/stats.js';
import {
  STOCK_LOCATIONS,
  STOCK_STORE,
  StockClock,
  productNumber,
  startStockService,
  stockBody,
  timedStockPost,
  type StockEntry,
} from '../lib/stock.js';
import { measureRound, warmUp, type ThroughputPair } from '../lib/throughput.js';

const SCROLL = 'stock.list.scroll';
const PAGES = 'stock.list.pages';
const PRODUCTS = 50_000;
const PAGE_SIZE = 100;
const DEEP_PAGE = 500;
const SEED_BATCH = 10_000;
const LIST_PATH = `${API}/storeproducts/stock`;
const LIST_QUERY = `?store_number=${STOCK_STORE}&page_size=${PAGE_SIZE}&include_locations=true`;
/** Requests of page 1 and of the deep page per run, in turn; the run's figures are their medians. */
const REQUESTS_PER_RUN = 8;
/** The throughput pair asks every 5th page of the walk in turn (100 pages): no per-URL cache can decide the figure. */
const ROTATION_STEP = 5;

interface Page {
  page_start: number;
  total_count: number;
  list: Array<{ id: number; product_number?: string; store_locations?: unknown[] }>;
  scroll_id: string | null;
}

async function readPage(baseUrl: string, url: string, what: string): Promise<{ ms: number; page: Page }> {
  const { ms, result } = await timed(() => getOk(baseUrl, url, what));
  return { ms, page: result.json<Page>() };
}

/**
 * Every product of the store gets stock through the ledger over HTTP: one entry each, in
 * product order, located at one of the four locations or (a fifth) unlocated, posted in
 * requests of 10,000 entries.
 */
async function stockEveryProduct(baseUrl: string): Promise<void> {
  const p = picker(13);
  const clock = new StockClock();
  for (let from = 0; from < PRODUCTS; from += SEED_BATCH) {
    const entries = Array.from({ length: Math.min(SEED_BATCH, PRODUCTS - from) }, (_, i): StockEntry => {
      const entry: StockEntry = {
        product_number: productNumber(from + i),
        quantity: p.int(1, 48),
        customer_order_line_number: 0,
        modification_datetime: clock.next(p),
      };
      if (!p.chance(0.2)) entry.location_code = p.pick(STOCK_LOCATIONS).location_code;
      return entry;
    });
    await timedStockPost(baseUrl, stockBody(entries), entries.length);
  }
}

/** Walks the list as a client does, each page's scroll_id fetching the next: the URL and first id of pages 1…DEEP_PAGE. */
async function walkPages(baseUrl: string): Promise<Array<{ url: string; firstId: number }>> {
  const firstUrl = `${LIST_PATH}${LIST_QUERY}`;
  const first = (await readPage(baseUrl, firstUrl, 'page 1')).page;
  if (first.total_count !== PRODUCTS || first.list.length !== PAGE_SIZE) {
    throw new Error(
      `page 1 says ${first.total_count} store products and holds ${first.list.length}, expected ${PRODUCTS} and ${PAGE_SIZE}`,
    );
  }
  const pages = [{ url: firstUrl, firstId: first.list[0]!.id }];
  let cursor = first.scroll_id;
  for (let number = 2; number <= DEEP_PAGE; number++) {
    if (cursor === null) throw new Error(`page ${number - 1} gives no scroll_id`);
    const url = `${firstUrl}&scroll_id=${encodeURIComponent(cursor)}`;
    const page = (await readPage(baseUrl, url, `walking to page ${number}`)).page;
    if (page.list.length !== PAGE_SIZE)
      throw new Error(`page ${number} holds ${page.list.length} store products, expected ${PAGE_SIZE}`);
    pages.push({ url, firstId: page.list[0]!.id });
    cursor = page.scroll_id;
  }
  const deep = pages[DEEP_PAGE - 1]!;
  const deepPage = (await readPage(baseUrl, deep.url, `page ${DEEP_PAGE}`)).page;
  if (
    deepPage.page_start !== DEEP_PAGE ||
    deepPage.list[0]?.product_number !== productNumber((DEEP_PAGE - 1) * PAGE_SIZE)
  ) {
    throw new Error(
      `the cursor reads page ${deepPage.page_start} starting at ${deepPage.list[0]?.product_number}, expected page ${DEEP_PAGE} starting at ${productNumber((DEEP_PAGE - 1) * PAGE_SIZE)}`,
    );
  }
  return pages;
}

/**
 * Issue 5: page 500 of the stock list by scroll_id costs what page 1 does (keyset paging,
 * PRODUCT §3.1) — and, as a companion, an ERP paging through the stock list (which no
 * cache can answer in real use) against the floor of "read rows, send JSON".
 */
export const stockListScroll: Scenario = {
  name: SCROLL,
  description:
    `GET ${LIST_PATH}${LIST_QUERY.replace(STOCK_STORE, '…')} over HTTP on a store with ${PRODUCTS} store products with stock ` +
    `(seeded over HTTP, stock through POST …/storeproductlogs in requests of ${SEED_BATCH} entries): page ${DEEP_PAGE} by the scroll_id a ` +
    `client walking the pages gets (walked once, untimed) against page 1; ${REQUESTS_PER_RUN} requests of each per run, in turn, median latency of each`,
  unit: 'ms',
  valueLabel: `page ${DEEP_PAGE}`,
  baselineLabel: 'page 1',
  baselineKind: 'service',
  defaultRuns: 3,
  target: { ratio: 1.5, comparison: '<=', description: `page ${DEEP_PAGE} by scroll_id ≤ 1.5 × the latency of page 1` },
  companions: [
    {
      name: PAGES,
      description:
        `the same list, ${DEEP_PAGE / ROTATION_STEP} pages of the walk (every ${ROTATION_STEP}th, by their scroll_ids) asked in turn by autocannon, ` +
        'against a bare Fastify route (own process) reading the same pages with one hand-written SQL query (store products by keyset, joined ' +
        'with products, balances and locations) on the same database file and serialising them with JSON.stringify',
      unit: 'req/s',
      valueLabel: 'service',
      baselineLabel: 'bare fastify + one SQL query',
      baselineKind: 'sql-floor',
      target: {
        ratio: 0.5,
        comparison: '>=',
        description:
          'service throughput paging through stock ≥ 0.5 × a bare route reading the same rows with one SQL query (new target)',
      },
    },
  ],

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-list'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, PRODUCTS);
      await stockEveryProduct(service.baseUrl);
      const pages = await walkPages(service.baseUrl);
      const [first, deep] = [pages[0]!, pages[DEEP_PAGE - 1]!];

      const rotated = pages.filter((_, index) => index % ROTATION_STEP === 0);
      const floorQuery = (firstId: number) =>
        `?store_number=${STOCK_STORE}&after_id=${firstId - 1}&page_size=${PAGE_SIZE}`;
      const floor = resources.add(await startStockPageFloor(LIST_PATH, service.file, floorQuery(first.firstId)), (f) =>
        f.stop(),
      );
      const floorPage = (await getOk(floor.origin, `${LIST_PATH}${floorQuery(deep.firstId)}`, 'the floor route')).json<{
        list: Array<{ product_number: string }>;
      }>();
      if (
        floorPage.list.length !== PAGE_SIZE ||
        floorPage.list[0]?.product_number !== productNumber((DEEP_PAGE - 1) * PAGE_SIZE)
      ) {
        throw new Error('the SQL floor route does not read the same rows as the service');
      }
      const pair: ThroughputPair = {
        service: {
          origin: service.baseUrl,
          paths: rotated.map((page) => page.url),
          rssMb: service.rssMb,
          peakRssMb: service.peakRssMb,
        },
        baseline: { origin: floor.origin, paths: rotated.map((page) => `${LIST_PATH}${floorQuery(page.firstId)}`) },
      };
      // Untimed warm-up of the two latency requests and of the throughput pair.
      for (let i = 0; i < 3; i++) {
        await readPage(service.baseUrl, first.url, 'page 1');
        await readPage(service.baseUrl, deep.url, `page ${DEEP_PAGE}`);
      }
      await warmUp(pair);

      return {
        async measure(run) {
          const firstMs: number[] = [];
          const deepMs: number[] = [];
          for (let i = 0; i < REQUESTS_PER_RUN; i++) {
            // Alternate who goes first, so a drift in machine speed favours neither page.
            if ((run + i) % 2 === 1) firstMs.push((await readPage(service.baseUrl, first.url, 'page 1')).ms);
            deepMs.push((await readPage(service.baseUrl, deep.url, `page ${DEEP_PAGE}`)).ms);
            if ((run + i) % 2 === 0) firstMs.push((await readPage(service.baseUrl, first.url, 'page 1')).ms);
          }
          const throughput = await measureRound(pair, run);
          return {
            value: median(deepMs),
            baseline: median(firstMs),
            extra: { 'service peak RSS MB': service.peakRssMb() },
            companions: {
              [PAGES]: { ...throughput, extra: { ...throughput.extra, 'service peak RSS MB': service.peakRssMb() } },
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
