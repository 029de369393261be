import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { TokenRow } from './rows.js';

export interface NewToken {
  name: string;
  role: string;
  stores: string[] | null;
  tokenHash: string;
  expiresAt: number | null;
  createdOn: number;
  createdBy: string;
}

export async function insertToken(db: Kysely<Database>, token: NewToken): Promise<boolean> {
  const inserted = await db
    .insertInto('api_tokens')
    .values({
      name: token.name,
      role: token.role,
      stores: token.stores ? JSON.stringify(token.stores) : null,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
      revoked_at: null,
      created_on: token.createdOn,
      created_by: token.createdBy,
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findTokenByHash(db: Kysely<Database>, tokenHash: string): Promise<TokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export function findTokenById(db: Kysely<Database>, id: number): Promise<TokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listTokens(db: Kysely<Database>): Promise<TokenRow[]> {
  return db.selectFrom('api_tokens').selectAll().orderBy('id').execute();
}

export async function countTokens(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function revokeToken(db: Kysely<Database>, name: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ revoked_at: now })
    .where('name', '=', name)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function replaceTokenHash(db: Kysely<Database>, name: string, tokenHash: string): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({ token_hash: tokenHash, revoked_at: null })
    .where('name', '=', name)
    .execute();
}
