/**
 * What a process remembers of the pulls it served, so that the next page of a pull walked by
 * Page_Start continues where the previous one ended instead of skipping `(n − 1) × size`
 * records (docs/decisions.md "Pulls at chain scale"): the log pull (stock-logs/log-pull.ts)
 * and the stock delta pull (store-stock/delta-pull.ts). Each pull decides itself when a
 * remembered position still gives what OFFSET would; this only keeps them, in bounded memory.
 * Per process: another process serving the next page of the same pull finds nothing and
 * reads by OFFSET once; its own next page seeks again.
 */

/** The last `max` pulls used, the least recently used forgotten first. */
export class RecentPulls<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly max: number) {}

  /** The pull's value, without making it recent. */
  peek(pull: string): V | undefined {
    return this.values.get(pull);
  }

  set(pull: string, value: V): void {
    // Most recently used last: the first key is the one to forget.
    this.values.delete(pull);
    this.values.set(pull, value);
    if (this.values.size > this.max) this.values.delete(this.values.keys().next().value!);
  }
}

const MAX_PULLS = 200;
/** A pull walks forward: the last pages it was served are the ones its next page seeks from. */
const MAX_PAGES_PER_PULL = 64;
/** Farther than this behind the asked page, a remembered position is not worth seeking from. */
const MAX_PAGES_AHEAD = 50;

/** Page positions per pull (its filters and page size): the last 64 pages of each of the last 200 pulls. */
export class PagePositions<P extends { page: number }> {
  private readonly pulls = new RecentPulls<Map<number, P>>(MAX_PULLS);

  /** The nearest remembered position before `page`, within MAX_PAGES_AHEAD. */
  before(pull: string, page: number): P | undefined {
    const positions = this.pulls.peek(pull);
    if (!positions) return undefined;
    for (let at = page - 1; at >= Math.max(1, page - MAX_PAGES_AHEAD); at--) {
      const position = positions.get(at);
      if (position) return position;
    }
    return undefined;
  }

  remember(pull: string, position: P): void {
    const positions = this.pulls.peek(pull) ?? new Map<number, P>();
    this.pulls.set(pull, positions);
    positions.delete(position.page);
    positions.set(position.page, position);
    // Least recently served first: bounded memory (about 2 MB for every pull remembered).
    if (positions.size > MAX_PAGES_PER_PULL) positions.delete(positions.keys().next().value!);
  }
}
