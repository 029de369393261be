/**
 * Stock test data for the stock scenarios: one store with products, locations and reason
 * codes (master data, seeded through the API), stock log entries as handhelds and the ERP
 * send them (interface §4.8), and posting them to the service over HTTP. Stock itself only
 * ever enters through the service's ledger, except where a scenario says otherwise.
 */
import type { PostedEntry, StockMaster } from '../baselines/stock-booking.js';
import { postOk, timedPost } from './client.js';
import type { BenchDatabase } from './ledger-db.js';
import { chainProductInput, productNumberOf } from '../../src/generate/chain-plan.js';
import { storeInput, storeNumberOf, type Picker } from './data.js';
import type { Resources } from './resources.js';
import { API, startService, type Service } from './service.js';

export const STOCK_STORE = storeNumberOf(0);
/** Where a store's stock log entries are posted. */
export const stockLogsPath = (storeNumber: string) => `${API}/stores/${storeNumber}/products/stock/storeproductlogs`;
export const STOCK_LOGS_PATH = stockLogsPath(STOCK_STORE);

/** Locations of the store: two with a default pool, tags as the jsonTag filters use them. */
export const STOCK_LOCATIONS = [
  { location_code: 'A-01-01', location_order: 10, default_stock_pool: 1, tags: ['shelf', 'aisle-a'] },
  { location_code: 'A-02-03', location_order: 20, tags: ['shelf', 'aisle-a'] },
  { location_code: 'BACK-01', location_order: 90, default_stock_pool: 2, tags: ['backroom'] },
  { location_code: 'PROMO-1', location_order: 5, tags: ['promotion'] },
] as const;

/** Reason codes the entries use: a loss (subtracts |q|), a gain (adds |q|), a plain one (sign kept), a movement code. */
export const REASON = { loss: 101, gain: 102, plain: 103, movement: 301 } as const;

const reasonCode = (
  code: number,
  description: string,
  type: number,
  flags: { is_loss?: boolean; is_gain?: boolean } = {},
) => ({
  reason_code: code,
  reason_code_description: description,
  reason_code_type: type,
  default_review_status: 0,
  is_comment_mandatory: false,
  is_gain: flags.is_gain ?? false,
  is_image_mandatory: false,
  is_loss: flags.is_loss ?? false,
  is_order_number_mandatory: false,
  is_picking_list: false,
  is_sales_order_discount: false,
  is_store: true,
});

const STOCK_REASON_CODES = [
  reasonCode(REASON.loss, 'Damaged', 1, { is_loss: true }),
  reasonCode(REASON.gain, 'Found', 7, { is_gain: true }),
  reasonCode(REASON.plain, 'Correction', 6),
  reasonCode(REASON.movement, 'Replenish shelf', 3),
];

/** The products of the stock scenarios are those `store-ops generate` writes (src/generate/chain-plan.ts). */
export const productNumber = productNumberOf;

/** A product as the ERP sends a lean record: what the stock reads show of it (interface §4.9). */
export const stockProductInput = (index: number): Record<string, unknown> => chainProductInput(index);

/**
 * The store (or the first `storeCount` stores, each with the same locations), `productCount`
 * products and the reason codes, through the service's HTTP API.
 */
export async function seedStockMasterData(baseUrl: string, productCount: number, storeCount = 1): Promise<void> {
  const stores = Array.from({ length: storeCount }, (_, i) => storeInput(i));
  await postOk(
    baseUrl,
    `${API}/stores`,
    { stores },
    storeCount === 1 ? 'seeding the store' : `seeding ${storeCount} stores`,
  );
  for (let from = 0; from < productCount; from += 10_000) {
    const products = Array.from({ length: Math.min(10_000, productCount - from) }, (_, i) =>
      stockProductInput(from + i),
    );
    await postOk(baseUrl, `${API}/products`, { products }, `seeding products ${from + 1}–${from + products.length}`);
  }
  for (let i = 0; i < storeCount; i++) {
    await postOk(
      baseUrl,
      `${API}/stores/${storeNumberOf(i)}/locations`,
      { locations: STOCK_LOCATIONS },
      `seeding the locations of ${storeNumberOf(i)}`,
    );
  }
  await postOk(baseUrl, `${API}/reasoncodes`, { reason_codes: STOCK_REASON_CODES }, 'seeding reason codes');
}

/**
 * The store's assortment as the ERP sends it (POST /stores/{s}/storeproducts, interface §4.4):
 * a store product for each of the first `productCount` products, with min and max levels —
 * so stock posts afterwards land on store products that exist, as in a running store.
 */
export async function seedAssortment(baseUrl: string, storeNumber: string, productCount: number): Promise<void> {
  for (let from = 0; from < productCount; from += 10_000) {
    const products = Array.from({ length: Math.min(10_000, productCount - from) }, (_, i) => ({
      product_number: productNumber(from + i),
      min: 2 + ((from + i) % 5),
      max: 24,
    }));
    await postOk(
      baseUrl,
      `${API}/stores/${storeNumber}/storeproducts`,
      { products },
      `seeding the assortment of ${storeNumber}`,
    );
  }
}

/** The service on a fresh file in `dir`, seeded with the stock store's master data; stopped with the scenario's resources. */
export async function startStockService(resources: Resources, dir: string, productCount: number): Promise<Service> {
  const service = resources.add(await startService(dir, 'service'), (s) => s.stop());
  await seedStockMasterData(service.baseUrl, productCount);
  return service;
}

/** A balance of the service (its own `stock_balances`, read by the bench), named by numbers and codes (location null when unlocated). */
export interface ServiceBalance {
  store_number: string;
  product_number: string;
  location_code: string | null;
  pool: unknown;
  order_key: string;
  quantity: unknown;
}

/** Every non-zero balance of the service's database (untimed checks against a model of what was posted). */
export function readServiceBalances(db: BenchDatabase): Promise<ServiceBalance[]> {
  return db.query<ServiceBalance>(
    `select b.store_number, p.product_number, l.location_code, b.pool, b.order_key, b.quantity
       from stock_balances b join products p on p.id = b.product_id left join locations l on l.id = b.location_id
      where b.quantity <> 0`,
  );
}

/** What the raw stock baselines need to know of the master data, as a raw importer would cache it. */
export function stockMasterForRawWriter(): StockMaster & { storeNumber: string } {
  return {
    storeNumber: STOCK_STORE,
    reasons: Object.fromEntries(
      STOCK_REASON_CODES.map((r) => [String(r.reason_code), { isLoss: r.is_loss, isGain: r.is_gain }]),
    ),
    defaultPools: Object.fromEntries(
      STOCK_LOCATIONS.map((l) => [l.location_code, 'default_stock_pool' in l ? l.default_stock_pool : null]),
    ),
  };
}

/** One stock log entry as posted (interface §4.8): what the booking reads (PostedEntry), and the rest. */
export interface StockEntry extends PostedEntry {
  customer_order_line_number: number;
  app_user_name?: string;
  reference?: string;
}

/** Strictly increasing, realistic moments: a store's day of scanning, in order (no late entries). */
export class StockClock {
  private at: number;
  constructor(start = Date.now() - 30 * 86_400_000) {
    this.at = start;
  }
  next(p: Picker): string {
    this.at += p.int(20, 2_000);
    return new Date(this.at).toISOString();
  }
}

const USERS = ['anna', 'bram', 'chloe', 'daan', 'emma'];

/**
 * `count` entries over the first `productCount` products: mostly located (a fifth
 * unlocated), a sixth with an explicit pool, a mix of loss, gain, plain-code and codeless
 * entries, signed deltas (sales are negative), some fractional quantities.
 */
export function stockEntries(p: Picker, clock: StockClock, count: number, productCount: number): StockEntry[] {
  return Array.from({ length: count }, (): StockEntry => {
    const entry: StockEntry = {
      product_number: productNumber(p.int(0, productCount - 1)),
      quantity: p.chance(0.1) ? p.int(1, 24_000) / 1000 : p.int(1, 24),
      customer_order_line_number: 0,
      modification_datetime: clock.next(p),
      app_user_name: p.pick(USERS),
    };
    if (!p.chance(0.2)) entry.location_code = p.pick(STOCK_LOCATIONS).location_code;
    if (p.chance(1 / 6)) entry.pool_location = p.pick([1, 2, 3]);
    const kind = p.int(0, 19);
    if (kind < 3) entry.reason_code = REASON.loss;
    else if (kind < 6) entry.reason_code = REASON.gain;
    else if (kind < 8) entry.reason_code = REASON.plain;
    if ((entry.reason_code === undefined || entry.reason_code === REASON.plain) && p.chance(0.4))
      entry.quantity = -entry.quantity;
    if (p.chance(0.1)) entry.reference = `DOC-${p.int(1, 99_999)}`;
    return entry;
  });
}

/** POSTs entries (body serialised outside the timing) over HTTP to the store's path; checks that every entry was applied. */
export function timedStockPost(
  baseUrl: string,
  body: string,
  count: number,
  storeNumber = STOCK_STORE,
  headers?: Record<string, string>,
): Promise<number> {
  return timedPost(
    baseUrl,
    stockLogsPath(storeNumber),
    body,
    `created ${count}: applied ${count}, pending review 0`,
    headers,
  );
}

export function stockBody(entries: readonly StockEntry[]): string {
  return JSON.stringify({ storeproductlog: entries });
}
