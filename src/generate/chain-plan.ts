/**
 * What `store-ops generate` writes (issue 28), as pure functions of the options and a seed:
 * the chain's names and master data, and its stock history entry by entry. No database
 * here — generate-chain.ts turns these into rows. The same seed gives the same chain.
 */

export interface ChainOptions {
  stores: number;
  /** Every store carries every product. */
  products: number;
  /** Days of history, ending today. */
  days: number;
  /** History entries per day over the whole chain, after one opening count per store product. */
  entriesPerDay: number;
  seed: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export const storeNumberOf = (index: number) => `S${String(index + 1).padStart(5, '0')}`;
export const productNumberOf = (index: number) => `P${String(index + 1).padStart(7, '0')}`;
export const barcodeOf = (index: number) => `87${String(index).padStart(11, '0')}`;

export const CHAIN_REASONS = {
  loss: { reason_code: 101, reason_code_description: 'Damaged' },
  count: { reason_code: 601, reason_code_description: 'Cycle count' },
} as const;

export const CHAIN_USERS = ['anna', 'bram', 'chris', 'daan', 'eva', 'fleur', 'gijs', 'hanna'];

/** Deterministic 32-bit generator (mulberry32): fast, and the same sequence for a seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function chainStoreInput(index: number) {
  const area = index % 20;
  return {
    store_number: storeNumberOf(index),
    store_name: `Store ${index + 1}`,
    city: `City ${1 + (index % 97)}`,
    area_id: `A${String(area + 1).padStart(2, '0')}`,
    area_description: `Area ${area + 1}`,
    is_active: true,
    is_active_data_exchange: true,
    is_warehouse: false,
    country_code: 'NL',
    store_stock_pool_1: 'Sales floor',
    store_stock_pool_2: 'Backroom',
  };
}

const CATEGORIES = ['FRESH', 'FROZEN', 'DAIRY', 'BAKERY', 'DRY', 'NONFOOD'];

export function chainProductInput(index: number) {
  return {
    product_number: productNumberOf(index),
    product_name: `Product ${index + 1}`,
    carrier_item_quantity: 1,
    is_counted: true,
    price_compare_multiplier: 1,
    is_stock: true,
    barcode: barcodeOf(index),
    category_code: CATEGORIES[index % CATEGORIES.length],
    price: (99 + (index % 500)) / 100,
    purchase_price: (49 + (index % 300)) / 100,
    purchase_unit_quantity: 12,
    purchase_unit_name: 'case',
    base_unit_name: 'piece',
  };
}

export function chainReasonCodeInputs() {
  const base = {
    default_review_status: 0,
    is_comment_mandatory: false,
    is_image_mandatory: false,
    is_order_number_mandatory: false,
    is_picking_list: false,
    is_sales_order_discount: false,
    is_store: true,
  };
  return [
    { ...base, ...CHAIN_REASONS.loss, reason_code_type: 1, is_loss: true, is_gain: false },
    { ...base, ...CHAIN_REASONS.count, reason_code_type: 6, is_loss: false, is_gain: false },
  ];
}

/** One stock change of the history: a sale, a receipt, a loss or a cycle count of one store product. */
export interface PlannedEntry {
  store: number;
  product: number;
  at: number;
  kind: 'sale' | 'receipt' | 'loss' | 'count';
  /** Thousandths: the signed delta, or for a count the counted level. */
  quantityMilli: number;
  user: string;
}

/** Moment of the opening counts: an hour before the first day of history. */
export const openingMoment = (firstDay: number) => firstDay - 60 * 60 * 1000;

/** Start of the first day of history, so that the last day ends at the start of `today`'s day. */
export const firstDayOf = (options: ChainOptions, now: number) =>
  Math.floor(now / DAY_MS) * DAY_MS - options.days * DAY_MS;

/** The opening level of a store product (thousandths). */
export const openingLevelOf = (store: number, product: number) => (10 + ((store * 7 + product * 13) % 40)) * 1000;

/**
 * The history entries of one day, in time order: `entriesPerDay` store products drawn at
 * random, each with a kind (60 % sales, 20 % receipts, 18 % losses, 2 % counts).
 */
export function entriesOfDay(options: ChainOptions, random: () => number, dayStart: number): PlannedEntry[] {
  const offsets = Array.from({ length: options.entriesPerDay }, () => Math.floor(random() * DAY_MS)).sort(
    (a, b) => a - b,
  );
  return offsets.map((offset) => {
    const roll = random();
    const kind: PlannedEntry['kind'] = roll < 0.6 ? 'sale' : roll < 0.8 ? 'receipt' : roll < 0.98 ? 'loss' : 'count';
    const quantity =
      kind === 'sale'
        ? -1 - Math.floor(random() * 3)
        : kind === 'receipt'
          ? 6 + Math.floor(random() * 19)
          : kind === 'loss'
            ? -1
            : Math.floor(random() * 40);
    return {
      store: Math.floor(random() * options.stores),
      product: Math.floor(random() * options.products),
      at: dayStart + offset,
      kind,
      quantityMilli: quantity * 1000,
      user: CHAIN_USERS[Math.floor(random() * CHAIN_USERS.length)]!,
    };
  });
}
