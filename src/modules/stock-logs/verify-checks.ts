import type { VerifyCheck } from '../../shared/verify-types.js';
import { ledgerViolations } from './invariants.js';

/** The ledger's invariants (balance = sum of ledger, and the rest in invariants.ts; docs/stock.md). */
export const STOCK_LEDGER_CHECKS: VerifyCheck[] = [{ name: 'stock ledger', run: ledgerViolations }];
