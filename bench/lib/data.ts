/**
 * Deterministic, realistic test data: the same seed gives the same records in every run,
 * so runs (and machines) measure the same work.
 */
import { seededRandom } from '../../src/generate/chain-plan.js';

/** Small seeded PRNG (mulberry32): uniform floats in [0, 1); the one `store-ops generate` uses. */
export const random = seededRandom;

export interface Picker {
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function picker(seed: number): Picker {
  const next = random(seed);
  return {
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

const CITIES = [
  'Amsterdam',
  'Rotterdam',
  'Utrecht',
  'Eindhoven',
  'Groningen',
  'Antwerpen',
  'Gent',
  'Köln',
  'Düsseldorf',
  'Münster',
  'Zwolle',
  'Breda',
];
const STREETS = [
  'Hoofdstraat',
  'Kerkstraat',
  'Marktplein',
  'Stationsweg',
  'Dorpsstraat',
  'Industrieweg',
  'Schoolstraat',
  'Molenweg',
];
const COUNTRIES = [
  ['NL', 'Netherlands'],
  ['BE', 'Belgium'],
  ['DE', 'Germany'],
] as const;
const STORE_TYPES = [
  ['SUP', 'Supermarket'],
  ['CON', 'Convenience'],
  ['HYP', 'Hypermarket'],
  ['DC', 'Distribution centre'],
] as const;
const POOLS = ['Sales floor', 'Back store', 'Web shop', 'Quarantine', 'Returns', 'Display'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const CATEGORIES = ['FRESH', 'FROZEN', 'DAIRY', 'BAKERY', 'DRY', 'NONFOOD'];
const VENDORS = ['Zebra', 'Brother', 'Epson', 'Honeywell'];

function isoAt(baseMillis: number, offsetHours: number): string {
  return new Date(baseMillis + offsetHours * 3_600_000).toISOString();
}

/** The store number of the `index`-th store (0 → S00001). */
export const storeNumberOf = (index: number) => `S${String(index + 1).padStart(5, '0')}`;

/**
 * One store as the ERP sends it (interface §4.7), with every nested array filled the way
 * a real chain fills them: a few free fields, seven opening-hour lines, a weekly ordering
 * schema per category, two or three printers, named stock pools.
 */
export function storeInput(index: number, seed = 1): Record<string, unknown> {
  const p = picker(seed * 1_000_003 + index);
  const [countryCode, countryName] = p.pick(COUNTRIES);
  const [typeCode, typeDescription] = p.pick(STORE_TYPES);
  const city = p.pick(CITIES);
  const isWarehouse = typeCode === 'DC';
  const storeNumber = storeNumberOf(index);
  const base = Date.UTC(2026, 10, 23, 6, 0, 0);
  const store: Record<string, unknown> = {
    store_number: storeNumber,
    store_name: `${typeDescription} ${city} ${p.pick(STREETS)}`,
    is_active: p.chance(0.95),
    is_active_data_exchange: p.chance(0.9),
    is_warehouse: isWarehouse,
    address: `${p.pick(STREETS)} ${p.int(1, 250)}`,
    area_description: `Region ${city}`,
    area_id: `AREA-${p.int(1, 40)}`,
    city,
    contact_details: `manager.${storeNumber.toLowerCase()}@example.com`,
    cost_center: `CC${p.int(1000, 9999)}`,
    country_code: countryCode,
    country_name: countryName,
    esl_server_path: `https://esl-${p.int(1, 9)}.example.com/stores/${storeNumber}`,
    invent_location: `IL-${storeNumber}`,
    ip_range_begin: `10.${p.int(0, 255)}.${p.int(0, 255)}.1`,
    ip_range_end: `10.${p.int(0, 255)}.${p.int(0, 255)}.254`,
    legal_entity: `${countryCode}01`,
    local_server_path: `\\\\srv-${storeNumber.toLowerCase()}\\share`,
    phone_number: `+31 ${p.int(10, 99)} ${p.int(100, 999)} ${p.int(1000, 9999)}`,
    postal_code: `${p.int(1000, 9999)} ${String.fromCharCode(65 + p.int(0, 25), 65 + p.int(0, 25))}`,
    store_gln: `87${String(p.int(0, 99_999_999_999)).padStart(11, '0')}`,
    store_next_delivery_datetime: isoAt(base, p.int(1, 72)),
    store_next_ordering_datetime: isoAt(base, p.int(1, 48)),
    store_type_code: typeCode,
    store_type_description: typeDescription,
    secondary_key: `ERP-${storeNumber}`,
    tertiary_key: p.chance(0.3) ? `LEG-${p.int(1, 99999)}` : undefined,
    warehouse_id: isWarehouse ? undefined : `DC${p.int(1, 5)}`,
    area_manager_user_id: p.int(1, 500),
    price_line_id: p.int(1, 12),
    free_fields: Array.from({ length: p.int(3, 8) }, (_, i) => ({
      sort_order: i + 1,
      key: `field_${i + 1}`,
      value: `value ${p.int(1, 100_000)}`,
    })),
    opening_hours: DAYS.map((day, i) => ({
      sort_order: i + 1,
      key: day,
      value:
        i === 6 && p.chance(0.5)
          ? 'closed'
          : `${p.pick(['07:00', '08:00', '09:00'])}-${p.pick(['20:00', '21:00', '22:00'])}`,
    })),
    ordering_schema: Array.from({ length: p.int(4, 12) }, (_, i) => ({
      day: (i % 7) + 1,
      delivery_offset: p.int(1, 3),
      ordering_offset: p.int(0, 2),
      time: `${String(p.int(6, 18)).padStart(2, '0')}:00`,
      category_code: p.pick(CATEGORIES),
      week_numbers: p.chance(0.3) ? '1,3,5,7,9,11,13' : undefined,
    })),
    store_printers: Array.from({ length: p.int(1, 3) }, (_, i) => ({
      is_bluetooth: p.chance(0.3),
      printer_type: p.int(1, 4),
      printer_ip: `10.${p.int(0, 255)}.${p.int(0, 255)}.${p.int(2, 250)}`,
      printer_name: `PRN-${storeNumber}-${i + 1}`,
      printer_serial: `SN${p.int(100_000, 999_999)}`,
      vendor: p.pick(VENDORS),
    })),
  };
  const poolCount = p.int(2, 5);
  for (let n = 1; n <= poolCount; n++) store[`store_stock_pool_${n}`] = POOLS[n - 1];
  // JSON drops undefined members; drop them here too so objects and JSON agree.
  for (const key of Object.keys(store)) if (store[key] === undefined) delete store[key];
  return store;
}

export function storeInputs(count: number, seed = 1): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, index) => storeInput(index, seed));
}
