import type { Insertable } from 'kysely';
import type { StockLogTable } from '../db/schema.js';

// The posting engine's vocabulary, shared by the engine (postings.ts) and its row writes (entry-rows.ts).

/** Identifies one balance: (store, product, location or 0, pool, customer order or ''). */
export interface BalanceKey {
  storeId: number;
  productId: number;
  locationId: number;
  pool: number;
  orderKey: string;
}

/** One part of an entry on one balance: the whole entry, or one pool of a split one. */
export interface Posting extends BalanceKey {
  /** Epoch ms of the entry (its modification_datetime). */
  at: number;
  /** Signed delta, or for counts the counted level (thousandths). */
  quantityMilli: number;
  isCount: boolean;
  /**
   * Refuse the posting when it leaves its balance below zero (a movement's source without
   * allow_overage). Checked under the balance lock, so concurrent moves cannot together
   * overdraw it.
   */
  guard?: { lineIndex: number };
  /** The request field of its quantity (`storeproductlog[3].quantity`): named when a figure it makes would leave the exact range. */
  path?: string;
}

/** The log row of a new entry, as booking drafts it: the engine adds its posting. */
export type NewLogRow = Omit<Insertable<StockLogTable>, 'balance_id' | 'delta' | 'expected'>;

/** One entry the engine books: a new one (its row) or an approved pending one (its row's id). */
export type EntryBooking = { postings: readonly Posting[] } & (
  | { row: NewLogRow; logId?: undefined }
  | { logId: number; row?: undefined }
);

/** What a posting books: the delta and, for a count, the level it expected. */
export interface Figures {
  balanceId: number;
  deltaMilli: number;
  expectedMilli: number | undefined;
}

/** A posting in the request's flat list, with the entry it belongs to and its balance's key. */
export interface Placed {
  posting: Posting;
  entry: number;
  key: string;
}
