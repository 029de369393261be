import type { AppContext } from '../../app-context.js';
import { servicePrincipal } from '../../shared/access.js';
import { postStockLogs } from './service.js';
import type { StockLogInput } from './schema.js';

const SEED_SOURCE = 'seed';
/** The seed books as the service itself: every store (no request, no token). */
const SEED = servicePrincipal('seed');
const DAY = 24 * 60 * 60 * 1000;

/** Whether the store has an entry the seed marked so: what the seed wrote once, it leaves alone. */
async function hasEntry(
  ctx: AppContext,
  storeNumber: string,
  mark: 'source' | 'reference',
  values: readonly string[],
): Promise<boolean> {
  const found = await ctx.db
    .selectFrom('stock_logs')
    .select('id')
    .where('store_number', '=', storeNumber)
    .where(mark, 'in', [...values])
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/** The shelf the history stocks the demo product at `index` on (pool 1): what a picker finds there. */
export const demoShelfOf = (index: number): string => (index % 2 ? 'A-01' : 'C-01');

/**
 * Demo stock history per store: deliveries into shelf and backroom, a few days of sales, a
 * damaged item, a cycle count and a theft waiting for review. Booked through the same
 * service as the API. A store that already has seeded history is left alone, so a second
 * `store-ops seed` does not double the stock.
 */
export async function seedStockHistory(
  ctx: AppContext,
  storeNumbers: readonly string[],
  productNumbers: readonly string[],
): Promise<string[]> {
  const lines: string[] = [];
  const start = Date.UTC(2026, 0, 5, 7, 0, 0);
  for (const storeNumber of storeNumbers) {
    if (await hasEntry(ctx, storeNumber, 'source', [SEED_SOURCE])) {
      lines.push(`stock ${storeNumber}: history already seeded`);
      continue;
    }
    const at = (day: number, hour = 0) => new Date(start + day * DAY + hour * 3_600_000).toISOString();
    const base = { customer_order_line_number: 0, source: SEED_SOURCE, app_user_name: 'demo' } as const;
    const deltas: StockLogInput[] = productNumbers.flatMap((product_number, index) => [
      {
        ...base,
        product_number,
        quantity: 24 + index,
        location_code: demoShelfOf(index),
        modification_datetime: at(0),
      },
      { ...base, product_number, quantity: 12, location_code: 'BR-01', modification_datetime: at(0, 1) },
      {
        ...base,
        product_number,
        quantity: -(3 + (index % 5)),
        location_code: demoShelfOf(index),
        modification_datetime: at(1, 5),
      },
    ]);
    // Written off where the stock is (a loss at the empty DMG location left it at −1).
    deltas.push({
      ...base,
      product_number: productNumbers[0]!,
      quantity: 1,
      reason_code: 101,
      location_code: 'C-01',
      modification_datetime: at(2),
    });
    deltas.push({
      ...base,
      product_number: productNumbers[1]!,
      quantity: 2,
      reason_code: 103,
      loss_comment: 'Empty packaging found',
      modification_datetime: at(2, 3),
    });
    const posted = await postStockLogs(ctx, storeNumber, { storeproductlog: deltas }, {}, SEED);
    const counts: StockLogInput[] = productNumbers.slice(0, 3).map((product_number) => ({
      ...base,
      product_number,
      quantity: 20,
      location_code: 'C-01',
      reason_code: 601,
      modification_datetime: at(3),
    }));
    const counted = await postStockLogs(
      ctx,
      storeNumber,
      { storeproductlog: counts },
      { is_counted_quantity: true },
      SEED,
    );
    lines.push(`stock ${storeNumber}: ${posted.message}; counts ${counted.message}`);
  }
  return lines;
}

/** The demo reason codes whose entries wait for a manager (default_review_status 1, src/seed.ts). */
export const DEMO_REVIEW_REASONS = { theft: 103, foundNeedsApproval: 703 } as const;

/**
 * A few entries of the last hours waiting in one store's review queue (PRODUCT §5 review): two
 * thefts and stock found in the backroom. Posted through the same intake as the API; their
 * references mark them, so a second `store-ops seed` finds them and posts nothing. Each is of
 * a product the history stocked where it names, so approving one never takes a shelf below zero.
 */
export async function seedPendingReviews(
  ctx: AppContext,
  storeNumber: string,
  productNumbers: readonly string[],
): Promise<string[]> {
  const references = [1, 2, 3].map((n) => `REVIEW-${storeNumber}-${n}`);
  if (await hasEntry(ctx, storeNumber, 'reference', references)) return [`reviews ${storeNumber}: already seeded`];
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const base = { customer_order_line_number: 0, source: SEED_SOURCE, app_user_name: 'demo' } as const;
  const entries: StockLogInput[] = [
    {
      ...base,
      product_number: productNumbers[6]!,
      quantity: 2,
      reason_code: DEMO_REVIEW_REASONS.theft,
      location_code: demoShelfOf(6),
      loss_comment: 'Two packs gone from the shelf, security tag found in aisle 3',
      reference: references[0],
      modification_datetime: minutesAgo(150),
    },
    {
      ...base,
      product_number: productNumbers[7]!,
      quantity: 1,
      reason_code: DEMO_REVIEW_REASONS.theft,
      location_code: demoShelfOf(7),
      loss_comment: 'Opened pack behind the chilled wall',
      reference: references[1],
      modification_datetime: minutesAgo(90),
    },
    {
      ...base,
      product_number: productNumbers[3]!,
      quantity: 6,
      reason_code: DEMO_REVIEW_REASONS.foundNeedsApproval,
      location_code: 'BR-01',
      reference: references[2],
      modification_datetime: minutesAgo(30),
    },
  ];
  const posted = await postStockLogs(ctx, storeNumber, { storeproductlog: entries }, {}, SEED);
  return [`reviews ${storeNumber}: ${posted.message}`];
}
