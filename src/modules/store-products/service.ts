import type { Insertable } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { StoreProductTable } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { describeCounts, duplicateKeyErrors, type UpsertCounts } from '../../shared/bulk.js';
import { validationFailed } from '../../shared/errors.js';
import { HeldReferences } from '../../shared/held-references.js';
import { heldProductsByNumbers } from '../products/held.js';
import { requireLiveStore } from '../stores/repository.js';
import {
  emptyProperties,
  keyedArrayErrors,
  mergeProperties,
  propertiesHash,
  propertiesOf,
  PUT_ONLY_FIELDS,
} from './mapping.js';
import { lockStoreProducts, writeStoreProducts } from './repository.js';
import type { StoreProductsBody } from './schema.js';
import type { StoreProductRow } from './rows.js';

export type StoreProductsMethod = 'POST' | 'PUT';

/**
 * POST and PUT /stores/{s}/storeproducts (interface §4.4, PRODUCT §5): both upsert by
 * product_number within the store, atomically. A request item is merged into the stored
 * store product (fields left out keep their value, null clears), so a PUT of just min/max
 * does not wipe prices or forecasts; POST ignores the PUT-only fields.
 */
export async function upsertStoreProducts(
  ctx: AppContext,
  storeNumber: string,
  body: StoreProductsBody,
  method: StoreProductsMethod,
  actor: string,
): Promise<string> {
  const store = await requireLiveStore(ctx.db, storeNumber, 'does not exist');
  const allowed = method === 'PUT' ? () => true : (field: string) => !PUT_ONLY_FIELDS.has(field as never);
  const errors = [
    ...duplicateKeyErrors(body.products, (p) => p.product_number, 'products', 'product_number'),
    ...keyedArrayErrors(body.products, allowed),
  ];
  if (errors.length > 0) throw validationFailed('Some store products are invalid', errors);

  const counts = await inTransaction(
    ctx.handle,
    async (trx) => {
      // Deleted products resolve too: a store product the request leaves unchanged keeps its
      // product; only written ones must name live products (PRODUCT §3, shared/held-references.ts).
      const held = new HeldReferences();
      const found = await heldProductsByNumbers(
        trx,
        body.products.map((p) => p.product_number),
      );
      const productIds = new Map<string, number>();
      body.products.forEach((p, index) => {
        const id = held.resolve(
          p.product_number,
          found.get(p.product_number),
          `products[${index}].product_number`,
          `product_number '${p.product_number}'`,
        );
        if (id !== undefined) productIds.set(p.product_number, id);
      });
      held.assertKnown('Some product numbers are unknown to the product master');
      const written = new Set<string>();
      const stored = await lockStoreProducts(trx, ctx.dialect, store.id, [...productIds.values()]);
      const now = Date.now();
      const result: UpsertCounts = { created: 0, updated: 0, unchanged: 0, deleted: 0 };
      const rows: Array<Insertable<StoreProductTable>> = [];
      for (const input of body.products) {
        const productId = productIds.get(input.product_number)!;
        const current = stored.get(productId);
        const before = current ? propertiesOf(current) : emptyProperties();
        const after = mergeProperties(before, input, allowed);
        const hash = propertiesHash(after);
        if (current && current.content_hash === hash && current.deleted_on === null) {
          result.unchanged++;
          continue;
        }
        if (current) result.updated++;
        else result.created++;
        written.add(input.product_number);
        rows.push({
          store_id: store.id,
          store_number: store.store_number,
          product_id: productId,
          product_number: input.product_number,
          ...after,
          ...bookkeeping(current, before, after, now, actor),
          created_on: now,
          updated_on: now,
          created_by: actor,
          modified_by: actor,
          deleted_on: null,
          content_hash: hash,
        });
      }
      held.assertLiveWhere((item) => written.has(item), 'Some new or changed store products name deleted products');
      await writeStoreProducts(trx, ctx.dialect, rows);
      return result;
    },
    { serialise: [`store_products:${store.id}`] },
  );
  return describeCounts(counts);
}

/**
 * What a property change records besides itself: original_min/original_max keep the first
 * value ever set (the ERP's starting point, against which local min/max edits are seen);
 * a change of min or max stamps last_minmax_at/by, a change of the expiry date
 * last_expiry_at/by (by = the token's name: the interface gives these writes no user).
 */
function bookkeeping(
  current: StoreProductRow | undefined,
  before: ReturnType<typeof emptyProperties>,
  after: ReturnType<typeof emptyProperties>,
  now: number,
  actor: string,
): Pick<
  Insertable<StoreProductTable>,
  'original_min' | 'original_max' | 'last_minmax_at' | 'last_minmax_by' | 'last_expiry_at' | 'last_expiry_by'
> {
  const minMaxChanged = before.min !== after.min || before.max !== after.max;
  const expiryChanged = before.expiry_at !== after.expiry_at;
  return {
    original_min: current?.original_min ?? after.min,
    original_max: current?.original_max ?? after.max,
    last_minmax_at: minMaxChanged ? now : (current?.last_minmax_at ?? null),
    last_minmax_by: minMaxChanged ? actor : (current?.last_minmax_by ?? null),
    last_expiry_at: expiryChanged ? now : (current?.last_expiry_at ?? null),
    last_expiry_by: expiryChanged ? actor : (current?.last_expiry_by ?? null),
  };
}
