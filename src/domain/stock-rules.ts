/**
 * Stock rules of PRODUCT §5 that need no database: the sign a reason code gives a
 * quantity, and which pools an entry books into. Quantities are thousandths (integers).
 */

export const POOL_COUNT = 10;
export const POOLS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
export type PoolNumber = (typeof POOLS)[number];

export interface ReasonCodeSign {
  isLoss: boolean;
  isGain: boolean;
}

/**
 * A loss code always subtracts |q|, a gain code always adds |q|, any other code (or none)
 * keeps the sign given. A code flagged as both (type 7, gain/loss) keeps the sign given:
 * the sender says which way it went.
 */
export function applyReasonSign(quantityMilli: number, reason: ReasonCodeSign | undefined): number {
  if (!reason || reason.isLoss === reason.isGain) return quantityMilli;
  const magnitude = Math.abs(quantityMilli);
  return reason.isLoss && magnitude !== 0 ? -magnitude : magnitude; // never -0
}

export interface PoolSplitInput {
  quantityMilli: number;
  /** `pool_location` of the entry, if sent. */
  poolLocation?: number;
  /** `stock_pool_1..10` of the entry (index 0 = pool 1), undefined where not sent. */
  poolDeltasMilli?: ReadonlyArray<number | undefined>;
  /** The location's `default_stock_pool`, if the entry names a location that has one. */
  locationDefaultPool?: number;
}

/** A quantity booked into one pool: a signed delta, or for a count the counted level. */
export interface PoolPart {
  pool: PoolNumber;
  quantityMilli: number;
}

export type PoolSplit = { ok: true; parts: PoolPart[] } | { ok: false; reason: string };

/**
 * Which pools an entry books into (PRODUCT §5): with any `stock_pool_N` given they are the
 * per-pool deltas and must add up to `quantity`; otherwise the whole quantity goes to
 * `pool_location`, else the location's default pool, else pool 1.
 */
export function splitIntoPools(input: PoolSplitInput): PoolSplit {
  const given = (input.poolDeltasMilli ?? [])
    .map((quantityMilli, index) => ({ pool: (index + 1) as PoolNumber, quantityMilli }))
    .filter((p): p is PoolPart => p.quantityMilli !== undefined);
  if (given.length === 0) {
    const pool = (input.poolLocation ?? input.locationDefaultPool ?? 1) as PoolNumber;
    return { ok: true, parts: [{ pool, quantityMilli: input.quantityMilli }] };
  }
  const total = given.reduce((sum, p) => sum + p.quantityMilli, 0);
  if (total !== input.quantityMilli) {
    return {
      ok: false,
      reason: `stock_pool_N add up to ${total / 1000}, not to quantity ${input.quantityMilli / 1000}`,
    };
  }
  // Zero parts stay: for a count, "pool 2 holds 0" is a fact worth booking.
  return { ok: true, parts: given };
}

/** Applies the reason sign pool by pool (a loss split over pools subtracts from each). */
export function signPoolParts(parts: readonly PoolPart[], reason: ReasonCodeSign | undefined): PoolPart[] {
  return parts.map((p) => ({ pool: p.pool, quantityMilli: applyReasonSign(p.quantityMilli, reason) }));
}
