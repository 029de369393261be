import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.
//
// Issue 41, PRODUCT §4 "OAuth2 client credentials":
// - `api_clients`: the clients an admin registered. `client_id` is generated and public;
//   only the SHA-256 of the (≥ 32 random bytes) secret is kept. A rotated secret keeps its
//   hash in `previous_secret_hash` until `previous_secret_expires_at` (the grace period).
//   `scope` (space-separated, null = everything its role gives) narrows the client.
//   `revoked_at` is final: a revoked client gets no token and its tokens are refused.
// - `oauth_signing_keys`: the keys that sign access tokens, shared by every process. The key
//   with no `signing_ended_at` (the newest, if two processes raced at first start) signs; a
//   key whose signing ended keeps verifying until `verify_until`, when every token it signed
//   has expired; then it is deleted.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await withId(dialect, db.schema.createTable('api_clients'))
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('client_id', 'text', (col) => col.notNull().unique())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('stores', 'text')
    .addColumn('scope', 'text')
    .addColumn('secret_hash', 'text', (col) => col.notNull())
    .addColumn('previous_secret_hash', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('secret_rotated_on', 'bigint')
    .execute();
  await db.schema.createIndex('api_clients_revoked_at').on('api_clients').column('revoked_at').execute();

  await db.schema
    .createTable('oauth_signing_keys')
    .addColumn('kid', 'text', (col) => col.primaryKey())
    .addColumn('algorithm', 'text', (col) => col.notNull())
    .addColumn('public_jwk', 'text', (col) => col.notNull())
    .addColumn('private_jwk', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('signing_ended_at', 'bigint')
    .addColumn('verify_until', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_signing_keys').execute();
  await db.schema.dropTable('api_clients').execute();
}
