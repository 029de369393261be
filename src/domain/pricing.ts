/**
 * Price rules of PRODUCT §6, free of any database or HTTP concern. Amounts are money in
 * ten-thousandths (src/domain/decimal.ts); instants are epoch milliseconds.
 */

/** Most specific first: a store price beats a price-group price beats a country price beats a chain price. */
export const PRICE_SCOPES = ['store', 'price_group', 'country', 'chain'] as const;
export type PriceScope = (typeof PRICE_SCOPES)[number];

export interface PriceCandidate {
  /** Internal id; the later-written record wins a tie on scope and valid_from. */
  id: number;
  priceMoney: number;
  validFrom: number;
  validTo: number;
  storeNumber: string | null;
  priceGroup: string | null;
  countryCode: string | null;
}

/** Where the price is asked for. A chain-wide read (no store) knows at most a country. */
export interface PriceContext {
  storeNumber?: string;
  priceGroups?: readonly string[];
  countryCode?: string;
}

export interface DiscountCandidate {
  priceMoney: number;
  /** Open-ended when null. */
  validFrom: number | null;
  validTo: number | null;
}

/** The most specific condition a price carries decides its scope. */
export function scopeOf(price: Pick<PriceCandidate, 'storeNumber' | 'priceGroup' | 'countryCode'>): PriceScope {
  if (price.storeNumber !== null) return 'store';
  if (price.priceGroup !== null) return 'price_group';
  if (price.countryCode !== null) return 'country';
  return 'chain';
}

/** PRODUCT §6: valid_from <= now < valid_to. */
export function isPriceValidAt(price: Pick<PriceCandidate, 'validFrom' | 'validTo'>, now: number): boolean {
  return price.validFrom <= now && now < price.validTo;
}

const sameCountry = (a: string, b: string) => a.toUpperCase() === b.toUpperCase();

/** A price applies where every condition it carries holds (a Belgian store price never applies in NL). */
export function appliesIn(
  price: Pick<PriceCandidate, 'storeNumber' | 'priceGroup' | 'countryCode'>,
  context: PriceContext,
): boolean {
  if (price.storeNumber !== null && price.storeNumber !== context.storeNumber) return false;
  if (price.priceGroup !== null && !(context.priceGroups ?? []).includes(price.priceGroup)) return false;
  if (
    price.countryCode !== null &&
    (context.countryCode === undefined || !sameCountry(price.countryCode, context.countryCode))
  )
    return false;
  return true;
}

/** Negative when `a` should win over `b`. */
function compareCandidates(a: PriceCandidate, b: PriceCandidate): number {
  const scope = PRICE_SCOPES.indexOf(scopeOf(a)) - PRICE_SCOPES.indexOf(scopeOf(b));
  if (scope !== 0) return scope;
  if (a.validFrom !== b.validFrom) return b.validFrom - a.validFrom;
  return b.id - a.id;
}

/**
 * The effective price record (PRODUCT §6): among the prices valid now that apply in the
 * context, the most specific scope, then the latest valid_from. Undefined when none is
 * valid — the caller then falls back to the product master price.
 */
export function effectivePrice<T extends PriceCandidate>(
  prices: readonly T[],
  context: PriceContext,
  now: number,
): T | undefined {
  let best: T | undefined;
  for (const price of prices) {
    if (!isPriceValidAt(price, now) || !appliesIn(price, context)) continue;
    if (best === undefined || compareCandidates(price, best) < 0) best = price;
  }
  return best;
}

/** A discount is valid from valid_from (inclusive) to valid_to (exclusive); a missing end is open. */
export function isDiscountValidAt(discount: DiscountCandidate, now: number): boolean {
  return (
    (discount.validFrom === null || discount.validFrom <= now) && (discount.validTo === null || now < discount.validTo)
  );
}

/** special_price (PRODUCT §6): the lowest discounted unit price valid now; undefined when none is. */
export function specialPrice(discounts: readonly DiscountCandidate[], now: number): number | undefined {
  let lowest: number | undefined;
  for (const discount of discounts) {
    if (!isDiscountValidAt(discount, now)) continue;
    if (lowest === undefined || discount.priceMoney < lowest) lowest = discount.priceMoney;
  }
  return lowest;
}

/**
 * old_price (PRODUCT §6, "the price before the last price change"): a new master price
 * moves the previous one into old_price; an unchanged price keeps the old_price it had.
 */
export function nextOldPrice(
  previousPrice: number | null,
  previousOldPrice: number | null,
  newPrice: number | null,
): number | null {
  return previousPrice === newPrice ? previousOldPrice : previousPrice;
}

/** Price read for a product: a valid price record beats the master price (PRODUCT §6). */
export function resolvedPrice(effective: PriceCandidate | undefined, masterPrice: number | null): number | null {
  return effective !== undefined ? effective.priceMoney : masterPrice;
}
