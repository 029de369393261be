import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyRange, historyWindow, planBatch, type Arrival } from '../../src/domain/ledger-batch.js';
import { happenedBefore, record, sumOfDeltas, type TimelineEntry } from '../../src/domain/ledger.js';
import { MAX_QUANTITY_MILLI } from '../../src/domain/decimal.js';
import { quantityRangeErrorOf } from '../helpers/quantity-range.js';

/**
 * The batch planner against the reference: recording the same arrivals one by one on the
 * whole timeline (`record`). It sees only the window the engine would read (issue 11), so
 * these properties also prove the window is enough.
 */

const opArb = (maxAt: number): fc.Arbitrary<Arrival> =>
  fc.record({
    at: fc.integer({ min: 0, max: maxAt }),
    quantityMilli: fc.integer({ min: -5_000, max: 5_000 }),
    isCount: fc.boolean(),
  });

function recordAll(start: TimelineEntry[], ops: readonly Arrival[], firstId: number): TimelineEntry[] {
  return ops.reduce((timeline, op, index) => record(timeline, { ...op, id: firstId + index }), start);
}

/** What the engine reads for `range`: rows from fromAt through the first count after toAt. */
function windowOf(recorded: TimelineEntry[], range: { fromAt: number; toAt: number }) {
  const ordered = [...recorded].sort((a, b) => (happenedBefore(a, b) ? -1 : 1));
  const closing = ordered.find((entry) => entry.count && entry.at > range.toAt);
  const rows = ordered.filter((entry) => entry.at >= range.fromAt && (!closing || !happenedBefore(closing, entry)));
  return historyWindow(rows, closing !== undefined, sumOfDeltas(recorded));
}

/** 1..n in an order drawn from `seed` (a small LCG: fast-check shrinks the seed). */
function shuffledIds(n: number, seed: number): number[] {
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  let state = seed + 1;
  for (let i = n - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

function planAgainst(recorded: TimelineEntry[], arrivals: readonly Arrival[]) {
  const clock = {
    lastAt: recorded.length ? Math.max(...recorded.map((e) => e.at)) : null,
    lastCountAt: recorded.some((e) => e.count) ? Math.max(...recorded.filter((e) => e.count).map((e) => e.at)) : null,
  };
  const range = historyRange(clock, arrivals);
  const window = range
    ? windowOf(recorded, range)
    : { levelBeforeMilli: sumOfDeltas(recorded), entries: [], tailMilli: 0 };
  return { range, window, plan: planBatch(window, arrivals) };
}

function expectSameAsReference(history: Arrival[], arrivals: Arrival[]) {
  const recorded = recordAll([], history, 1);
  const reference = recordAll(recorded, arrivals, history.length + 1);
  const { plan, range, window } = planAgainst(recorded, arrivals);

  arrivals.forEach((_, index) => {
    const expected = reference.find((e) => e.id === history.length + 1 + index)!;
    expect(plan.arrivals[index]!.deltaMilli).toBe(expected.deltaMilli);
    expect(plan.arrivals[index]!.expectedMilli).toBe(expected.count?.expectedMilli);
  });
  const rebased = new Map(plan.rebased.map((r) => [r.id, r]));
  for (const before of recorded) {
    const after = reference.find((e) => e.id === before.id)!;
    const change = rebased.get(before.id);
    expect(change?.deltaMilli ?? before.deltaMilli).toBe(after.deltaMilli);
    if (after.count) expect(change?.expectedMilli ?? before.count!.expectedMilli).toBe(after.count.expectedMilli);
    // Only counts inside the window can change.
    if (change) expect(window.entries.some((e) => e.id === before.id)).toBe(true);
  }
  // The balance moves by what the arrivals booked when they arrived.
  const booked = plan.arrivals.reduce((sum, a) => sum + a.balanceChangeMilli, 0);
  expect(sumOfDeltas(recorded) + booked).toBe(sumOfDeltas(reference));
  return range;
}

describe('batch planning of late entries (issue 11)', () => {
  it('property: equals recording one by one on the whole timeline', () => {
    fc.assert(
      fc.property(
        fc.array(opArb(40), { maxLength: 30 }),
        fc.array(opArb(45), { minLength: 1, maxLength: 20 }),
        (history, arrivals) => {
          expectSameAsReference(history, arrivals);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('property: long histories with few counts and many late entries per request', () => {
    const sparse = fc.record({
      at: fc.integer({ min: 0, max: 2_000 }),
      quantityMilli: fc.integer({ min: -5_000, max: 5_000 }),
      isCount: fc.boolean().map((b) => b && Math.random() < 0.05),
    });
    fc.assert(
      fc.property(
        fc.array(sparse, { minLength: 200, maxLength: 400 }),
        fc.array(opArb(2_100), { minLength: 50, maxLength: 120 }),
        (history, arrivals) => {
          expectSameAsReference(history, arrivals);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('property: arrivals whose place is fixed by an id (written before their turn, or approved later) go where that id falls', () => {
    // Ids are a random permutation: an entry recorded later may hold a smaller id (it was
    // written before its turn and committed after others), and an arrival's fixed id may fall
    // before recorded entries of its moment. Arrivals without a fixed id follow everything.
    const fixedArb = fc.record({ op: opArb(12), fixed: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(opArb(12), { maxLength: 25 }),
        fc.array(fixedArb, { minLength: 1, maxLength: 15 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (history, drawn, seed) => {
          const ids = shuffledIds(history.length + drawn.length, seed);
          const recorded = history.reduce<TimelineEntry[]>(
            (timeline, op, index) => record(timeline, { ...op, id: ids[index]! }),
            [],
          );
          const arrivals: Arrival[] = drawn.map(({ op, fixed }, index) =>
            fixed ? { ...op, id: ids[history.length + index]! } : op,
          );
          const late = 1_000_000;
          const reference = arrivals.reduce(
            (timeline, arrival, index) => record(timeline, { ...arrival, id: arrival.id ?? late + index }),
            recorded,
          );
          const { plan } = planAgainst(recorded, arrivals);
          arrivals.forEach((arrival, index) => {
            const expected = reference.find((e) => e.id === (arrival.id ?? late + index))!;
            expect(plan.arrivals[index]!.deltaMilli).toBe(expected.deltaMilli);
            expect(plan.arrivals[index]!.expectedMilli).toBe(expected.count?.expectedMilli);
          });
          const rebased = new Map(plan.rebased.map((r) => [r.id, r]));
          for (const before of recorded) {
            const after = reference.find((e) => e.id === before.id)!;
            expect(rebased.get(before.id)?.deltaMilli ?? before.deltaMilli).toBe(after.deltaMilli);
          }
          expect(sumOfDeltas(recorded) + plan.arrivals.reduce((sum, a) => sum + a.balanceChangeMilli, 0)).toBe(
            sumOfDeltas(reference),
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('a delta written before a count of its moment was recorded is absorbed by that count', () => {
    // The delta got id 1 before its turn; a count at the same moment got id 2 and committed first.
    const recorded = record([], { id: 2, at: 10, quantityMilli: 5_000, isCount: true });
    const { range, plan } = planAgainst(recorded, [{ id: 1, at: 10, quantityMilli: 3_000, isCount: false }]);
    expect(range).toEqual({ fromAt: 10, toAt: 10 });
    expect(plan.arrivals[0]).toMatchObject({ deltaMilli: 3_000, balanceChangeMilli: 0, absorbed: true });
    expect(plan.rebased).toEqual([{ id: 2, deltaMilli: 2_000, expectedMilli: 3_000 }]);
  });

  it('in-order entries and late deltas with no count after them need no history', () => {
    const history: Arrival[] = [
      { at: 10, quantityMilli: 5_000, isCount: true },
      { at: 20, quantityMilli: 1_000, isCount: false },
    ];
    expect(
      expectSameAsReference(history, [
        { at: 30, quantityMilli: 1, isCount: false },
        { at: 25, quantityMilli: -2, isCount: false },
        { at: 40, quantityMilli: 7, isCount: true },
      ]),
    ).toBeUndefined();
    // A late delta at the very moment of the latest count happened after it: no history either.
    expect(expectSameAsReference(history, [{ at: 10, quantityMilli: 3, isCount: false }])).toBeUndefined();
  });

  it('a late entry before a count needs only the stretch up to that count', () => {
    const history: Arrival[] = [
      { at: 1, quantityMilli: 100, isCount: false },
      { at: 50, quantityMilli: 10_000, isCount: true },
      { at: 60, quantityMilli: -1_000, isCount: false },
      { at: 70, quantityMilli: 8_000, isCount: true },
      { at: 80, quantityMilli: 500, isCount: false },
    ];
    const recorded = recordAll([], history, 1);
    const { range, window } = planAgainst(recorded, [{ at: 55, quantityMilli: -300, isCount: false }]);
    expect(range).toEqual({ fromAt: 55, toAt: 55 });
    expect(window.entries.map((e) => e.at)).toEqual([60, 70]);
    expect(window.levelBeforeMilli).toBe(10_000);
    expect(window.tailMilli).toBe(500);
    expectSameAsReference(history, [{ at: 55, quantityMilli: -300, isCount: false }]);
  });

  describe('kept figures stay in the exact range (PRODUCT §3 "Exact numbers")', () => {
    const MAX = MAX_QUANTITY_MILLI;
    const refusal = quantityRangeErrorOf;
    const at = (path: string, arrival: Arrival): Arrival => ({ ...arrival, path });

    it('a balance is refused at the arrival that takes it out, in arrival order', () => {
      const arrivals = Array.from({ length: 10 }, (_, i) =>
        at(`e[${i}]`, { at: i, quantityMilli: MAX, isCount: false }),
      );
      const error = refusal(() => planAgainst([], arrivals));
      expect(error.site).toEqual({ path: 'e[1]', what: 'its balance' });
      // Up to the bound is fine, also going back down past zero.
      const plan = planAgainst(
        [],
        [
          { at: 1, quantityMilli: MAX, isCount: false },
          { at: 2, quantityMilli: -MAX, isCount: true },
          { at: 3, quantityMilli: MAX, isCount: false },
        ],
      ).plan;
      expect(plan.arrivals.map((a) => a.deltaMilli)).toEqual([MAX, -2 * MAX, MAX]);
    });

    it("a late entry may not take a later count's expected level out", () => {
      const recorded = recordAll([], [{ at: 10, quantityMilli: 0, isCount: true }], 1);
      const first = planAgainst(recorded, [{ at: 5, quantityMilli: MAX, isCount: false }]).plan;
      expect(first.rebased).toEqual([{ id: 1, deltaMilli: -MAX, expectedMilli: MAX }]);
      const withFirst = recordAll(recorded, [{ at: 5, quantityMilli: MAX, isCount: false }], 2);
      expect(
        refusal(() => planAgainst(withFirst, [at('late', { at: 6, quantityMilli: 1, isCount: false })])).site,
      ).toEqual({ path: 'late', what: 'the level a later count expected' });
    });

    it('partial sums of a history past 2^53 are refused, never rounded', () => {
      // Levels at past moments are not kept figures, but a late count reads one: a history whose
      // levels reach past 2^53 cannot be read exactly, so the count is refused.
      const history: TimelineEntry[] = Array.from({ length: 12 }, (_, i) => ({
        id: i + 1,
        at: i + 1,
        deltaMilli: i % 2 === 0 ? 2 * MAX : -MAX,
      }));
      history.push({ id: 13, at: 13, deltaMilli: -6 * MAX, count: { countedMilli: 0, expectedMilli: 6 * MAX } });
      const window = historyWindow(history, true, 0);
      expect(
        refusal(() => planBatch(window, [at('count', { at: 12, quantityMilli: 1, isCount: true })])).site.path,
      ).toBe('count');
    });
  });
});
