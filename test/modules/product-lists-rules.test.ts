import { describe, expect, it } from 'vitest';
import { quantityRangeErrorOf as rangeErrorOf } from '../helpers/quantity-range.js';
import {
  lineQuantity,
  MAX_LINE_QUANTITY,
  newListLines,
  planLineUpdate,
  type SentLine,
  type StoredLine,
} from '../../src/modules/product-lists/line-rules.js';

// The line rules of product lists without a database (interface §4.1, PRODUCT §8,
// docs/product-lists.md). Quantities are thousandths: 1 unit = 1000.

const UNIT = 1000;

/** A sent line at `lines[index]`; productId undefined = a product the master does not know. */
function sent(
  index: number,
  productNumber: string,
  productId: number | undefined,
  quantity: number,
  stockPool?: number,
): SentLine {
  return {
    path: `lines[${index}]`,
    productNumber,
    productId,
    quantity,
    ...(stockPool === undefined ? {} : { stockPool }),
  };
}

const stored = (lineNo: number, productId: number, quantity: number, stockPool: number | null = null): StoredLine => ({
  lineNo,
  productId,
  quantity,
  stockPool,
});

describe('lineQuantity', () => {
  it('0 counts as 1 unit', () => {
    expect(lineQuantity(0)).toBe(UNIT);
  });

  it('any other quantity is its exact thousandths', () => {
    expect(lineQuantity(1)).toBe(UNIT);
    expect(lineQuantity(2.5)).toBe(2500);
    expect(lineQuantity(0.001)).toBe(1);
    expect(lineQuantity(0.1)).toBe(100);
    expect(lineQuantity(1.005)).toBe(1005);
    expect(lineQuantity(999_999_999_999)).toBe(MAX_LINE_QUANTITY);
  });

  it('more than 3 decimals is refused, never rounded', () => {
    expect(() => lineQuantity(1.2345)).toThrow(RangeError);
    expect(() => lineQuantity(0.0004)).toThrow(RangeError);
  });

  it('the largest line quantity is 999,999,999,999 units, a safe integer in thousandths', () => {
    expect(MAX_LINE_QUANTITY).toBe(999_999_999_999_000);
    expect(Number.isSafeInteger(MAX_LINE_QUANTITY * 2)).toBe(true);
  });
});

describe('newListLines (create)', () => {
  it('no lines: nothing', () => {
    expect(newListLines([], true)).toEqual({ lines: [], skipped: [] });
    expect(newListLines([], false)).toEqual({ lines: [], skipped: [] });
  });

  it('duplicates allowed: every line in the order sent, no pool', () => {
    const result = newListLines([sent(0, 'A', 1, 2000), sent(1, 'B', 2, 3000), sent(2, 'A', 1, 4000)], true);
    expect(result).toEqual({
      lines: [
        { productId: 1, quantity: 2000, stockPool: null },
        { productId: 2, quantity: 3000, stockPool: null },
        { productId: 1, quantity: 4000, stockPool: null },
      ],
      skipped: [],
    });
  });

  it('a pool the sent line carries is kept', () => {
    expect(newListLines([sent(0, 'A', 1, 1000, 4)], true).lines).toEqual([
      { productId: 1, quantity: 1000, stockPool: 4 },
    ]);
  });

  it('lines of unknown products are skipped, named in the order sent (repeats included)', () => {
    const result = newListLines(
      [
        sent(0, 'X', undefined, 1000),
        sent(1, 'A', 1, 1000),
        sent(2, 'Y', undefined, 1000),
        sent(3, 'X', undefined, 5000),
      ],
      false,
    );
    expect(result.lines).toEqual([{ productId: 1, quantity: 1000, stockPool: null }]);
    expect(result.skipped).toEqual(['X', 'Y', 'X']);
  });

  it('only unknown products: no lines', () => {
    const result = newListLines([sent(0, 'X', undefined, 1000), sent(1, 'Y', undefined, 1000)], true);
    expect(result).toEqual({ lines: [], skipped: ['X', 'Y'] });
  });

  it('duplicates forbidden: a product’s lines become its first line, quantities summed, order of first occurrence', () => {
    const result = newListLines(
      [
        sent(0, 'B', 2, 1500),
        sent(1, 'A', 1, 2000),
        sent(2, 'B', 2, 1000),
        sent(3, 'C', 3, 1000),
        sent(4, 'A', 1, 250),
        sent(5, 'B', 2, 3000),
      ],
      false,
    );
    expect(result.lines).toEqual([
      { productId: 2, quantity: 5500, stockPool: null },
      { productId: 1, quantity: 2250, stockPool: null },
      { productId: 3, quantity: 1000, stockPool: null },
    ]);
  });

  it('merging matches by product id, not by the number as sent', () => {
    const result = newListLines([sent(0, '00123', 7, 1000), sent(1, '123', 7, 1000)], false);
    expect(result.lines).toEqual([{ productId: 7, quantity: 2000, stockPool: null }]);
  });

  it('the sent lines are not changed', () => {
    const lines = [sent(0, 'A', 1, 1000), sent(1, 'A', 1, 2000)];
    const copy = structuredClone(lines);
    newListLines(lines, false);
    expect(lines).toEqual(copy);
  });

  it('merged quantities up to the maximum are fine; beyond it a QuantityRangeError (a 422) at the line that passes it', () => {
    const exact = newListLines([sent(0, 'A', 1, MAX_LINE_QUANTITY - UNIT), sent(1, 'A', 1, UNIT)], false);
    expect(exact.lines).toEqual([{ productId: 1, quantity: MAX_LINE_QUANTITY, stockPool: null }]);

    const over = rangeErrorOf(() =>
      newListLines(
        [sent(0, 'A', 1, MAX_LINE_QUANTITY), sent(1, 'B', 2, UNIT), sent(2, 'A', 1, 1), sent(3, 'A', 1, UNIT)],
        false,
      ),
    );
    expect(over.site.path).toBe('lines[2].quantity');
    expect(over.message).toMatch(/'A'/);
    expect(over.message).toMatch(/999999999999/);
  });

  it('duplicates allowed: lines are never summed, so never too large', () => {
    const result = newListLines([sent(0, 'A', 1, MAX_LINE_QUANTITY), sent(1, 'A', 1, MAX_LINE_QUANTITY)], true);
    expect(result.lines).toHaveLength(2);
  });
});

describe('planLineUpdate (line update)', () => {
  const empty = { inserts: [], updates: [], unchanged: 0, skipped: [], errors: [] };

  it('nothing sent: nothing to do', () => {
    expect(planLineUpdate([stored(1, 10, 1000)], [])).toEqual(empty);
    expect(planLineUpdate([], [])).toEqual(empty);
  });

  it('a product the list does not hold is inserted, in the order first sent, with its pool or none', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 1000)],
      [sent(0, 'B', 20, 2000, 3), sent(1, 'C', 30, 1000), sent(2, 'B', 20, 500)],
    );
    expect(plan).toEqual({
      ...empty,
      inserts: [
        { productId: 20, quantity: 2500, stockPool: 3 },
        { productId: 30, quantity: 1000, stockPool: null },
      ],
    });
  });

  it('a product the list holds: its first line gets the sent quantity (set, not added)', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 2000), stored(2, 20, 3000), stored(3, 10, 4000)],
      [sent(0, 'A', 10, 10_000)],
    );
    expect(plan).toEqual({ ...empty, updates: [{ lineNo: 1, quantity: 10_000, stockPool: null }] });
  });

  it('the pool is set when sent and kept when not', () => {
    expect(planLineUpdate([stored(1, 10, 1000, 4)], [sent(0, 'A', 10, 2000)]).updates).toEqual([
      { lineNo: 1, quantity: 2000, stockPool: 4 },
    ]);
    expect(planLineUpdate([stored(1, 10, 1000, 4)], [sent(0, 'A', 10, 1000, 6)]).updates).toEqual([
      { lineNo: 1, quantity: 1000, stockPool: 6 },
    ]);
    expect(planLineUpdate([stored(1, 10, 1000)], [sent(0, 'A', 10, 1000, 2)]).updates).toEqual([
      { lineNo: 1, quantity: 1000, stockPool: 2 },
    ]);
  });

  it('the same quantity and pool (or no pool sent) is unchanged', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 1000, 4), stored(2, 20, 2000)],
      [sent(0, 'A', 10, 400), sent(1, 'B', 20, 2000), sent(2, 'A', 10, 600, 4)],
    );
    expect(plan).toEqual({ ...empty, unchanged: 2 });
  });

  it('lines of one product in one request are summed into one change', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 9000)],
      [sent(0, 'A', 10, 1000), sent(1, 'B', 20, 2000), sent(2, 'A', 10, 2500), sent(3, 'B', 20, 1000)],
    );
    expect(plan.updates).toEqual([{ lineNo: 1, quantity: 3500, stockPool: null }]);
    expect(plan.inserts).toEqual([{ productId: 20, quantity: 3000, stockPool: null }]);
    expect(plan.errors).toEqual([]);
  });

  it('a pool sent on a later line of the product applies to the change', () => {
    expect(planLineUpdate([stored(1, 10, 1000)], [sent(0, 'A', 10, 1000), sent(1, 'A', 10, 1000, 5)]).updates).toEqual([
      { lineNo: 1, quantity: 2000, stockPool: 5 },
    ]);
    expect(
      planLineUpdate([], [sent(0, 'A', 10, 1000, 5), sent(1, 'A', 10, 1000), sent(2, 'A', 10, 1000, 5)]).inserts,
    ).toEqual([{ productId: 10, quantity: 3000, stockPool: 5 }]);
  });

  it('two different pools for one product is an error at the later line’s stock_pool, naming the first', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 1000)],
      [sent(0, 'A', 10, 1000, 2), sent(1, 'B', 20, 1000), sent(2, 'A', 10, 1000), sent(3, 'A', 10, 1000, 3)],
    );
    expect(plan.errors).toEqual([{ path: 'lines[3].stock_pool', message: expect.stringContaining('lines[0]') }]);
    expect(plan.errors[0]!.message).toMatch(/'A'/);
    expect(plan.errors[0]!.message).toMatch(/pool 2/);
    // Also for a product the list does not hold yet.
    expect(
      planLineUpdate([], [sent(0, 'N', 40, 1000), sent(1, 'N', 40, 1000, 7), sent(2, 'N', 40, 1000, 8)]).errors.map(
        (e) => e.path,
      ),
    ).toEqual(['lines[2].stock_pool']);
  });

  it('unknown products are skipped and listed as sent', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 1000)],
      [
        sent(0, 'X', undefined, 1000),
        sent(1, 'A', 10, 2000),
        sent(2, 'X', undefined, 1000),
        sent(3, 'Y', undefined, 1),
      ],
    );
    expect(plan.skipped).toEqual(['X', 'X', 'Y']);
    expect(plan.updates).toEqual([{ lineNo: 1, quantity: 2000, stockPool: null }]);
    expect(plan.inserts).toEqual([]);
  });

  it('summed quantities up to the maximum are fine; beyond it an error at the line that passes it', () => {
    const exact = planLineUpdate([stored(1, 10, 1000)], [sent(0, 'A', 10, MAX_LINE_QUANTITY - 1), sent(1, 'A', 10, 1)]);
    expect(exact.errors).toEqual([]);
    expect(exact.updates).toEqual([{ lineNo: 1, quantity: MAX_LINE_QUANTITY, stockPool: null }]);

    const over = rangeErrorOf(() =>
      planLineUpdate(
        [stored(1, 10, 1000)],
        [sent(0, 'A', 10, MAX_LINE_QUANTITY), sent(1, 'B', 20, UNIT), sent(2, 'A', 10, 1)],
      ),
    );
    expect(over.site.path).toBe('lines[2].quantity');
    expect(over.message).toMatch(/'A'.*999999999999/);

    const newProduct = rangeErrorOf(() =>
      planLineUpdate([], [sent(0, 'N', 40, MAX_LINE_QUANTITY), sent(1, 'N', 40, MAX_LINE_QUANTITY)]),
    );
    expect(newProduct.site.path).toBe('lines[1].quantity');
  });

  it('stored lines and sent lines are not changed', () => {
    const storedLines = [stored(1, 10, 1000, 2)];
    const sentLines = [sent(0, 'A', 10, 1000), sent(1, 'A', 10, 1000, 2), sent(2, 'B', 20, 500)];
    const copies = structuredClone([storedLines, sentLines]);
    planLineUpdate(storedLines, sentLines);
    expect([storedLines, sentLines]).toEqual(copies);
  });

  it('a mixed request: updates, unchanged, inserts and skips together', () => {
    const plan = planLineUpdate(
      [stored(1, 10, 1000), stored(2, 20, 2000, 1), stored(3, 30, 3000)],
      [
        sent(0, 'C', 30, 3000),
        sent(1, 'D', 40, lineQuantity(0)),
        sent(2, 'A', 10, 5000),
        sent(3, 'Z', undefined, 1000),
        sent(4, 'B', 20, 2000, 9),
      ],
    );
    expect(plan).toEqual({
      inserts: [{ productId: 40, quantity: UNIT, stockPool: null }],
      updates: [
        { lineNo: 1, quantity: 5000, stockPool: null },
        { lineNo: 2, quantity: 2000, stockPool: 9 },
      ],
      unchanged: 1,
      skipped: ['Z'],
      errors: [],
    });
  });
});
