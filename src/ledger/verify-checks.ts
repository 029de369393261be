import type { VerifyCheck } from '../db/verify-types.js';
import { archiveViolations } from './archive.js';
import { ledgerViolations } from './invariants.js';
import { ledgerViolationsSince } from './invariants-since.js';
import { stampViolations } from './stamp-invariants.js';

/**
 * The ledger's invariants (balance = sum of ledger, and the rest in invariants.ts;
 * docs/stock.md) and the store products' stock stamps. Both have a form over what changed
 * since a moment, for `store-ops verify --since`.
 */
export const STOCK_LEDGER_CHECKS: VerifyCheck[] = [
  { name: 'stock ledger', run: ledgerViolations, since: ledgerViolationsSince },
  // The archived months still kept, against the snapshots on either side (full check only).
  { name: 'ledger archives', run: archiveViolations },
  {
    name: 'store product stamps',
    run: (handle) => stampViolations(handle),
    since: async (handle, since) => ({ violations: await stampViolations(handle, since) }),
  },
];
