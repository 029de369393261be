import type { Insertable } from 'kysely';
import type { Dialect } from '../db/dialect/types.js';
import type { StoreProductTable } from '../db/schema.js';

/** The store an entry books into. */
export interface BookingStore {
  id: number;
  store_number: string;
}

/** What booking needs of a product (products/repository.ts findBookingProducts selects just this). */
export interface BookingProduct {
  id: number;
  product_number: string;
  barcode: string | null;
  price: number | null;
  purchase_price: number | null;
  purchase_unit_quantity: number | null;
}

/**
 * What the rest of the service lends the kernel: it imports no module (ENGINEERING.md
 * "Layout"), so what only a module knows reaches it through these policies, wired once in
 * create-context.ts.
 */
export interface LedgerPolicies {
  /** The row of a store product created by its first stock change (PRODUCT §5). */
  newStoreProduct(
    store: BookingStore,
    product: Pick<BookingProduct, 'id' | 'product_number'>,
    now: number,
    actor: string,
  ): Insertable<StoreProductTable>;
}

/** The kernel as one app runs it: its database dialect and the policies lent to it. */
export interface Ledger {
  readonly dialect: Dialect;
  readonly policies: LedgerPolicies;
  /**
   * Whether bookings write `stock.changed` events (PRODUCT §9). Always, but for the bench's
   * feed-off baseline (BENCH_WITHOUT_STOCK_EVENTS), which measures what writing them costs.
   */
  readonly writesStockEvents: boolean;
}

export const createLedger = (dialect: Dialect, policies: LedgerPolicies, writesStockEvents = true): Ledger => ({
  dialect,
  policies,
  writesStockEvents,
});
