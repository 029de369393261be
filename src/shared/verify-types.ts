import type { DbHandle } from '../db/dialect/types.js';

/**
 * What `store-ops verify` is made of. Each module keeps its own checks in its
 * `verify-checks.ts` and imports only these types, never `src/verify.ts`, which just
 * assembles and runs the checks.
 */

/** One broken invariant, said so an operator can find the record. */
export interface Violation {
  check: string;
  detail: string;
}

/** Runs one check over the whole database: every violation found, none when it holds. */
export type CheckRun = (handle: DbHandle) => Promise<Violation[]>;

export interface VerifyCheck {
  name: string;
  run: CheckRun;
}

/** Null or a JSON array: how list columns are stored. */
export function parsesAsJsonArray(text: string | null): boolean {
  if (text === null) return true;
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}
