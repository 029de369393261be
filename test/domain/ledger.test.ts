import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planEntry, record, replayLevel, sumOfDeltas, type TimelineEntry } from '../../src/domain/ledger.js';

type Op = { at: number; quantityMilli: number; isCount: boolean };

const opArb: fc.Arbitrary<Op> = fc.record({
  at: fc.integer({ min: 0, max: 50 }),
  quantityMilli: fc.integer({ min: -5_000, max: 5_000 }),
  isCount: fc.boolean(),
});

/** Records ops in the given arrival order (ids = arrival order, as the database assigns them). */
function recordInArrivalOrder(ops: Op[]): { timeline: TimelineEntry[]; arrivals: Array<Op & { id: number }> } {
  let timeline: TimelineEntry[] = [];
  const arrivals = ops.map((op, index) => ({ ...op, id: index + 1 }));
  for (const op of arrivals) timeline = record(timeline, op);
  return { timeline, arrivals };
}

describe('ledger timeline (PRODUCT §5 counts)', () => {
  it('a count books counted − expected and later entries stay on top', () => {
    let t: TimelineEntry[] = [];
    t = record(t, { id: 1, at: 10, quantityMilli: 5_000, isCount: false });
    t = record(t, { id: 2, at: 30, quantityMilli: -1_000, isCount: false }); // a sale after the count moment
    t = record(t, { id: 3, at: 20, quantityMilli: 7_000, isCount: true }); // count arrives late
    expect(t.find((e) => e.id === 3)).toMatchObject({ deltaMilli: 2_000, count: { expectedMilli: 5_000 } });
    expect(sumOfDeltas(t)).toBe(6_000); // 7 counted, then the sale of 1
  });

  it('a late count before a newer count re-bases the newer one so it still holds', () => {
    let t: TimelineEntry[] = [];
    t = record(t, { id: 1, at: 10, quantityMilli: 5_000, isCount: false });
    t = record(t, { id: 2, at: 40, quantityMilli: 9_000, isCount: true }); // newer count: 9
    t = record(t, { id: 3, at: 20, quantityMilli: 3_000, isCount: true }); // older count arrives later: 3
    expect(t.find((e) => e.id === 3)).toMatchObject({ deltaMilli: -2_000, count: { expectedMilli: 5_000 } });
    expect(t.find((e) => e.id === 2)).toMatchObject({ deltaMilli: 6_000, count: { expectedMilli: 3_000 } });
    expect(sumOfDeltas(t)).toBe(9_000);
  });

  it('a late sale before a count is absorbed by the count', () => {
    const planned = planEntry(
      { levelAtMilli: 4_000, nextCount: { id: 7, countedMilli: 10_000, expectedMilli: 6_000 } },
      {
        quantityMilli: -1_000,
        isCount: false,
      },
    );
    expect(planned).toEqual({ deltaMilli: -1_000, rebase: { entryId: 7, expectedMilli: 5_000, deltaMilli: 5_000 } });
  });

  it('property: any arrival order gives the level of replaying in timestamp order', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const { timeline, arrivals } = recordInArrivalOrder(ops);
        expect(sumOfDeltas(timeline)).toBe(replayLevel(arrivals));
      }),
      { numRuns: 500 },
    );
  });

  it('property: every count still reads its counted level at its own moment', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 30 }), (ops) => {
        const { timeline } = recordInArrivalOrder(ops);
        for (const entry of timeline) {
          if (!entry.count) continue;
          const before = timeline.filter((e) => e.at < entry.at || (e.at === entry.at && e.id < entry.id));
          expect(entry.count.expectedMilli).toBe(sumOfDeltas(before));
          expect(entry.count.expectedMilli + entry.deltaMilli).toBe(entry.count.countedMilli);
        }
      }),
      { numRuns: 500 },
    );
  });
});
