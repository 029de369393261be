import type { AppContext } from '../../app-context.js';
import { servicePrincipal } from '../../shared/access.js';
import { postStockLogs } from './service.js';
import type { StockLogInput } from './schema.js';

const SEED_SOURCE = 'seed';
/** The seed books as the service itself: every store (no request, no token). */
const SEED = servicePrincipal('seed');
const DAY = 24 * 60 * 60 * 1000;

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
    const already = await ctx.db
      .selectFrom('stock_logs')
      .select('id')
      .where('store_number', '=', storeNumber)
      .where('source', '=', SEED_SOURCE)
      .limit(1)
      .executeTakeFirst();
    if (already) {
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
        location_code: index % 2 ? 'A-01' : 'C-01',
        modification_datetime: at(0),
      },
      { ...base, product_number, quantity: 12, location_code: 'BR-01', modification_datetime: at(0, 1) },
      {
        ...base,
        product_number,
        quantity: -(3 + (index % 5)),
        location_code: index % 2 ? 'A-01' : 'C-01',
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
