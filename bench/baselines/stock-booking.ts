/**
 * Where a posted stock log entry lands and by how much, at the least (PRODUCT §5): the sign
 * by reason code (a loss code subtracts |q|, a gain code adds |q|, a code that is both or
 * neither and no code keep the sign as sent),
 * the pool given by the entry, else its location's default, else 1; thousandths and epoch
 * ms. Shared by the raw write baselines (SQLite and PostgreSQL) and by the bench's model of
 * what the service's balances must hold, so the three cannot drift apart.
 */

/** What a raw importer caches of the master data: the reason codes' signs and the locations' default pools. */
export interface StockMaster {
  reasons: Record<string, { isLoss: boolean; isGain: boolean }>;
  defaultPools: Record<string, number | null>;
}

/** The fields of a posted entry the booking reads (interface §4.8). */
export interface PostedEntry {
  product_number: string;
  quantity: number;
  modification_datetime: string;
  location_code?: string;
  pool_location?: number;
  reason_code?: number;
}

export interface BookedEntry {
  /** '' when the entry names no location. */
  locationCode: string;
  pool: number;
  /** Signed thousandths. */
  delta: number;
  /** Epoch ms. */
  at: number;
}

export function bookEntry(master: StockMaster, entry: PostedEntry): BookedEntry {
  const reason = entry.reason_code === undefined ? undefined : master.reasons[String(entry.reason_code)];
  const thousandths = Math.round(entry.quantity * 1000);
  const delta =
    !reason || reason.isLoss === reason.isGain
      ? thousandths
      : reason.isLoss
        ? -Math.abs(thousandths)
        : Math.abs(thousandths);
  const locationCode = entry.location_code ?? '';
  return {
    locationCode,
    pool: entry.pool_location ?? master.defaultPools[locationCode] ?? 1,
    delta,
    at: Date.parse(entry.modification_datetime),
  };
}

/** The key of a stock level: store, product, location ('' unlocated), pool. */
export const levelKey = (storeNumber: string, productNumber: string, locationCode: string, pool: number) =>
  `${storeNumber}|${productNumber}|${locationCode}|${pool}`;
