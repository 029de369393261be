import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyReasonSign, signPoolParts, splitIntoPools } from '../../src/domain/stock-rules.js';

describe('reason-code sign (PRODUCT §5)', () => {
  it('loss subtracts |q|, gain adds |q|, others keep the sign', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), (q) => {
        expect(applyReasonSign(q, { isLoss: true, isGain: false })).toBe(-Math.abs(q) || 0);
        expect(applyReasonSign(q, { isLoss: false, isGain: true })).toBe(Math.abs(q));
        expect(applyReasonSign(q, { isLoss: false, isGain: false })).toBe(q);
        expect(applyReasonSign(q, { isLoss: true, isGain: true })).toBe(q);
        expect(applyReasonSign(q, undefined)).toBe(q);
      }),
    );
  });
});

describe('pool resolution (PRODUCT §5)', () => {
  it('pool_location, then the location default, then pool 1', () => {
    expect(splitIntoPools({ quantityMilli: 2000, poolLocation: 3, locationDefaultPool: 5 })).toEqual({
      ok: true,
      parts: [{ pool: 3, quantityMilli: 2000 }],
    });
    expect(splitIntoPools({ quantityMilli: 2000, locationDefaultPool: 5 })).toEqual({
      ok: true,
      parts: [{ pool: 5, quantityMilli: 2000 }],
    });
    expect(splitIntoPools({ quantityMilli: 2000 })).toEqual({ ok: true, parts: [{ pool: 1, quantityMilli: 2000 }] });
  });

  it('stock_pool_N are per-pool deltas that must add up to quantity', () => {
    const deltas = [undefined, 1500, undefined, 500];
    expect(splitIntoPools({ quantityMilli: 2000, poolDeltasMilli: deltas })).toEqual({
      ok: true,
      parts: [
        { pool: 2, quantityMilli: 1500 },
        { pool: 4, quantityMilli: 500 },
      ],
    });
    const wrong = splitIntoPools({ quantityMilli: 3000, poolDeltasMilli: deltas });
    expect(wrong.ok).toBe(false);
  });

  it('property: a valid split books exactly the quantity', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -1e6, max: 1e6 }), { nil: undefined }), { minLength: 10, maxLength: 10 }),
        (pools) => {
          const total = pools.reduce<number>((s, p) => s + (p ?? 0), 0);
          const split = splitIntoPools({ quantityMilli: total, poolDeltasMilli: pools });
          expect(split.ok).toBe(true);
          if (split.ok) expect(split.parts.reduce((s, d) => s + d.quantityMilli, 0)).toBe(total);
        },
      ),
    );
  });

  it('zero parts are kept (a count of 0 in a pool is a fact)', () => {
    expect(splitIntoPools({ quantityMilli: 0, poolDeltasMilli: [0, undefined, 0] })).toEqual({
      ok: true,
      parts: [
        { pool: 1, quantityMilli: 0 },
        { pool: 3, quantityMilli: 0 },
      ],
    });
  });

  it('a loss split over pools subtracts from each', () => {
    expect(
      signPoolParts(
        [
          { pool: 1, quantityMilli: 3000 },
          { pool: 2, quantityMilli: -2000 },
        ],
        { isLoss: true, isGain: false },
      ),
    ).toEqual([
      { pool: 1, quantityMilli: -3000 },
      { pool: 2, quantityMilli: -2000 },
    ]);
  });
});
