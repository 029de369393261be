import {
  DEFAULT_POOL,
  PRODUCTS,
  STORES,
  TOKEN_STORES,
  type LocationCode,
  type ProductNo,
  type StoreNo,
  type TokenName,
} from './chain.js';

/**
 * The reference model of the chain (issue 26): what the service must hold after any sequence
 * of operations, computed the simplest way there is, so that it can be trusted.
 *
 * Stock is kept as the ledger's meaning, not its mechanics: every balance is a list of timed
 * entries (deltas and counted levels), and its level is the replay of that list in
 * (moment, arrival) order (docs/stock.md: a count is the level at its moment; entries with a
 * later moment stay on top). Quantities are bigint thousandths, so the model's sums are exact
 * whatever the service does with its own.
 */

/**
 * The largest magnitude any kept quantity may reach, sums included (PRODUCT §3 "Exact numbers";
 * docs/stock.md "Exact sums"): the bound a request may state, ±999,999,999,999, in thousandths.
 */
export const MAX_EXACT = 999_999_999_999_000n;
const inRange = (milli: bigint) => milli <= MAX_EXACT && milli >= -MAX_EXACT;

export interface TimedEntry {
  at: number;
  seq: number;
  count: boolean;
  milli: bigint;
}

/** A balance key as `balancesOf`-like reads show it: store|product|location|pool|order ("-" for none). */
export function balanceKey(
  store: string,
  product: string,
  location: string | null,
  pool: number,
  order: string | null,
): string {
  return `${store}|${product}|${location ?? '-'}|${pool}|${order ?? '-'}`;
}

export interface PendingEntry {
  id: number;
  store: StoreNo;
  key: string;
  at: number;
  milli: bigint;
  /** The customer order number the entry binds stock to, if any. */
  order: string | null;
  state: 'pending' | 'approved' | 'rejected';
  /** A count (the level at its moment), not a delta: what a counting assignment's line books. */
  count?: boolean;
  /** The counting assignment whose submission booked it (its review may close the assignment). */
  assignment?: number;
}

/** A line of a counting assignment (PRODUCT §10): one free balance, fixed when counting starts. */
export interface CountingLine {
  product: ProductNo;
  location: LocationCode | null;
  pool: number;
  /** The level when counting started (an extra line: at its first count's moment). */
  expected: bigint;
  counted: bigint | null;
  countedAt: number | null;
  extra: boolean;
  status: 'not_counted' | 'counted' | 'booked' | 'pending' | 'approved' | 'rejected';
  /** The stock log entry the submission booked. */
  entryId?: number;
}

/** A counting assignment of one store (PRODUCT §10, docs/counting.md). */
export interface CountingAssignment {
  id: number;
  store: StoreNo;
  code: string | null;
  /** Product numbers named (live at the start count), locations named, or the whole store. */
  scope: { products?: string[]; locations?: string[]; wholeStore?: boolean };
  blind: boolean;
  full: boolean;
  /** The zero reason code's kind (chain.ts REASONS). */
  zeroReason: string | null;
  /** Variance limits: quantity in thousandths, percent in thousandths of a percent. */
  limits: { quantity: bigint | null; percent: bigint | null; value: bigint | null };
  allowExtra: boolean;
  status: 'open' | 'counting' | 'submitted' | 'closed' | 'cancelled';
  /** In the service's line order (by id): the start's lines by product, location, pool, then extra lines. */
  lines: CountingLine[];
}

export interface DeliveryLine {
  number: number;
  product: ProductNo;
  milli: bigint;
  pool: number;
  received: bigint;
}
export interface Delivery {
  number: string;
  store: StoreNo;
  origin: string | null;
  type: number;
  status: 'open' | 'receiving' | 'received';
  /** A receipt exists once something was received or the delivery was submitted. */
  hasReceipt: boolean;
  lines: DeliveryLine[];
  /** The body last sent, re-sent as it is by a re-send. */
  body: Record<string, unknown>;
}

export interface OrderLine {
  number: number;
  product: ProductNo;
  milli: bigint;
  pool: number;
  picked: bigint;
  lastLoc: LocationCode | null;
}
export interface CustomerOrder {
  number: string;
  store: StoreNo;
  status: number;
  lines: OrderLine[];
  body: Record<string, unknown>;
}

export interface ProductList {
  id: number;
  store: StoreNo;
  duplicates: boolean;
  /** Lines in order: product and quantity (thousandths). */
  lines: Array<{ product: ProductNo; milli: bigint }>;
  state: 'live' | 'archived' | 'deleted';
}

export const isOpenOrder = (order: CustomerOrder) => order.status < 5;

export class ChainModel {
  /** Timed entries per balance key. */
  balances = new Map<string, TimedEntry[]>();
  pending: PendingEntry[] = [];
  deliveries: Delivery[] = [];
  orders: CustomerOrder[] = [];
  deletedProducts = new Set<ProductNo>();
  /** Stores soft-deleted by a flush: hidden from every path until sent again. */
  deletedStores = new Set<StoreNo>();
  /** Reason codes flushed away (soft-deleted) until sent again. */
  deletedReasons = new Set<string>();
  productLists: ProductList[] = [];
  /** Store products (store|product) sent through POST/PUT storeproducts, always with the same fields. */
  storeProductsSent = new Set<string>();
  /** Loss photos stored (issue 43), as `store|sha256`: kept whatever becomes of the store. */
  photos = new Set<string>();
  /** Price records by price_id and the store each applies to (null: chain-wide); a re-send may move one (issue 40). */
  prices = new Map<string, StoreNo | null>();
  /** Counting lines kept unresolved, per store (a barcode of no live product). */
  unresolved = new Map<string, number>();
  revokedTokens = new Set<TokenName>();
  /** Counting assignments (issue 44), in creation order. */
  assignments: CountingAssignment[] = [];
  /**
   * The ledger's archive boundary (`store-ops ledger archive`, PostgreSQL; the runner archives
   * before last month): an entry or count dated earlier is a 422 naming its line (issue 40 item 5).
   */
  archiveBoundary: number | null = null;
  private seq = 0;

  /** Whether a moment lies in a month of the ledger that has been archived. */
  isArchived(at: number | null): boolean {
    return at !== null && this.archiveBoundary !== null && at < this.archiveBoundary;
  }

  clone(): ChainModel {
    const copy = new ChainModel();
    for (const [key, entries] of this.balances)
      copy.balances.set(
        key,
        entries.map((e) => ({ ...e })),
      );
    copy.pending = this.pending.map((p) => ({ ...p }));
    copy.deliveries = this.deliveries.map((d) => ({ ...d, lines: d.lines.map((l) => ({ ...l })) }));
    copy.orders = this.orders.map((o) => ({ ...o, lines: o.lines.map((l) => ({ ...l })) }));
    copy.deletedProducts = new Set(this.deletedProducts);
    copy.deletedStores = new Set(this.deletedStores);
    copy.deletedReasons = new Set(this.deletedReasons);
    copy.productLists = this.productLists.map((l) => ({ ...l, lines: l.lines.map((line) => ({ ...line })) }));
    copy.revokedTokens = new Set(this.revokedTokens);
    copy.archiveBoundary = this.archiveBoundary;
    copy.seq = this.seq;
    copy.locationPools = new Map(this.locationPools);
    copy.unresolved = new Map(this.unresolved);
    copy.storeProductsSent = new Set(this.storeProductsSent);
    copy.photos = new Set(this.photos);
    copy.prices = new Map(this.prices);
    copy.assignments = this.assignments.map((a) => ({
      ...a,
      scope: { ...a.scope },
      limits: { ...a.limits },
      lines: a.lines.map((l) => ({ ...l })),
    }));
    copy.onBook = undefined;
    return copy;
  }

  // ------------------------------------------------------------------ stock

  /** The level of a balance now: its entries replayed in (moment, arrival) order. */
  level(key: string): bigint {
    return this.levelAt(key, Number.POSITIVE_INFINITY);
  }

  /** The level at a moment: every entry at or before it (a count at `at` reads this). */
  levelAt(key: string, at: number): bigint {
    const entries = [...(this.balances.get(key) ?? [])]
      .filter((e) => e.at <= at)
      .sort((a, b) => a.at - b.at || a.seq - b.seq);
    let level = 0n;
    for (const entry of entries) level = entry.count ? entry.milli : level + entry.milli;
    return level;
  }

  /** Called after every booking; a range check listens here. */
  onBook?: (key: string) => void;

  /**
   * The moment the service books what it stamps itself (picks, moves, receipts on the
   * endpoint, settlements): now, or the latest entry on any balance the booking touches when
   * that is later (a count may be stamped ahead) — arrival order (stock-logs/book.ts).
   */
  arrival(now: number, keys: readonly string[]): number {
    let at = now;
    for (const key of keys) for (const entry of this.balances.get(key) ?? []) at = Math.max(at, entry.at);
    return at;
  }

  book(key: string, at: number, milli: bigint, count = false): void {
    const entries = this.balances.get(key) ?? [];
    entries.push({ at, seq: ++this.seq, count, milli });
    this.balances.set(key, entries);
    this.onBook?.(key);
  }

  /**
   * Whether a balance holds only figures the service may keep: its level, and the level each of
   * its counts expected at its moment (a late entry re-bases the count after it).
   */
  balanceInRange(key: string): boolean {
    const entries = [...(this.balances.get(key) ?? [])].sort((a, b) => a.at - b.at || a.seq - b.seq);
    let level = 0n;
    for (const entry of entries) {
      if (entry.count && !inRange(level)) return false;
      level = entry.count ? entry.milli : level + entry.milli;
    }
    return inRange(level);
  }

  /** A store product's balances added up by size: every stock figure a read shows lies within it. */
  magnitude(store: string, product: string): bigint {
    let total = 0n;
    for (const key of this.balances.keys()) {
      if (!key.startsWith(`${store}|${product}|`)) continue;
      const level = this.level(key);
      total += level < 0n ? -level : level;
    }
    return total;
  }

  /** Every balance bound under an order number in a store, with its level (docs/customer-orders.md). */
  boundUnder(store: string, order: string): Array<{ key: string; level: bigint }> {
    return [...this.balances.keys()]
      .filter((key) => key.startsWith(`${store}|`) && key.endsWith(`|${order}`))
      .map((key) => ({ key, level: this.level(key) }))
      .filter((b) => b.level !== 0n);
  }

  /** An order of this number in this store (any status): its stock moves only by its own operations. */
  orderIn(store: string, number: string): CustomerOrder | undefined {
    return this.orders.find((o) => o.store === store && o.number === number);
  }

  /** Free (not order-bound) stock at a location and pool. */
  freeAt(store: string, product: string, location: string | null, pool: number): bigint {
    return this.level(balanceKey(store, product, location, pool, null));
  }

  /** Every non-zero balance: key → thousandths. */
  nonZeroBalances(): Map<string, bigint> {
    const out = new Map<string, bigint>();
    for (const key of this.balances.keys()) {
      const level = this.level(key);
      if (level !== 0n) out.set(key, level);
    }
    return out;
  }

  /** A product's stock in a store: every pool, location and order key. */
  storeTotal(store: string, product: string): bigint {
    let total = 0n;
    for (const key of this.balances.keys()) if (key.startsWith(`${store}|${product}|`)) total += this.level(key);
    return total;
  }

  /** Store products (store|product) of these balances whose magnitude left the range. */
  magnitudeOutOfRange(keys: Iterable<string>): string[] {
    const storeProducts = new Set([...keys].map((key) => key.split('|').slice(0, 2).join('|')));
    return [...storeProducts].filter((sp) => {
      const [store, product] = sp.split('|');
      return this.magnitude(store!, product!) > MAX_EXACT;
    });
  }

  /**
   * The store's store products (PRODUCT §5): every product a booking touched there — an entry
   * waiting for review included, which creates its store product too — or the ERP sent.
   */
  storeProductsOf(store: string): Set<ProductNo> {
    const products = new Set<ProductNo>();
    for (const key of this.balances.keys()) {
      const [s, product] = key.split('|');
      if (s === store) products.add(product as ProductNo);
    }
    for (const entry of this.pending) if (entry.store === store) products.add(entry.key.split('|')[1] as ProductNo);
    for (const key of this.storeProductsSent) {
      const [s, product] = key.split('|');
      if (s === store) products.add(product as ProductNo);
    }
    return products;
  }

  /** The counting assignment of the store that holds a product while counting (PRODUCT §10: one at a time). */
  claimOf(store: string, product: string): CountingAssignment | undefined {
    return this.assignments.find(
      (a) => a.store === store && a.status === 'counting' && a.lines.some((l) => l.product === product),
    );
  }

  // ------------------------------------------------------------------ who may do what

  /** null: admitted; else the status the route's guard answers (PRODUCT §4). */
  routeRefusal(token: TokenName, write: boolean, pathStore?: string, masterWrite = false): 401 | 403 | null {
    if (this.revokedTokens.has(token)) return 401;
    if (token === 'admin') return null;
    if (write && token === 'read') return 403;
    const stores = TOKEN_STORES[token];
    if (write && masterWrite && stores !== null) return 403;
    if (pathStore !== undefined && stores !== null && !stores.includes(pathStore)) return 403;
    return null;
  }

  /** A store named in a body or reached through stored data (PRODUCT §4). */
  covers(token: TokenName, store: string): boolean {
    const stores = TOKEN_STORES[token];
    return stores === null || stores.includes(store);
  }

  isLiveProduct(product: string): product is ProductNo {
    return (PRODUCTS as readonly string[]).includes(product) && !this.deletedProducts.has(product as ProductNo);
  }

  /** A live store: one a path may name. */
  isStore(store: string): store is StoreNo {
    return this.isChainStore(store) && !this.deletedStores.has(store);
  }

  /** A store of this service, live or soft-deleted (its stock is still on its books). */
  isChainStore(store: string): store is StoreNo {
    return (STORES as readonly string[]).includes(store);
  }

  /** The stores a token sees in lists (PRODUCT §4). */
  visibleTo(token: TokenName): (store: string) => boolean {
    const stores = TOKEN_STORES[token];
    return (store) => stores === null || stores.includes(store);
  }

  /** Default pools changed by a locations upsert, per store and location (chain.ts DEFAULT_POOL before). */
  locationPools = new Map<string, number>();

  defaultPool(store: string, location: LocationCode | null): number {
    if (location === null) return 1;
    return this.locationPools.get(`${store}|${location}`) ?? DEFAULT_POOL[location];
  }
}
