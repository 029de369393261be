import type { AppContext } from '../../app-context.js';
import type { LocationInput } from './schema.js';
import { importLocations } from './service.js';

/**
 * A small store layout: aisles in walking order, a chilled wall, the backroom (default
 * pool 2, the demo stores' "Backroom") and a damaged-goods cage (pool 3, "Damaged").
 */
const DEMO_LOCATIONS: LocationInput[] = [
  { location_code: 'A-01', location_order: 10, tags: ['aisle-1', 'dairy', 'chilled'], default_stock_pool: 1 },
  { location_code: 'A-02', location_order: 20, tags: ['aisle-1', 'cheese', 'chilled'], default_stock_pool: 1 },
  { location_code: 'B-01', location_order: 30, tags: ['aisle-2', 'bakery'], default_stock_pool: 1 },
  { location_code: 'C-01', location_order: 40, tags: ['aisle-3', 'food'], default_stock_pool: 1 },
  { location_code: 'D-01', location_order: 50, tags: ['aisle-4', 'household', 'nonfood'], default_stock_pool: 1 },
  { location_code: 'BR-01', location_order: 90, tags: ['backroom'], default_stock_pool: 2 },
  { location_code: 'DMG', location_order: 99, tags: ['backroom', 'damaged'], default_stock_pool: 3 },
];

/** `store-ops seed`: the demo layout in every live demo store that exists; re-running changes nothing. */
export async function seedLocations(ctx: AppContext, storeNumbers: readonly string[]): Promise<string[]> {
  const live = await ctx.db
    .selectFrom('stores')
    .select('store_number')
    .where('store_number', 'in', [...storeNumbers])
    .where('deleted_on', 'is', null)
    .execute();
  const lines: string[] = [];
  for (const { store_number } of live) {
    lines.push(
      `locations ${store_number}: ${await importLocations(ctx, store_number, { locations: DEMO_LOCATIONS }, 'seed')}`,
    );
  }
  return lines;
}
