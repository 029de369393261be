/**
 * The ledger scenarios' model of one balance (PRODUCT §5, docs/stock.md "Late entries"):
 * the level is the replay of every entry in timestamp order (arrival order at equal
 * moments), a delta adding to the level and a count setting it. And the timelines the
 * `ledger.late.*` scenarios post: a seeded history, then per round late deltas, late
 * entries just before a recorded count, and in-order deltas, with moments chosen so that
 * each kind really is what it claims to be (checked again against the database before
 * each post). Pure: tested in test/bench/ledger-model.test.ts.
 */

/** One entry as the model sees it: a delta, or a count (its counted level), in thousandths. */
export interface ModelEntry {
  /** Epoch ms. */
  at: number;
  milli: number;
  count: boolean;
}

export class BalanceModel {
  /** A summarised history of deltas only, all earlier than every entry posted after it. */
  private prefix = { rows: 0, sumMilli: 0, lastAt: Number.NEGATIVE_INFINITY };
  private readonly entries: ModelEntry[] = [];
  private deltaSumMilli = 0;
  private counts = 0;

  /** `rows` deltas summing to `sumMilli`, the latest at `lastAt`: recorded before anything else. */
  addPrefix(rows: number, sumMilli: number, lastAt: number): void {
    if (this.entries.length > 0) throw new Error('a prefix goes before every posted entry');
    this.prefix = {
      rows: this.prefix.rows + rows,
      sumMilli: this.prefix.sumMilli + sumMilli,
      lastAt: Math.max(this.prefix.lastAt, lastAt),
    };
  }

  /** Entries in arrival order (one request, or several in the order they were answered). */
  post(entries: readonly ModelEntry[]): void {
    for (const entry of entries) {
      if (entry.at <= this.prefix.lastAt)
        throw new Error(`entry at ${entry.at} falls inside the summarised prefix (up to ${this.prefix.lastAt})`);
      this.entries.push(entry);
      if (entry.count) this.counts++;
      else this.deltaSumMilli += entry.milli;
    }
  }

  get rows(): number {
    return this.prefix.rows + this.entries.length;
  }

  /** Timestamp-order replay (stable: arrival order at equal moments) of the entries before `until` (all when omitted). */
  levelMilli(until = Number.POSITIVE_INFINITY): number {
    // Deltas commute: without counts (or a cut) the replay is their sum.
    if (this.counts === 0 && until === Number.POSITIVE_INFINITY) return this.prefix.sumMilli + this.deltaSumMilli;
    const ordered = this.entries
      .map((entry, arrival) => ({ entry, arrival }))
      .sort((a, b) => a.entry.at - b.entry.at || a.arrival - b.arrival);
    let level = this.prefix.sumMilli;
    for (const { entry } of ordered) {
      if (entry.at >= until) break;
      level = entry.count ? entry.milli : level + entry.milli;
    }
    return level;
  }

  /** The latest moment recorded, and the latest count's. */
  lastAt(): number {
    return this.entries.reduce((latest, e) => Math.max(latest, e.at), this.prefix.lastAt);
  }

  lastCountAt(): number | undefined {
    const counts = this.entries.filter((e) => e.count).map((e) => e.at);
    return counts.length === 0 ? undefined : Math.max(...counts);
  }

  /** The first count at or after `at`, if any. */
  firstCountFrom(at: number): number | undefined {
    const counts = this.entries.filter((e) => e.count && e.at >= at).map((e) => e.at);
    return counts.length === 0 ? undefined : Math.min(...counts);
  }
}

/** What a post is meant to be; `checkKind` says whether the model agrees. */
export type PostKind = 'late-deltas' | 'late-before-count' | 'in-order';

/**
 * Why `entries` are not of `kind` on a balance in the model's state (undefined when they
 * are): late deltas are all before the latest entry and after the latest count (no count
 * after them: they need no history); late entries before a count are all before
 * `countAt`, which is the first count after each of them; in-order deltas are all at or
 * after the latest entry.
 */
export function kindProblem(
  model: BalanceModel,
  kind: PostKind,
  entries: readonly ModelEntry[],
  countAt?: number,
): string | undefined {
  const first = Math.min(...entries.map((e) => e.at));
  const last = Math.max(...entries.map((e) => e.at));
  const lastAt = model.lastAt();
  if (entries.some((e) => e.count)) return 'the posts of the ledger scenarios hold deltas only';
  switch (kind) {
    case 'late-deltas': {
      const lastCount = model.lastCountAt();
      if (last >= lastAt) return `not late: an entry at ${last} is not before the latest entry ${lastAt}`;
      if (lastCount !== undefined && first <= lastCount)
        return `a count (at ${lastCount}) follows an entry at ${first}`;
      return undefined;
    }
    case 'late-before-count': {
      if (countAt === undefined) return 'no count named';
      if (last >= countAt) return `an entry at ${last} is not before the count at ${countAt}`;
      const next = model.firstCountFrom(first);
      if (next !== countAt) return `the first count after ${first} is at ${next}, not ${countAt}`;
      return undefined;
    }
    case 'in-order':
      return first < lastAt ? `late: an entry at ${first} is before the latest entry ${lastAt}` : undefined;
  }
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** Rows of the seeded history on every balance, whatever its length: the stretch late entries land in. */
export const TAIL_ROWS = 1_000;
/** Index in the tail of its one count (then 99 more deltas after it). */
export const TAIL_COUNT_INDEX = 900;
/** The long history's template (posted over HTTP) and its copies (raw SQL): 1,000 × 999 = 999,000 rows before the tail. */
export const TEMPLATE_ROWS = 1_000;
export const TEMPLATE_COPIES = 998;
/** Copy k of the template is shifted by k × this (the template itself spans 999 s). */
export const COPY_SHIFT_MS = 1_000 * SECOND;

/**
 * The timeline of the `ledger.late.*` scenarios, from a moment `now` (rounded to the second):
 *
 * - the long history (big balance only): a template of 1,000 deltas one second apart and
 *   998 copies of it, each 1,000 s later — 999,000 rows over 11.6 days, ending before
 * - the tail (both balances, the same moments): 1,000 entries one minute apart starting two
 *   days ago — 900 deltas, a count, 99 deltas;
 * - per round g (0 = the untimed warm-up, then one per run):
 *   - 1,000 late deltas spread over the 99 minutes between the tail's count and its last
 *     entry (5 s apart, offset g ms): late, and no count after them;
 *   - 100 late deltas spread over the minute before the tail's count (0.5 s apart, offset
 *     g ms), each +1…+3 so the count's re-basing shows in the level;
 *   - 1,000 in-order deltas 0.1 s apart, round g starting 100 s after the tail's end
 *     plus g × 100 s.
 *
 * Up to 500 rounds: late windows without two entries of one kind sharing a moment, and
 * every moment at least 12 hours before `now`.
 */
export function lateTimeline(now: number) {
  const tailStart = Math.floor(now / SECOND) * SECOND - 2 * 24 * 60 * MINUTE;
  const templateStart = tailStart - 1_000 * COPY_SHIFT_MS;
  const delta = (at: number, units: number): ModelEntry => ({
    at,
    milli: (units === 0 ? 1 : units) * 1000,
    count: false,
  });

  const template = Array.from({ length: TEMPLATE_ROWS }, (_, i) =>
    delta(templateStart + i * SECOND, ((i * 7919) % 41) - 15),
  );
  const templateSumMilli = template.reduce((sum, e) => sum + e.milli, 0);
  const prefix = {
    rows: TEMPLATE_ROWS * (TEMPLATE_COPIES + 1),
    sumMilli: templateSumMilli * (TEMPLATE_COPIES + 1),
    lastAt: template[TEMPLATE_ROWS - 1]!.at + TEMPLATE_COPIES * COPY_SHIFT_MS,
  };

  const tailAt = (i: number) => tailStart + i * MINUTE;
  const tailBefore = Array.from({ length: TAIL_COUNT_INDEX }, (_, i) => delta(tailAt(i), ((i * 31) % 23) - 8));
  const tailCount: ModelEntry = { at: tailAt(TAIL_COUNT_INDEX), milli: 5_000 * 1000, count: true };
  const tailAfter = Array.from({ length: TAIL_ROWS - TAIL_COUNT_INDEX - 1 }, (_, i) =>
    delta(tailAt(TAIL_COUNT_INDEX + 1 + i), ((i * 13) % 17) - 9),
  );
  const tailEnd = tailAt(TAIL_ROWS - 1);
  const countAt = tailCount.at;

  return {
    template,
    prefix,
    tail: { before: tailBefore, count: tailCount, after: tailAfter },
    countAt,
    lateDeltas: (round: number) =>
      Array.from({ length: 1_000 }, (_, j) => delta(countAt + 1 + j * 5 * SECOND + round, ((j * 31) % 9) - 4)),
    lateBeforeCount: (round: number) =>
      Array.from({ length: 100 }, (_, j) => delta(countAt - 59 * SECOND + j * 500 + round, 1 + (j % 3))),
    inOrder: (round: number) =>
      Array.from({ length: 1_000 }, (_, j) =>
        delta(tailEnd + (1 + round) * 100 * SECOND + j * 100, ((j * 17) % 13) - 6),
      ),
  };
}

export type LateTimeline = ReturnType<typeof lateTimeline>;
