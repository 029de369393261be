import type { DbHandle } from './db/dialect/types.js';
import { MIGRATION_CHECKS } from './db/verify-checks.js';
import { CATEGORY_CHECKS } from './modules/categories/verify-checks.js';
import { COUNTING_ASSIGNMENT_CHECKS } from './modules/counting-assignments/verify-checks.js';
import { CUSTOMER_ORDER_CHECKS } from './modules/customer-orders/verify-checks.js';
import { DELIVERY_CHECKS } from './modules/deliveries/verify-checks.js';
import { LOCATION_CHECKS } from './modules/locations/verify-checks.js';
import { PRODUCT_LIST_CHECKS } from './modules/product-lists/verify-checks.js';
import { PRODUCT_CHECKS } from './modules/products/verify-checks.js';
import { REASON_CODE_CHECKS } from './modules/reason-codes/verify-checks.js';
import { STOCK_LEDGER_CHECKS } from './ledger/verify-checks.js';
import { STORE_PRODUCT_CHECKS } from './modules/store-products/verify-checks.js';
import { STORE_CHECKS } from './modules/stores/verify-checks.js';
import { TOKEN_CHECKS } from './modules/tokens/verify-checks.js';
import type { VerifyCheck, Violation } from './db/verify-types.js';

/**
 * Every invariant the stored data must hold (`store-ops verify`, exit 1 on any
 * violation), in the order they run. Each module owns its checks in its
 * `verify-checks.ts`; a new module adds its list here.
 */
export const VERIFY_CHECKS: readonly VerifyCheck[] = [
  ...STOCK_LEDGER_CHECKS,
  ...MIGRATION_CHECKS,
  ...TOKEN_CHECKS,
  ...STORE_CHECKS,
  ...CATEGORY_CHECKS,
  ...REASON_CODE_CHECKS,
  ...PRODUCT_CHECKS,
  ...LOCATION_CHECKS,
  ...STORE_PRODUCT_CHECKS,
  ...DELIVERY_CHECKS,
  ...CUSTOMER_ORDER_CHECKS,
  ...PRODUCT_LIST_CHECKS,
  ...COUNTING_ASSIGNMENT_CHECKS,
];

export async function verifyAll(handle: DbHandle): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const check of VERIFY_CHECKS) violations.push(...(await check.run(handle)));
  return violations;
}

/** What `store-ops verify --since` found, the balances it checked, and the checks it left out. */
export interface SinceReport {
  violations: Violation[];
  balances: number;
  skipped: string[];
}

/**
 * The checks that have a form over what changed since `since` (epoch ms), in that form;
 * the others (master data and the rest: full-only) are skipped and named.
 */
export async function verifySince(handle: DbHandle, since: number): Promise<SinceReport> {
  const report: SinceReport = { violations: [], balances: 0, skipped: [] };
  for (const check of VERIFY_CHECKS) {
    if (!check.since) {
      report.skipped.push(check.name);
      continue;
    }
    const found = await check.since(handle, since);
    report.violations.push(...found.violations);
    report.balances += found.balances ?? 0;
  }
  return report;
}
