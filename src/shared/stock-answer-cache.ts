const DEFAULT_CAPACITY = 20_000;
/** A product at hundreds of locations answers tens of kilobytes: bound the memory too. */
const DEFAULT_MAX_HELD = 32 * 1024 * 1024;

/**
 * Serialized single-product stock answers as last given, kept in this process and given
 * again while their fingerprint still holds: the store product's stock_version and the
 * locations version (both bumped by database triggers with every change to its balances,
 * or to locations) and every other column the answer shows — all read fresh, in the one
 * statement that resolves the path, on every request. So a hit answers exactly what
 * reading, adding up and serializing the balances again would (this read is the handheld's
 * most frequent call, and those steps are most of its cost; docs/decisions.md "single-product
 * stock answers").
 *
 * An answer is stored with the versions read *before* its balances: a change committed in
 * between makes it newer than its label, never older, and the next request sees the new
 * version and builds the answer again.
 *
 * The same answers are also kept by path ("path\0<store>\0<product or barcode>\0<flags>"),
 * fingerprinted with the database's change token (DbHandle.changeToken, SQLite only): while
 * nothing at all was committed, a request is answered without resolving its path — the
 * statement that does so is most of what a hit costs otherwise.
 *
 * Beyond `capacity` answers or about `maxHeld` bytes, the answer stored longest ago goes
 * first (a hit does not reorder: that would cost every hit a map rewrite).
 */
export class StockAnswerCache {
  private readonly entries = new Map<string, { fingerprint: string; body: string }>();
  /** UTF-16 code units held in bodies: about the bytes they take. */
  private held = 0;

  constructor(
    private readonly capacity = DEFAULT_CAPACITY,
    private readonly maxHeld = DEFAULT_MAX_HELD,
  ) {}

  get(key: string, fingerprint: string): string | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.fingerprint === fingerprint ? entry.body : undefined;
  }

  set(key: string, fingerprint: string, body: string): void {
    this.drop(key);
    this.entries.set(key, { fingerprint, body });
    this.held += body.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity && this.held <= this.maxHeld) break;
      this.drop(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.held -= entry.body.length;
    this.entries.delete(key);
  }
}
