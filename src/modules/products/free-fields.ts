import type { AppContext } from '../../app-context.js';
import { inTransaction } from '../../db/transaction.js';
import { unprocessable } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { parseFreeFields, productHash, readDocument, sortFreeFields } from './mapping.js';
import * as products from './repository.js';
import type { FreeFieldsBody } from './schema.js';

type Entry = FreeFieldsBody['free_fields'][number];

/** Merges by key: a sent key replaces its entry (keeping its sort_order when none is sent), other entries stay. */
export function mergeFreeFields(stored: ReturnType<typeof parseFreeFields>, sent: Entry['free_fields']) {
  const fields = [...stored];
  for (const field of sent) {
    const at = fields.findIndex(([, key]) => key === field.key);
    const sortOrder = field.sort_order ?? (at === -1 ? 0 : fields[at]![0]);
    const next: (typeof fields)[number] = [sortOrder, field.key, field.value ?? null];
    if (at === -1) fields.push(next);
    else fields[at] = next;
  }
  return sortFreeFields(fields);
}

/**
 * POST /products/freefields (interface §4.9): merge by key into each product's free
 * fields; keys not sent stay. Products are unique by product_number alone, so
 * country_code and entity_type select nothing. The content hash follows the new value,
 * so a later POST /products with the old free fields is seen as a change.
 */
export async function importFreeFields(ctx: AppContext, body: FreeFieldsBody, actor: string): Promise<string> {
  const now = Date.now();
  return inTransaction(
    ctx.handle,
    async (trx) => {
      const locked = await products.lockLiveProducts(
        trx,
        body.free_fields.map((entry) => entry.product_number),
      );
      const unknown: FieldError[] = [];
      body.free_fields.forEach((entry, index) => {
        if (!locked.has(entry.product_number)) {
          unknown.push({
            path: `free_fields[${index}].product_number`,
            message: `unknown product '${entry.product_number}'`,
          });
        }
      });
      if (unknown.length > 0) throw unprocessable('Some free fields refer to unknown products', unknown);

      const merged = new Map<string, string>();
      for (const entry of body.free_fields) {
        const current = merged.get(entry.product_number) ?? locked.get(entry.product_number)!.free_fields;
        merged.set(
          entry.product_number,
          JSON.stringify(mergeFreeFields(parseFreeFields({ free_fields: current }), entry.free_fields)),
        );
      }
      let changed = 0;
      for (const [productNumber, freeFields] of merged) {
        const row = locked.get(productNumber)!;
        if (row.free_fields === freeFields) continue;
        const updated = { ...row, free_fields: freeFields };
        await trx
          .updateTable('products')
          .set({
            free_fields: freeFields,
            content_hash: productHash(updated),
            read_document: readDocument(updated),
            updated_on: now,
            modified_by: actor,
          })
          .where('id', '=', row.id)
          .execute();
        changed++;
      }
      return `updated ${changed}, unchanged ${merged.size - changed}`;
    },
    { serialise: ['products'] },
  );
}
