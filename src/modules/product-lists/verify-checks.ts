import { sql } from 'kysely';
import { rowBatches } from '../../db/batches.js';
import type { DbHandle } from '../../db/dialect/types.js';
import { parsesAsJsonArray, type VerifyCheck, type Violation } from '../../db/verify-types.js';
import { storeNumbersById } from '../stores/repository.js';

const MAX_LISTED = 1000;
const CHECK = 'product lists';

/**
 * What the rules of §4.1 leave behind: every line holds at least a thousandth (0 is stored as 1)
 * of a product that exists, in pool 1-10 or none, on a list of an existing store; a list that
 * forbids duplicates holds each product once; free fields are a JSON array.
 */
async function listLines(handle: DbHandle): Promise<Violation[]> {
  const { rows } = await sql<{ list_id: number; product_id: number; problem: string }>`
    select l.list_id, l.product_id, 'impossible line' as problem
    from product_list_lines l
    left join product_lists pl on pl.id = l.list_id
    left join products p on p.id = l.product_id
    where pl.id is null or p.id is null or l.quantity < 1 or (l.stock_pool is not null and l.stock_pool not between 1 and 10)
    union all
    select l.list_id, l.product_id, 'duplicate product on a list that merges duplicates'
    from product_list_lines l
    join product_lists pl on pl.id = l.list_id
    where pl.allow_duplicates = 0
    group by l.list_id, l.product_id
    having count(*) > 1
    limit ${MAX_LISTED}
  `.execute(handle.db);
  return rows.map((row) => ({ check: CHECK, detail: `list ${row.list_id} product ${row.product_id}: ${row.problem}` }));
}

/** A batch of lists at a time, with their stores: list headers grow with every store's handheld use. */
async function listHeaders(handle: DbHandle): Promise<Violation[]> {
  const violations: Violation[] = [];
  for await (const lists of rowBatches(handle.db, 'product_lists')) {
    const stores = await storeNumbersById(
      handle.db,
      lists.map((list) => list.store_id),
    );
    for (const list of lists) {
      if (stores.get(list.store_id) !== list.store_number || !parsesAsJsonArray(list.free_fields)) {
        violations.push({
          check: CHECK,
          detail: `list ${list.id}: its store or free fields are not what they should be`,
        });
      }
    }
    if (violations.length >= MAX_LISTED) break;
  }
  return violations.slice(0, MAX_LISTED);
}

export const PRODUCT_LIST_CHECKS: VerifyCheck[] = [
  { name: 'product list lines', run: listLines },
  { name: 'product list headers', run: listHeaders },
];
