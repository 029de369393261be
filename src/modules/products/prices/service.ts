import type { AppContext } from '../../../app-context.js';
import { upsertByKey } from '../../../db/bulk-upsert.js';
import { inTransaction } from '../../../db/transaction.js';
import { requireDateTime } from '../../../domain/datetime.js';
import { toMoney, toQuantity } from '../../../domain/decimal.js';
import { contentHash, describeCounts, duplicateKeyErrors } from '../../../shared/bulk.js';
import { unprocessable, validationFailed } from '../../../shared/errors.js';
import type { FieldError } from '../../../shared/validation.js';
import { liveProductIds } from '../repository.js';
import { liveStoreNumbers } from './repository.js';
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

  const counts = await inTransaction(ctx.handle, async (trx) => {
    const productIds = await liveProductIds(trx, body.prices.map((p) => p.product_number));
    const stores = await liveStoreNumbers(trx, body.prices.flatMap((p) => (scopeValue(p.store_number) === null ? [] : [p.store_number!])));
    const referenceErrors: FieldError[] = [];
    body.prices.forEach((price, index) => {
      if (!productIds.has(price.product_number)) {
        referenceErrors.push({ path: `prices[${index}].product_number`, message: `unknown product '${price.product_number}'` });
      }
      const store = scopeValue(price.store_number);
      if (store !== null && !stores.has(store)) referenceErrors.push({ path: `prices[${index}].store_number`, message: `unknown store '${store}'` });
    });
    if (referenceErrors.length > 0) throw unprocessable('Some prices refer to unknown products or stores', referenceErrors);
    const records = body.prices.map((price) => toPriceRecord(price, productIds.get(price.product_number)!));
    return upsertByKey(trx, ctx.dialect, { table: 'product_prices', keyColumn: 'price_id', records, actor, now: Date.now(), flush: false });
  }, { serialise: ['product_prices'] });
  return describeCounts(counts);
}
