import type { DbHandle } from './db/dialect/types.js';
import { isMigrated } from './db/migrate.js';
import { isRole } from './modules/tokens/service.js';
import { hierarchyProblems } from './modules/categories/hierarchy.js';
import { allLiveParents } from './modules/categories/repository.js';
import { PRODUCT_CHECKS } from './modules/products/verify-checks.js';
import { ledgerViolations } from './modules/stock-logs/invariants.js';
import { LOCATION_CHECKS } from './modules/locations/verify-checks.js';
import { STORE_PRODUCT_CHECKS } from './modules/store-products/verify-checks.js';

/** One broken invariant, said so an operator can find the record. */
export interface Violation {
  check: string;
  detail: string;
}

export interface VerifyCheck {
  name: string;
  run(handle: DbHandle): Promise<Violation[]>;
}

const parsesAsJsonArray = (text: string | null) => {
  if (text === null) return true;
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
};

/**
 * Every invariant the stored data must hold (`store-ops verify`, exit 1 on any
 * violation). Later resources add their checks here (the stock ledger's is the big one).
 */
export const VERIFY_CHECKS: VerifyCheck[] = [
  { name: 'stock ledger', run: ledgerViolations },
  {
    name: 'migrations',
    async run(handle) {
      return (await isMigrated(handle)) ? [] : [{ check: 'migrations', detail: 'the database is not migrated to this version' }];
    },
  },
  {
    name: 'tokens',
    async run(handle) {
      const rows = await handle.db.selectFrom('api_tokens').select(['name', 'role', 'stores', 'token_hash']).execute();
      const violations: Violation[] = [];
      for (const row of rows) {
        if (!isRole(row.role)) violations.push({ check: 'tokens', detail: `token '${row.name}' has unknown role '${row.role}'` });
        if (!parsesAsJsonArray(row.stores)) violations.push({ check: 'tokens', detail: `token '${row.name}' has a malformed store list` });
        if (!/^[0-9a-f]{64}$/.test(row.token_hash)) violations.push({ check: 'tokens', detail: `token '${row.name}' has no SHA-256 hash` });
      }
      return violations;
    },
  },
  {
    name: 'stores',
    async run(handle) {
      const rows = await handle.db
        .selectFrom('stores')
        .select(['store_number', 'created_on', 'updated_on', 'stock_pool_names', 'free_fields', 'opening_hours', 'ordering_schema', 'store_printers'])
        .execute();
      const violations: Violation[] = [];
      for (const row of rows) {
        if (row.updated_on < row.created_on) violations.push({ check: 'stores', detail: `store '${row.store_number}' was updated before it was created` });
        for (const column of ['stock_pool_names', 'free_fields', 'opening_hours', 'ordering_schema', 'store_printers'] as const) {
          if (!parsesAsJsonArray(row[column])) violations.push({ check: 'stores', detail: `store '${row.store_number}' has malformed ${column}` });
        }
      }
      return violations;
    },
  },
  {
    name: 'categories',
    async run(handle) {
      // Live categories form a forest: every parent is the root '0' or a live category, no cycles.
      const parents = await allLiveParents(handle.db);
      return hierarchyProblems([...parents.keys()], (code) => parents.get(code)).map((problem) => ({
        check: 'categories',
        detail:
          problem.kind === 'cycle'
            ? `categories form a cycle of parents: ${problem.cycle.join(' → ')}`
            : `live category '${problem.code}' has parent '${problem.parent}', which is missing or soft-deleted`,
      }));
    },
  },
  {
    name: 'reason codes',
    async run(handle) {
      const rows = await handle.db
        .selectFrom('reason_codes')
        .select(['reason_code', 'reason_code_type', 'default_review_status', 'is_gain', 'is_loss'])
        .execute();
      const violations: Violation[] = [];
      for (const row of rows) {
        const said = (what: string) => violations.push({ check: 'reason codes', detail: `reason code ${row.reason_code} ${what}` });
        if (!(row.reason_code_type >= 1 && row.reason_code_type <= 9)) said(`has reason_code_type ${row.reason_code_type} (1–9 expected)`);
        if (row.default_review_status !== 0 && row.default_review_status !== 1) said(`has default_review_status ${row.default_review_status} (0 or 1 expected)`);
        if (row.is_gain === 1 && row.is_loss === 1) said('is both a gain and a loss code');
      }
      return violations;
    },
  },
  ...PRODUCT_CHECKS,
  ...LOCATION_CHECKS,
  ...STORE_PRODUCT_CHECKS,
];

export async function verifyAll(handle: DbHandle): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const check of VERIFY_CHECKS) violations.push(...(await check.run(handle)));
  return violations;
}
