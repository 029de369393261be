import type { DbHandle } from './dialect/types.js';

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

/**
 * What an incremental check found (`store-ops verify --since`), and how many balances it
 * checked when it checks balances: the summary line counts them.
 */
export interface SinceFindings {
  violations: Violation[];
  balances?: number;
}

/**
 * Runs a check over what changed since `since` (epoch ms) only. A check without one is
 * full-only and `verify --since` skips it: the nightly run must cost what changed, not
 * what is stored.
 */
export type SinceRun = (handle: DbHandle, since: number) => Promise<SinceFindings>;

export interface VerifyCheck {
  name: string;
  run: CheckRun;
  since?: SinceRun;
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
