import type { AppContext } from '../../../app-context.js';
import { upsertByKey } from '../../../db/bulk-upsert.js';
import { inTransaction } from '../../../db/transaction.js';
import { requireDateTime } from '../../../domain/datetime.js';
import { toMoney, toQuantity } from '../../../domain/decimal.js';
import { contentHash, describeCounts, duplicateKeyErrors } from '../../../shared/bulk.js';
import { validationFailed } from '../../../shared/errors.js';
import { HeldReferences } from '../../../shared/held-references.js';
import type { FieldError } from '../../../shared/validation.js';
import { heldProductsByNumbers } from '../held.js';
import { heldStoreNumbers } from './repository.js';
import type { PriceInput, PricesBody } from './schema.js';

/** An empty scope field means "no such scope", as an absent one does. */
const scopeValue = (value: string | undefined) => (value === undefined || value === '' ? null : value);

function toPriceRecord(input: PriceInput, productId: number) {
  const record = {
    price_id: input.price_id,
    product_id: productId,
    price: toMoney(input.price),
    price_type: input.price_type,
    valid_from: requireDateTime(input.valid_from),
    valid_to: requireDateTime(input.valid_to),
    country_code: scopeValue(input.country_code),
    price_group: scopeValue(input.price_group),
    price_unit: input.price_unit ?? null,
    store_number: scopeValue(input.store_number),
    price_quantity: input.price_quantity === undefined ? null : toQuantity(input.price_quantity),
  };
  return { ...record, content_hash: contentHash(record) };
}

/** POST /products/prices (interface §4.9): upsert by price_id, atomic. */
export async function importPrices(ctx: AppContext, body: PricesBody, actor: string): Promise<string> {
  const requestErrors: FieldError[] = duplicateKeyErrors(body.prices, (p) => p.price_id, 'prices', 'price_id');
  body.prices.forEach((price, index) => {
    // PRODUCT §3: valid_from >= valid_to is checkable from the request alone → 400.
    if (requireDateTime(price.valid_from) >= requireDateTime(price.valid_to)) {
      requestErrors.push({ path: `prices[${index}].valid_to`, message: 'must be after valid_from' });
    }
  });
  if (requestErrors.length > 0) throw validationFailed('The prices are invalid', requestErrors);

  const counts = await inTransaction(
    ctx.handle,
    async (trx) => {
      // Deleted products and stores resolve too: a price the request leaves unchanged keeps
      // them; only written prices must name live ones (PRODUCT §3, shared/held-references.ts).
      const products = await heldProductsByNumbers(
        trx,
        body.prices.map((p) => p.product_number),
      );
      const stores = await heldStoreNumbers(
        trx,
        body.prices.flatMap((p) => (scopeValue(p.store_number) === null ? [] : [p.store_number!])),
      );
      const held = new HeldReferences();
      const records = body.prices.map((price, index) => {
        const productId = held.resolve(
          price.price_id,
          products.get(price.product_number),
          `prices[${index}].product_number`,
          `product '${price.product_number}'`,
        );
        const store = scopeValue(price.store_number);
        if (store !== null)
          held.resolve(price.price_id, stores.get(store), `prices[${index}].store_number`, `store '${store}'`);
        return toPriceRecord(price, productId ?? 0);
      });
      held.assertKnown('Some prices refer to unknown products or stores');
      const result = await upsertByKey(trx, ctx.dialect, {
        table: 'product_prices',
        keyColumn: 'price_id',
        records,
        actor,
        now: Date.now(),
        flush: false,
      });
      held.assertLiveWhere(
        (item) => result.writtenKeys.has(item),
        'Some new or changed prices refer to deleted products or stores',
      );
      return result;
    },
    { serialise: ['product_prices'] },
  );
  return describeCounts(counts);
}
