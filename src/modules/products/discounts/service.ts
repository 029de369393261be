import type { AppContext } from '../../../app-context.js';
import { upsertByKey } from '../../../db/bulk-upsert.js';
import { inTransaction } from '../../../db/transaction.js';
import { requireDateTime } from '../../../domain/datetime.js';
import { toMoney } from '../../../domain/decimal.js';
import { contentHash, describeCounts, duplicateKeyErrors } from '../../../shared/bulk.js';
import { validationFailed } from '../../../shared/errors.js';
import { HeldReferences } from '../../../shared/held-references.js';
import type { FieldError } from '../../../shared/validation.js';
import { heldProductsByNumbers } from '../held.js';
import { deleteMatchingDiscounts, expireDiscounts } from './repository.js';
import type { DiscountInput, DiscountsBody, DiscountsHeaders } from './schema.js';

/** The natural key of a discount: discount_id, product_number and line_number, absent parts as "" / 0. */
function discountKey(line: Pick<DiscountInput, 'discount_id' | 'product_number' | 'line_number'>): string {
  return JSON.stringify([line.discount_id ?? '', line.product_number ?? '', line.line_number ?? 0]);
}

const optionalInstant = (text: string | undefined) => (text === undefined ? null : requireDateTime(text));

function requestErrors(lines: readonly DiscountInput[]): FieldError[] {
  // Delete lines never collide: each gets a key of its own.
  const keyed = lines.map((line, index) => ({ line, index }));
  const errors = duplicateKeyErrors(
    keyed,
    ({ line, index }) => (line.is_delete ? `delete ${index}` : discountKey(line)),
    'discounts',
    'discount_id',
  ).map((error) => ({
    ...error,
    message: `${error.message}: the key (discount_id, product_number, line_number) repeats`,
  }));
  lines.forEach((line, index) => {
    const at = `discounts[${index}]`;
    if (line.is_delete) {
      if (!line.discount_id && !line.product_number) {
        errors.push({ path: `${at}.discount_id`, message: 'a delete line needs discount_id or product_number' });
      }
      return;
    }
    if (!line.product_number) errors.push({ path: `${at}.product_number`, message: 'is required unless is_delete' });
    if (line.price === undefined) errors.push({ path: `${at}.price`, message: 'is required unless is_delete' });
    if (
      line.valid_from !== undefined &&
      line.valid_to !== undefined &&
      requireDateTime(line.valid_from) >= requireDateTime(line.valid_to)
    ) {
      errors.push({ path: `${at}.valid_to`, message: 'must be after valid_from' });
    }
  });
  return errors;
}

/**
 * POST /products/discountprices (interface §4.9, PRODUCT §6 headers), atomic, in this
 * order: is_expire_discounts removes ended discounts; is_delete lines remove what they
 * match; the other lines upsert by key; is_flush removes live discounts not sent.
 */
export async function importDiscounts(
  ctx: AppContext,
  body: DiscountsBody,
  headers: DiscountsHeaders,
  actor: string,
): Promise<string> {
  const errors = requestErrors(body.discounts);
  if (errors.length > 0) throw validationFailed('The discounts are invalid', errors);
  const now = Date.now();
  const removal = { now, actor };

  return inTransaction(
    ctx.handle,
    async (trx) => {
      // Deleted products resolve too: a discount the request leaves unchanged keeps its product;
      // only written discounts must name live ones (PRODUCT §3, shared/held-references.ts).
      const products = await heldProductsByNumbers(
        trx,
        body.discounts.flatMap((line) => (line.product_number ? [line.product_number] : [])),
      );
      const held = new HeldReferences();
      body.discounts.forEach((line, index) => {
        if (!line.is_delete)
          held.resolve(
            discountKey(line),
            products.get(line.product_number!),
            `discounts[${index}].product_number`,
            `product '${line.product_number}'`,
          );
      });
      held.assertKnown('Some discounts refer to unknown products');
      const liveProductId = (productNumber: string) => {
        const product = products.get(productNumber);
        return product?.live ? product.id : undefined;
      };

      const expired = headers.is_expire_discounts === true ? await expireDiscounts(trx, removal) : 0;
      let removed = 0;
      let unmatched = 0;
      for (const line of body.discounts.filter((l) => l.is_delete)) {
        const productId = line.product_number ? liveProductId(line.product_number) : undefined;
        const count =
          line.product_number && productId === undefined
            ? 0
            : await deleteMatchingDiscounts(
                trx,
                { discountId: line.discount_id, productId, lineNumber: line.line_number },
                removal,
              );
        removed += count;
        if (count === 0) unmatched++;
      }

      const records = body.discounts
        .filter((line) => !line.is_delete)
        .map((line) => {
          const record = {
            discount_key: discountKey(line),
            discount_id: line.discount_id ?? null,
            product_id: products.get(line.product_number!)!.id,
            line_number: line.line_number ?? null,
            price: toMoney(line.price!),
            discount_type: line.discount_type ?? null,
            discount_description: line.discount_description ?? null,
            discount_group: line.discount_group ?? null,
            valid_from: optionalInstant(line.valid_from),
            valid_to: optionalInstant(line.valid_to),
          };
          return { ...record, content_hash: contentHash(record) };
        });
      const counts = await upsertByKey(trx, ctx.dialect, {
        table: 'product_discounts',
        keyColumn: 'discount_key',
        records,
        actor,
        now,
        flush: headers.is_flush === true,
      });
      held.assertLiveWhere(
        (item) => counts.writtenKeys.has(item),
        'Some new or changed discounts refer to deleted products',
      );
      const message = describeCounts({ ...counts, deleted: counts.deleted + removed + expired });
      const notes = [
        expired > 0 ? `expired ${expired}` : '',
        unmatched > 0 ? `delete lines matching nothing: ${unmatched}` : '',
      ].filter(Boolean);
      return notes.length === 0 ? message : `${message}; ${notes.join('; ')}`;
    },
    { serialise: ['product_discounts'] },
  );
}
