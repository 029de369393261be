import { checkedQuantity, exactAdd, moveQuantity, type SumSite } from './decimal.js';
import type { Planned, TimelineEntry } from './ledger.js';

/**
 * All entries of one request on one balance, planned together against only the part of the
 * balance's history they can affect (issue 11). The rules are those of `ledger.ts`
 * (`record`, applied one arrival after the other); only their cost changes:
 *
 * - an entry at or after the balance's latest entry needs no history: its level is the
 *   current level;
 * - a late delta with no count after its moment needs no history either (deltas commute);
 * - every other late entry (a late count, or a late entry before a count) needs the timeline
 *   from its moment up to the first count after it, because that count absorbs it.
 *
 * So a balance needs the recorded rows from the earliest such moment (`fromAt`) up to the
 * first recorded count after the latest such moment (`toAt`) — or up to now when no count
 * follows. What lies before `fromAt` is one number (the level there) and what lies after
 * that count is another (the tail): neither is read row by row.
 */

export interface Arrival {
  /** Epoch ms of the entry. */
  at: number;
  /** Signed delta, or for counts the counted level (thousandths). */
  quantityMilli: number;
  isCount: boolean;
  /** The request field of its quantity, named when a figure it makes would leave the exact range. */
  path?: string;
  /**
   * Its place among the balance's entries of the same moment when that is fixed already: an
   * entry written before its balance's turn, or a pending entry approved later, keeps the id
   * it was written under, so it goes wherever that id falls among recorded entries (which
   * may have been recorded since). Without it, the arrival follows everything recorded.
   */
  id?: number;
}

export interface BalanceClock {
  /** Moment of the latest recorded entry, null for a new balance. */
  lastAt: number | null;
  /** Moment of the latest recorded count, null when none. */
  lastCountAt: number | null;
}

/** The moments whose history the arrivals need, or undefined when none does. */
export interface HistoryRange {
  fromAt: number;
  toAt: number;
}

/** Which part of the recorded history the arrivals (in arrival order) need. */
export function historyRange(clock: BalanceClock, arrivals: readonly Arrival[]): HistoryRange | undefined {
  let { lastAt, lastCountAt } = clock;
  let range: HistoryRange | undefined;
  for (const arrival of arrivals) {
    // A recorded entry at the same moment happened before this arrival (arrival breaks ties),
    // unless the arrival's place is fixed: then it may fall before one of them.
    const fixed = arrival.id !== undefined;
    const late = lastAt !== null && (arrival.at < lastAt || (fixed && arrival.at === lastAt));
    const countAfter = lastCountAt !== null && (arrival.at < lastCountAt || (fixed && arrival.at === lastCountAt));
    if (late && (arrival.isCount || countAfter)) {
      range = range
        ? { fromAt: Math.min(range.fromAt, arrival.at), toAt: Math.max(range.toAt, arrival.at) }
        : { fromAt: arrival.at, toAt: arrival.at };
    }
    lastAt = lastAt === null ? arrival.at : Math.max(lastAt, arrival.at);
    if (arrival.isCount) lastCountAt = lastCountAt === null ? arrival.at : Math.max(lastCountAt, arrival.at);
  }
  return range;
}

/** The recorded history an arrival batch is planned against. */
export interface HistoryWindow {
  /** Level right before the first window entry (everything recorded before `fromAt`). */
  levelBeforeMilli: number;
  /** Recorded entries from `fromAt` through the first count after `toAt` (or to the end), in (at, id) order. */
  entries: readonly TimelineEntry[];
  /** Sum of the recorded deltas after the window's closing count (0 when the window runs to the end). */
  tailMilli: number;
}

export interface PlannedArrival extends Planned {
  /**
   * What the arrival changed the balance by when it was recorded: its delta, or 0 when a
   * later count absorbed it (the count's change cancels the entry's).
   */
  balanceChangeMilli: number;
  /** A later count absorbed the arrival's effect when it was recorded. */
  absorbed: boolean;
}

export interface BatchPlan {
  /** Per arrival, in arrival order, with its final figures (a count re-based by a later arrival shows the result). */
  arrivals: PlannedArrival[];
  /** Recorded counts whose figures the batch re-based: their new delta and expected level. */
  rebased: Array<{ id: number; deltaMilli: number; expectedMilli: number }>;
}

/**
 * The window from the rows read: recorded entries from `fromAt` in (at, id) order, ending
 * with the closing count when one exists, and the balance's current level. The level before
 * the window follows from the closing count's expected level (or from the current level),
 * so nothing before `fromAt` is read.
 */
export function historyWindow(
  rows: readonly TimelineEntry[],
  closedByCount: boolean,
  currentLevelMilli: number,
): HistoryWindow {
  const windowSum = rows.reduce((sum, row) => exactAdd(sum, row.deltaMilli, HISTORY), 0);
  const closing = closedByCount ? rows[rows.length - 1] : undefined;
  const minus = (a: number, b: number) => exactAdd(a, -b, HISTORY);
  const levelBeforeMilli = closing?.count
    ? minus(closing.count.expectedMilli, minus(windowSum, closing.deltaMilli))
    : minus(currentLevelMilli, windowSum);
  return { levelBeforeMilli, entries: rows, tailMilli: minus(minus(currentLevelMilli, levelBeforeMilli), windowSum) };
}

/** A partial sum of recorded history (levels at past moments are not kept figures, but must be exact). */
const HISTORY = { what: "the balance's level at a past moment" } as const;

/**
 * Plans the arrivals (in arrival order) against a history window, exactly as recording them
 * one by one on the whole timeline would. Positions of recorded and new entries are fixed
 * up front (recorded first at equal moments, then arrival order), so each arrival's level is
 * a prefix sum and its absorbing count a successor look-up: O(log n) each (Fenwick trees).
 */
export function planBatch(window: HistoryWindow, arrivals: readonly Arrival[]): BatchPlan {
  // `group` 0: recorded, and arrivals whose place is fixed (ranked by id); 1: other arrivals
  // (ranked by arrival) — they happen after every recorded entry of the same moment.
  type Slot = { at: number; group: 0 | 1; rank: number; recorded?: TimelineEntry; tail?: true };
  const slots: Slot[] = window.entries.map((entry) => ({ at: entry.at, group: 0, rank: entry.id, recorded: entry }));
  const closing = window.entries[window.entries.length - 1];
  if (window.tailMilli !== 0 && closing) {
    // Everything recorded after the closing count, as one lump right after it.
    slots.push({ at: closing.at, group: 0, rank: closing.id + 0.5, tail: true });
  }
  const firstArrivalSlot = slots.length;
  arrivals.forEach((arrival, index) =>
    slots.push(
      arrival.id === undefined
        ? { at: arrival.at, group: 1, rank: index }
        : { at: arrival.at, group: 0, rank: arrival.id },
    ),
  );
  const order = slots.map((_, index) => index).sort((a, b) => compareSlots(slots[a]!, slots[b]!));
  const positionOf = new Array<number>(slots.length);
  order.forEach((slot, position) => (positionOf[slot] = position + 1));

  const n = slots.length;
  // Recorded history loads before any arrival: an overflow there is named at the first arrival.
  const fenwickSite: { path?: string; what: string } = { path: arrivals[0]?.path, what: HISTORY.what };
  const deltas = new Fenwick(n, fenwickSite);
  const counts = new Fenwick(n, fenwickSite);
  const deltaAt = new Float64Array(n + 1);
  const countAt = new Map<
    number,
    { countedMilli: number; expectedMilli: number; recordedId?: number; arrival?: number }
  >();
  const put = (position: number, delta: number) => {
    deltas.add(position, delta - deltaAt[position]!);
    deltaAt[position] = delta;
  };
  slots.forEach((slot, index) => {
    const position = positionOf[index]!;
    if (slot.recorded) {
      put(position, slot.recorded.deltaMilli);
      if (slot.recorded.count) {
        counts.add(position, 1);
        countAt.set(position, { ...slot.recorded.count, recordedId: slot.recorded.id });
      }
    } else if (slot.tail) {
      put(position, window.tailMilli);
    }
  });

  // The balance as each arrival leaves it: a kept figure, checked in arrival order (before an
  // arrival's own delta enters the partial sums), so the entry that takes it out is the one named.
  let balance = exactAdd(window.levelBeforeMilli, deltas.prefix(n), fenwickSite);
  const planned: PlannedArrival[] = [];
  const rebasedRecorded = new Map<number, { id: number; deltaMilli: number; expectedMilli: number }>();
  arrivals.forEach((arrival, index) => {
    // Figures this arrival makes are refused at its field (PRODUCT §3 "Exact numbers").
    const site = (what: string): SumSite => ({ path: arrival.path, what });
    fenwickSite.path = arrival.path;
    const position = positionOf[firstArrivalSlot + index]!;
    const level = exactAdd(window.levelBeforeMilli, deltas.prefix(position - 1), site(HISTORY.what));
    const plan: PlannedArrival = arrival.isCount
      ? {
          deltaMilli: arrival.quantityMilli - checkedQuantity(level, site('the level the count expected')),
          expectedMilli: level,
          balanceChangeMilli: 0,
          absorbed: false,
        }
      : { deltaMilli: arrival.quantityMilli, balanceChangeMilli: 0, absorbed: false };
    plan.balanceChangeMilli = plan.deltaMilli;
    const next = plan.deltaMilli === 0 ? undefined : counts.firstAfter(position);
    if (next !== undefined) {
      // The earliest later count still holds: it absorbs this entry's effect (ledger.ts).
      const count = countAt.get(next)!;
      count.expectedMilli = moveQuantity(
        count.expectedMilli,
        plan.deltaMilli,
        site('the level a later count expected'),
      );
      const rebasedDelta = count.countedMilli - count.expectedMilli;
      put(next, rebasedDelta);
      if (count.recordedId !== undefined)
        rebasedRecorded.set(count.recordedId, {
          id: count.recordedId,
          deltaMilli: rebasedDelta,
          expectedMilli: count.expectedMilli,
        });
      else Object.assign(planned[count.arrival!]!, { deltaMilli: rebasedDelta, expectedMilli: count.expectedMilli });
      plan.balanceChangeMilli = 0;
      plan.absorbed = true;
    }
    balance = moveQuantity(balance, plan.balanceChangeMilli, site('its balance'));
    put(position, plan.deltaMilli);
    if (arrival.isCount) {
      counts.add(position, 1);
      countAt.set(position, {
        countedMilli: arrival.quantityMilli,
        expectedMilli: plan.expectedMilli!,
        arrival: index,
      });
    }
    planned.push(plan);
  });
  return { arrivals: planned, rebased: [...rebasedRecorded.values()] };
}

function compareSlots(
  a: { at: number; group: number; rank: number },
  b: { at: number; group: number; rank: number },
): number {
  return a.at - b.at || a.group - b.group || a.rank - b.rank;
}

/**
 * Prefix sums and "first marked position after p" over positions 1..n. Every addition is
 * exactAdd: a node or prefix past 2^53 would drop units silently, so it is refused at `site`.
 */
class Fenwick {
  private readonly tree: Float64Array;
  private readonly top: number;
  constructor(
    private readonly size: number,
    private readonly site: SumSite,
  ) {
    this.tree = new Float64Array(size + 1);
    let top = 1;
    while (top * 2 <= size) top *= 2;
    this.top = top;
  }

  add(position: number, amount: number): void {
    if (amount === 0) return;
    for (let i = position; i <= this.size; i += i & -i) this.tree[i] = exactAdd(this.tree[i]!, amount, this.site);
  }

  prefix(position: number): number {
    let sum = 0;
    for (let i = position; i > 0; i -= i & -i) sum = exactAdd(sum, this.tree[i]!, this.site);
    return sum;
  }

  /** The first position after `position` holding a positive amount (the tree of 0/1 marks). */
  firstAfter(position: number): number | undefined {
    const wanted = this.prefix(position) + 1;
    if (wanted > this.prefix(this.size)) return undefined;
    // Descend to the largest index whose prefix is below `wanted`; the next one holds it.
    let index = 0;
    let remaining = wanted;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = index + step;
      if (next <= this.size && this.tree[next]! < remaining) {
        index = next;
        remaining -= this.tree[next]!;
      }
    }
    return index + 1;
  }
}
