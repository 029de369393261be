const DEFAULT_CAPACITY = 20_000;

/**
 * Serialized single-product stock answers as last given, kept in this process and given
 * again while their fingerprint still holds: the store product's stock_version (bumped by
 * the ledger with every change to its balances), the locations version (bumped by
 * triggers) and every other column the answer shows — all read fresh, in the one
 * statement that resolves the path, on every request. So a hit answers exactly what
 * reading, adding up and serializing the balances again would (issue 5: this read is the
 * handheld's most frequent call, and those steps were most of its cost).
 *
 * An answer is stored with the versions read *before* its balances: a change committed in
 * between makes it newer than its label, never older, and the next request sees the new
 * version and builds the answer again. Beyond `capacity` the answer stored longest ago goes
 * first (a hit does not reorder: that would cost every hit a map rewrite).
 */
export class StockAnswerCache {
  private readonly entries = new Map<string, { fingerprint: string; body: string }>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  get(key: string, fingerprint: string): string | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.fingerprint === fingerprint ? entry.body : undefined;
  }

  set(key: string, fingerprint: string, body: string): void {
    this.entries.delete(key);
    this.entries.set(key, { fingerprint, body });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
