import type { LogRecordColumns } from './log-record.js';
import type { Generated, Kysely, Transaction } from 'kysely';

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

/**
 * What a repository function that may run inside or outside a transaction takes. A function
 * that must lock takes `Transaction<Database>`, so the type system forces a transaction; one
 * that must not run inside one (a hot read) takes `Kysely<Database>`.
 */
export type Executor = Kysely<Database> | Transaction<Database>;

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

/** OAuth2 clients (issue 41, migration 0029): client_id public, only the secret's SHA-256 kept. */
export interface ApiClientTable {
  id: Generated<number>;
  name: string;
  client_id: string;
  role: string;
  /** JSON array of store numbers, or null for every store. */
  stores: string | null;
  /** Space-separated scopes narrowing the client; null = everything its role gives. */
  scope: string | null;
  secret_hash: string;
  /** The secret before the last rotation, accepted until previous_secret_expires_at. */
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | null;
  revoked_at: number | null;
  created_on: number;
  created_by: string;
  secret_rotated_on: number | null;
}

/** Access-token signing keys (migration 0029), shared by every process. */
export interface OAuthSigningKeyTable {
  kid: string;
  algorithm: string;
  public_jwk: string;
  private_jwk: string;
  created_at: number;
  /** Set when a newer key took over signing; null for the signer. */
  signing_ended_at: number | null;
  /** After this moment no token it signed is valid; the key is deleted. */
  verify_until: number | null;
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

export interface CategoryTable extends AuditColumns {
  id: Generated<number>;
  category_code: string;
  category_name: string;
  friendly_category_name: string | null;
  /** '0' for a root category (interface §4.10). */
  parent_category_code: string;
  is_adjust_min_max: Bool;
  is_markdown: Bool;
  /** Comma-separated percentages, kept exactly as sent. */
  markdown_percentages: string | null;
  expiration_offset: number | null;
  receipt_offset: number | null;
}

export interface ReasonCodeTable extends AuditColumns {
  id: Generated<number>;
  reason_code: number;
  reason_code_description: string;
  code_description: string | null;
  /** 1–9 (interface §2.6). */
  reason_code_type: number;
  /** 0 none needed, 1 entries start pending review (PRODUCT §5). */
  default_review_status: number;
  is_comment_mandatory: Bool;
  is_gain: Bool;
  is_image_mandatory: Bool;
  is_loss: Bool;
  is_order_number_mandatory: Bool;
  is_picking_list: Bool;
  is_rollback_allowed: Bool;
  is_sales_order_discount: Bool;
  is_store: Bool;
  function_key: string | null;
  store_type: string | null;
}

export interface ProductTable extends AuditColumns {
  id: Generated<number>;
  product_number: string;
  product_name: string;
  /** Thousandths. */
  carrier_item_quantity: number;
  is_counted: Bool;
  price_compare_multiplier: number;
  average_weight: number | null;
  allow_decimal: Bool | null;
  is_active: Bool | null;
  is_adr: Bool | null;
  is_edit_min_max: Bool | null;
  is_edit_replenishment: Bool | null;
  is_expiration: Bool | null;
  is_markdown_allowed: Bool | null;
  is_order_manually: Bool | null;
  is_ordering: Bool | null;
  is_promotion: Bool | null;
  is_reset_store_stock: Bool | null;
  is_set: Bool | null;
  is_stock: Bool | null;
  is_store_product: Bool | null;
  is_template: Bool | null;
  is_theft: Bool | null;
  expiration_min_range: number | null;
  general_ledger_account_number: number | null;
  /** Thousandths. */
  ioq: number | null;
  moq: number | null;
  purchase_unit_quantity: number | null;
  smallest_quantity: number | null;
  /** Ten-thousandths. */
  price: number | null;
  promotion_price: number | null;
  purchase_price: number | null;
  /** Master price before its last change (PRODUCT §6 old_price); not part of content_hash. */
  old_price: number | null;
  /** JSON of the ProductItem fields derived from this row alone (not prices); not part of content_hash. */
  read_document: string;
  product_description: string | null;
  barcode: string | null;
  base_unit_name: string | null;
  brand_code: string | null;
  brand_description: string | null;
  category_code: string | null;
  color: string | null;
  color_code: string | null;
  country_code: string | null;
  default_location_tag: string | null;
  deprecation_date: string | null;
  image_url: string | null;
  ledger_dimension_value: string | null;
  margin_category: string | null;
  price_compare_unit: string | null;
  price_lines: string | null;
  product_details: string | null;
  product_reference_number: string | null;
  product_status: string | null;
  product_type: string | null;
  product_url: string | null;
  promotion_text: string | null;
  promotion_week: string | null;
  purchase_unit_barcode: string | null;
  purchase_unit_name: string | null;
  purchase_unit_product_number: string | null;
  purchbook_free_txt: string | null;
  referral_product_number: string | null;
  size: string | null;
  size_code: string | null;
  smallest_product_number: string | null;
  store_number: string | null;
  supplier_name: string | null;
  supplier_number: string | null;
  supplier_product_number: string | null;
  variant_code: string | null;
  variant_family: string | null;
  volume: string | null;
  /** JSON arrays (read back whole). */
  attention_code: string;
  countries_allowed: string;
  countries_not_allowed: string;
  promo_stores_allowed: string;
  promo_stores_not_allowed: string;
  stores_allowed: string;
  stores_not_allowed: string;
  barcodes_array: string;
  free_fields: string;
  set_products: string;
  shelf_labels: string;
  units: string;
}

/** Barcode → product look-up; `unit_quantity` (thousandths) is what one scan counts. */
export interface ProductBarcodeTable {
  barcode: string;
  product_id: number;
  kind: 'product' | 'array' | 'unit';
  unit_quantity: number;
}

export interface ProductPriceTable extends AuditColumns {
  id: Generated<number>;
  price_id: string;
  product_id: number;
  /** Ten-thousandths. */
  price: number;
  price_type: number;
  valid_from: number;
  valid_to: number;
  country_code: string | null;
  price_group: string | null;
  price_unit: string | null;
  store_number: string | null;
  /** Thousandths. */
  price_quantity: number | null;
}

export interface ProductDiscountTable extends AuditColumns {
  id: Generated<number>;
  /** Natural key: JSON [discount_id or "", product_number, line_number or 0]. */
  discount_key: string;
  discount_id: string | null;
  product_id: number;
  line_number: number | null;
  /** Discounted unit price, ten-thousandths. */
  price: number;
  discount_type: number | null;
  discount_description: string | null;
  discount_group: string | null;
  valid_from: number | null;
  valid_to: number | null;
}

/** A shelf or storage location of a store (PRODUCT §5 Locations). */
export interface LocationTable extends AuditColumns {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  location_code: string;
  location_order: number;
  default_stock_pool: number | null;
  /** JSON array of the tags as sent (location_tags indexes them). */
  tags: string;
}

export interface LocationTagTable {
  location_id: number;
  store_id: number;
  tag: string;
}

/** A product as kept in one store (interface §4.4), plus stock bookkeeping times. */
export interface StoreProductTable extends AuditColumns {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  product_id: number;
  product_number: string;
  min: number | null;
  max: number | null;
  original_min: number | null;
  original_max: number | null;
  order_level: number | null;
  adjusted_order_level: number | null;
  forecast: number | null;
  demand_until_delivery: number | null;
  adjustment_level_decrease: number | null;
  adjustment_level_increase: number | null;
  price: number | null;
  discount_price: number | null;
  expiry_at: number | null;
  validate_expiry_at: number | null;
  next_delivery_at: number | null;
  next_ordering_at: number | null;
  last_counted_at: number | null;
  last_loss_at: number | null;
  last_receipt_at: number | null;
  last_minmax_at: number | null;
  last_expiry_at: number | null;
  /** When any balance of this store product last changed (last_stock_modified_datetime). */
  stock_modified_at: number | null;
  /** Bumped with every change to this store product's balances (migration 0009; read caches). */
  stock_version: Generated<number>;
  counting_assignment_code: string | null;
  default_salesorder_type: string | null;
  group_code: string | null;
  replenishment_action: string | null;
  promotion_week: string | null;
  last_counted_by: string | null;
  last_loss_by: string | null;
  last_receipt_by: string | null;
  last_minmax_by: string | null;
  last_expiry_by: string | null;
  is_promotion: Bool | null;
  is_replenishment: Bool | null;
  attention_codes: string | null;
  average_keys: string | null;
  average_array: string | null;
  forecast_keys: string | null;
  forecast_array: string | null;
  history_keys: string | null;
  history_array: string | null;
  delivery_datetimes: string | null;
  ordering_datetimes: string | null;
}

/**
 * A store product log entry as sent and listed (interface §2.8): the columns the kernel writes
 * here, the log's own record in log-record.ts (declared once there, for the table and the writes).
 */
export interface StockLogTable extends LogRecordColumns {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  product_id: number;
  product_number: string;
  location_id: number | null;
  location_code: string | null;
  reason_code: number | null;
  reason_code_description: string | null;
  modification_at: number;
  is_count: Bool;
  is_from_receipt: Bool;
  /** As sent, signed by the reason code (thousandths); for counts the counted total. */
  quantity: number;
  /** JSON array of ten per-pool quantities as sent and signed (thousandths). */
  pool_quantities: string;
  counted_quantity: number | null;
  /** 0 none needed, 1 pending, 2 approved, 3 rejected (PRODUCT §5 Review). */
  review_status: number;
  /** purged_to_most_likely: the entry's deltas are in the balances. */
  is_applied: Bool;
  customer_order_number: string | null;
  barcode: string | null;
  price: number | null;
  purchase_price: number | null;
  purchase_unit_quantity: number | null;
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
  /**
   * The entry's posting, when it moved exactly one balance (migration 0022: one row per
   * entry): the balance, the delta booked and, for a count, the level expected. Null while
   * pending or rejected, and for an entry split over pools, whose parts are stock_log_parts rows.
   */
  balance_id: number | null;
  delta: number | null;
  expected: number | null;
}

/**
 * One pool's part of an applied entry split over pools (`stock_pool_N`), with the columns
 * a one-balance entry keeps in its own row. `seq` places the part among its balance's
 * entries of the same moment: the entry's log id (a migrated part may carry another, so
 * the order of entries that moment had before migration 0022 holds).
 */
export interface StockLogPartTable {
  log_id: number;
  seq: number;
  balance_id: number;
  at: number;
  delta: number;
  is_count: Bool;
  counted: number | null;
  expected: number | null;
}

/**
 * The ledger, a view (migration 0022): one row per posting — the posting of a one-balance
 * entry from its stock_logs row, and the parts of split entries. A balance's history is its
 * rows in (at, id) order; `id` is that order at one moment (the log id posted under), unique
 * within a balance, not across the view. Read only: the engine writes the two tables.
 */
export interface StockLedgerTable {
  id: number;
  log_id: number;
  balance_id: number;
  at: number;
  delta: number;
  is_count: Bool;
  counted: number | null;
  expected: number | null;
}

/**
 * Per balance: every posting before the latest archive boundary summed into postings of its own
 * — the level as a delta at the balance's last moment (is_count 0), its last count as a zero
 * delta at that count's moment (is_count 1) — (migration 0026, ledger/archive.ts). The view
 * stock_ledger reads them as postings; the snapshots of earlier boundaries are kept in
 * stock_ledger_snapshot_history, same columns.
 */
export interface StockLedgerSnapshotTable {
  boundary_at: number;
  balance_id: number;
  at: number;
  /** Always 0, and log_id, counted, expected always null: the view reads them as columns. */
  seq: Generated<number>;
  is_count: Bool;
  log_id: number | null;
  delta: number;
  counted: number | null;
  expected: number | null;
}

/** One archive of old ledger months (`store-ops ledger archive`, PostgreSQL). */
export interface LedgerArchiveTable {
  boundary_at: number;
  archived_on: number;
  archived_by: string;
  entries: number;
  parts: number;
  balances: number;
  /** JSON array of the detached tables' names. */
  tables: string;
}

/** A store product's stock stamp whose entry an archive moved out (migration 0026). */
export interface StockStampArchivedTable {
  store_id: number;
  product_id: number;
  stamp: number;
}

/** Projection of the ledger: one row per balance key (PRODUCT §5). */
export interface StockBalanceTable {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  product_id: number;
  location_id: number;
  pool: number;
  order_key: string;
  quantity: number;
  last_at: number | null;
  last_count_at: number | null;
  updated_on: number;
}

/**
 * Per hour of stock_logs.updated_on: its entries and their smallest id, kept by triggers
 * (migration 0020). On PostgreSQL an hour may have several delta rows: sum them.
 */
export interface StockLogHourTable {
  hour: number;
  entries: number;
  min_id: number;
}

/** Version per master-data resource, bumped by triggers; plus the last bulk import's fingerprint. */
export interface ResourceVersionTable {
  resource: string;
  version: number;
  import_hash: string | null;
  import_version: number | null;
  import_count: number | null;
}

/** An external counting line whose barcode matched no product (PRODUCT §5). */
export interface UnresolvedCountingLineTable {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  barcode: string;
  counted_quantity: number;
  counting_at: number;
  received_on: number;
  created_by: string;
}

/** A delivery announced by the ERP (interface §2.3, PRODUCT §7); `order_number` is unique. */
export interface DeliveryOrderTable {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  order_number: string;
  order_type: number;
  /** open | receiving | received | cancelled */
  status: string;
  datetime_created_at: number;
  datetime_expected_at: number;
  no_of_containers: number;
  reason_code: number | null;
  description: string | null;
  reference: string | null;
  store_origin: string | null;
  supplier_code: string | null;
  supplier_name: string | null;
  tracing_url: string | null;
  /** The order as last sent, header and lines: an identical re-send writes nothing. */
  content_hash: string;
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
}

/** One announced line; `received_quantity` = the sum of its receipt lines (verify). */
export interface DeliveryOrderLineTable {
  id: Generated<number>;
  delivery_id: number;
  store_id: number;
  line_number: number;
  product_id: number;
  product_number: string;
  /** Thousandths: announced (shipped). */
  quantity: number;
  ordered_quantity: number | null;
  received_quantity: number;
  target_stock_pool: number;
  customer_order_line_number: number | null;
  customer_order_shipment_line_number: number | null;
  secondary_order_line_number: number | null;
  /** Ten-thousandths. */
  purchase_price: number | null;
  barcode: string | null;
  container_barcode: string | null;
  customer_order_number: string | null;
  customer_order_shipment_number: string | null;
  description: string | null;
  product_description: string | null;
  reference: string | null;
  secondary_order_number: string | null;
}

/** The receipt of a delivery (interface §2.4): one per delivery, made by its first receipt. */
export interface ReceiptOrderTable {
  id: Generated<number>;
  delivery_id: number;
  store_id: number;
  store_number: string;
  order_number: string;
  order_type_id: number;
  is_submitted: Bool;
  datetime_created_at: number;
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
}

/** One receiving entry of a receipt: exactly one stock log entry (`log_id`) booked it. */
export interface ReceiptLineTable {
  id: Generated<number>;
  receipt_id: number;
  store_id: number;
  delivery_line_id: number;
  log_id: number;
  /** The moment of the line's entry: with log_id its key (migration 0026); null only if the entry was lost before 0026. */
  log_at: number | null;
  line_number: number;
  product_id: number;
  product_number: string | null;
  barcode: string | null;
  container_barcode: string | null;
  description: string | null;
  /** Thousandths. */
  received_quantity: number;
  shipped_quantity: number;
  /** Ten-thousandths. */
  purchase_price: number;
  store_products_price: number;
  created_on: number;
  updated_on: number;
}

/** A click-and-collect order (interface §2.9, PRODUCT §7); `order_number` is unique. */
export interface CustomerOrderTable {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  order_number: string;
  /** 1 new, 2 claimed, 3 picking, 4 picked, 5 collected, 6 rejected, 7 cancelled. */
  status_id: number;
  is_claimed: Bool;
  pickup_at: number | null;
  rejection_reason_code: number | null;
  order_type_code: string | null;
  description: string | null;
  customer_name: string | null;
  comment: string | null;
  reference: string | null;
  sales_order_id: string | null;
  stores_allowed: string | null;
  picked_username: string | null;
  /** The order as last sent by the ERP (header and lines). */
  content_hash: string;
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
}

/** One ordered line; `picked_quantity` = the stock bound to the order for it now (verify). */
export interface CustomerOrderLineTable {
  id: Generated<number>;
  order_id: number;
  store_id: number;
  line_number: number;
  product_id: number;
  product_number: string;
  /** Thousandths. */
  quantity: number;
  picked_quantity: number;
  /** The pool it is picked from and bound in. */
  stock_pool: number;
  /** Ten-thousandths. */
  price: number | null;
  delivery_at: number | null;
  barcode: string | null;
  description: string | null;
  preferred_location_code: string | null;
  reference: string | null;
  /** Where it was last picked from (and where a release puts it back). */
  stock_location: string | null;
  picked_username: string | null;
}

export interface Database {
  meta: MetaTable;
  resource_versions: ResourceVersionTable;
  unresolved_counting_lines: UnresolvedCountingLineTable;
  api_tokens: ApiTokenTable;
  idempotency_keys: IdempotencyKeyTable;
  stores: StoreTable;
  categories: CategoryTable;
  reason_codes: ReasonCodeTable;
  products: ProductTable;
  product_barcodes: ProductBarcodeTable;
  product_prices: ProductPriceTable;
  product_discounts: ProductDiscountTable;
  locations: LocationTable;
  location_tags: LocationTagTable;
  store_products: StoreProductTable;
  stock_logs: StockLogTable;
  stock_log_hours: StockLogHourTable;
  stock_ledger: StockLedgerTable;
  stock_log_parts: StockLogPartTable;
  stock_ledger_snapshots: StockLedgerSnapshotTable;
  stock_ledger_snapshot_history: StockLedgerSnapshotTable;
  ledger_archives: LedgerArchiveTable;
  stock_stamps_archived: StockStampArchivedTable;
  stock_balances: StockBalanceTable;
  delivery_orders: DeliveryOrderTable;
  delivery_order_lines: DeliveryOrderLineTable;
  receipt_orders: ReceiptOrderTable;
  receipt_lines: ReceiptLineTable;
  customer_orders: CustomerOrderTable;
  customer_order_lines: CustomerOrderLineTable;
  store_product_versions: StoreProductVersionTable;
  product_list_types: ProductListTypeTable;
  product_list_modules: ProductListModuleTable;
  product_lists: ProductListTable;
  product_list_lines: ProductListLineTable;
  events: EventTable;
  event_counter: EventCounterTable;
  webhook_subscriptions: WebhookSubscriptionTable;
  api_clients: ApiClientTable;
  oauth_signing_keys: OAuthSigningKeyTable;
  photos: PhotoTable;
  counting_assignments: CountingAssignmentTable;
  counting_lines: CountingLineTable;
  counting_claims: CountingClaimTable;
}

/**
 * The change feed's outbox (PRODUCT §9, migration 0027). `sequence` is given at insert on
 * SQLite and after the commit on PostgreSQL (null until then; dialect/postgres-events.ts).
 */
export interface EventTable {
  sequence: Generated<number | null>;
  type: string;
  store_number: string | null;
  /** Epoch ms: the commit (PostgreSQL: the sequencer's pass right after it; SQLite: the write). */
  occurred_at: number;
  /** The event's data as JSON text. */
  data: string;
}

export interface EventCounterTable {
  id: number;
  /** PostgreSQL: the last sequence given (SQLite reads sqlite_sequence). */
  last_sequence: number;
  /** The last sequence deleted by retention: a cursor before it is answered 410. */
  purged_through: number;
}

/** A webhook subscription and its delivery state (modules/webhooks). */
export interface WebhookSubscriptionTable {
  id: Generated<number>;
  url: string;
  /** JSON array of event types, null for every type. */
  types: string | null;
  /** JSON array of store numbers, null for every store. */
  stores: string | null;
  /** `whsec_<base64>`: the Standard Webhooks signing secret. */
  secret: string;
  /** active | paused */
  status: string;
  /** Every matching event up to this sequence is acknowledged. */
  after_sequence: number;
  /** The batch in flight ends here: a retry re-sends exactly (after_sequence, batch_through]. */
  batch_through: number | null;
  /** Failed attempts of the batch in flight. */
  attempts: number;
  /** Epoch ms: the next attempt is due. */
  next_attempt_at: number;
  /** Epoch ms of the first failure of the current run of failures: 24 h of them pause it. */
  failing_since: number | null;
  last_error: string | null;
  last_error_at: number | null;
  last_delivered_at: number | null;
  delivered_events: Generated<number>;
  /** The process sending for it, until lease_until (epoch ms). */
  lease_owner: string | null;
  lease_until: number | null;
  created_on: number;
  created_by: string;
  updated_on: number;
}

/** Per store, a version of which store products it has (migration 0015 triggers). */
export interface StoreProductVersionTable {
  store_id: number;
  version: number;
}

/** A product list type and what it is called (interface §2.1 `type_description`). */
export interface ProductListTypeTable {
  type: number;
  description: string;
}

/** Which list type a handheld module creates (interface §4.1 `module_id`). */
export interface ProductListModuleTable {
  module_id: number;
  type: number;
}

/** A store's product list (interface §2.1, §4.1; PRODUCT §8). */
export interface ProductListTable {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  name: string;
  type: number;
  module_id: number | null;
  app_username: string;
  allow_duplicates: Bool;
  /** JSON array of {key, value}. */
  free_fields: string;
  /** Set while the list is archived: out of the listing, lines kept. */
  archived_on: number | null;
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
}

/** A line of a product list; what it shows of the product is read from the master. */
export interface ProductListLineTable {
  list_id: number;
  /** 1-based position in the list; (list_id, line_no) is the key. */
  line_no: number;
  product_id: number;
  /** Thousandths, at least 1. */
  quantity: number;
  stock_pool: number | null;
}

/**
 * A loss photo (issue 43, migration 0032, docs/photos.md): named by the SHA-256 of its bytes
 * within its store; never changed once stored. `bytes` is a BLOB on SQLite and bytea on
 * PostgreSQL, a Buffer either way.
 */
export interface PhotoTable {
  store_number: string;
  /** Lower-case hex SHA-256 of `bytes`. */
  sha256: string;
  /** image/jpeg, image/png or image/webp, as the bytes are. */
  content_type: string;
  bytes: Buffer;
  byte_size: number;
  created_on: number;
  created_by: string;
}

/**
 * A counting assignment (PRODUCT §10, migration 0033): its scope as sent (JSON), its rules,
 * status and progress counters (thousandths; value in money to 4 decimals).
 */
export interface CountingAssignmentTable {
  id: Generated<number>;
  store_id: number;
  store_number: string;
  counting_assignment_code: string | null;
  description: string | null;
  /** JSON of the scope as sent: {counting_assignment_code?, product_numbers?, category_codes?, location_codes?, whole_store?}. */
  scope: string;
  blind: Bool;
  kind: string;
  zero_reason_code: number | null;
  max_variance_quantity: number | null;
  max_variance_value: number | null;
  /** Thousandths of a percent. */
  max_variance_percent: number | null;
  due_at: number | null;
  allow_extra_lines: Bool;
  /** open, counting, submitted, closed, cancelled. */
  status: string;
  lines_total: number;
  lines_counted: number;
  lines_pending: number;
  variance_quantity: number;
  variance_value: number;
  started_at: number | null;
  submitted_at: number | null;
  closed_at: number | null;
  cancelled_at: number | null;
  created_on: number;
  updated_on: number;
  created_by: string;
  modified_by: string;
}

/** A line of a counting assignment: one balance (location_id 0: none), fixed at start. */
export interface CountingLineTable {
  id: Generated<number>;
  assignment_id: number;
  store_id: number;
  product_id: number;
  location_id: number;
  pool: number;
  is_extra: Bool;
  /** The level expected (thousandths): the balance at the start, or at an extra line's first count. */
  expected: number;
  /** The product's purchase price when the line was made (money, 4 decimals). */
  purchase_price: number | null;
  counted: number | null;
  counted_at: number | null;
  app_user_name: string | null;
  /** not_counted, counted, booked, pending, approved, rejected. */
  status: string;
  log_id: number | null;
  log_at: number | null;
  created_on: number;
  updated_on: number;
}

/** A product of a store held by the one assignment counting it (primary key store_id, product_id). */
export interface CountingClaimTable {
  store_id: number;
  product_id: number;
  assignment_id: number;
}
