import { timedPost } from '../lib/client.js';
import { picker, type Picker } from '../lib/data.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API } from '../lib/service.js';
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

const NAME = 'movement.post500';
const MOVES = 500;
const PRODUCTS = 2_000;
/** Products stocked at both locations beforehand; each request moves 500 distinct ones of them. */
const STOCKED = 1_000;
const STOCK_EACH = 1_000;
const POSTS_PER_RUN = 2;
const MOVEMENT_PATH = `${API}/stores/${STOCK_STORE}/storeproductlocation/movement`;
const [SHELF, SECOND_SHELF] = [STOCK_LOCATIONS[0].location_code, STOCK_LOCATIONS[1].location_code];

interface Move {
  product_number: string;
  from: string;
  to: string;
}

/** 500 distinct stocked products, each moving one unit one way or the other between the two shelves. */
function nextMoves(p: Picker): Move[] {
  const chosen = new Set<number>();
  while (chosen.size < MOVES) chosen.add(p.int(0, STOCKED - 1));
  return [...chosen].map((index) => {
    const forward = p.chance(0.5);
    return {
      product_number: productNumber(index),
      from: forward ? SHELF : SECOND_SHELF,
      to: forward ? SECOND_SHELF : SHELF,
    };
  });
}

function timedMovement(baseUrl: string, moves: readonly Move[]): Promise<number> {
  const body = JSON.stringify({
    body: moves.map((m) => ({
      product_number: m.product_number,
      quantity: 1,
      from_location: { location_code: m.from },
      to_location: { location_code: m.to },
    })),
  });
  return timedPost(baseUrl, `${MOVEMENT_PATH}?AppUserName=anna`, body, `moved ${moves.length}`);
}

/**
 * The same stock change as plain entries: -1 at the source and +1 at the target per move,
 * stamped now (a movement books at server time), so neither side books a late entry.
 */
function timedEntries(baseUrl: string, moves: readonly Move[]): Promise<number> {
  const at = new Date().toISOString();
  const entries = moves.flatMap((m): StockEntry[] => [
    {
      product_number: m.product_number,
      quantity: -1,
      customer_order_line_number: 0,
      modification_datetime: at,
      location_code: m.from,
      app_user_name: 'anna',
    },
    {
      product_number: m.product_number,
      quantity: 1,
      customer_order_line_number: 0,
      modification_datetime: at,
      location_code: m.to,
      app_user_name: 'anna',
    },
  ]);
  return timedStockPost(baseUrl, stockBody(entries), entries.length);
}

/** Issue 6: a movement batch costs at most twice its ledger entries posted directly. */
export const movementPost: Scenario = {
  name: NAME,
  description:
    `POST ${API}/stores/{s}/storeproductlocation/movement with ${MOVES} moves (1 unit of a product between two locations each, sources stocked ` +
    `beforehand; over HTTP) against POST …/storeproductlogs with the same ${MOVES * 2} ledger entries (-1 at the source, +1 at the target), ` +
    `same service and database, same run; ${POSTS_PER_RUN} requests per side per run`,
  unit: 'ms',
  valueLabel: 'movement',
  baselineLabel: `${MOVES * 2} log entries`,
  baselineKind: 'service',
  defaultRuns: 5,
  target: {
    ratio: 2,
    comparison: '<=',
    description: `${MOVES} moves ≤ 2 × posting the same ${MOVES * 2} ledger entries directly`,
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('movement'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, PRODUCTS);
      const seedPicker = picker(17);
      const clock = new StockClock();
      const stock = Array.from({ length: STOCKED }, (_, index): StockEntry[] =>
        [SHELF, SECOND_SHELF].map((location_code) => ({
          product_number: productNumber(index),
          quantity: STOCK_EACH,
          customer_order_line_number: 0,
          modification_datetime: clock.next(seedPicker),
          location_code,
        })),
      ).flat();
      await timedStockPost(service.baseUrl, stockBody(stock), stock.length);

      const p = picker(19);
      // Untimed warm-up of both paths.
      await timedMovement(service.baseUrl, nextMoves(p));
      await timedEntries(service.baseUrl, nextMoves(p));
      return {
        async measure(run) {
          let value = 0;
          let baseline = 0;
          for (let i = 0; i < POSTS_PER_RUN; i++) {
            // Alternate who goes first, so a drift in machine speed favours neither side.
            if ((run + i) % 2 === 1) baseline += await timedEntries(service.baseUrl, nextMoves(p));
            value += await timedMovement(service.baseUrl, nextMoves(p));
            if ((run + i) % 2 === 0) baseline += await timedEntries(service.baseUrl, nextMoves(p));
          }
          return {
            value: value / POSTS_PER_RUN,
            baseline: baseline / POSTS_PER_RUN,
            extra: { 'service peak RSS MB': service.peakRssMb() },
          };
        },
        close: () => resources.release(),
      };
    }),
};
