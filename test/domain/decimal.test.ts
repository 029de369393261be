import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_QUANTITY_MILLI,
  QuantityRangeError,
  addQuantities,
  checkedQuantity,
  decimalPlaces,
  exactAdd,
  inQuantityRange,
  moveQuantity,
  fromMoney,
  fromQuantity,
  fromScaled,
  toMoney,
  toQuantity,
  toScaled,
} from '../../src/domain/decimal.js';

/** 15 significant digits: the most a JSON number (an IEEE double) carries exactly. */
const MAX_EXACT_DIGITS = 999_999_999_999_999;
const scaleArb = fc.integer({ min: 0, max: 4 });

describe('decimalPlaces (PRODUCT §3 exact numbers)', () => {
  it('counts the digits after the point of the shortest representation', () => {
    expect(decimalPlaces(0)).toBe(0);
    expect(decimalPlaces(-0)).toBe(0);
    expect(decimalPlaces(42)).toBe(0);
    expect(decimalPlaces(0.1)).toBe(1);
    expect(decimalPlaces(-2.125)).toBe(3);
    expect(decimalPlaces(123.4567)).toBe(4);
  });

  it('reads exponent forms', () => {
    expect(decimalPlaces(1e-7)).toBe(7);
    expect(decimalPlaces(1.5e-7)).toBe(8);
    expect(decimalPlaces(-2.25e-7)).toBe(9);
    expect(decimalPlaces(1e21)).toBe(0);
    expect(decimalPlaces(1.5e21)).toBe(0);
    expect(decimalPlaces(5e-324)).toBe(324);
  });

  it('calls non-finite numbers infinitely precise, so every scale refuses them', () => {
    expect(decimalPlaces(Number.NaN)).toBe(Number.POSITIVE_INFINITY);
    expect(decimalPlaces(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(decimalPlaces(Number.NEGATIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('toScaled / fromScaled', () => {
  it('converts through the decimal text, never binary float arithmetic', () => {
    expect(toQuantity(0.1)).toBe(100);
    expect(toQuantity(0.1) + toQuantity(0.2)).toBe(toQuantity(0.3));
    expect(toQuantity(1.005)).toBe(1005);
    expect(toMoney(19.99)).toBe(199_900);
    expect(toMoney(-0.0001)).toBe(-1);
    expect(toScaled(1e-7, 7)).toBe(1);
    expect(toScaled(1.5e-7, 8)).toBe(15);
    expect(toScaled(1e15, 0)).toBe(1e15);
    expect(fromQuantity(1005)).toBe(1.005);
    expect(fromMoney(199_900)).toBe(19.99);
  });

  it('never yields negative zero', () => {
    expect(Object.is(toScaled(-0, 3), 0)).toBe(true);
  });

  it('refuses more decimals than the scale instead of rounding', () => {
    expect(() => toQuantity(0.0001)).toThrow(RangeError);
    expect(() => toQuantity(1.0005)).toThrow(RangeError);
    expect(() => toMoney(0.00001)).toThrow(RangeError);
    expect(() => toScaled(1.5e-7, 7)).toThrow(RangeError);
    expect(() => toScaled(1e-7, 6)).toThrow(RangeError);
  });

  it('refuses values whose scaled integer is not safe, and non-finite ones', () => {
    expect(() => toScaled(1e21, 3)).toThrow(RangeError);
    expect(() => toQuantity(2 ** 53)).toThrow(RangeError);
    expect(() => toQuantity(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => toMoney(Number.NaN)).toThrow(RangeError);
  });

  it('round-trips every value with at most n decimals (15 significant digits)', () => {
    fc.assert(
      fc.property(scaleArb, fc.integer({ min: -MAX_EXACT_DIGITS, max: MAX_EXACT_DIGITS }), (n, scaled) => {
        const value = scaled / 10 ** n;
        expect(decimalPlaces(value)).toBeLessThanOrEqual(n);
        expect(toScaled(value, n)).toBe(scaled === 0 ? 0 : scaled);
        expect(fromScaled(toScaled(value, n), n)).toBe(value === 0 ? 0 : value);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses every value with exactly one decimal more than allowed', () => {
    fc.assert(
      fc.property(
        scaleArb,
        fc.integer({ min: -MAX_EXACT_DIGITS, max: MAX_EXACT_DIGITS }).filter((k) => k % 10 !== 0),
        (n, digits) => {
          const value = digits / 10 ** (n + 1);
          expect(decimalPlaces(value)).toBe(n + 1);
          expect(() => toScaled(value, n)).toThrow(RangeError);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('for any double: either an exact, safe, reversible integer or a RangeError', () => {
    fc.assert(
      fc.property(scaleArb, fc.double(), (n, value) => {
        let scaled: number;
        try {
          scaled = toScaled(value, n);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
          const tooPrecise = !Number.isFinite(value) || decimalPlaces(value) > n;
          expect(tooPrecise || Math.abs(value) * 10 ** n > 2 ** 52).toBe(true);
          return;
        }
        expect(Number.isSafeInteger(scaled)).toBe(true);
        expect(decimalPlaces(value)).toBeLessThanOrEqual(n);
        expect(fromScaled(scaled, n)).toBe(value === 0 ? 0 : value);
      }),
      { numRuns: 3000 },
    );
  });

  it('the arithmetic fast path gives what the decimal text gives, for values near every decimal', () => {
    // toScaled skips the text when k / 10^n gives the value back; a neighbouring double
    // (one ulp off) must still be refused or scaled exactly as its shortest text says.
    const neighbour = (value: number, step: -1 | 0 | 1) => {
      if (step === 0 || value === 0) return value;
      const buffer = new DataView(new ArrayBuffer(8));
      buffer.setFloat64(0, value);
      buffer.setBigInt64(0, buffer.getBigInt64(0) + BigInt(step));
      return buffer.getFloat64(0);
    };
    fc.assert(
      fc.property(
        scaleArb,
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: -99_999_999_999_999, max: 99_999_999_999_999 }),
        fc.constantFrom(-1 as const, 0 as const, 1 as const),
        (n, places, digits, step) => {
          const value = neighbour(digits / 10 ** places, step);
          if (Math.abs(value) >= 1e11) return;
          if (decimalPlaces(value) > n) {
            expect(() => toScaled(value, n)).toThrow(RangeError);
            return;
          }
          const text = Math.abs(value).toFixed(n).replace('.', '');
          const expected = Number(text) * (value < 0 ? -1 : 1);
          expect(toScaled(value, n)).toBe(expected === 0 ? 0 : expected);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('kept sums (PRODUCT §3 "Exact numbers": refused, never rounded)', () => {
  const site = { path: 'lines[3].quantity', what: 'the total' };

  it('the range is what a request may state, and any two figures in it add exactly', () => {
    expect(MAX_QUANTITY_MILLI).toBe(toQuantity(999_999_999_999));
    expect(Number.isSafeInteger(MAX_QUANTITY_MILLI * 4)).toBe(true);
    expect(fromQuantity(MAX_QUANTITY_MILLI - 1)).toBe(999_999_999_998.999);
  });

  it('addQuantities returns the sum inside the range and throws a QuantityRangeError naming the site outside it', () => {
    expect(addQuantities(MAX_QUANTITY_MILLI - 1, 1, site)).toBe(MAX_QUANTITY_MILLI);
    expect(addQuantities(-MAX_QUANTITY_MILLI, 0, site)).toBe(-MAX_QUANTITY_MILLI);
    expect(() => addQuantities(MAX_QUANTITY_MILLI, 1, site)).toThrow(QuantityRangeError);
    try {
      addQuantities(-MAX_QUANTITY_MILLI, -1, site);
    } catch (error) {
      expect(error).toBeInstanceOf(QuantityRangeError);
      expect((error as QuantityRangeError).site).toEqual(site);
      expect((error as QuantityRangeError).message).toBe(
        'would make the total -999999999999.001: a quantity the service keeps stays within ±999999999999 (exact numbers, never rounded)',
      );
    }
  });

  it('the review finding: ten times 999,999,999,999 and 0.001 cannot be summed silently', () => {
    let total = 0;
    const attempt = () => {
      for (const quantity of [...new Array(10).fill(999_999_999_999), 0.001])
        total = addQuantities(total, toQuantity(quantity), site);
    };
    expect(attempt).toThrow(QuantityRangeError);
    expect(total).toBe(MAX_QUANTITY_MILLI);
  });

  it('moveQuantity: a kept figure moves within the range; one stored outside it (before the rule) may only move back', () => {
    expect(moveQuantity(MAX_QUANTITY_MILLI - 5, 5, site)).toBe(MAX_QUANTITY_MILLI);
    expect(() => moveQuantity(MAX_QUANTITY_MILLI, 1, site)).toThrow(QuantityRangeError);
    expect(() => moveQuantity(-MAX_QUANTITY_MILLI, -1, site)).toThrow(QuantityRangeError);
    expect(moveQuantity(2 * MAX_QUANTITY_MILLI, -1, site)).toBe(2 * MAX_QUANTITY_MILLI - 1);
    expect(moveQuantity(-2 * MAX_QUANTITY_MILLI, 3 * MAX_QUANTITY_MILLI, site)).toBe(MAX_QUANTITY_MILLI);
    expect(() => moveQuantity(2 * MAX_QUANTITY_MILLI, 1, site)).toThrow(QuantityRangeError);
    expect(() => moveQuantity(2 * MAX_QUANTITY_MILLI, -5 * MAX_QUANTITY_MILLI, site)).toThrow(QuantityRangeError);
  });

  it('checkedQuantity refuses NaN and anything outside; inQuantityRange says the same', () => {
    for (const value of [NaN, Infinity, MAX_QUANTITY_MILLI + 1, -MAX_QUANTITY_MILLI - 1]) {
      expect(inQuantityRange(value)).toBe(false);
      expect(() => checkedQuantity(value, site)).toThrow(QuantityRangeError);
    }
    expect(checkedQuantity(0, site)).toBe(0);
  });

  it('exactAdd takes any safe integer and refuses the first step past 2^53 (where a double drops units)', () => {
    expect(exactAdd(Number.MAX_SAFE_INTEGER - 1, 1, site)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => exactAdd(Number.MAX_SAFE_INTEGER, 1, site)).toThrow(QuantityRangeError);
    expect(() => exactAdd(9_007_199_254_740_000, 993, site)).toThrow(QuantityRangeError);
    fc.assert(
      fc.property(
        fc.integer({ min: -(2 ** 52), max: 2 ** 52 }),
        fc.integer({ min: -(2 ** 52), max: 2 ** 52 }),
        (a, b) => {
          const exact = BigInt(a) + BigInt(b);
          const safe = exact <= BigInt(Number.MAX_SAFE_INTEGER) && exact >= -BigInt(Number.MAX_SAFE_INTEGER);
          if (safe) expect(BigInt(exactAdd(a, b, site))).toBe(exact);
          else expect(() => exactAdd(a, b, site)).toThrow(QuantityRangeError);
        },
      ),
      { numRuns: 500 },
    );
  });
});
