/**
 * Deliveries (issue 12, docs/deliveries.md): importing the ERP's announced deliveries, and
 * receiving one into stock. Both scenarios run on the stock store (lib/stock.ts), its
 * products seeded over HTTP; every delivery is new (fresh order numbers), so every import
 * creates and every receipt lands on an open delivery.
 */
import { deliveryLinesTable, deliveryOrdersTable } from '../baselines/plain-tables.js';
import { getOk, postOk, timedPost } from '../lib/client.js';
import { picker, type Picker } from '../lib/data.js';
import { orderImportScenario } from '../lib/order-import.js';
import { storeOpsVerify } from '../lib/ledger-db.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API, type Service } from '../lib/service.js';
import { STOCK_LOGS_PATH, STOCK_STORE, productNumber, startStockService, stockProductInput } from '../lib/stock.js';

const DELIVERIES_PATH = `${API}/stores/${STOCK_STORE}/orders/deliveries`;
const PRODUCTS = 2_000;
const APP_USER = 'anna';

// ---------------------------------------------------------------- test data

/** Every header field the generated orders may carry (besides their lines), for the raw baseline's plain table. */
export const DELIVERY_ORDER_FIELDS = [
  'order_number',
  'order_type',
  'datetime_created',
  'datetime_expected',
  'no_of_containers',
  'supplier_name',
  'supplier_code',
  'reference',
  'store_origin',
  'description',
  'tracing_url',
] as const;
/** Every field the generated lines may carry. */
export const DELIVERY_LINE_FIELDS = [
  'line_number',
  'product_number',
  'quantity',
  'target_stock_pool',
  'barcode',
  'container_barcode',
  'purchase_price',
  'ordered_quantity',
  'description',
] as const;

// Type aliases, not interfaces: the plain-table helpers (columnsOfRecords) take them as records.
export type DeliveryLine = {
  line_number: number;
  product_number: string;
  quantity: number;
  target_stock_pool: number;
  barcode: string;
  container_barcode: string;
  purchase_price: number;
  ordered_quantity?: number;
  description?: string;
};

export type DeliveryOrder = {
  order_number: string;
  order_type: number;
  datetime_created: string;
  datetime_expected: string;
  no_of_containers: number;
  supplier_name: string;
  supplier_code: string;
  reference: string;
  store_origin?: string;
  description?: string;
  tracing_url?: string;
  order_lines: DeliveryLine[];
};

/** A quantity in thousandths, exactly (the service's quantities have 3 decimals). */
const milli = (quantity: number) => Math.round(quantity * 1000);

export const deliveryOrderNumber = (sequence: number) => `DO${String(sequence).padStart(8, '0')}`;
/** A container (roll cage, pallet) of an order: an SSCC-like 18-digit code. */
const containerBarcode = (sequence: number, container: number) =>
  `00387${String(sequence).padStart(11, '0')}${String(container).padStart(2, '0')}`;

/**
 * Delivery orders as an ERP announces them (interface §4.3): mostly supplier purchase orders
 * (order_type 1), a fifth transfers from a distribution centre that is no store of this
 * service (order_type 2, `store_origin`: books nothing on the origin) unless `purchaseOnly`;
 * 1–4 containers each; `linesPerOrder` distinct products of the first `productCount`
 * (existing ones: lib/stock.ts), announced in cases of 12 or, a tenth, weighed; the
 * product's barcode and purchase price; 85 % to pool 1, the rest to the back-store pool 2.
 */
export function deliveryOrders(
  p: Picker,
  firstSequence: number,
  orderCount: number,
  linesPerOrder: number,
  productCount: number,
  options: { purchaseOnly?: boolean } = {},
): DeliveryOrder[] {
  const today = Date.now() - (Date.now() % 86_400_000);
  return Array.from({ length: orderCount }, (_, k): DeliveryOrder => {
    const sequence = firstSequence + k;
    const purchase = options.purchaseOnly === true || p.chance(0.8);
    const supplier = p.int(1, 40);
    const containers = p.int(1, 4);
    const expected = today + p.int(1, 7) * 86_400_000 + p.int(5, 14) * 3_600_000;
    const chosen = new Set<number>();
    while (chosen.size < linesPerOrder) chosen.add(p.int(0, productCount - 1));
    const lines = [...chosen].map((index, lineIndex): DeliveryLine => {
      const product = stockProductInput(index);
      const quantity = p.chance(0.1) ? p.int(500, 25_000) / 1000 : p.int(1, 8) * 12;
      return {
        line_number: lineIndex + 1,
        product_number: productNumber(index),
        quantity,
        target_stock_pool: p.chance(0.85) ? 1 : 2,
        barcode: product.barcode as string,
        container_barcode: containerBarcode(sequence, p.int(1, containers)),
        purchase_price: product.purchase_price as number,
        ...(p.chance(0.1) ? { ordered_quantity: (milli(quantity) + 12_000) / 1000 } : {}),
        ...(p.chance(0.05) ? { description: `${product.product_name as string}, promotion pack` } : {}),
      };
    });
    return {
      order_number: deliveryOrderNumber(sequence),
      order_type: purchase ? 1 : 2,
      datetime_created: new Date(expected - 2 * 86_400_000).toISOString(),
      datetime_expected: new Date(expected).toISOString(),
      no_of_containers: containers,
      supplier_name: purchase ? `Supplier ${supplier} B.V.` : 'Distribution centre North',
      supplier_code: purchase ? `SUP-${supplier}` : 'DC-N',
      reference: `ERP-${purchase ? 'PO' : 'TO'}-${sequence}`,
      ...(purchase ? {} : { store_origin: 'DC-NORTH' }),
      ...(p.chance(0.2) ? { description: 'Weekly replenishment' } : {}),
      ...(p.chance(0.3) ? { tracing_url: `https://track.example.com/${sequence}` } : {}),
      order_lines: lines,
    };
  });
}

/** The plain tables of the raw delivery import: every field the generated orders and lines may carry. */
export const deliveryPlainTables = () => [
  deliveryOrdersTable(DELIVERY_ORDER_FIELDS.filter((field) => field !== 'order_number')),
  deliveryLinesTable([...DELIVERY_LINE_FIELDS]),
];

interface DeliveryRead {
  order_number: string;
  order_type: string;
  status: string;
  no_of_containers: number;
  order_lines: Array<{
    line_number: number;
    product_number: string;
    quantity: number;
    received_quantity: number;
    target_stock_pool: number;
    container_barcode?: string;
  }>;
}

async function readDelivery(service: Service, orderNumber: string): Promise<DeliveryRead> {
  const page = (
    await getOk(
      service.baseUrl,
      `${API}/orders/deliveries?order_number=${orderNumber}`,
      `reading delivery ${orderNumber}`,
    )
  ).json<{ list: DeliveryRead[] }>();
  if (page.list.length !== 1)
    throw new Error(`GET /orders/deliveries?order_number=${orderNumber} found ${page.list.length} deliveries`);
  return page.list[0]!;
}

// ---------------------------------------------------------------- deliveries.import.1000x20

const IMPORT = 'deliveries.import.1000x20';
const IMPORT_ORDERS = 1_000;
const IMPORT_LINES = 20;

/**
 * The service stored exactly what was sent: the store holds `totalOrders` deliveries, and
 * the run's first and last orders read back with every line as sent, open, with their
 * containers counted.
 */
async function checkImported(service: Service, orders: readonly DeliveryOrder[], totalOrders: number): Promise<void> {
  const page = (
    await getOk(
      service.baseUrl,
      `${API}/orders/deliveries?store_number=${STOCK_STORE}&page_size=1`,
      'counting deliveries',
    )
  ).json<{ total_count: number }>();
  if (page.total_count !== totalOrders)
    throw new Error(`the store holds ${page.total_count} deliveries, ${totalOrders} were imported`);
  for (const sent of [orders[0]!, orders[orders.length - 1]!]) {
    const read = await readDelivery(service, sent.order_number);
    const containers = new Set(sent.order_lines.map((line) => line.container_barcode)).size;
    const problems: string[] = [];
    if (read.status !== 'open' || read.order_type !== String(sent.order_type) || read.no_of_containers !== containers) {
      problems.push(
        `header ${read.status}/${read.order_type}/${read.no_of_containers} containers, expected open/${sent.order_type}/${containers}`,
      );
    }
    const lines = new Map(read.order_lines.map((line) => [line.line_number, line]));
    if (lines.size !== sent.order_lines.length) problems.push(`${lines.size} lines, ${sent.order_lines.length} sent`);
    for (const line of sent.order_lines) {
      const got = lines.get(line.line_number);
      if (
        !got ||
        got.product_number !== line.product_number ||
        milli(got.quantity) !== milli(line.quantity) ||
        got.received_quantity !== 0 ||
        got.target_stock_pool !== line.target_stock_pool ||
        got.container_barcode !== line.container_barcode
      ) {
        problems.push(`line ${line.line_number} reads ${JSON.stringify(got)}`);
      }
    }
    if (problems.length > 0)
      throw new Error(`delivery ${sent.order_number} does not read back as sent: ${problems.slice(0, 3).join('; ')}`);
  }
}

/** Issue 12: a 1,000-delivery import (20 lines each) should cost at most three raw inserts of its rows. */
export const deliveriesImport: Scenario = orderImportScenario({
  name: IMPORT,
  description:
    `POST ${API}/stores/{s}/orders/deliveries with ${IMPORT_ORDERS} new delivery orders × ${IMPORT_LINES} lines (purchase orders and DC transfers, ` +
    `containers, purchase prices, products seeded over HTTP; fresh order numbers every run, the database grows run by run) over HTTP, against the raw ` +
    'writer process (JSON.parse of the same body text, better-sqlite3 prepared inserts in one transaction of the same 1,000 order rows and 20,000 line ' +
    'rows into plain tables: delivery_orders with integer primary key + unique order_number, delivery_lines with integer primary key + unique ' +
    '(order id, line_number), one column per field; same synchronous mode)',
  path: DELIVERIES_PATH,
  orders: IMPORT_ORDERS,
  linesPerOrder: IMPORT_LINES,
  products: PRODUCTS,
  seed: 12,
  plainTables: deliveryPlainTables,
  rawOp: 'deliveries-import',
  generate: deliveryOrders,
  checkImported,
});

// ---------------------------------------------------------------- deliveries.receive.200

const RECEIVE = 'deliveries.receive.200';
const RECEIVE_LINES = 200;
/**
 * Receipts per side in one run (their mean is the run's figure): one 200-line request is
 * short and this machine's speed drifts within a second, so each run takes several of each
 * side in turn, each receipt on a delivery of its own announced (untimed) at the run's start.
 */
const RECEIPTS_PER_RUN = 4;

/** What arrived of each line: mostly as announced, some short, some over; a tenth put into pool 3 instead of the line's pool. */
interface Arrival {
  line_number: number;
  product_number: string;
  received_quantity: number;
  pool: number;
  poolChosen: boolean;
}

function arrivals(p: Picker, order: DeliveryOrder): Arrival[] {
  return order.order_lines.map((line) => {
    const weighed = !Number.isInteger(line.quantity);
    const kind = p.int(0, 19);
    let received = line.quantity;
    if (kind === 0)
      received = weighed ? Math.round(line.quantity * 900) / 1000 : Math.max(1, line.quantity - p.int(1, 11)); // short
    else if (kind === 1) received = weighed ? Math.round(line.quantity * 1050) / 1000 : line.quantity + p.int(1, 12); // over
    const poolChosen = p.chance(0.1);
    return {
      line_number: line.line_number,
      product_number: line.product_number,
      received_quantity: received,
      pool: poolChosen ? 3 : line.target_stock_pool,
      poolChosen,
    };
  });
}

const receivePath = (orderNumber: string) => `${DELIVERIES_PATH}/${orderNumber}/receive?appUserName=${APP_USER}`;
/** Receipt entries without a reference: plain receipt entries (docs/deliveries.md), the same ledger rows receiving books. */
const DIRECT_PATH = `${STOCK_LOGS_PATH}?is_from_receipt=true&appUserName=${APP_USER}`;

function timedReceive(service: Service, orderNumber: string, lines: readonly Arrival[]): Promise<number> {
  const body = JSON.stringify({
    lines: lines.map((a) => ({
      line_number: a.line_number,
      received_quantity: a.received_quantity,
      ...(a.poolChosen ? { target_stock_pool: a.pool } : {}),
    })),
  });
  return timedPost(
    service.baseUrl,
    receivePath(orderNumber),
    body,
    `received ${lines.length} lines on delivery '${orderNumber}'; status receiving`,
  );
}

/** The same stock as plain entries, unlocated, in the line's (or chosen) pool, stamped now — as receiving books them, so none is late. */
function timedDirect(service: Service, lines: readonly Arrival[]): Promise<number> {
  const at = new Date().toISOString();
  const body = JSON.stringify({
    storeproductlog: lines.map((a) => ({
      product_number: a.product_number,
      quantity: a.received_quantity,
      pool_location: a.pool,
      customer_order_line_number: 0,
      modification_datetime: at,
    })),
  });
  return timedPost(
    service.baseUrl,
    DIRECT_PATH,
    body,
    `created ${lines.length}: applied ${lines.length}, pending review 0`,
  );
}

/** Issue 12: receiving a 200-line delivery costs at most twice posting its 200 entries directly. */
export const deliveriesReceive: Scenario = {
  name: RECEIVE,
  description:
    `POST ${API}/stores/{s}/orders/deliveries/{order_number}/receive with ${RECEIVE_LINES} lines (mostly as announced, some short or over, a tenth ` +
    'into another pool) on a fresh open delivery announced (untimed) at the start of the run, against POST …/storeproductlogs?is_from_receipt=true ' +
    `with the same ${RECEIVE_LINES} entries (same products, quantities and pools, unlocated, no reference), over HTTP, same service and database, ` +
    `same run; ${RECEIPTS_PER_RUN} requests per side per run, in turn`,
  unit: 'ms',
  valueLabel: 'receive',
  baselineLabel: `${RECEIVE_LINES} receipt entries`,
  baselineKind: 'service',
  defaultRuns: 5,
  target: {
    ratio: 2,
    comparison: '<=',
    description: `receiving ${RECEIVE_LINES} delivery lines ≤ 2 × posting the same ${RECEIVE_LINES} stock entries directly`,
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('deliveries-receive'), (t) => t.remove());
      const service = await startStockService(resources, temp.dir, PRODUCTS);
      const p = picker(1212);
      let nextSequence = 1;
      /** What both sides booked so far, by product and pool (thousandths): every product starts without stock. */
      const booked = new Map<string, Map<number, number>>();
      const book = (lines: readonly Arrival[]) => {
        for (const a of lines) {
          const pools = booked.get(a.product_number) ?? new Map<number, number>();
          pools.set(a.pool, (pools.get(a.pool) ?? 0) + milli(a.received_quantity));
          booked.set(a.product_number, pools);
        }
      };

      /** Announces `count` fresh open deliveries of 200 lines each (untimed), with what will arrive of them. */
      const announce = async (count: number) => {
        const orders = deliveryOrders(p, nextSequence, count, RECEIVE_LINES, PRODUCTS, { purchaseOnly: true });
        nextSequence += count;
        await postOk(service.baseUrl, DELIVERIES_PATH, { orders }, `announcing ${count} deliveries`);
        return orders.map((order) => ({ order, lines: arrivals(p, order) }));
      };

      /**
       * Each delivery received is `receiving` with every line's received quantity as sent
       * and one receipt line per received line; every product touched reads (over HTTP) the
       * model's stock per pool; `store-ops verify` is clean.
       */
      const check = async (received: ReadonlyArray<{ order: DeliveryOrder; lines: Arrival[] }>) => {
        for (const { order, lines } of received) {
          const read = await readDelivery(service, order.order_number);
          const byLine = new Map(read.order_lines.map((line) => [line.line_number, line]));
          const wrong = lines.filter(
            (a) => milli(byLine.get(a.line_number)?.received_quantity ?? Number.NaN) !== milli(a.received_quantity),
          );
          if (read.status !== 'receiving' || wrong.length > 0) {
            throw new Error(
              `delivery ${order.order_number} reads ${read.status}, ${wrong.length} lines with another received quantity than booked (e.g. line ${wrong[0]?.line_number})`,
            );
          }
          const receipts = (
            await getOk(
              service.baseUrl,
              `${API}/stores/${STOCK_STORE}/orders/receipts?receipt_type=1&order_number=${order.order_number}`,
              'reading the receipt',
            )
          ).json<{ list: Array<{ receipt_lines?: Array<{ received_quantity: number }> }> }>().list;
          const receiptLines = receipts.flatMap((r) => r.receipt_lines ?? []);
          const receiptMilli = receiptLines.reduce((sum, line) => sum + milli(line.received_quantity), 0);
          const sentMilli = lines.reduce((sum, a) => sum + milli(a.received_quantity), 0);
          if (receipts.length !== 1 || receiptLines.length !== lines.length || receiptMilli !== sentMilli) {
            throw new Error(
              `delivery ${order.order_number}: ${receipts.length} receipts with ${receiptLines.length} lines (${receiptMilli / 1000}), expected 1 with ${lines.length} (${sentMilli / 1000})`,
            );
          }
        }
        const products = [...new Set(received.flatMap(({ lines }) => lines.map((a) => a.product_number)))];
        for (let from = 0; from < products.length; from += 20) {
          await Promise.all(
            products.slice(from, from + 20).map(async (product) => {
              const answer = (
                await getOk(
                  service.baseUrl,
                  `${API}/stores/${STOCK_STORE}/products/${product}/stock`,
                  `stock of ${product}`,
                )
              ).json<{
                products: Array<Record<string, number | undefined>>;
              }>();
              const stock = answer.products[0] ?? {};
              for (let pool = 1; pool <= 10; pool++) {
                const expected = booked.get(product)?.get(pool) ?? 0;
                if (milli(stock[`stock_pool_${pool}`] ?? 0) !== expected) {
                  throw new Error(
                    `${product} reads ${stock[`stock_pool_${pool}`] ?? 0} in pool ${pool}, both sides booked ${expected / 1000}`,
                  );
                }
              }
            }),
          );
        }
        return storeOpsVerify(`sqlite:${service.file}`);
      };

      // An untimed round of both paths.
      const warmup = await announce(1);
      await timedReceive(service, warmup[0]!.order.order_number, warmup[0]!.lines);
      await timedDirect(service, warmup[0]!.lines);
      book(warmup[0]!.lines);
      book(warmup[0]!.lines);
      await check(warmup);

      return {
        async measure(run) {
          const deliveries = await announce(RECEIPTS_PER_RUN);
          let value = 0;
          let baseline = 0;
          for (const [i, { order, lines }] of deliveries.entries()) {
            // Alternate who goes first, so a drift in machine speed favours neither side.
            if ((run + i) % 2 === 1) baseline += await timedDirect(service, lines);
            value += await timedReceive(service, order.order_number, lines);
            if ((run + i) % 2 === 0) baseline += await timedDirect(service, lines);
            book(lines);
            book(lines);
          }
          const verifyMs = await check(deliveries);
          return {
            value: value / RECEIPTS_PER_RUN,
            baseline: baseline / RECEIPTS_PER_RUN,
            extra: {
              'receive lines/s': (RECEIVE_LINES * 1000 * RECEIPTS_PER_RUN) / value,
              'direct entries/s': (RECEIVE_LINES * 1000 * RECEIPTS_PER_RUN) / baseline,
              'service peak RSS MB': service.peakRssMb(),
              'verify ms': verifyMs,
            },
          };
        },
        close: () => resources.release(),
      };
    }),
};
