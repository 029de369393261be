/**
 * The small chain every simulated sequence starts from (issue 26): what exists before the
 * first random step. Kept apart from the model so the generator, the model and the set-up
 * agree on one list of names.
 */
export const STORES = ['S1', 'S2', 'W1'] as const;
export type StoreNo = (typeof STORES)[number];
/** A store number no store has: paths naming it answer 404 (or 403 for a store token). */
export const UNKNOWN_STORE = 'S9';
/** W1 is a warehouse; S1 and S2 share an area (surrounding stock). */
export const WAREHOUSES: readonly StoreNo[] = ['W1'];

export const PRODUCTS = ['P1', 'P2', 'P3'] as const;
export type ProductNo = (typeof PRODUCTS)[number];
/** Each product's own barcode; P3 also has a unit barcode counting 6 items a scan. */
export const BARCODES: Record<ProductNo, string> = { P1: '8710000000011', P2: '8710000000028', P3: '8710000000035' };
export const UNIT_BARCODE = { barcode: '8710000000066', product: 'P3' as ProductNo, items: 6 };

/** Every store has the same two locations: A (no default pool: pool 1) and B (default pool 2). */
export const LOCATIONS = ['A', 'B'] as const;
export type LocationCode = (typeof LOCATIONS)[number];
export const DEFAULT_POOL: Record<LocationCode, number> = { A: 1, B: 2 };
export const UNKNOWN_LOCATION = 'Z';

/** Reason codes and what each does (PRODUCT §5). */
export const REASONS = {
  plain: 10,
  loss: 11,
  gain: 12,
  review: 13,
  rejection: 21,
  movement: 30,
  /** Count codes (type 6): what a full counting assignment zeroes its uncounted lines with (issue 44). */
  count: 60,
  countReview: 61,
  unknown: 99,
} as const;
export type ReasonKind = keyof typeof REASONS;

/** The tokens of a sequence: one per role, two store tokens with different store lists. */
export const TOKENS = ['admin', 'integration', 'storeS1', 'storeS1S2', 'read'] as const;
export type TokenName = (typeof TOKENS)[number];
export const TOKEN_STORES: Record<TokenName, readonly string[] | null> = {
  admin: null,
  integration: null,
  storeS1: ['S1'],
  storeS1S2: ['S1', 'S2'],
  read: null,
};
export const TOKEN_ROLES = {
  admin: 'admin',
  integration: 'integration',
  storeS1: 'store',
  storeS1S2: 'store',
  read: 'read',
} as const;
