import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Dialect } from '../db/dialect/types.js';
import type { Database, StoreProductTable } from '../db/schema.js';
import type { Principal } from '../shared/access.js';
import type { FieldError } from '../shared/validation.js';
import type {
  Booked,
  BookingBarcode,
  BookingLocation,
  BookingProduct,
  BookingReason,
  BookingStore,
  EntryDraft,
  OrderNumberRef,
  ReceivingCandidate,
} from './types.js';

export type {
  Booked,
  BookingBarcode,
  BookingLocation,
  BookingProduct,
  BookingReason,
  BookingStore,
  EntryDraft,
  OrderNumberRef,
  ReceivingCandidate,
} from './types.js';

/**
 * The look-ups by natural key that the intake (intake.ts) resolves lines with: the modules'
 * repositories, lent to the kernel, which imports no module (ENGINEERING.md "Layout").
 */
export interface LedgerLookups {
  /** The live store of a request's path or body, or 404 (worded by the stores module). */
  liveStore(db: Kysely<Database>, storeNumber: string): Promise<BookingStore>;
  /** A store whose books still count, soft-deleted by a flush or not (a transfer's origin). */
  storeKeepingBooks(trx: Transaction<Database>, storeNumber: string): Promise<BookingStore | undefined>;
  productsByNumber(trx: Transaction<Database>, numbers: readonly string[]): Promise<Map<string, BookingProduct>>;
  /** By id: a stored line's product (a delivery's, an order's), deleted since or not. */
  productsById(trx: Transaction<Database>, ids: readonly number[]): Promise<Map<number, BookingProduct>>;
  productsByBarcode(trx: Transaction<Database>, barcodes: readonly string[]): Promise<Map<string, BookingBarcode>>;
  reasonCodes(trx: Transaction<Database>, codes: readonly number[]): Promise<Map<number, BookingReason>>;
  locations(
    trx: Transaction<Database>,
    storeId: number,
    codes: readonly string[],
  ): Promise<Map<string, BookingLocation>>;
}

/**
 * Order-bound stock is never stranded (PRODUCT §5): the customer-orders module's rule of who
 * may book under an order number (customer-orders/bound-stock.ts).
 */
export interface OrderBinding {
  /** A 422 field error for each reference to a customer order of the store (its turn taken first). */
  refusals(
    trx: Transaction<Database>,
    dialect: Dialect,
    storeId: number,
    refs: readonly OrderNumberRef[],
  ): Promise<FieldError[]>;
  /** `source` values only the order's own operations book with (verify tells picks by them). */
  reservedSources: ReadonlySet<string>;
}

/**
 * A receipt on a delivery, the effect of receipt entries that name one (deliveries/receiving.ts):
 * planned before the booking (it may set the drafts' pools, or refuse), finished after it.
 */
export interface ReceivingEffect {
  plan(
    trx: Transaction<Database>,
    dialect: Dialect,
    storeId: number,
    drafts: EntryDraft[],
    candidates: readonly ReceivingCandidate[],
  ): Promise<{ readonly items: readonly unknown[] }>;
  finish(
    trx: Transaction<Database>,
    ledger: Ledger,
    plan: { readonly items: readonly unknown[] },
    drafts: readonly EntryDraft[],
    booked: Booked,
    by: Principal,
    now: number,
  ): Promise<void>;
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
  lookups: LedgerLookups;
  orderBinding: OrderBinding;
  receiving: ReceivingEffect;
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
