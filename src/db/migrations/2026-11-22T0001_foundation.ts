import type { Kysely } from 'kysely';
import type { MigrationDialect } from './provider.js';
import { withAudit, withId } from './support.js';

// Frozen in time: this file imports no application code and must never change once
// released. New schema changes go in a new, later-named migration.

export async function up(db: Kysely<any>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .execute();

  await withId(dialect, db.schema.createTable('api_tokens'))
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('stores', 'text')
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('idempotency_key', 'text', (col) => col.notNull())
    .addColumn('request_hash', 'text', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('content_type', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();

  let stores = withId(dialect, db.schema.createTable('stores'))
    .addColumn('store_number', 'text', (col) => col.notNull().unique())
    .addColumn('store_name', 'text', (col) => col.notNull())
    .addColumn('is_active', 'integer', (col) => col.notNull())
    .addColumn('is_active_data_exchange', 'integer', (col) => col.notNull())
    .addColumn('is_warehouse', 'integer', (col) => col.notNull());
  for (const column of [
    'address',
    'area_description',
    'area_id',
    'city',
    'contact_details',
    'cost_center',
    'country_code',
    'country_name',
    'esl_server_path',
    'invent_location',
    'ip_range_begin',
    'ip_range_end',
    'legal_entity',
    'local_server_path',
    'phone_number',
    'postal_code',
    'store_gln',
    'store_type_code',
    'store_type_description',
    'secondary_key',
    'tertiary_key',
    'warehouse_id',
  ]) {
    stores = stores.addColumn(column, 'text');
  }
  stores = stores
    .addColumn('store_next_delivery_datetime', 'bigint')
    .addColumn('store_next_ordering_datetime', 'bigint')
    .addColumn('area_manager_user_id', 'bigint')
    .addColumn('price_line_id', 'bigint')
    .addColumn('stock_pool_names', 'text', (col) => col.notNull())
    .addColumn('free_fields', 'text', (col) => col.notNull())
    .addColumn('opening_hours', 'text', (col) => col.notNull())
    .addColumn('ordering_schema', 'text', (col) => col.notNull())
    .addColumn('store_printers', 'text', (col) => col.notNull());
  await withAudit(stores).execute();
  await db.schema.createIndex('stores_updated_on').on('stores').column('updated_on').execute();
  await db.schema.createIndex('stores_secondary_key').on('stores').column('secondary_key').execute();
  await db.schema.createIndex('stores_area_id').on('stores').column('area_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['stores', 'idempotency_keys', 'api_tokens', 'meta']) {
    await db.schema.dropTable(table).execute();
  }
}
