import type { FieldError } from './validation.js';

/**
 * The line set of an order sent again (deliveries, customer orders): the sent lines are the
 * whole set, matched to the stored ones by line number. A stored line that stock already
 * refers to (received, picked) is "in use": it cannot be removed and keeps its product
 * (409 naming it, PRODUCT §7); any other line may be added, changed or removed.
 */
export interface StoredLine {
  id: number;
  line_number: number;
  product_id: number;
  product_number: string;
}

export interface SentLine {
  line_number: number;
  product_id: number;
}

export interface LineSetChanges<S, R> {
  inserts: R[];
  changes: Array<{ line: S; record: R }>;
  removals: S[];
  conflicts: FieldError[];
}

export function diffLineSet<S extends StoredLine, R extends SentLine>(args: {
  stored: readonly S[];
  sent: readonly R[];
  /** Equal exactly when the sent line would not change the stored one. */
  signature: (line: S | R) => string;
  /** Why the line is in use (`has received stock (5)`), or undefined when it is not. */
  inUse: (line: S) => string | undefined;
  /** `orders[3].order_lines`: where the lines were sent. */
  linesPath: string;
}): LineSetChanges<S, R> {
  const result: LineSetChanges<S, R> = { inserts: [], changes: [], removals: [], conflicts: [] };
  const storedByNumber = new Map(args.stored.map((line) => [Number(line.line_number), line]));
  const sentNumbers = new Set(args.sent.map((line) => line.line_number));
  args.sent.forEach((record, index) => {
    const current = storedByNumber.get(record.line_number);
    if (!current) {
      result.inserts.push(record);
      return;
    }
    if (args.signature(current) === args.signature(record)) return;
    const use = args.inUse(current);
    if (use !== undefined && current.product_id !== record.product_id) {
      result.conflicts.push({
        path: `${args.linesPath}[${index}].product_number`,
        message: `line ${record.line_number} ${use} of product '${current.product_number}': its product cannot change`,
      });
    }
    result.changes.push({ line: current, record });
  });
  for (const line of args.stored) {
    if (sentNumbers.has(Number(line.line_number))) continue;
    const use = args.inUse(line);
    if (use !== undefined)
      result.conflicts.push({ path: args.linesPath, message: `line ${line.line_number} ${use}: it cannot be removed` });
    result.removals.push(line);
  }
  return result;
}
