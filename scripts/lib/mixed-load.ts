/**
 * A store chain's mixed day against running service processes (issue 40): look-ups, stock
 * posts, movements, deliveries announced and received, customer orders created and picked,
 * the ERP's pulls (full pages and deltas, each with its own query text), and now and then a
 * big import. `npm run soak` (scripts/soak.ts) runs it for minutes; the shutdown test
 * (test/shutdown-under-load.test.ts) runs it while the service gets SIGTERM.
 *
 * Every answer is recorded with what the shutdown rules look at: status (or none at all),
 * the envelope's code, Retry-After and Connection. Stock posts carry a reference of their own,
 * so afterwards what got a 2xx can be looked for in the database.
 */
import { picker, type Picker } from '../../bench/lib/data.js';
import {
  STOCK_LOCATIONS,
  productNumber,
  seedAssortment,
  seedStockMasterData,
  stockEntries,
  StockClock,
} from '../../bench/lib/stock.js';
import { storeNumberOf } from '../../bench/lib/data.js';
import { deliveryOrders } from '../../bench/scenarios/deliveries.js';
import { customerOrders } from '../../bench/scenarios/customer-orders.js';
import { BENCH_ADMIN_TOKEN } from '../../bench/lib/service.js';

/** The admin token the service must be started with (STORE_OPS_ADMIN_TOKEN): the bench's seeding uses it. */
export const MIXED_TOKEN = BENCH_ADMIN_TOKEN;

export const API = '/api/v2/public';
const [SHELF, SECOND_SHELF] = [STOCK_LOCATIONS[0].location_code, STOCK_LOCATIONS[1].location_code];

export type MixedKind = 'lookup' | 'post' | 'move' | 'delivery' | 'receive' | 'order' | 'pick' | 'pull' | 'import';

export interface MixedAnswer {
  kind: MixedKind;
  method: string;
  path: string;
  /** The HTTP status, or 'no answer' (refused, reset, cut mid-answer). */
  status: number | 'no answer';
  /** Why there was no answer: the socket error's code (ECONNREFUSED: not listening any more). */
  failure?: string;
  /** The error envelope's code, or `not JSON` for a body that is not one. */
  code?: string;
  /** The body's first characters of a non-2xx answer. */
  text?: string;
  retryAfter: string | null;
  connection: string | null;
  /** Stock posts and imports: the reference every entry carries, and how many there were. */
  reference?: string;
  lines?: number;
  startedAt: number;
  endedAt: number;
}

export interface MixedSetup {
  stores: string[];
  products: number;
}

/**
 * Master data (stores with locations, products, reason codes, each store's assortment) and
 * shelf stock to move and pick, through the API with MIXED_TOKEN.
 */
export async function seedMixed(baseUrl: string, setup: MixedSetup): Promise<void> {
  const token = MIXED_TOKEN;
  await seedStockMasterData(baseUrl, setup.products, setup.stores.length);
  for (const store of setup.stores) {
    await seedAssortment(baseUrl, store, setup.products);
    // Every product stocked on both shelves, so moves and picks find stock.
    const at = new Date(Date.now() - 3 * 86_400_000).toISOString();
    for (let from = 0; from < setup.products; from += 2_500) {
      const storeproductlog = [];
      for (let i = from; i < Math.min(setup.products, from + 2_500); i++) {
        for (const location_code of [SHELF, SECOND_SHELF]) {
          storeproductlog.push({
            product_number: productNumber(i),
            quantity: 10_000,
            customer_order_line_number: 0,
            modification_datetime: at,
            location_code,
            reference: 'mixed-seed',
          });
        }
      }
      const answer = await send(
        baseUrl,
        token,
        'POST',
        `${API}/stores/${store}/products/stock/storeproductlogs`,
        JSON.stringify({ storeproductlog }),
      );
      if (answer.status !== 200) throw new Error(`seeding stock of ${store}: ${answer.status} ${answer.text}`);
    }
  }
}

/** The stores a mixed load over `count` stores uses (those seedStockMasterData makes). */
export const mixedStores = (count: number) => Array.from({ length: count }, (_, i) => storeNumberOf(i));

async function send(baseUrl: string, token: string, method: string, path: string, body?: string, signal?: AbortSignal) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
    signal,
  });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers };
}

export interface MixedLoadOptions extends MixedSetup {
  /** The base URL to send the next request to; undefined pauses the client a moment. */
  target: () => string | undefined;
  token: string;
  clients: number;
  seed?: number;
  /** Share of turns that post a 10,000-line import (default 0.002; 0 for none). */
  importShare?: number;
  /** Called with every answer (the soak counts them instead of keeping them). */
  onAnswer?: (answer: MixedAnswer) => void;
  /** Keep every answer for the caller (the shutdown test); default true. */
  keep?: boolean;
  /** A client stops after a request that got no answer (a closed process); default false. */
  stopOnNoAnswer?: boolean;
}

export interface MixedLoad {
  /** Ends the load after each client's request under way; resolves with the answers kept. */
  stop(): Promise<MixedAnswer[]>;
  /** Resolves when every client has ended by itself (stopOnNoAnswer). */
  done: Promise<MixedAnswer[]>;
}

export function startMixedLoad(options: MixedLoadOptions): MixedLoad {
  let stopping = false;
  const kept: MixedAnswer[] = [];
  const importShare = options.importShare ?? 0.002;
  const record = (answer: MixedAnswer) => {
    if (options.keep !== false) kept.push(answer);
    options.onAnswer?.(answer);
  };

  const client = async (index: number) => {
    const p = picker((options.seed ?? 40) * 1_000 + index);
    const clock = new StockClock(Date.now() - 86_400_000);
    let n = 0;
    let sequence = 1 + index * 10_000_000 + ((options.seed ?? 40) % 100) * 100_000;
    const deliveries: Array<{
      store: string;
      number: string;
      lines: Array<{ line_number: number; quantity: number }>;
    }> = [];
    const orders: Array<{ store: string; number: string; line: number; quantity: number }> = [];

    const call = async (
      kind: MixedKind,
      method: string,
      path: string,
      body?: unknown,
      extra: Partial<MixedAnswer> = {},
    ): Promise<MixedAnswer | undefined> => {
      const baseUrl = options.target();
      if (baseUrl === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return undefined;
      }
      const startedAt = Date.now();
      const answer: MixedAnswer = {
        kind,
        method,
        path,
        status: 'no answer',
        retryAfter: null,
        connection: null,
        startedAt,
        endedAt: 0,
        ...extra,
      };
      try {
        const got = await send(
          baseUrl,
          options.token,
          method,
          path,
          body === undefined ? undefined : JSON.stringify(body),
          AbortSignal.timeout(60_000),
        );
        answer.status = got.status;
        answer.retryAfter = got.headers.get('retry-after');
        answer.connection = got.headers.get('connection');
        if (got.status >= 300) {
          answer.text = got.text.slice(0, 300);
          try {
            answer.code = (JSON.parse(got.text) as { code?: string }).code;
          } catch {
            answer.code = 'not JSON';
          }
        }
      } catch (error) {
        answer.status = 'no answer';
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        answer.failure = cause?.code ?? cause?.message ?? String(error);
      }
      answer.endedAt = Date.now();
      record(answer);
      return answer;
    };

    while (!stopping) {
      n++;
      const store = p.pick(options.stores);
      const product = productNumber(p.int(0, options.products - 1));
      const roll = p.int(0, 999);
      let answer: MixedAnswer | undefined;
      if (roll < importShare * 1000) {
        const reference = `mixed-import-${index}-${n}`;
        const entries = stockEntries(p, clock, 10_000, options.products).map((e) => ({ ...e, reference }));
        answer = await call(
          'import',
          'POST',
          `${API}/stores/${store}/products/stock/storeproductlogs`,
          { storeproductlog: entries },
          { reference, lines: entries.length },
        );
      } else if (roll < 300) {
        const path = p.chance(0.5)
          ? `${API}/stores/${store}/products/${product}/stock`
          : `${API}/storeproducts/stock?store_number=${store}&product_number=${product}`;
        answer = await call('lookup', 'GET', path);
      } else if (roll < 550) {
        const reference = `mixed-${options.seed ?? 40}-${index}-${n}`;
        const entries = stockEntries(p, clock, p.int(1, 20), options.products).map((e) => ({ ...e, reference }));
        answer = await call(
          'post',
          'POST',
          `${API}/stores/${store}/products/stock/storeproductlogs`,
          { storeproductlog: entries },
          { reference, lines: entries.length },
        );
      } else if (roll < 650) {
        const forward = p.chance(0.5);
        answer = await call('move', 'POST', `${API}/stores/${store}/storeproductlocation/movement?AppUserName=anna`, {
          body: [
            {
              product_number: product,
              quantity: 1,
              from_location: { location_code: forward ? SHELF : SECOND_SHELF },
              to_location: { location_code: forward ? SECOND_SHELF : SHELF },
            },
          ],
        });
      } else if (roll < 700) {
        const pending = deliveries.shift();
        if (pending !== undefined && p.chance(0.7)) {
          answer = await call(
            'receive',
            'POST',
            `${API}/stores/${pending.store}/orders/deliveries/${pending.number}/receive?appUserName=anna`,
            {
              lines: pending.lines.map((line) => ({ line_number: line.line_number, received_quantity: line.quantity })),
            },
          );
        } else {
          const [order] = deliveryOrders(p, sequence++, 1, 5, options.products, { purchaseOnly: true });
          answer = await call('delivery', 'POST', `${API}/stores/${store}/orders/deliveries`, { orders: [order] });
          if (answer?.status === 200)
            deliveries.push({
              store,
              number: order!.order_number,
              lines: order!.order_lines.map((l) => ({ line_number: l.line_number, quantity: l.quantity })),
            });
        }
      } else if (roll < 750) {
        const pending = orders.shift();
        if (pending !== undefined && p.chance(0.7)) {
          answer = await call('pick', 'PUT', `${API}/stores/${pending.store}/orders/customerorder`, {
            order_number: pending.number,
            picked_username: 'anna',
            lines: [{ line_number: pending.line, picked_quantity: pending.quantity, stock_location: SHELF }],
          });
        } else {
          const [order] = customerOrders(p, sequence++, 1, 3, options.products, { poolOne: true });
          const line = order!.lines[0]!;
          answer = await call('order', 'POST', `${API}/stores/${store}/orders/customerorders`, {
            orders: [{ ...order, lines: order!.lines.map((l) => ({ ...l, preferred_location_code: SHELF })) }],
          });
          if (answer?.status === 200)
            orders.push({ store, number: order!.order_number, line: line.line_number, quantity: line.quantity });
        }
      } else {
        // The ERP's pulls: a full page (page_start varies), or a delta since a moment just past.
        const since = encodeURIComponent(new Date(Date.now() - p.int(1, 600) * 1000).toISOString());
        const pulls = [
          `${API}/products/stock/storeproductlogs?page_size=1000&last_modified_date=${since}`,
          `${API}/storeproducts/stock?store_number=${store}&page_size=500&page_start=${p.int(1, 4)}`,
          `${API}/products?page_size=200&page_start=${p.int(1, 10)}`,
          `${API}/stores/${store}/locations/products?page_size=500`,
          `${API}/orders/deliveries?page_size=100&last_modified_date=${since}`,
          `${API}/stores/${store}/orders/customerorders?page_size=100&last_modified_date=${since}`,
          `${API}/events?page_size=500`,
        ];
        answer = await call('pull', 'GET', p.pick(pulls));
      }
      if (answer?.status === 'no answer') {
        if (options.stopOnNoAnswer) return;
        // As a client would: a moment before the next try.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };

  const clients = Promise.all(Array.from({ length: options.clients }, (_, index) => client(index))).then(() => kept);
  return {
    stop: async () => {
      stopping = true;
      return clients;
    },
    done: clients,
  };
}

export type { Picker };
