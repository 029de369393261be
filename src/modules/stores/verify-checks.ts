import { rowBatches } from '../../db/batches.js';
import { parsesAsJsonArray, type VerifyCheck, type Violation } from '../../db/verify-types.js';

const LIST_COLUMNS = ['stock_pool_names', 'free_fields', 'opening_hours', 'ordering_schema', 'store_printers'] as const;

/** Stores: updated no earlier than created, and every list column a JSON array. */
export const STORE_CHECKS: VerifyCheck[] = [
  {
    name: 'stores',
    async run(handle) {
      const violations: Violation[] = [];
      for await (const rows of rowBatches(handle.db, 'stores')) {
        for (const row of rows) {
          if (row.updated_on < row.created_on)
            violations.push({
              check: 'stores',
              detail: `store '${row.store_number}' was updated before it was created`,
            });
          for (const column of LIST_COLUMNS) {
            if (!parsesAsJsonArray(row[column]))
              violations.push({ check: 'stores', detail: `store '${row.store_number}' has malformed ${column}` });
          }
        }
      }
      return violations;
    },
  },
];
