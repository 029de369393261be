import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The configuration of product lists (docs/product-lists.md): the list types with their names
 * (`type_description` on read) and which type each handheld module creates (`module_id` on
 * create). It lives in the database, so every process of the service sees the same, seeded
 * with defaults by migration 0014 and changed with `store-ops productlists …`.
 */

export interface ListConfiguration {
  types: Array<{ type: number; description: string }>;
  modules: Array<{ module_id: number; type: number }>;
}

export async function listConfiguration(db: Kysely<Database>): Promise<ListConfiguration> {
  const types = await db.selectFrom('product_list_types').select(['type', 'description']).orderBy('type').execute();
  const modules = await db
    .selectFrom('product_list_modules')
    .select(['module_id', 'type'])
    .orderBy('module_id')
    .execute();
  return {
    types: types.map((row) => ({ type: Number(row.type), description: row.description })),
    modules: modules.map((row) => ({ module_id: Number(row.module_id), type: Number(row.type) })),
  };
}

/** Names a list type, or renames it. */
export async function setListType(db: Kysely<Database>, type: number, description: string): Promise<void> {
  await db
    .insertInto('product_list_types')
    .values({ type, description })
    .onConflict((oc) => oc.column('type').doUpdateSet({ description }))
    .execute();
}

export class UnknownListTypeError extends Error {}

/** Points a module at a configured type; a type that is not configured is refused. */
export async function setModuleType(db: Kysely<Database>, moduleId: number, type: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const known = await trx.selectFrom('product_list_types').select('type').where('type', '=', type).executeTakeFirst();
    if (!known)
      throw new UnknownListTypeError(
        `list type ${type} is not configured: name it first (store-ops productlists type ${type} <description>)`,
      );
    await trx
      .insertInto('product_list_modules')
      .values({ module_id: moduleId, type })
      .onConflict((oc) => oc.column('module_id').doUpdateSet({ type }))
      .execute();
  });
}

/** Removes a module: creating a list for it is then a 422. */
export async function removeModule(db: Kysely<Database>, moduleId: number): Promise<boolean> {
  const result = await db.deleteFrom('product_list_modules').where('module_id', '=', moduleId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
