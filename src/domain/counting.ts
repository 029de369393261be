/**
 * The rules of a counting assignment (PRODUCT §10), without a database: which lines an
 * assignment counts, what a count does to a line, when a line's variance needs approval,
 * which steps each status allows, and what a blind count hides. Quantities in thousandths,
 * money in ten-thousandths (domain/decimal.ts).
 */

export const ASSIGNMENT_STATUSES = ['open', 'counting', 'submitted', 'closed', 'cancelled'] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

export type AssignmentStep = 'start' | 'count' | 'submit' | 'cancel';

/** The statuses each step is allowed from: anything else is a 409 naming the status. */
const ALLOWED_FROM: Record<AssignmentStep, readonly AssignmentStatus[]> = {
  start: ['open'],
  count: ['counting'],
  submit: ['counting'],
  cancel: ['open', 'counting'],
};

export const stepAllowed = (step: AssignmentStep, status: string): boolean =>
  (ALLOWED_FROM[step] as readonly string[]).includes(status);

/**
 * Blind (PRODUCT §10): until the assignment is submitted, a store token never sees a line's
 * expected level or variance. Cancelled counts were never submitted, so they stay hidden.
 */
export const blindHides = (blind: boolean, status: string, isStoreToken: boolean): boolean =>
  blind && isStoreToken && (status === 'open' || status === 'counting' || status === 'cancelled');

/** A free balance of a store product, as it stands when counting starts. */
export interface ScopeBalance {
  productId: number;
  /** 0: no location. */
  locationId: number;
  pool: number;
  quantityMilli: number;
}

export interface PlannedLine {
  productId: number;
  locationId: number;
  pool: number;
  expectedMilli: number;
}

/**
 * The lines of an assignment (PRODUCT §10 "one per store product × location in scope"): one per
 * free balance of a store product in scope — stock bound to a customer order is the order's,
 * not the shelf's. A store product with no free balance gets one line without location in
 * pool 1; an empty unlocated balance of a product that has located ones is left out (what is
 * left of stock since put on a shelf). With `locationIds` only balances at those locations count,
 * and a product with none there has no line.
 */
export function planLines(
  productIds: readonly number[],
  balances: readonly ScopeBalance[],
  locationIds?: ReadonlySet<number>,
): PlannedLine[] {
  const byProduct = new Map<number, ScopeBalance[]>();
  for (const balance of balances) {
    const list = byProduct.get(balance.productId);
    if (list) list.push(balance);
    else byProduct.set(balance.productId, [balance]);
  }
  const lines: PlannedLine[] = [];
  for (const productId of productIds) {
    const own = byProduct.get(productId) ?? [];
    if (locationIds !== undefined) {
      for (const b of own) if (locationIds.has(b.locationId)) lines.push(lineOf(b));
      continue;
    }
    if (own.length === 0) {
      lines.push({ productId, locationId: 0, pool: 1, expectedMilli: 0 });
      continue;
    }
    const located = own.some((b) => b.locationId !== 0);
    for (const b of own) if (!(located && b.locationId === 0 && b.quantityMilli === 0)) lines.push(lineOf(b));
  }
  return lines.sort((a, b) => a.productId - b.productId || a.locationId - b.locationId || a.pool - b.pool);
}

const lineOf = (b: ScopeBalance): PlannedLine => ({
  productId: b.productId,
  locationId: b.locationId,
  pool: b.pool,
  expectedMilli: b.quantityMilli,
});

/** A count of a line: a recount replaces what was counted, `add` adds to it (PRODUCT §10). */
export function applyCount(
  line: { countedMilli: number | null; countedAt: number | null },
  count: { quantityMilli: number; at: number; mode: 'replace' | 'add' },
): { countedMilli: number; countedAt: number } {
  if (count.mode === 'add' && line.countedMilli !== null) {
    // The line's level is said as of its last scan: two goes at one shelf end at the later one.
    return { countedMilli: line.countedMilli + count.quantityMilli, countedAt: Math.max(line.countedAt!, count.at) };
  }
  return { countedMilli: count.quantityMilli, countedAt: count.at };
}

/**
 * Value of a quantity at a unit price: thousandths × ten-thousandths, to ten-thousandths,
 * half away from zero (exact in BigInt; a value is a report figure, never booked).
 */
export function valueAt(quantityMilli: number, priceMoney: number | null): number {
  if (priceMoney === null || quantityMilli === 0) return 0;
  const product = BigInt(quantityMilli) * BigInt(priceMoney);
  const negative = product < 0n;
  const magnitude = negative ? -product : product;
  const rounded = (magnitude + 500n) / 1000n;
  return Number(negative ? -rounded : rounded);
}

export interface VarianceLimits {
  /** Thousandths. */
  quantityMilli: number | null;
  /** Ten-thousandths. */
  valueMoney: number | null;
  /** Thousandths of a percent. */
  percentMilli: number | null;
}

/**
 * Whether a count needs approval (PRODUCT §10): its variance against the level at its moment
 * beyond any limit given — in quantity, in value at purchase price, or in percent of that
 * level (a variance on a level of zero is beyond any percent). At the limit is within it.
 */
export function beyondLimit(
  countedMilli: number,
  levelMilli: number,
  priceMoney: number | null,
  limits: VarianceLimits,
): boolean {
  const variance = countedMilli - levelMilli;
  if (variance === 0) return false;
  const magnitude = Math.abs(variance);
  if (limits.quantityMilli !== null && magnitude > limits.quantityMilli) return true;
  if (limits.valueMoney !== null && Math.abs(valueAt(variance, priceMoney)) > limits.valueMoney) return true;
  if (limits.percentMilli !== null) {
    if (levelMilli === 0) return true;
    // |variance| / |level| × 100 > percent, in integers: |variance| × 100,000 > percentMilli × |level|.
    if (BigInt(magnitude) * 100_000n > BigInt(limits.percentMilli) * BigInt(Math.abs(levelMilli))) return true;
  }
  return false;
}

/**
 * Items a count of a barcode says, in thousandths: a unit barcode counts its unit each (PRODUCT
 * §5 barcodes). Undefined when that is not whole thousandths: a quantity is never rounded.
 */
export function itemsCounted(countedMilli: number, unitQuantityMilli: number): number | undefined {
  if (unitQuantityMilli === 1000) return countedMilli;
  const product = BigInt(countedMilli) * BigInt(unitQuantityMilli);
  return product % 1000n === 0n ? Number(product / 1000n) : undefined;
}
