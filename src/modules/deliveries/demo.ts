import type { AppContext } from '../../app-context.js';
import { servicePrincipal } from '../../shared/access.js';
import { DEMO_PRODUCTS } from '../products/demo.js';
import { receiveDelivery } from './receiving.js';
import type { DeliveryInput, DeliveryStatus } from './schema.js';
import { importDeliveries } from './service.js';

/** The seed works as the service itself: every store (no request, no token). */
const SEED = servicePrincipal('seed');
const HOUR = 3_600_000;
/** Received goods go to the backroom first (the demo stores' pool 2). */
const BACKROOM_POOL = 2;

interface DemoLine {
  /** Index into DEMO_PRODUCTS: the first 20 are store products of every demo store. */
  product: number;
  quantity: number;
  /** What the store receives of it before the delivery reaches its status. */
  received: number;
}

interface DemoDelivery {
  status: DeliveryStatus;
  /** When it is expected, in hours from the moment of the seed. */
  expectedInHours: number;
  supplier: { code: string; name: string };
  lines: DemoLine[];
}

const FRESH = { code: 'SUP-1', name: 'Fresh Supplies BV' };
const GENERAL = { code: 'SUP-2', name: 'General Goods BV' };

/**
 * One delivery in each status of PRODUCT §7, numbered in that order: announced for later
 * today, arrived an hour ago and received in part, received yesterday one line short, and
 * tomorrow's cancelled before it left the supplier.
 */
const DEMO_DELIVERIES: DemoDelivery[] = [
  {
    status: 'open',
    expectedInHours: 2,
    supplier: FRESH,
    lines: [
      { product: 0, quantity: 24, received: 0 },
      { product: 2, quantity: 12, received: 0 },
      { product: 3, quantity: 10, received: 0 },
      { product: 7, quantity: 6, received: 0 },
    ],
  },
  {
    status: 'receiving',
    expectedInHours: -1,
    supplier: FRESH,
    lines: [
      { product: 1, quantity: 24, received: 24 },
      { product: 9, quantity: 16, received: 8 },
      { product: 5, quantity: 6, received: 0 },
    ],
  },
  {
    status: 'received',
    expectedInHours: -24,
    supplier: GENERAL,
    lines: [
      { product: 17, quantity: 20, received: 20 },
      { product: 18, quantity: 10, received: 8 },
      { product: 19, quantity: 6, received: 6 },
    ],
  },
  {
    status: 'cancelled',
    expectedInHours: 24,
    supplier: GENERAL,
    lines: [
      { product: 15, quantity: 10, received: 0 },
      { product: 16, quantity: 10, received: 0 },
    ],
  },
];

/** Stable order numbers (unique across the chain, as the interface wants): D1001-1 … D1001-4. */
export const demoDeliveryNumber = (storeNumber: string, status: DeliveryStatus): string =>
  `D${storeNumber}-${DEMO_DELIVERIES.findIndex((d) => d.status === status) + 1}`;

function deliveryInput(storeNumber: string, delivery: DemoDelivery, now: number): DeliveryInput {
  const expected = now + delivery.expectedInHours * HOUR;
  return {
    order_number: demoDeliveryNumber(storeNumber, delivery.status),
    order_type: 1,
    datetime_expected: new Date(expected).toISOString(),
    datetime_created: new Date(expected - 24 * HOUR).toISOString(),
    no_of_containers: 1,
    supplier_code: delivery.supplier.code,
    supplier_name: delivery.supplier.name,
    ...(delivery.status === 'cancelled' ? { status: 'cancelled' as const } : {}),
    order_lines: delivery.lines.map((line, index) => ({
      line_number: index + 1,
      product_number: DEMO_PRODUCTS[line.product]!.product_number,
      quantity: line.quantity,
      target_stock_pool: BACKROOM_POOL,
    })),
  };
}

/**
 * `store-ops seed`: the demo deliveries of each store, through the same import and receive
 * services as the API, so every received unit is a ledger entry. A delivery that exists is
 * never sent again (its expected moment, relative to now, would count as a change); one left
 * open by an interrupted seed is received on the next run, so re-running changes nothing
 * once every delivery reached its status.
 */
export async function seedDeliveries(ctx: AppContext, storeNumbers: readonly string[]): Promise<string[]> {
  const now = Date.now();
  const lines: string[] = [];
  for (const storeNumber of storeNumbers) {
    const stored = await storedStatuses(
      ctx,
      DEMO_DELIVERIES.map((d) => demoDeliveryNumber(storeNumber, d.status)),
    );
    const missing = DEMO_DELIVERIES.filter((d) => !stored.has(demoDeliveryNumber(storeNumber, d.status)));
    const parts: string[] = [];
    if (missing.length > 0) {
      const inputs = missing.map((d) => deliveryInput(storeNumber, d, now));
      parts.push(await importDeliveries(ctx, inputs, false, SEED, storeNumber));
    }
    let receivedOn = 0;
    for (const delivery of DEMO_DELIVERIES) {
      const orderNumber = demoDeliveryNumber(storeNumber, delivery.status);
      const toReceive = delivery.status === 'receiving' || delivery.status === 'received';
      if (!toReceive || (stored.get(orderNumber) ?? 'open') !== 'open') continue;
      await receiveDelivery(
        ctx,
        storeNumber,
        orderNumber,
        {
          lines: delivery.lines.flatMap((line, index) =>
            line.received > 0 ? [{ line_number: index + 1, received_quantity: line.received }] : [],
          ),
          submit: delivery.status === 'received',
        },
        { appUserName: 'demo' },
        SEED,
      );
      receivedOn++;
    }
    if (receivedOn > 0) parts.push(`received on ${receivedOn}`);
    lines.push(`deliveries ${storeNumber}: ${parts.length > 0 ? parts.join('; ') : 'already seeded'}`);
  }
  return lines;
}

async function storedStatuses(ctx: AppContext, orderNumbers: readonly string[]): Promise<Map<string, string>> {
  const rows = await ctx.db
    .selectFrom('delivery_orders')
    .select(['order_number', 'status'])
    .where('order_number', 'in', [...orderNumbers])
    .execute();
  return new Map(rows.map((row) => [row.order_number, row.status]));
}
