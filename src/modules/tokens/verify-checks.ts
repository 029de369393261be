import { rowBatches } from '../../db/batches.js';
import { parsesAsJsonArray, type VerifyCheck, type Violation } from '../../db/verify-types.js';
import { isRole } from './service.js';

/** Every token has a known role, a well-formed store list and only a SHA-256 hash stored (PRODUCT §4). */
export const TOKEN_CHECKS: VerifyCheck[] = [
  {
    name: 'tokens',
    async run(handle) {
      const violations: Violation[] = [];
      for await (const rows of rowBatches(handle.db, 'api_tokens')) {
        for (const row of rows) {
          if (!isRole(row.role))
            violations.push({ check: 'tokens', detail: `token '${row.name}' has unknown role '${row.role}'` });
          if (!parsesAsJsonArray(row.stores))
            violations.push({ check: 'tokens', detail: `token '${row.name}' has a malformed store list` });
          if (!/^[0-9a-f]{64}$/.test(row.token_hash))
            violations.push({ check: 'tokens', detail: `token '${row.name}' has no SHA-256 hash` });
        }
      }
      return violations;
    },
  },
];
