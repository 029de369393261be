import type { PoolPart } from '../domain/stock-rules.js';
import type { LogRecord } from '../db/log-record.js';

// The kernel's vocabulary: what a stock operation hands it (EntryDraft) and what it resolves
// by natural key through the look-ups lent to it (ledger.ts). No module defines these.

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

/** A live product a barcode resolves to (PRODUCT §5: product barcode, barcodes_array, unit barcodes). */
export interface BookingBarcode {
  productId: number;
  productNumber: string;
  /** Items one scan counts, in thousandths (1000 for product and barcodes_array barcodes). */
  unitQuantityMilli: number;
}

/** What booking needs of a reason code: its sign, its review rule and its type (interface §2.6). */
export interface BookingReason {
  reason_code: number;
  reason_code_description: string;
  reason_code_type: number;
  is_loss: 0 | 1;
  is_gain: 0 | 1;
  default_review_status: number;
}

/** A live location of the booking's store. */
export interface BookingLocation {
  id: number;
  location_code: string;
  default_stock_pool: number | null;
}

/** A request's reference to a customer order number, with the field that names it. */
export interface OrderNumberRef {
  orderNumber: string | null | undefined;
  path: string;
}

/** One entry of a request that may receive on a delivery (PRODUCT §7). */
export interface ReceivingCandidate {
  /** Index of its draft among the request's drafts (and of its id among the booked ids). */
  draftIndex: number;
  /** Where the request names it, for errors (`lines[2]`, `storeproductlog[5]`). */
  path: string;
  /** The field holding its quantity (`received_quantity`, `quantity`). */
  quantityField: string;
  orderNumber: string;
  /** By line (receive endpoint); else the delivery's line of the draft's product. */
  lineNumber?: number;
  /** The sender chose the pools: keep them; else the line's target_stock_pool. */
  poolChosen: boolean;
}

/** The entries booked by one booking: their ids and the moments they were booked at, by draft index. */
export interface Booked {
  ids: number[];
  moments: number[];
}

/**
 * One entry as the kernel books it: the stock it moves and decides on — balance (product,
 * location, pool, order binding), quantity or counted level, moment, the reason's sign (in
 * `poolParts`) and review rule (`pending`) — and the log's own record, which the kernel stores
 * and returns untouched (log-record.ts). A new log field belongs to the record, not here.
 */
export interface EntryDraft {
  product: BookingProduct;
  location?: { id: number; location_code: string };
  reason?: Pick<BookingReason, 'reason_code' | 'reason_code_description' | 'is_loss'>;
  /** Epoch ms the change happened (with `onArrival`: the earliest it may be booked at). */
  at: number;
  /**
   * Stamped by the service, not the client (picks, movements, receipts through the receive
   * endpoint, settlements, resets): booked at `at` or after the latest entry already on the
   * booking's balances, whichever is later — in arrival order, so no count stamped ahead can
   * absorb it (postings.ts arrivalMoment). The log row carries the moment booked.
   */
  onArrival?: boolean;
  isCount: boolean;
  /** Signed delta, or for counts the counted level, per pool (thousandths). */
  poolParts: readonly PoolPart[];
  /** Refuse when this entry leaves its balance below zero (InsufficientStockError). */
  guard?: { lineIndex: number };
  /**
   * The request field of its quantity (`storeproductlog[3].quantity`, `lines[0].received_quantity`):
   * named by the 422 when a sum it makes would leave the exact range (PRODUCT §3, domain/decimal.ts).
   */
  path?: string;
  /**
   * The request field of its moment (`storeproductlog[1].modification_datetime`,
   * `CountingDateTime`): named by the 422 when the moment lies in an archived month of the
   * ledger (book.ts refuseArchivedMoments). A service-stamped draft (`onArrival`) has none.
   */
  atPath?: string;
  /** Entries waiting for review are stored and listed, not applied (PRODUCT §5). */
  pending: boolean;
  /** A receipt: its store product's last receipt is stamped (store-product-stamps.ts). */
  isFromReceipt?: boolean;
  /** The order number its stock is bound under (the balance's order_key; PRODUCT §5). */
  customerOrderNumber?: string;
  record: LogRecord;
}
