import type { Generated } from 'kysely';

/**
 * Every table as Kysely sees it. Conventions, the same on SQLite and PostgreSQL:
 * - ids are 64-bit integers, read back as JS numbers (safe below 2^53);
 * - date-times are epoch milliseconds (UTC) in bigint columns: no time-zone drift and
 *   exact ordering on both databases;
 * - booleans are 0/1 integers (SQLite has no boolean type, one codec for both);
 * - quantities are thousandths and money ten-thousandths in bigint columns (PRODUCT §3).
 * - nested arrays the interface only ever reads back whole are JSON text.
 */

export type Bool = 0 | 1;

/** Columns every master-data record carries (PRODUCT §3 Audit, flush/soft delete). */
export interface AuditColumns {
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
  /** Set when a flush soft-deleted the record; null while it is live. */
  deleted_on: number | null;
  /** Hash of the normalised input: an identical re-send changes nothing. */
  content_hash: string;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface ApiTokenTable {
  id: Generated<number>;
  name: string;
  role: string;
  /** JSON array of store numbers, or null for every store. */
  stores: string | null;
  token_hash: string;
  expires_at: number | null;
  revoked_at: number | null;
  created_on: number;
  created_by: string;
}

export interface IdempotencyKeyTable {
  /** Who sent it and to what: token id, method and url. */
  scope: string;
  idempotency_key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  content_type: string | null;
  created_at: number;
}

export interface StoreTable extends AuditColumns {
  id: Generated<number>;
  store_number: string;
  store_name: string;
  is_active: Bool;
  is_active_data_exchange: Bool;
  is_warehouse: Bool;
  address: string | null;
  area_description: string | null;
  area_id: string | null;
  city: string | null;
  contact_details: string | null;
  cost_center: string | null;
  country_code: string | null;
  country_name: string | null;
  esl_server_path: string | null;
  invent_location: string | null;
  ip_range_begin: string | null;
  ip_range_end: string | null;
  legal_entity: string | null;
  local_server_path: string | null;
  phone_number: string | null;
  postal_code: string | null;
  store_gln: string | null;
  store_next_delivery_datetime: number | null;
  store_next_ordering_datetime: number | null;
  store_type_code: string | null;
  store_type_description: string | null;
  secondary_key: string | null;
  tertiary_key: string | null;
  warehouse_id: string | null;
  area_manager_user_id: number | null;
  price_line_id: number | null;
  /** JSON array of the ten pool names, index 0 = pool 1. */
  stock_pool_names: string;
  free_fields: string;
  opening_hours: string;
  ordering_schema: string;
  store_printers: string;
}

export interface Database {
  meta: MetaTable;
  api_tokens: ApiTokenTable;
  idempotency_keys: IdempotencyKeyTable;
  stores: StoreTable;
}
