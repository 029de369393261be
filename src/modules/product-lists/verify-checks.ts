import { sql } from 'kysely';
import type { DbHandle } from '../../db/dialect/types.js';
import { parsesAsJsonArray, type VerifyCheck, type Violation } from '../../shared/verify-types.js';

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

async function listHeaders(handle: DbHandle): Promise<Violation[]> {
  const rows = await handle.db
    .selectFrom('product_lists as pl')
    .leftJoin('stores as s', 's.id', 'pl.store_id')
    .select(['pl.id', 'pl.free_fields', 's.id as store_id', 's.store_number', 'pl.store_number as list_store_number'])
    .execute();
  return rows
    .filter((row) => row.store_id === null || row.store_number !== row.list_store_number || !parsesAsJsonArray(row.free_fields))
    .slice(0, MAX_LISTED)
    .map((row) => ({ check: CHECK, detail: `list ${row.id}: its store or free fields are not what they should be` }));
}

export const PRODUCT_LIST_CHECKS: VerifyCheck[] = [
  { name: 'product list lines', run: listLines },
  { name: 'product list headers', run: listHeaders },
];
