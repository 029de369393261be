import type { AppContext } from '../../app-context.js';
import { inTransaction } from '../../db/transaction.js';
import { validationFailed } from '../../shared/errors.js';
import { productHash, readDocument } from './mapping.js';
import * as products from './repository.js';
import { STRING_ATTRIBUTES, type ReplaceAttributeBody, type StringAttribute } from './schema.js';

const isReplaceable = (name: string): name is StringAttribute => Object.hasOwn(STRING_ATTRIBUTES, name);

/**
 * PUT /products/attributes (interface §4.9): replaces old_value by new_value in one
 * plain string attribute across every live product holding exactly old_value. Keys
 * (product_number), barcodes, prices and structured fields are not replaceable: they
 * carry references and rules a blind replace would break. The content hash and the read
 * document follow the new value, so a later identical import is still recognised.
 */
export async function replaceAttribute(ctx: AppContext, body: ReplaceAttributeBody, actor: string): Promise<string> {
  const { attribute, old_value: oldValue, new_value: newValue } = body;
  if (!isReplaceable(attribute)) {
    throw validationFailed(`Attribute '${attribute}' cannot be replaced`, [
      { path: 'attribute', message: `must be one of ${Object.keys(STRING_ATTRIBUTES).join(', ')}` },
    ]);
  }
  const maxLength = STRING_ATTRIBUTES[attribute];
  if (newValue.length > maxLength) {
    throw validationFailed(`new_value is too long for ${attribute}`, [
      { path: 'new_value', message: `must NOT have more than ${maxLength} characters` },
    ]);
  }
  if (oldValue === newValue) return 'changed 0 products';
  const now = Date.now();
  return inTransaction(
    ctx.handle,
    async (trx) => {
      const changed = await trx
        .updateTable('products')
        .set({ [attribute]: newValue, updated_on: now, modified_by: actor })
        .where(attribute, '=', oldValue)
        .where('deleted_on', 'is', null)
        .returningAll()
        .execute();
      await products.writeDerived(
        trx,
        changed.map((row) => ({ id: row.id, contentHash: productHash(row), readDocument: readDocument(row) })),
      );
      return `changed ${changed.length} products`;
    },
    { serialise: ['products'] },
  );
}
