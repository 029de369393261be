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
    const late = lastAt !== null && arrival.at < lastAt;
    // A recorded count at the same moment happened before this arrival (arrival breaks ties).
    const countAfter = lastCountAt !== null && arrival.at < lastCountAt;
    if (late && (arrival.isCount || countAfter)) {
      range = range ? { fromAt: Math.min(range.fromAt, arrival.at), toAt: Math.max(range.toAt, arrival.at) } : { fromAt: arrival.at, toAt: arrival.at };
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
export function historyWindow(rows: readonly TimelineEntry[], closedByCount: boolean, currentLevelMilli: number): HistoryWindow {
  const windowSum = rows.reduce((sum, row) => sum + row.deltaMilli, 0);
  const closing = closedByCount ? rows[rows.length - 1] : undefined;
  const levelBeforeMilli = closing?.count ? closing.count.expectedMilli - (windowSum - closing.deltaMilli) : currentLevelMilli - windowSum;
  return { levelBeforeMilli, entries: rows, tailMilli: currentLevelMilli - levelBeforeMilli - windowSum };
}

/**
 * Plans the arrivals (in arrival order) against a history window, exactly as recording them
 * one by one on the whole timeline would. Positions of recorded and new entries are fixed
 * up front (recorded first at equal moments, then arrival order), so each arrival's level is
 * a prefix sum and its absorbing count a successor look-up: O(log n) each (Fenwick trees).
 */
export function planBatch(window: HistoryWindow, arrivals: readonly Arrival[]): BatchPlan {
  // `group` 0: recorded (ranked by id), 1: new (ranked by arrival) — new entries happen after
  // every recorded entry of the same moment.
  type Slot = { at: number; group: 0 | 1; rank: number; recorded?: TimelineEntry; tail?: true };
  const slots: Slot[] = window.entries.map((entry) => ({ at: entry.at, group: 0, rank: entry.id, recorded: entry }));
  const closing = window.entries[window.entries.length - 1];
  if (window.tailMilli !== 0 && closing) {
    // Everything recorded after the closing count, as one lump right after it.
    slots.push({ at: closing.at, group: 0, rank: closing.id + 0.5, tail: true });
  }
  const firstArrivalSlot = slots.length;
  arrivals.forEach((arrival, index) => slots.push({ at: arrival.at, group: 1, rank: index }));
  const order = slots.map((_, index) => index).sort((a, b) => compareSlots(slots[a]!, slots[b]!));
  const positionOf = new Array<number>(slots.length);
  order.forEach((slot, position) => (positionOf[slot] = position + 1));

  const n = slots.length;
  const deltas = new Fenwick(n);
  const counts = new Fenwick(n);
  const deltaAt = new Float64Array(n + 1);
  const countAt = new Map<number, { countedMilli: number; expectedMilli: number; recordedId?: number; arrival?: number }>();
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

  const planned: PlannedArrival[] = [];
  const rebasedRecorded = new Map<number, { id: number; deltaMilli: number; expectedMilli: number }>();
  arrivals.forEach((arrival, index) => {
    const position = positionOf[firstArrivalSlot + index]!;
    const level = window.levelBeforeMilli + deltas.prefix(position - 1);
    const plan: PlannedArrival = arrival.isCount
      ? { deltaMilli: arrival.quantityMilli - level, expectedMilli: level, balanceChangeMilli: 0, absorbed: false }
      : { deltaMilli: arrival.quantityMilli, balanceChangeMilli: 0, absorbed: false };
    plan.balanceChangeMilli = plan.deltaMilli;
    const next = plan.deltaMilli === 0 ? undefined : counts.firstAfter(position);
    if (next !== undefined) {
      // The earliest later count still holds: it absorbs this entry's effect (ledger.ts).
      const count = countAt.get(next)!;
      count.expectedMilli += plan.deltaMilli;
      const rebasedDelta = count.countedMilli - count.expectedMilli;
      put(next, rebasedDelta);
      if (count.recordedId !== undefined) rebasedRecorded.set(count.recordedId, { id: count.recordedId, deltaMilli: rebasedDelta, expectedMilli: count.expectedMilli });
      else Object.assign(planned[count.arrival!]!, { deltaMilli: rebasedDelta, expectedMilli: count.expectedMilli });
      plan.balanceChangeMilli = 0;
      plan.absorbed = true;
    }
    put(position, plan.deltaMilli);
    if (arrival.isCount) {
      counts.add(position, 1);
      countAt.set(position, { countedMilli: arrival.quantityMilli, expectedMilli: plan.expectedMilli!, arrival: index });
    }
    planned.push(plan);
  });
  return { arrivals: planned, rebased: [...rebasedRecorded.values()] };
}

function compareSlots(a: { at: number; group: number; rank: number }, b: { at: number; group: number; rank: number }): number {
  return a.at - b.at || a.group - b.group || a.rank - b.rank;
}

/** Prefix sums and "first marked position after p" over positions 1..n. */
class Fenwick {
  private readonly tree: Float64Array;
  private readonly top: number;
  constructor(private readonly size: number) {
    this.tree = new Float64Array(size + 1);
    let top = 1;
    while (top * 2 <= size) top *= 2;
    this.top = top;
  }

  add(position: number, amount: number): void {
    if (amount === 0) return;
    for (let i = position; i <= this.size; i += i & -i) this.tree[i]! += amount;
  }

  prefix(position: number): number {
    let sum = 0;
    for (let i = position; i > 0; i -= i & -i) sum += this.tree[i]!;
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
