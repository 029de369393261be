import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { chunk } from '../../../shared/bulk.js';
import { KEYS_PER_QUERY } from '../../../db/in-list.js';
import type { DiscountRow } from '../rows.js';

interface Removal {
  now: number;
  actor: string;
}

/** is_expire_discounts (PRODUCT §6): soft-deletes every live discount whose valid_to has passed. */
export async function expireDiscounts(trx: Transaction<Database>, removal: Removal): Promise<number> {
  const result = await trx
    .updateTable('product_discounts')
    .set({ deleted_on: removal.now, updated_on: removal.now, modified_by: removal.actor })
    .where('deleted_on', 'is', null)
    .where('valid_to', 'is not', null)
    .where('valid_to', '<=', removal.now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface DiscountMatch {
  discountId?: string;
  productId?: number;
  lineNumber?: number;
}

/** is_delete: soft-deletes the live discounts matching every key part given. */
export async function deleteMatchingDiscounts(
  trx: Transaction<Database>,
  match: DiscountMatch,
  removal: Removal,
): Promise<number> {
  let query = trx
    .updateTable('product_discounts')
    .set({ deleted_on: removal.now, updated_on: removal.now, modified_by: removal.actor })
    .where('deleted_on', 'is', null);
  if (match.discountId !== undefined) query = query.where('discount_id', '=', match.discountId);
  if (match.productId !== undefined) query = query.where('product_id', '=', match.productId);
  if (match.lineNumber !== undefined) query = query.where('line_number', '=', match.lineNumber);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Live discounts of these products that have not ended by `now` (the domain decides validity). */
export async function discountsNotEndedAt(
  db: Kysely<Database>,
  productIds: readonly number[],
  now: number,
): Promise<Array<Pick<DiscountRow, 'product_id' | 'price' | 'valid_from' | 'valid_to'>>> {
  const rows: Array<Pick<DiscountRow, 'product_id' | 'price' | 'valid_from' | 'valid_to'>> = [];
  for (const ids of chunk(productIds, KEYS_PER_QUERY)) {
    rows.push(
      ...(await db
        .selectFrom('product_discounts')
        .select(['product_id', 'price', 'valid_from', 'valid_to'])
        .where('product_id', 'in', ids)
        .where('deleted_on', 'is', null)
        .where((eb) => eb.or([eb('valid_to', 'is', null), eb('valid_to', '>', now)]))
        .execute()),
    );
  }
  return rows;
}
