import { picker } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API } from '../lib/service.js';
import {
  REASON,
  STOCK_LOCATIONS,
  STOCK_STORE,
  StockClock,
  productNumber,
  startStockService,
  stockBody,
  stockEntries,
  timedStockPost,
  type StockEntry,
} from '../lib/stock.js';
import { cannedBytesSession } from '../lib/throughput.js';

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
    `GET ${API}/stores/{s}/products/{p}/stock${SINGLE_QUERY} for a product with stock at 4 locations and unlocated, in 2 pools, in a store of ` +
    `${SINGLE_PRODUCTS} products with a stock history (all seeded over HTTP), against a bare Fastify route (own process) serving the same response bytes`,
  unit: 'req/s',
  valueLabel: 'service',
  baselineLabel: 'bare fastify, same bytes',
  baselineKind: 'canned-bytes',
  defaultRuns: 3,
  target: {
    ratio: 0.5,
    comparison: '>=',
    description: 'service throughput ≥ 0.5 × a bare Fastify route serving the same JSON bytes (issue 15; 0.4 before)',
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('stock-single'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, SINGLE_PRODUCTS);
      const clock = new StockClock();
      const history = stockEntries(picker(7), clock, 1_000, SINGLE_PRODUCTS);
      await timedStockPost(service.baseUrl, stockBody(history), history.length);
      const own = singleProductHistory(clock);
      await timedStockPost(service.baseUrl, stockBody(own), own.length);
      return cannedBytesSession(resources, {
        dir: temp.dir,
        service,
        routePath: SINGLE_PATH,
        query: SINGLE_QUERY,
        check: (answer) => {
          const locations =
            answer.json<{ products: Array<{ store_locations?: unknown[] }> }>().products[0]?.store_locations ?? [];
          if (locations.length < STOCK_LOCATIONS.length + 1)
            throw new Error(
              `the product reads back ${locations.length} location lines, expected ${STOCK_LOCATIONS.length + 1} or more`,
            );
        },
      });
    }),
};
