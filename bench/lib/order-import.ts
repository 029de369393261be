import path from 'node:path';
import type { PlainTable } from '../baselines/plain-tables.js';
import { timedPost } from './client.js';
import { picker, type Picker } from './data.js';
import { importCounts } from './import-session.js';
import { storeOpsVerify } from './ledger-db.js';
import { tempDir } from './processes.js';
import { startRawWriter } from './raw-writer-client.js';
import { Resources } from './resources.js';
import type { Scenario } from './scenario.js';
import { serviceSynchronous, type Service } from './service.js';
import { STOCK_STORE, startStockService } from './stock.js';

/**
 * A bulk import of orders with lines (deliveries, customer orders), measured the same way for
 * each: one POST of `orders` new orders × `linesPerOrder` lines to the service started by
 * `npm start`, against the raw writer process (JSON.parse of the same body text and prepared
 * inserts of the same rows into plain tables, same synchronous mode). Both sides get the same
 * bodies in the same order, so their databases grow alike; fresh order numbers every run.
 */
export interface OrderImportSpec<Order> {
  name: string;
  description: string;
  /** The store path of the import, e.g. `/api/v2/public/stores/{s}/orders/deliveries`. */
  path: string;
  orders: number;
  linesPerOrder: number;
  products: number;
  /** Seed of the data picker, so every run of the bench sends the same orders. */
  seed: number;
  plainTables: () => PlainTable[];
  rawOp: 'deliveries-import' | 'customer-orders-import';
  generate: (p: Picker, firstSequence: number, orders: number, linesPerOrder: number, products: number) => Order[];
  /** Reads orders back from the service and throws unless they are what was sent. */
  checkImported: (service: Service, orders: readonly Order[], totalOrders: number) => Promise<void>;
}

export function orderImportScenario<Order>(spec: OrderImportSpec<Order>): Scenario {
  const lines = spec.orders * spec.linesPerOrder;
  return {
    name: spec.name,
    description: spec.description,
    unit: 'ms',
    valueLabel: 'service',
    baselineLabel: 'raw better-sqlite3, plain tables',
    baselineKind: 'raw-driver',
    defaultRuns: 5,
    target: {
      ratio: 3,
      comparison: '<=',
      description: `service import time ≤ 3 × raw prepared-statement inserts of the same ${spec.orders} orders and ${lines} lines`,
    },

    prepare: () =>
      new Resources().preparing(async (resources) => {
        const temp = resources.add(tempDir(spec.name), (t) => t.remove());
        const service = await startStockService(resources, temp.dir, spec.products);
        const raw = resources.add(startRawWriter(), (r) => r.stop());
        await raw.open({
          op: 'open',
          file: path.join(temp.dir, 'raw.sqlite'),
          synchronous: serviceSynchronous(),
          tables: spec.plainTables(),
        });
        const p = picker(spec.seed);
        let nextSequence = 1;
        let totalOrders = 0;
        const nextBatch = () => {
          const orders = spec.generate(p, nextSequence, spec.orders, spec.linesPerOrder, spec.products);
          nextSequence += spec.orders;
          return { orders, body: JSON.stringify({ orders }) };
        };
        const serviceImport = (body: string) =>
          timedPost(service.baseUrl, spec.path, body, importCounts(spec.orders, 0));
        const rawImport = (body: string) => raw.timed({ op: spec.rawOp, storeNumber: STOCK_STORE, body });

        // One untimed full-size round, so neither side's first measured run pays for its JIT warm-up.
        const warmup = nextBatch();
        await serviceImport(warmup.body);
        await rawImport(warmup.body);
        totalOrders += spec.orders;
        await spec.checkImported(service, warmup.orders, totalOrders);

        return {
          async measure(run) {
            const { orders, body } = nextBatch();
            // Alternate who goes first, so a drift in machine speed favours neither side.
            let baseline = run % 2 === 1 ? await rawImport(body) : 0;
            const value = await serviceImport(body);
            if (run % 2 === 0) baseline = await rawImport(body);
            totalOrders += spec.orders;
            await spec.checkImported(service, orders, totalOrders);
            const verifyMs = await storeOpsVerify(`sqlite:${service.file}`);
            const linesPerSecond = (ms: number) => (lines * 1000) / ms;
            return {
              value,
              baseline,
              extra: {
                'service lines/s': linesPerSecond(value),
                'raw lines/s': linesPerSecond(baseline),
                'body MB': Buffer.byteLength(body) / 1_048_576,
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
