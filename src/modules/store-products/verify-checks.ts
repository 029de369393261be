import { rowBatches } from '../../db/batches.js';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';
import { propertiesHash, propertiesOf } from './mapping.js';
import type { StoreProductRow } from './rows.js';

const MAX_LISTED = 1000;

async function* allStoreProducts(handle: DbHandle): AsyncGenerator<StoreProductRow> {
  for await (const rows of rowBatches(handle.db, 'store_products')) yield* rows;
}

function lengthOf(text: string | null): number | undefined {
  if (text === null) return 0;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.length : undefined;
  } catch {
    return undefined;
  }
}

const KEYED = [
  ['average_keys', 'average_array'],
  ['forecast_keys', 'forecast_array'],
  ['history_keys', 'history_array'],
] as const;
const LISTS = ['attention_codes', 'delivery_datetimes', 'ordering_datetimes'] as const;

/**
 * Store product invariants: the content hash matches the stored properties (identical
 * re-sends stay 'unchanged'); keyed arrays are JSON lists as long as their keys (PRODUCT §5);
 * store and product numbers are those of the referenced store and product.
 */
export const STORE_PRODUCT_CHECKS: VerifyCheck[] = [
  {
    name: 'store products',
    async run(handle) {
      const violations: Violation[] = [];
      for await (const row of allStoreProducts(handle)) {
        const said = (what: string) =>
          violations.push({
            check: 'store products',
            detail: `store product '${row.product_number}' of store '${row.store_number}' ${what}`,
          });
        if (propertiesHash(propertiesOf(row)) !== row.content_hash)
          said('has a content hash that does not match its properties');
        for (const [keys, values] of KEYED) {
          const keyCount = lengthOf(row[keys]);
          const valueCount = lengthOf(row[values]);
          if (keyCount === undefined || valueCount === undefined) said(`has malformed ${keys}/${values}`);
          else if (keyCount !== valueCount) said(`has ${valueCount} ${values} for ${keyCount} ${keys}`);
        }
        for (const column of LISTS) if (lengthOf(row[column]) === undefined) said(`has malformed ${column}`);
      }
      const mismatched = await handle.db
        .selectFrom('store_products as sp')
        .innerJoin('stores as s', 's.id', 'sp.store_id')
        .innerJoin('products as p', 'p.id', 'sp.product_id')
        .select([
          'sp.id',
          'sp.store_number',
          'sp.product_number',
          's.store_number as actual_store',
          'p.product_number as actual_product',
        ])
        .where((eb) =>
          eb.or([
            eb('sp.store_number', '<>', eb.ref('s.store_number')),
            eb('sp.product_number', '<>', eb.ref('p.product_number')),
          ]),
        )
        .limit(MAX_LISTED)
        .execute();
      for (const row of mismatched) {
        violations.push({
          check: 'store products',
          detail: `store product ${row.id} says ${row.store_number}/${row.product_number} but belongs to ${row.actual_store}/${row.actual_product}`,
        });
      }
      return violations;
    },
  },
];
