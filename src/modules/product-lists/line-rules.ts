import { addQuantities, MAX_QUANTITY_MILLI, toQuantity, type SumSite } from '../../domain/decimal.js';
import type { FieldError } from '../../shared/validation.js';

/**
 * The rules of a list's lines (interface §4.1, PRODUCT §8), free of the database: quantity 0
 * counts as 1, lines of unknown products are skipped, lines of one product merge with
 * summed quantities where the list forbids duplicates, and a line update names its line by
 * product. Quantities are thousandths.
 */

/** The largest quantity a line holds (thousandths): what a request may state for one line, the range of every kept quantity. */
export const MAX_LINE_QUANTITY = MAX_QUANTITY_MILLI;

/** Interface §4.1: "A line quantity of 0 is treated as 1." */
export function lineQuantity(sent: number): number {
  const scaled = toQuantity(sent);
  return scaled === 0 ? toQuantity(1) : scaled;
}

export interface ListLine {
  productId: number;
  quantity: number;
  stockPool: number | null;
}

/** A sent line with its product resolved (undefined: no such product, the line is skipped). */
export interface SentLine {
  /** Where the line was in the request (`lines[3]`), for errors. */
  path: string;
  productNumber: string;
  productId: number | undefined;
  /**
   * Update only: the product was deleted since. A line the update leaves as it is keeps it
   * (PRODUCT §3: an identical re-send changes nothing); a new or changed one is skipped, as
   * for an unknown product (shared/held-references.ts).
   */
  deleted?: boolean;
  quantity: number;
  /** Update only: undefined keeps the stored line's pool. */
  stockPool?: number;
}

/**
 * A merged line is a kept sum (PRODUCT §3 "Exact numbers"): merging past the range throws
 * QuantityRangeError (domain/decimal.ts; a 422) at the line that takes it there.
 */
const mergeSite = (line: SentLine): SumSite => ({
  path: `${line.path}.quantity`,
  what: `the merged quantity of product '${line.productNumber}'`,
});

/**
 * The lines a new list starts with, in the order sent. With duplicates forbidden, a
 * product's lines become its first line with their quantities summed.
 */
export function newListLines(
  sent: readonly SentLine[],
  allowDuplicates: boolean,
): { lines: ListLine[]; skipped: string[] } {
  const lines: ListLine[] = [];
  const skipped: string[] = [];
  const merged = new Map<number, ListLine>();
  for (const line of sent) {
    if (line.productId === undefined) {
      skipped.push(line.productNumber);
      continue;
    }
    const first = allowDuplicates ? undefined : merged.get(line.productId);
    if (first) {
      first.quantity = addQuantities(first.quantity, line.quantity, mergeSite(line));
      continue;
    }
    const created: ListLine = { productId: line.productId, quantity: line.quantity, stockPool: line.stockPool ?? null };
    lines.push(created);
    merged.set(line.productId, created);
  }
  return { lines, skipped };
}

export interface StoredLine {
  /** The line's position in its list: its key. */
  lineNo: number;
  productId: number;
  quantity: number;
  stockPool: number | null;
}

export interface LineUpdatePlan {
  inserts: ListLine[];
  updates: Array<{ lineNo: number; quantity: number; stockPool: number | null }>;
  unchanged: number;
  skipped: string[];
  errors: FieldError[];
}

/**
 * POST …/productlists/{id} (interface §4.1 "adds or updates lines"). A product names its line:
 * the list's first line of that product gets the sent quantity (and pool, when sent); a
 * product the list does not hold yet is added at the end. Lines of one product in one request
 * are one change with their quantities summed (two scans of an item are two units), whatever
 * the list's duplicates setting; they may not name two different pools.
 */
export function planLineUpdate(stored: readonly StoredLine[], sent: readonly SentLine[]): LineUpdatePlan {
  const plan: LineUpdatePlan = { inserts: [], updates: [], unchanged: 0, skipped: [], errors: [] };
  const changes = new Map<number, { quantity: number; stockPool: number | undefined; first: SentLine }>();
  for (const line of sent) {
    if (line.productId === undefined) {
      plan.skipped.push(line.productNumber);
      continue;
    }
    const change = changes.get(line.productId);
    if (!change) {
      changes.set(line.productId, { quantity: line.quantity, stockPool: line.stockPool, first: line });
      continue;
    }
    change.quantity = addQuantities(change.quantity, line.quantity, mergeSite(line));
    if (line.stockPool !== undefined && change.stockPool !== undefined && line.stockPool !== change.stockPool) {
      plan.errors.push({
        path: `${line.path}.stock_pool`,
        message: `product '${line.productNumber}' is already sent for pool ${change.stockPool} in ${change.first.path}`,
      });
    }
    change.stockPool ??= line.stockPool;
  }
  const firstStored = new Map<number, StoredLine>();
  for (const line of stored) if (!firstStored.has(line.productId)) firstStored.set(line.productId, line);
  for (const [productId, change] of changes) {
    const line = firstStored.get(productId);
    const stockPool = change.stockPool ?? line?.stockPool ?? null;
    if (line && line.quantity === change.quantity && line.stockPool === stockPool) plan.unchanged++;
    else if (change.first.deleted) plan.skipped.push(change.first.productNumber);
    else if (!line) plan.inserts.push({ productId, quantity: change.quantity, stockPool });
    else plan.updates.push({ lineNo: line.lineNo, quantity: change.quantity, stockPool });
  }
  return plan;
}
