/**
 * Exact decimal codec (PRODUCT §3 "Exact numbers"). Quantities travel as thousandths
 * and money as ten-thousandths in integers; a JSON number is converted through its
 * shortest decimal representation, so 0.1 becomes exactly 100 thousandths, and a value
 * with more decimals than the scale allows is refused instead of rounded.
 */

export const QUANTITY_DECIMALS = 3;
export const MONEY_DECIMALS = 4;

/** Number of digits after the decimal point in the shortest representation of `value`. */
export function decimalPlaces(value: number): number {
  if (!Number.isFinite(value)) return Number.POSITIVE_INFINITY;
  const text = Math.abs(value).toString();
  const exponentAt = text.indexOf('e');
  const mantissa = exponentAt === -1 ? text : text.slice(0, exponentAt);
  const exponent = exponentAt === -1 ? 0 : Number(text.slice(exponentAt + 1));
  const dot = mantissa.indexOf('.');
  const fractionDigits = dot === -1 ? 0 : mantissa.length - dot - 1;
  return Math.max(0, fractionDigits - exponent);
}

/**
 * Below this magnitude a double carries 15 significant digits with room to spare, so two
 * decimals of at most 4 places never share a double: the fast path of toScaled is exact.
 */
const FAST_PATH_MAGNITUDE = 1e11;

/**
 * 10^d for the scales in use, read instead of computed: `10 ** d` with a variable d is a
 * call to pow, which showed in profiles of wide stock answers (tens of values per row).
 * The same doubles: every power of ten up to 10^22 is exact.
 */
const POWERS_OF_TEN = [1, 10, 100, 1000, 10_000];
const powerOfTen = (decimals: number) => POWERS_OF_TEN[decimals] ?? 10 ** decimals;

/** `value` × 10^decimals as an exact integer; throws when that is not exact or not safe. */
export function toScaled(value: number, decimals: number): number {
  // Fast path, no text: when k / 10^d gives back `value` exactly, `value` is the double of
  // the decimal k / 10^d, whose shortest form has at most d decimals — the same k the text
  // path computes (within FAST_PATH_MAGNITUDE no other such decimal maps to that double).
  if (Math.abs(value) < FAST_PATH_MAGNITUDE && decimals <= 4) {
    const factor = powerOfTen(decimals);
    const scaled = Math.round(value * factor);
    if (scaled / factor === value) return scaled === 0 ? 0 : scaled;
  }
  if (decimalPlaces(value) > decimals) throw new RangeError(`${value} has more than ${decimals} decimals`);
  const text = Math.abs(value).toString();
  const exponentAt = text.indexOf('e');
  const mantissa = exponentAt === -1 ? text : text.slice(0, exponentAt);
  const exponent = (exponentAt === -1 ? 0 : Number(text.slice(exponentAt + 1))) + decimals;
  const [whole, fraction = ''] = mantissa.split('.');
  const digits = whole + fraction;
  const shift = exponent - fraction.length;
  const scaledText = shift >= 0 ? digits + '0'.repeat(shift) : digits.slice(0, digits.length + shift) || '0';
  const scaled = Number(scaledText) * (value < 0 ? -1 : 1);
  if (!Number.isSafeInteger(scaled)) throw new RangeError(`${value} is out of range`);
  return scaled === 0 ? 0 : scaled; // no negative zero
}

/** Back from an exact integer to the JSON number it stands for. */
export function fromScaled(scaled: number, decimals: number): number {
  return scaled / powerOfTen(decimals);
}

export const toQuantity = (value: number): number => toScaled(value, QUANTITY_DECIMALS);
export const fromQuantity = (scaled: number): number => fromScaled(scaled, QUANTITY_DECIMALS);
export const toMoney = (value: number): number => toScaled(value, MONEY_DECIMALS);
export const fromMoney = (scaled: number): number => fromScaled(scaled, MONEY_DECIMALS);

/**
 * The range every quantity the service keeps stays in (PRODUCT §3 "Exact numbers", §5), in
 * thousandths: ±999,999,999,999, the most a request may state (shared/schemas.ts Quantity).
 * So every stored figure can be sent back as it reads, each is a JSON number of at most 15
 * significant digits (exact as a double), and the sum or difference of any two of them is a
 * safe integer: a check of a + b against this range is itself exact. Sums the service keeps
 * — balances, a count's expected level, delivery line totals, customer order totals, merged
 * list lines, counting lines of one product — are checked where they are computed, through
 * the functions below; a result outside is refused (422 naming the quantity), never rounded.
 * Where each one is: docs/stock.md "Exact sums".
 */
export const MAX_QUANTITY_MILLI = 999_999_999_999_000;

/** Where a kept sum is computed, for the refusal: the request field of the quantity, and what it would overflow. */
export interface SumSite {
  /** Request field whose quantity makes the sum (`storeproductlog[3].quantity`); absent when none names it. */
  path?: string;
  /** What the sum is, as a phrase (`the balance`, `the line's received total`). */
  what: string;
}

/**
 * A kept sum would leave ±MAX_QUANTITY_MILLI. Typed so that one place (plugins/error-handler.ts)
 * turns it into a 422 naming `site.path`, whichever service computed the sum.
 */
export class QuantityRangeError extends RangeError {
  constructor(
    /** The result (thousandths; beyond 2^53 only approximately what it would have been). */
    readonly valueMilli: number,
    readonly site: SumSite,
  ) {
    super(quantityRangeMessage(valueMilli, site.what));
  }
}

export function quantityRangeMessage(valueMilli: number, what: string): string {
  const shown = Number.isSafeInteger(valueMilli)
    ? String(fromQuantity(valueMilli))
    : valueMilli < 0
      ? 'below -999999999999'
      : 'above 999999999999';
  return `would make ${what} ${shown}: a quantity the service keeps stays within ±${MAX_QUANTITY_MILLI / 1000} (exact numbers, never rounded)`;
}

export const inQuantityRange = (valueMilli: number): boolean =>
  valueMilli >= -MAX_QUANTITY_MILLI && valueMilli <= MAX_QUANTITY_MILLI;

/** `valueMilli` when it lies in the range (NaN does not), else QuantityRangeError at `site`. */
export function checkedQuantity(valueMilli: number, site: SumSite): number {
  if (inQuantityRange(valueMilli)) return valueMilli;
  throw new QuantityRangeError(valueMilli, site);
}

/**
 * a + b (thousandths) as a kept sum: QuantityRangeError when the result leaves the range.
 * With a and b in range (or within a few times it) the addition is exact, so is the check.
 */
export function addQuantities(a: number, b: number, site: SumSite): number {
  return checkedQuantity(a + b, site);
}

/**
 * A kept figure moved by `change` (a balance, a count's expected level): like addQuantities,
 * except that a figure stored outside the range before this rule may still move back towards
 * it — only a result outside the range and further out than `before` is refused.
 */
export function moveQuantity(before: number, change: number, site: SumSite): number {
  const after = before + change;
  if (inQuantityRange(after) || Math.abs(after) <= Math.abs(before)) return after;
  throw new QuantityRangeError(after, site);
}

/**
 * a + b where the result is an intermediate, not a kept figure (a partial sum of a balance's
 * history): any safe integer will do, and past 2^53 a double silently drops units, so that is
 * refused instead. A rounded double of an exact sum beyond 2^53 − 1 is itself beyond it, so
 * the check sees every inexact step.
 */
export function exactAdd(a: number, b: number, site: SumSite): number {
  const sum = a + b;
  if (Number.isSafeInteger(sum)) return sum;
  throw new QuantityRangeError(sum, site);
}
