import type { VerifyCheck } from '../../db/verify-types.js';
import { hierarchyProblems } from './hierarchy.js';
import { allLiveParents } from './repository.js';

/** Live categories form a forest: every parent is the root '0' or a live category, no cycles. */
export const CATEGORY_CHECKS: VerifyCheck[] = [
  {
    name: 'categories',
    async run(handle) {
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
];
