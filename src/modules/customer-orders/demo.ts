import type { AppContext } from '../../app-context.js';
import { servicePrincipal } from '../../shared/access.js';
import { DEMO_PRODUCTS } from '../products/demo.js';
import { demoShelfOf } from '../stock-logs/demo.js';
import { clearOrder, updateCustomerOrder } from './picking.js';
import { type OrderInput, type OrderUpdateBody, STATUS } from './schema.js';
import { importOrders } from './service.js';

/** The seed works as the service itself: every store (no request, no token). */
const SEED = servicePrincipal('seed');
const HOUR = 3_600_000;
const PICKER = 'demo';
/** The demo reason code of type 2 a store rejects an order with (src/seed.ts). */
export const DEMO_ORDER_REJECTION_REASON = 202;

type Status = (typeof STATUS)[keyof typeof STATUS];

interface DemoOrder {
  status: Status;
  customer: string;
  /** When the customer comes, in hours from the moment of the seed. */
  pickupInHours: number;
  /** [index into DEMO_PRODUCTS — the first 12 have shelf stock from the demo history, quantity]. */
  lines: Array<[number, number]>;
}

/**
 * One click-and-collect order in each status of PRODUCT §7, numbered in that order. Small
 * quantities of products the demo history put on the shelves, so every pick finds free stock.
 */
const DEMO_ORDERS: DemoOrder[] = [
  {
    status: STATUS.new,
    customer: 'A. de Vries',
    pickupInHours: 4,
    lines: [
      [0, 2],
      [10, 1],
    ],
  },
  {
    status: STATUS.claimed,
    customer: 'B. Jansen',
    pickupInHours: 3,
    lines: [
      [2, 1],
      [3, 1],
    ],
  },
  {
    status: STATUS.picking,
    customer: 'C. Bakker',
    pickupInHours: 2,
    lines: [
      [5, 1],
      [7, 2],
    ],
  },
  {
    status: STATUS.picked,
    customer: 'D. Visser',
    pickupInHours: 1,
    lines: [
      [4, 2],
      [9, 1],
    ],
  },
  {
    status: STATUS.collected,
    customer: 'E. Smit',
    pickupInHours: -1,
    lines: [
      [1, 2],
      [11, 1],
    ],
  },
  {
    status: STATUS.rejected,
    customer: 'F. Meijer',
    pickupInHours: 1,
    lines: [
      [8, 3],
      [6, 1],
    ],
  },
  { status: STATUS.cancelled, customer: 'G. de Boer', pickupInHours: 24, lines: [[0, 6]] },
];

/** Stable order numbers (unique across the chain): C1001-1 (new) … C1001-7 (cancelled). */
export const demoOrderNumber = (storeNumber: string, status: Status): string => `C${storeNumber}-${status}`;

function orderInput(storeNumber: string, order: DemoOrder, now: number): OrderInput {
  return {
    order_number: demoOrderNumber(storeNumber, order.status),
    // The demo sales order type 801, Click and collect (src/seed.ts).
    order_type_code: '801',
    customer_name: order.customer,
    pickup_date: new Date(now + order.pickupInHours * HOUR).toISOString(),
    lines: order.lines.map(([product, quantity], index) => ({
      line_number: index + 1,
      product_number: DEMO_PRODUCTS[product]!.product_number,
      quantity,
      preferred_location_code: demoShelfOf(product),
    })),
  };
}

/** A step of an order's way to its status: the status it reaches, and the call that gets it there. */
interface Step {
  reaches: number;
  run: () => Promise<string>;
}

function stepsTo(ctx: AppContext, storeNumber: string, order: DemoOrder): Step[] {
  const order_number = demoOrderNumber(storeNumber, order.status);
  const update = (body: Omit<OrderUpdateBody, 'order_number'>) =>
    updateCustomerOrder(ctx, storeNumber, { order_number, picked_username: PICKER, ...body }, SEED);
  const pickAll = {
    is_claimed: true,
    lines: order.lines.map(([, quantity], index) => ({ line_number: index + 1, picked_quantity: quantity })),
  };
  // One unit of the first line: the order is being picked (status 3).
  const pickOne = { is_claimed: true, lines: [{ line_number: 1, picked_quantity: 1 }] };
  const claim: Step = { reaches: STATUS.claimed, run: () => update({ is_claimed: true }) };
  const picking: Step = { reaches: STATUS.picking, run: () => update(pickOne) };
  const picked: Step = { reaches: STATUS.picked, run: () => update(pickAll) };
  switch (order.status) {
    case STATUS.new:
      return [];
    case STATUS.claimed:
      return [claim];
    case STATUS.picking:
      return [picking];
    case STATUS.picked:
      return [picked];
    case STATUS.collected:
      return [
        picked,
        { reaches: STATUS.collected, run: () => clearOrder(ctx, { store_number: storeNumber, order_number }, SEED) },
      ];
    case STATUS.rejected:
      // Rejected after a first pick: the picked unit goes back to its shelf (PRODUCT §5).
      return [
        picking,
        {
          reaches: STATUS.rejected,
          run: () => update({ is_rejected: true, rejection_reason_code: DEMO_ORDER_REJECTION_REASON }),
        },
      ];
    case STATUS.cancelled:
      return [{ reaches: STATUS.cancelled, run: () => update({ status_id: STATUS.cancelled }) }];
  }
}

/**
 * `store-ops seed`: the demo customer orders of each store, through the same import, update
 * and clearance services as the API, so every pick, release and hand-over is a pair of
 * ledger entries. An order that exists is never sent again (its pickup moment, relative to
 * now, would count as a change), and each step runs only while the order is short of the
 * status it reaches: a re-run finishes what an interrupted one left and otherwise changes nothing.
 */
export async function seedCustomerOrders(ctx: AppContext, storeNumbers: readonly string[]): Promise<string[]> {
  const now = Date.now();
  const lines: string[] = [];
  for (const storeNumber of storeNumbers) {
    const numbers = DEMO_ORDERS.map((o) => demoOrderNumber(storeNumber, o.status));
    const stored = await storedStatuses(ctx, numbers);
    const missing = DEMO_ORDERS.filter((o) => !stored.has(demoOrderNumber(storeNumber, o.status)));
    const parts: string[] = [];
    if (missing.length > 0) {
      parts.push(
        await importOrders(
          ctx,
          missing.map((o) => orderInput(storeNumber, o, now)),
          SEED,
          storeNumber,
        ),
      );
    }
    let advanced = 0;
    for (const order of DEMO_ORDERS) {
      let status = stored.get(demoOrderNumber(storeNumber, order.status)) ?? STATUS.new;
      for (const step of stepsTo(ctx, storeNumber, order)) {
        if (status >= step.reaches) continue;
        await step.run();
        status = step.reaches;
        advanced++;
      }
    }
    if (advanced > 0) parts.push(`${advanced} status changes`);
    lines.push(`customer orders ${storeNumber}: ${parts.length > 0 ? parts.join('; ') : 'already seeded'}`);
  }
  return lines;
}

async function storedStatuses(ctx: AppContext, orderNumbers: readonly string[]): Promise<Map<string, number>> {
  const rows = await ctx.db
    .selectFrom('customer_orders')
    .select(['order_number', 'status_id'])
    .where('order_number', 'in', [...orderNumbers])
    .execute();
  return new Map(rows.map((row) => [row.order_number, Number(row.status_id)]));
}
