import { ROOT_CATEGORY_CODE } from './schema.js';

/** A broken parent link, said for one category code. */
export type HierarchyProblem =
  | { kind: 'unknown-parent'; code: string; parent: string }
  /** `cycle` starts and ends with `code`: A → B → A. */
  | { kind: 'cycle'; code: string; cycle: string[] };

/**
 * Checks the parent links of `codes` in the tree `parentOf` describes (undefined = no
 * such category): every parent other than the root must be a category, and no walk up
 * the parents may come back to where it was (a self-parent is a cycle of one). Each
 * cycle is reported once, for its member that comes first in `codes`. Pure, so the
 * import (a request over stored data) and `store-ops verify` (all stored data) share it.
 */
export function hierarchyProblems(
  codes: readonly string[],
  parentOf: (code: string) => string | undefined,
): HierarchyProblem[] {
  const problems: HierarchyProblem[] = [];
  const order = new Map<string, number>();
  codes.forEach((code, index) => {
    if (!order.has(code)) order.set(code, index);
  });

  for (const code of order.keys()) {
    const parent = parentOf(code);
    if (parent !== undefined && parent !== ROOT_CATEGORY_CODE && parentOf(parent) === undefined) {
      problems.push({ kind: 'unknown-parent', code, parent });
    }
  }

  // Every code has at most one parent, so walking up from each code either reaches the
  // root, an unknown code, a code already cleared, or a code on the current walk (a cycle).
  const cleared = new Set<string>();
  for (const start of order.keys()) {
    const walk: string[] = [];
    const onWalk = new Set<string>();
    let current: string | undefined = start;
    while (current !== undefined && current !== ROOT_CATEGORY_CODE && !cleared.has(current)) {
      if (onWalk.has(current)) {
        problems.push(describeCycle(walk.slice(walk.indexOf(current)), order, start));
        break;
      }
      if (parentOf(current) === undefined) break;
      walk.push(current);
      onWalk.add(current);
      current = parentOf(current);
    }
    for (const code of walk) cleared.add(code);
  }
  return problems;
}

function describeCycle(members: string[], order: Map<string, number>, foundFrom: string): HierarchyProblem {
  let first = -1;
  members.forEach((code, index) => {
    const position = order.get(code);
    if (position !== undefined && (first === -1 || position < order.get(members[first]!)!)) first = index;
  });
  // A cycle among codes outside `codes` (stored data already broken) is told for the code whose walk met it.
  const rotated = first === -1 ? members : [...members.slice(first), ...members.slice(0, first)];
  const code = first === -1 ? foundFrom : rotated[0]!;
  return { kind: 'cycle', code, cycle: [...rotated, rotated[0]!] };
}
