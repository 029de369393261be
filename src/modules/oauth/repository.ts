import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiClientTable, Database, OAuthSigningKeyTable } from '../../db/schema.js';

export type ClientRow = Selectable<ApiClientTable>;
export type SigningKeyRow = Selectable<OAuthSigningKeyTable>;

export interface NewClient {
  name: string;
  clientId: string;
  role: string;
  stores: string[] | null;
  scope: string | null;
  secretHash: string;
  createdOn: number;
  createdBy: string;
}

export async function insertClient(db: Kysely<Database>, client: NewClient): Promise<boolean> {
  const inserted = await db
    .insertInto('api_clients')
    .values({
      name: client.name,
      client_id: client.clientId,
      role: client.role,
      stores: client.stores ? JSON.stringify(client.stores) : null,
      scope: client.scope,
      secret_hash: client.secretHash,
      previous_secret_hash: null,
      previous_secret_expires_at: null,
      revoked_at: null,
      created_on: client.createdOn,
      created_by: client.createdBy,
      secret_rotated_on: null,
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export const findClientById = (db: Kysely<Database>, clientId: string) =>
  db.selectFrom('api_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();

export const findClientByName = (db: Kysely<Database>, name: string) =>
  db.selectFrom('api_clients').selectAll().where('name', '=', name).executeTakeFirst();

export const listClients = (db: Kysely<Database>) => db.selectFrom('api_clients').selectAll().orderBy('id').execute();

/** The new secret's hash; the current one stays valid until `graceUntil`. False: no live client of that name. */
export async function rotateSecret(
  db: Kysely<Database>,
  name: string,
  secretHash: string,
  now: number,
  graceUntil: number,
): Promise<boolean> {
  // One statement (a request may already be in its idempotency transaction): SET reads the
  // row as it was, so the current hash becomes the previous one.
  const result = await db
    .updateTable('api_clients')
    .set({
      secret_hash: secretHash,
      previous_secret_hash: sql.ref('secret_hash'),
      previous_secret_expires_at: graceUntil,
      secret_rotated_on: now,
    })
    .where('name', '=', name)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function revokeClient(db: Kysely<Database>, name: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('api_clients')
    .set({ revoked_at: now, previous_secret_hash: null, previous_secret_expires_at: null })
    .where('name', '=', name)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The client_ids revoked at or after `since`: the only ones whose tokens may still be unexpired. */
export async function revokedClientIdsSince(db: Kysely<Database>, since: number): Promise<string[]> {
  const rows = await db.selectFrom('api_clients').select('client_id').where('revoked_at', '>=', since).execute();
  return rows.map((r) => r.client_id);
}

export const listSigningKeys = (db: Kysely<Database>) =>
  db.selectFrom('oauth_signing_keys').selectAll().orderBy('created_at').orderBy('kid').execute();

export async function insertSigningKey(db: Kysely<Database>, key: SigningKeyRow): Promise<void> {
  await db.insertInto('oauth_signing_keys').values(key).execute();
}
