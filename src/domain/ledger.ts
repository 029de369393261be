/**
 * The ledger timeline of one balance (PRODUCT §5 "Counts"), without a database.
 *
 * Entries are ordered by (timestamp, arrival id). An ordinary entry adds its delta. A
 * count says "the level at this moment was C": it records the expected level at its
 * moment and books delta = C − expected, so entries with a later timestamp stay on top.
 *
 * An entry may arrive late: its timestamp lies before entries already recorded. When a
 * count with a later timestamp exists, the earliest such count must still hold (the shelf
 * really had C then), so it is re-based: its expected level grows by the late entry's
 * effect and its delta shrinks by the same amount. Only the earliest later count needs
 * this; once its level is right, everything after it is unchanged. The balance's net
 * change is then zero, exactly what replaying all entries in timestamp order gives.
 */

export interface TimelineEntry {
  id: number;
  /** Epoch milliseconds of the entry (modification_datetime / CountingDateTime). */
  at: number;
  deltaMilli: number;
  /** Present on counts. */
  count?: { countedMilli: number; expectedMilli: number };
}

/** Orders entries as they happened; arrival (id) breaks timestamp ties. */
export function happenedBefore(a: { at: number; id: number }, b: { at: number; id: number }): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

/** The level right after `moment` (entries at or before it). */
export function levelAt(entries: readonly TimelineEntry[], moment: { at: number; id: number }): number {
  let level = 0;
  for (const entry of entries) if (!happenedBefore(moment, entry)) level += entry.deltaMilli;
  return level;
}

/** The earliest count that happened after `moment`, if any. */
export function firstCountAfter(
  entries: readonly TimelineEntry[],
  moment: { at: number; id: number },
): TimelineEntry | undefined {
  let first: TimelineEntry | undefined;
  for (const entry of entries) {
    if (entry.count && happenedBefore(moment, entry) && (!first || happenedBefore(entry, first))) first = entry;
  }
  return first;
}

/** A re-based count: its new expected level and delta. */
export interface Rebase {
  entryId: number;
  expectedMilli: number;
  deltaMilli: number;
}

export interface Planned {
  /** Delta the new entry books. */
  deltaMilli: number;
  /** For counts: the level the system expected at the count's moment. */
  expectedMilli?: number;
  /** The later count absorbing the new entry's effect, if one exists. */
  rebase?: Rebase;
}

/** What the facts about the timeline that a new entry needs: its level then, and the next count. */
export interface TimelineView {
  levelAtMilli: number;
  nextCount?: { id: number; countedMilli: number; expectedMilli: number };
}

/**
 * Plans a new entry from what the timeline says around its moment. For a count,
 * `quantityMilli` is the counted level; otherwise it is the signed delta.
 */
export function planEntry(view: TimelineView, entry: { quantityMilli: number; isCount: boolean }): Planned {
  const planned: Planned = entry.isCount
    ? { deltaMilli: entry.quantityMilli - view.levelAtMilli, expectedMilli: view.levelAtMilli }
    : { deltaMilli: entry.quantityMilli };
  if (view.nextCount && planned.deltaMilli !== 0) {
    const expectedMilli = view.nextCount.expectedMilli + planned.deltaMilli;
    planned.rebase = {
      entryId: view.nextCount.id,
      expectedMilli,
      deltaMilli: view.nextCount.countedMilli - expectedMilli,
    };
  }
  return planned;
}

/** The view of an in-memory timeline (the reference the database implementation must match). */
export function viewOf(entries: readonly TimelineEntry[], moment: { at: number; id: number }): TimelineView {
  const next = firstCountAfter(entries, moment);
  return {
    levelAtMilli: levelAt(entries, moment),
    nextCount: next?.count
      ? { id: next.id, countedMilli: next.count.countedMilli, expectedMilli: next.count.expectedMilli }
      : undefined,
  };
}

/** Records a new entry in an in-memory timeline, re-basing as planned. Returns the new timeline. */
export function record(
  entries: readonly TimelineEntry[],
  entry: { id: number; at: number; quantityMilli: number; isCount: boolean },
): TimelineEntry[] {
  const planned = planEntry(viewOf(entries, entry), entry);
  const next = entries.map((e) =>
    planned.rebase && e.id === planned.rebase.entryId
      ? {
          ...e,
          deltaMilli: planned.rebase.deltaMilli,
          count: { countedMilli: e.count!.countedMilli, expectedMilli: planned.rebase.expectedMilli },
        }
      : e,
  );
  next.push({
    id: entry.id,
    at: entry.at,
    deltaMilli: planned.deltaMilli,
    count: entry.isCount ? { countedMilli: entry.quantityMilli, expectedMilli: planned.expectedMilli! } : undefined,
  });
  return next;
}

/** Replays entries in the order they happened: the meaning a timeline must have. */
export function replayLevel(
  entries: ReadonlyArray<{ id: number; at: number; quantityMilli: number; isCount: boolean }>,
): number {
  const ordered = [...entries].sort((a, b) => (happenedBefore(a, b) ? -1 : happenedBefore(b, a) ? 1 : 0));
  let level = 0;
  for (const entry of ordered) level = entry.isCount ? entry.quantityMilli : level + entry.quantityMilli;
  return level;
}

export function sumOfDeltas(entries: readonly TimelineEntry[]): number {
  return entries.reduce((sum, e) => sum + e.deltaMilli, 0);
}
