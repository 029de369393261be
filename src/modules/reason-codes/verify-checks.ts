import { rowBatches } from '../../db/batches.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';

/** Reason codes: a type of 1–9, a default review status of 0 or 1, never both gain and loss (interface §4.5). */
export const REASON_CODE_CHECKS: VerifyCheck[] = [
  {
    name: 'reason codes',
    async run(handle) {
      const violations: Violation[] = [];
      for await (const rows of rowBatches(handle.db, 'reason_codes')) {
        for (const row of rows) {
          const said = (what: string) =>
            violations.push({ check: 'reason codes', detail: `reason code ${row.reason_code} ${what}` });
          if (!(row.reason_code_type >= 1 && row.reason_code_type <= 9))
            said(`has reason_code_type ${row.reason_code_type} (1–9 expected)`);
          if (row.default_review_status !== 0 && row.default_review_status !== 1)
            said(`has default_review_status ${row.default_review_status} (0 or 1 expected)`);
          if (row.is_gain === 1 && row.is_loss === 1) said('is both a gain and a loss code');
        }
      }
      return violations;
    },
  },
];
