import { describe, expect, it } from 'vitest';
import {
  BalanceModel,
  kindProblem,
  lateTimeline,
  TAIL_ROWS,
  TEMPLATE_COPIES,
  TEMPLATE_ROWS,
  COPY_SHIFT_MS,
  type ModelEntry,
} from '../../bench/lib/ledger-model.js';

const delta = (at: number, units: number): ModelEntry => ({ at, milli: units * 1000, count: false });
const count = (at: number, units: number): ModelEntry => ({ at, milli: units * 1000, count: true });

describe('bench ledger model: timestamp-order replay', () => {
  it('replays deltas and counts by moment, whatever the arrival order', () => {
    const model = new BalanceModel();
    model.post([delta(10, 5), count(20, 100), delta(30, -3)]);
    expect(model.levelMilli()).toBe(97_000);
    // A late delta before the count is absorbed by it (the count is re-based)…
    model.post([delta(15, 7)]);
    expect(model.levelMilli()).toBe(97_000);
    expect(model.levelMilli(20)).toBe(12_000); // the count's expected level, re-based
    // …a late one after the count is not.
    model.post([delta(25, 2)]);
    expect(model.levelMilli()).toBe(99_000);
    // A late count before the recorded one changes nothing after the later count.
    model.post([count(12, 50)]);
    expect(model.levelMilli()).toBe(99_000);
    expect(model.levelMilli(20)).toBe(57_000);
    expect(model.lastAt()).toBe(30);
    expect(model.lastCountAt()).toBe(20);
    expect(model.firstCountFrom(13)).toBe(20);
    expect(model.firstCountFrom(21)).toBeUndefined();
  });

  it('keeps arrival order at equal moments and a summarised prefix before everything', () => {
    const model = new BalanceModel();
    model.addPrefix(1_000, 4_000, 100);
    model.post([count(200, 10), delta(200, 1)]);
    expect(model.levelMilli()).toBe(11_000);
    expect(model.levelMilli(200)).toBe(4_000);
    expect(model.rows).toBe(1_002);
    expect(() => model.post([delta(100, 1)])).toThrow(/inside the summarised prefix/);
  });
});

describe('bench ledger model: the ledger.late timeline', () => {
  const now = Date.UTC(2026, 10, 24, 7, 0, 0);
  const timeline = lateTimeline(now);

  it('seeds 999,000 rows before a 1,000-row tail holding one count, all in the past', () => {
    expect(timeline.prefix.rows).toBe(TEMPLATE_ROWS * (TEMPLATE_COPIES + 1));
    expect(timeline.prefix.rows + TAIL_ROWS).toBe(1_000_000);
    const tail = [...timeline.tail.before, timeline.tail.count, ...timeline.tail.after];
    expect(tail).toHaveLength(TAIL_ROWS);
    expect(tail.filter((e) => e.count)).toHaveLength(1);
    expect(timeline.prefix.lastAt).toBe(timeline.template.at(-1)!.at + TEMPLATE_COPIES * COPY_SHIFT_MS);
    expect(timeline.prefix.lastAt).toBeLessThan(tail[0]!.at);
    expect(timeline.prefix.sumMilli).toBe(timeline.template.reduce((s, e) => s + e.milli, 0) * (TEMPLATE_COPIES + 1));
    // Copies of the template never overlap: each is shifted past the previous one's end.
    expect(timeline.template.at(-1)!.at - timeline.template[0]!.at).toBeLessThan(COPY_SHIFT_MS);
  });

  it('gives posts that are what they claim, round after round, as the scenario posts them', () => {
    for (const prefixed of [false, true]) {
      const model = new BalanceModel();
      if (prefixed) model.addPrefix(timeline.prefix.rows, timeline.prefix.sumMilli, timeline.prefix.lastAt);
      model.post(timeline.tail.before);
      model.post([timeline.tail.count]);
      model.post(timeline.tail.after);
      let seen = new Set<number>();
      for (let round = 0; round < 60; round++) {
        for (const [kind, entries] of [
          ['late-deltas', timeline.lateDeltas(round)],
          ['late-before-count', timeline.lateBeforeCount(round)],
          ['in-order', timeline.inOrder(round)],
        ] as const) {
          expect(kindProblem(model, kind, entries, timeline.countAt)).toBeUndefined();
          const before = model.levelMilli();
          model.post(entries);
          const sum = entries.reduce((s, e) => s + e.milli, 0);
          // Before a count: absorbed (the count is re-based); otherwise the level moves by the sum.
          expect(model.levelMilli()).toBe(kind === 'late-before-count' ? before : before + sum);
          if (kind === 'late-before-count') expect(sum).toBeGreaterThan(0);
        }
        seen = new Set([...seen, ...timeline.lateDeltas(round).map((e) => e.at)]);
      }
      // No two late deltas of different rounds share a moment.
      expect(seen.size).toBe(60 * 1_000);
    }
  });

  it('stays in the past and inside its windows for 500 rounds', () => {
    const halfDay = 43_200_000;
    const lastDeltas = timeline.lateDeltas(499);
    const lastBefore = timeline.lateBeforeCount(499);
    expect(Math.max(...timeline.inOrder(499).map((e) => e.at))).toBeLessThan(now - halfDay);
    expect(Math.max(...lastDeltas.map((e) => e.at))).toBeLessThan(timeline.tail.after.at(-1)!.at);
    expect(Math.min(...timeline.lateDeltas(0).map((e) => e.at))).toBeGreaterThan(timeline.countAt);
    expect(Math.max(...lastBefore.map((e) => e.at))).toBeLessThan(timeline.countAt);
    expect(Math.min(...timeline.lateBeforeCount(0).map((e) => e.at))).toBeGreaterThan(timeline.tail.before.at(-1)!.at);
  });

  it('names what is wrong with a post that is not of its kind', () => {
    const model = new BalanceModel();
    model.post([delta(1_000, 1), count(2_000, 5), delta(3_000, 1)]);
    expect(kindProblem(model, 'late-deltas', [delta(2_500, 1)])).toBeUndefined();
    expect(kindProblem(model, 'late-deltas', [delta(3_500, 1)])).toMatch(/not late/);
    expect(kindProblem(model, 'late-deltas', [delta(1_500, 1)])).toMatch(/a count \(at 2000\) follows/);
    expect(kindProblem(model, 'late-before-count', [delta(1_500, 1)], 2_000)).toBeUndefined();
    expect(kindProblem(model, 'late-before-count', [delta(2_500, 1)], 2_000)).toMatch(/not before the count/);
    expect(kindProblem(model, 'in-order', [delta(3_000, 1)])).toBeUndefined();
    expect(kindProblem(model, 'in-order', [delta(2_999, 1)])).toMatch(/late/);
    expect(kindProblem(model, 'in-order', [count(4_000, 1)])).toMatch(/deltas only/);
  });
});
