import type { AppContext } from './app-context.js';
import { importStores } from './modules/stores/service.js';
import type { StoreInput } from './modules/stores/schema.js';

const OPENING_HOURS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((day, index) => ({
  sort_order: index + 1,
  key: day,
  value: index < 5 ? '08:00-21:00' : index === 5 ? '09:00-18:00' : 'closed',
}));

/** Demo stores: two areas and a warehouse that serves both. */
export const DEMO_STORES: StoreInput[] = [
  { store_number: '1001', store_name: 'Amsterdam Centrum', city: 'Amsterdam', area_id: 'NH', area_description: 'Noord-Holland' },
  { store_number: '1002', store_name: 'Amsterdam Zuid', city: 'Amsterdam', area_id: 'NH', area_description: 'Noord-Holland' },
  { store_number: '1003', store_name: 'Haarlem', city: 'Haarlem', area_id: 'NH', area_description: 'Noord-Holland' },
  { store_number: '2001', store_name: 'Utrecht Centraal', city: 'Utrecht', area_id: 'UT', area_description: 'Utrecht' },
  { store_number: '2002', store_name: 'Amersfoort', city: 'Amersfoort', area_id: 'UT', area_description: 'Utrecht' },
].map((store) => ({
  ...store,
  is_active: true,
  is_active_data_exchange: true,
  is_warehouse: false,
  country_code: 'NL',
  country_name: 'Netherlands',
  store_stock_pool_1: 'Sales floor',
  store_stock_pool_2: 'Backroom',
  store_stock_pool_3: 'Damaged',
  opening_hours: OPENING_HOURS,
  free_fields: [{ sort_order: 1, key: 'manager', value: 'Demo Manager' }],
  ordering_schema: [{ day: 1, delivery_offset: 2, ordering_offset: 0, time: '14:00' }],
  store_printers: [{ is_bluetooth: true, printer_type: 1, printer_name: 'Handheld label printer' }],
}));

DEMO_STORES.push({
  store_number: '9001',
  store_name: 'Distribution Centre Utrecht',
  city: 'Nieuwegein',
  area_id: 'UT',
  area_description: 'Utrecht',
  is_active: true,
  is_active_data_exchange: true,
  is_warehouse: true,
  country_code: 'NL',
});

/** `store-ops seed`: demo data through the same services the API uses; re-running changes nothing. */
export async function seedDemoData(ctx: AppContext): Promise<string[]> {
  return [`stores: ${await importStores(ctx, { stores: DEMO_STORES }, false, 'seed')}`];
}
