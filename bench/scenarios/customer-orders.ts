/**
 * Customer orders (issue 13, docs/customer-orders.md): importing the ERP's click-and-collect
 * orders, and picking them into order-bound stock. Both run on the stock store
 * (lib/stock.ts), its products seeded over HTTP; every order is new (fresh order numbers),
 * so every import creates and every pick lands on an open order.
 *
 * `orders.pick200.*`: 200 picks (a PUT each, one line of a distinct order picked in full from
 * a shelf), 10 in flight at a time from the bench process (10 async loops of fetch, one
 * keep-alive connection each: not the service's process), against 200 single movements of
 * the same quantity of the same product from the same shelf to another shelf, same service,
 * same concurrency. Both are a pair of ledger entries under the source balance's guard; the
 * pick also locks and updates its order and line — the cost the ratio shows.
 */
import { customerOrderLinesTable, customerOrdersTable } from '../baselines/plain-tables.js';
import { getOk, postOk, timedPost, timedSend } from '../lib/client.js';
import { picker, type Picker } from '../lib/data.js';
import { orderImportScenario } from '../lib/order-import.js';
import {
  freshDatabase,
  requirePostgres,
  storeOpsVerify,
  type BenchDatabase,
  type BenchDialect,
} from '../lib/ledger-db.js';
import { Resources } from '../lib/resources.js';
import type { Sample, Scenario } from '../lib/scenario.js';
import { API, startServiceAt, type Service } from '../lib/service.js';
import { median, percentile } from '../lib/stats.js';
import {
  STOCK_LOCATIONS,
  STOCK_STORE,
  StockClock,
  productNumber,
  readServiceBalances,
  seedStockMasterData,
  stockBody,
  stockProductInput,
  timedStockPost,
  type ServiceBalance,
  type StockEntry,
} from '../lib/stock.js';

const ORDERS_PATH = `${API}/stores/${STOCK_STORE}/orders/customerorders`;
const PICK_PATH = `${API}/stores/${STOCK_STORE}/orders/customerorder`;
const MOVEMENT_PATH = `${API}/stores/${STOCK_STORE}/storeproductlocation/movement`;
const PRODUCTS = 2_000;
const APP_USER = 'anna';
const [SHELF, SECOND_SHELF] = [STOCK_LOCATIONS[0].location_code, STOCK_LOCATIONS[1].location_code];

// ---------------------------------------------------------------- test data

/** Every header field the generated orders may carry (besides their lines), for the raw baseline's plain table. */
export const CUSTOMER_ORDER_FIELDS = [
  'order_number',
  'order_type_code',
  'description',
  'customer_name',
  'comment',
  'reference',
  'pickup_date',
  'sales_order_id',
  'stores_allowed',
] as const;
/** Every field the generated lines may carry. */
export const CUSTOMER_ORDER_LINE_FIELDS = [
  'line_number',
  'product_number',
  'quantity',
  'price',
  'stock_pool',
  'barcode',
  'description',
  'delivery_date',
  'preferred_location_code',
  'reference',
] as const;

// Type aliases, not interfaces: the plain-table helpers (columnsOfRecords) take them as records.
export type CustomerOrderLine = {
  line_number: number;
  product_number: string;
  quantity: number;
  price: number;
  barcode: string;
  stock_pool?: number;
  description?: string;
  delivery_date?: string;
  preferred_location_code?: string;
  reference?: string;
};

export type CustomerOrder = {
  order_number: string;
  order_type_code: string;
  customer_name: string;
  reference: string;
  pickup_date: string;
  sales_order_id: string;
  description?: string;
  comment?: string;
  stores_allowed?: string;
  lines: CustomerOrderLine[];
};

/** A quantity in thousandths, exactly (the service's quantities have 3 decimals). */
const milli = (quantity: number) => Math.round(quantity * 1000);

export const customerOrderNumber = (sequence: number) => `CO${String(sequence).padStart(8, '0')}`;

/**
 * Click-and-collect orders as a web shop's ERP sends them (interface §4.12): a customer, a
 * pickup moment in the next three days, a web reference and sales order id, some with a
 * description, a comment or the stores allowed; `linesPerOrder` distinct products of the
 * first `productCount` (existing ones: lib/stock.ts), 1–4 pieces or, a tenth, a weighed
 * quantity; the product's price and barcode, mostly a preferred shelf, some a delivery date,
 * description or reference. A tenth of the lines ask for pool 2 unless `poolOne` (picks from
 * the shelf's pool 1 must find their stock there).
 */
export function customerOrders(
  p: Picker,
  firstSequence: number,
  orderCount: number,
  linesPerOrder: number,
  productCount: number,
  options: { poolOne?: boolean } = {},
): CustomerOrder[] {
  const hour = Date.now() - (Date.now() % 3_600_000);
  return Array.from({ length: orderCount }, (_, k): CustomerOrder => {
    const sequence = firstSequence + k;
    const pickup = hour + p.int(2, 72) * 3_600_000;
    const chosen = new Set<number>();
    while (chosen.size < linesPerOrder) chosen.add(p.int(0, productCount - 1));
    const lines = [...chosen].map((index, lineIndex): CustomerOrderLine => {
      const product = stockProductInput(index);
      return {
        line_number: lineIndex + 1,
        product_number: productNumber(index),
        quantity: p.chance(0.1) ? p.int(250, 2_500) / 1000 : p.int(1, 4),
        price: product.price as number,
        barcode: product.barcode as string,
        ...(options.poolOne !== true && p.chance(0.1) ? { stock_pool: 2 } : {}),
        ...(p.chance(0.8) ? { preferred_location_code: p.chance(0.7) ? SHELF : SECOND_SHELF } : {}),
        ...(p.chance(0.1) ? { delivery_date: new Date(pickup - 86_400_000).toISOString() } : {}),
        ...(p.chance(0.05) ? { description: `${product.product_name as string}, gift wrapped` } : {}),
        ...(p.chance(0.1) ? { reference: `WEB-${sequence}-${lineIndex + 1}` } : {}),
      };
    });
    return {
      order_number: customerOrderNumber(sequence),
      order_type_code: p.chance(0.85) ? 'CLICK_COLLECT' : 'RESERVE_COLLECT',
      customer_name: `Customer ${p.int(1, 50_000)}`,
      reference: `WEB-${sequence}`,
      pickup_date: new Date(pickup).toISOString(),
      sales_order_id: `SO-${900_000 + sequence}`,
      ...(p.chance(0.2) ? { description: 'Web order' } : {}),
      ...(p.chance(0.3) ? { comment: 'Customer calls on arrival' } : {}),
      ...(p.chance(0.1) ? { stores_allowed: `${STOCK_STORE},S00002` } : {}),
      lines,
    };
  });
}

/** The plain tables of the raw customer order import: every field the generated orders and lines may carry. */
export const customerOrderPlainTables = () => [
  customerOrdersTable(CUSTOMER_ORDER_FIELDS.filter((field) => field !== 'order_number')),
  customerOrderLinesTable([...CUSTOMER_ORDER_LINE_FIELDS]),
];

interface OrderRead {
  order_number: string;
  status_id: number;
  order_type_code?: string;
  customer_name?: string;
  total_lines: number;
  total_delivery_quantity?: number;
  lines?: Array<{
    line_number: number;
    product_number?: string;
    quantity: number;
    picked_quantity: number;
    stock_pool: number;
    preferred_location_code?: string;
    stock_location?: string;
  }>;
}

interface OrdersPage {
  total_count: number;
  list: OrderRead[];
}

async function readOrder(service: Service, orderNumber: string): Promise<OrderRead> {
  const page = (
    await getOk(service.baseUrl, `${ORDERS_PATH}?order_number=${orderNumber}`, `reading customer order ${orderNumber}`)
  ).json<OrdersPage>();
  if (page.list.length !== 1)
    throw new Error(`GET ${ORDERS_PATH}?order_number=${orderNumber} found ${page.list.length} orders`);
  return page.list[0]!;
}

// ---------------------------------------------------------------- orders.import.1000x5

const IMPORT = 'orders.import.1000x5';
const IMPORT_ORDERS = 1_000;
const IMPORT_LINES = 5;

/**
 * The service stored exactly what was sent: the store holds `totalOrders` customer orders,
 * and the run's first and last orders read back new, with every line as sent and nothing picked.
 */
async function checkImported(service: Service, orders: readonly CustomerOrder[], totalOrders: number): Promise<void> {
  const page = (
    await getOk(service.baseUrl, `${ORDERS_PATH}?page_size=1`, 'counting customer orders')
  ).json<OrdersPage>();
  if (page.total_count !== totalOrders)
    throw new Error(`the store holds ${page.total_count} customer orders, ${totalOrders} were imported`);
  for (const sent of [orders[0]!, orders[orders.length - 1]!]) {
    const read = await readOrder(service, sent.order_number);
    const problems: string[] = [];
    if (
      read.status_id !== 1 ||
      read.order_type_code !== sent.order_type_code ||
      read.customer_name !== sent.customer_name ||
      read.total_lines !== sent.lines.length
    ) {
      problems.push(
        `header ${read.status_id}/${read.order_type_code}/${read.customer_name}/${read.total_lines} lines, expected 1/${sent.order_type_code}/${sent.customer_name}/${sent.lines.length}`,
      );
    }
    const lines = new Map((read.lines ?? []).map((line) => [line.line_number, line]));
    for (const line of sent.lines) {
      const got = lines.get(line.line_number);
      if (
        !got ||
        got.product_number !== line.product_number ||
        milli(got.quantity) !== milli(line.quantity) ||
        got.picked_quantity !== 0 ||
        got.stock_pool !== (line.stock_pool ?? 1) ||
        got.preferred_location_code !== line.preferred_location_code
      ) {
        problems.push(
          `line ${line.line_number} reads ${JSON.stringify(got && { ...got, store_locations: undefined })}`,
        );
      }
    }
    if (problems.length > 0)
      throw new Error(
        `customer order ${sent.order_number} does not read back as sent: ${problems.slice(0, 3).join('; ')}`,
      );
  }
}

/** Issue 13: a 1,000-order import (5 lines each) should cost at most three raw inserts of its rows. */
export const ordersImport: Scenario = orderImportScenario({
  name: IMPORT,
  description:
    `POST ${API}/stores/{s}/orders/customerorders with ${IMPORT_ORDERS} new customer orders × ${IMPORT_LINES} lines (customer, pickup date, ` +
    'references, prices, barcodes, preferred shelves; products seeded over HTTP; fresh order numbers every run, the database grows run by run) ' +
    `over HTTP, against the raw writer process (JSON.parse of the same body text, better-sqlite3 prepared inserts in one transaction of the same ` +
    `${IMPORT_ORDERS} order rows and ${IMPORT_ORDERS * IMPORT_LINES} line rows into plain tables: customer_orders with integer primary key + unique ` +
    'order_number, customer_order_lines with integer primary key + unique (order id, line_number), one column per field; same synchronous mode)',
  path: ORDERS_PATH,
  orders: IMPORT_ORDERS,
  linesPerOrder: IMPORT_LINES,
  products: PRODUCTS,
  seed: 13,
  plainTables: customerOrderPlainTables,
  rawOp: 'customer-orders-import',
  generate: customerOrders,
  checkImported,
});

// ---------------------------------------------------------------- orders.pick200.sqlite / .pg

const PICKS = 200;
const CONNECTIONS = 10;
const PICK_ORDER_LINES = 3;
/** Products stocked on the shelf beforehand (the orders' lines are of these), and how much of each. */
const STOCKED = 1_000;
const STOCK_EACH = 1_000;

/** One pick and its twin movement: the same product, quantity and source shelf. */
interface Pick {
  order: string;
  line: number;
  product: string;
  quantity: number;
}

const pickBody = (pick: Pick) =>
  JSON.stringify({
    order_number: pick.order,
    picked_username: APP_USER,
    lines: [{ line_number: pick.line, picked_quantity: pick.quantity, stock_location: SHELF }],
  });
const movementBody = (pick: Pick) =>
  JSON.stringify({
    body: [
      {
        product_number: pick.product,
        quantity: pick.quantity,
        from_location: { location_code: SHELF },
        to_location: { location_code: SECOND_SHELF },
      },
    ],
  });

/**
 * `bodies.length` requests, `CONNECTIONS` in flight at any time (async loops of fetch in the
 * bench process, each taking the next request when its answer is complete); every answer
 * must be 200 with the expected message. The wall time from the first send to the last
 * answer, and each request's latency.
 */
async function inFlight(
  send: (index: number) => Promise<number>,
  count: number,
): Promise<{ ms: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  let failure: unknown;
  const start = performance.now();
  const loop = async () => {
    while (failure === undefined && next < count) {
      const index = next++;
      try {
        latencies.push(await send(index));
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  const ms = performance.now() - start;
  if (failure !== undefined) throw failure;
  return { ms, latencies };
}

/** What the store's stock should hold, in thousandths, by product, location code ('' unlocated), pool and order key. */
class StockModel {
  readonly levels = new Map<string, number>();
  private static key = (product: string, location: string, pool: number, orderKey: string) =>
    `${product}|${location}|${pool}|${orderKey}`;
  add(product: string, location: string, pool: number, orderKey: string, deltaMilli: number): void {
    const key = StockModel.key(product, location, pool, orderKey);
    this.levels.set(key, (this.levels.get(key) ?? 0) + deltaMilli);
  }
  pick(p: Pick): void {
    this.add(p.product, SHELF, 1, '', -milli(p.quantity));
    this.add(p.product, '', 1, p.order, milli(p.quantity));
  }
  move(p: Pick): void {
    this.add(p.product, SHELF, 1, '', -milli(p.quantity));
    this.add(p.product, SECOND_SHELF, 1, '', milli(p.quantity));
  }
  /** Every non-zero balance of the store (read from the service's own tables) against the model: the differences. */
  differences(rows: readonly ServiceBalance[]): string[] {
    const read = new Map<string, number>();
    for (const row of rows)
      read.set(
        StockModel.key(row.product_number, row.location_code ?? '', Number(row.pool), row.order_key),
        Number(row.quantity),
      );
    const problems: string[] = [];
    for (const [key, quantity] of this.levels)
      if (quantity !== 0 && read.get(key) !== quantity)
        problems.push(`${key}: model ${quantity}, balance ${read.get(key) ?? 0}`);
    for (const [key, quantity] of read)
      if (!this.levels.has(key) || this.levels.get(key) === 0) problems.push(`${key}: balance ${quantity}, model 0`);
    return problems;
  }
  boundMilli(): number {
    let sum = 0;
    for (const [key, quantity] of this.levels) if (!key.endsWith('|')) sum += quantity;
    return sum;
  }
}

function ordersPick(dialect: BenchDialect): Scenario {
  const db = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return {
    name: `orders.pick200.${dialect === 'sqlite' ? 'sqlite' : 'pg'}`,
    description:
      `${db}: ${PICKS} picks, ${CONNECTIONS} in flight (async fetch loops in the bench process), each a PUT ${API}/stores/{s}/orders/customerorder ` +
      `setting one line's picked_quantity (its ordered quantity, from a shelf) of a distinct new ${PICK_ORDER_LINES}-line order created untimed at the ` +
      `start of the run, against ${PICKS} POST …/storeproductlocation/movement requests moving the same quantity of the same product from the same ` +
      'shelf to another shelf, same service (npm start, fresh database) and concurrency, same run; wall time of each batch',
    unit: 'ms',
    valueLabel: `${PICKS} picks`,
    baselineLabel: `${PICKS} movements`,
    baselineKind: 'service',
    // A batch takes well under a second here, so one run's ratio swings: more runs (each ~3 s) for a steadier median.
    defaultRuns: 7,
    target: {
      ratio: 1.5,
      comparison: '<=',
      description: `${PICKS} picks ≤ 1.5 × ${PICKS} movements of the same stock, ${CONNECTIONS} in flight (${db}, issue 13)`,
    },

    prepare: () =>
      new Resources().preparing(async (resources) => {
        if (dialect === 'postgres') await requirePostgres();
        const database: BenchDatabase = await freshDatabase(resources, dialect, 'orders_pick');
        const service = resources.add(await startServiceAt(database.url), (s) => s.stop());
        await seedStockMasterData(service.baseUrl, PRODUCTS);
        const model = new StockModel();
        const seedPicker = picker(31);
        const clock = new StockClock();
        const stock = Array.from(
          { length: STOCKED },
          (_, index): StockEntry => ({
            product_number: productNumber(index),
            quantity: STOCK_EACH,
            customer_order_line_number: 0,
            modification_datetime: clock.next(seedPicker),
            location_code: SHELF,
          }),
        );
        await timedStockPost(service.baseUrl, stockBody(stock), stock.length);
        for (const entry of stock) model.add(entry.product_number, SHELF, 1, '', milli(STOCK_EACH));

        const p = picker(1313);
        let nextSequence = 1;
        /** 200 fresh orders (one POST, untimed) and, for each, the line to pick in full. */
        const newOrders = async (): Promise<{ picks: Pick[]; since: number }> => {
          const since = Date.now();
          const orders = customerOrders(p, nextSequence, PICKS, PICK_ORDER_LINES, STOCKED, { poolOne: true });
          nextSequence += PICKS;
          await postOk(service.baseUrl, ORDERS_PATH, { orders }, `creating ${PICKS} customer orders`);
          const picks = orders.map((order) => {
            const line = order.lines[p.int(0, order.lines.length - 1)]!;
            return {
              order: order.order_number,
              line: line.line_number,
              product: line.product_number,
              quantity: line.quantity,
            };
          });
          return { picks, since };
        };

        const pickBatch = (picks: readonly Pick[]) =>
          inFlight(
            (i) =>
              timedSend(
                service.baseUrl,
                'PUT',
                PICK_PATH,
                pickBody(picks[i]!),
                `updated '${picks[i]!.order}': status 3`,
              ),
            picks.length,
          );
        const moveBatch = (picks: readonly Pick[]) =>
          inFlight(
            (i) =>
              timedPost(
                service.baseUrl,
                `${MOVEMENT_PATH}?AppUserName=${APP_USER}`,
                movementBody(picks[i]!),
                'moved 1',
              ),
            picks.length,
          );

        /**
         * The run's orders read back (the order list, over HTTP) picking, with the picked line's
         * quantity picked and the others nothing; every non-zero balance of the store (the
         * service's own table) equals the model of everything stocked, picked and moved — so
         * the bound stock is exactly the picks; `store-ops verify` is clean.
         */
        const check = async (picks: readonly Pick[], since: number) => {
          const page = (
            await getOk(
              service.baseUrl,
              `${ORDERS_PATH}?last_modified_date=${encodeURIComponent(new Date(since).toISOString())}&page_size=1000`,
              "reading the run's orders",
            )
          ).json<OrdersPage>();
          if (page.total_count !== picks.length || page.list.length !== picks.length)
            throw new Error(
              `the order list holds ${page.total_count} orders changed in this run, ${picks.length} were picked`,
            );
          const read = new Map(page.list.map((order) => [order.order_number, order]));
          for (const pick of picks) {
            const order = read.get(pick.order);
            const wrong = (order?.lines ?? []).filter(
              (line) => milli(line.picked_quantity) !== (line.line_number === pick.line ? milli(pick.quantity) : 0),
            );
            if (
              !order ||
              order.status_id !== 3 ||
              order.lines?.length !== PICK_ORDER_LINES ||
              wrong.length > 0 ||
              milli(order.total_delivery_quantity ?? 0) !== milli(pick.quantity)
            ) {
              throw new Error(
                `order ${pick.order} reads status ${order?.status_id}, picked ${JSON.stringify(wrong.map((l) => [l.line_number, l.picked_quantity]))}, expected status 3 with line ${pick.line} picked ${pick.quantity}`,
              );
            }
          }
          const rows = await readServiceBalances(database);
          // No bench connection stays open on the service's database while the next batches run.
          await database.disconnect();
          const problems = model.differences(rows);
          if (problems.length > 0)
            throw new Error(
              `${problems.length} balances differ from what was stocked, picked and moved (bound in the model: ${model.boundMilli() / 1000}): ${problems.slice(0, 5).join('; ')}`,
            );
          return storeOpsVerify(database.url);
        };

        /** Both batches, in the order asked, on the same 200 picks; the model follows each. */
        const round = async (picksFirst: boolean) => {
          const { picks, since } = await newOrders();
          let picked = { ms: 0, latencies: [] as number[] };
          let moved = { ms: 0, latencies: [] as number[] };
          for (const side of picksFirst ? ['picks', 'moves'] : ['moves', 'picks']) {
            if (side === 'picks') {
              picked = await pickBatch(picks);
              picks.forEach((pick) => model.pick(pick));
            } else {
              moved = await moveBatch(picks);
              picks.forEach((pick) => model.move(pick));
            }
          }
          const verifyMs = await check(picks, since);
          return { picked, moved, verifyMs };
        };

        await round(true); // untimed warm-up of both paths

        return {
          async measure(run): Promise<Sample> {
            // Alternate who goes first, so a drift in machine speed favours neither side.
            const { picked, moved, verifyMs } = await round(run % 2 === 0);
            const perSecond = (ms: number) => (PICKS * 1000) / ms;
            return {
              value: picked.ms,
              baseline: moved.ms,
              extra: {
                'picks/s': perSecond(picked.ms),
                'moves/s': perSecond(moved.ms),
                'pick p50 ms': median(picked.latencies),
                'pick p99 ms': percentile(picked.latencies, 99),
                'move p50 ms': median(moved.latencies),
                'move p99 ms': percentile(moved.latencies, 99),
                'service peak RSS MB': service.peakRssMb(),
                'verify ms': verifyMs,
              },
            };
          },
          close: () => resources.release(),
        };
      }),
  };
}

/** `orders.pick200.sqlite`: picks against movements on SQLite. */
export const ordersPickSqlite = ordersPick('sqlite');
/** `orders.pick200.pg`: the same on PostgreSQL (a fresh schema of BENCH_DATABASE_URL), skipped when it is not reachable. */
export const ordersPickPg = ordersPick('postgres');
