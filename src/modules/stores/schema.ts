import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import {
  BulkArray,
  DateTime,
  FlushQuery,
  Int,
  PageQueryProperties,
  PagedResponse,
  SmallArray,
  Str,
  TextId,
} from '../../shared/schemas.js';

const POOL_NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

const poolNameProperties = Object.fromEntries(
  POOL_NUMBERS.map((n) => [
    `store_stock_pool_${n}`,
    Type.Optional(Str(100, { description: `Name of stock pool ${n}` })),
  ]),
) as Record<`store_stock_pool_${(typeof POOL_NUMBERS)[number]}`, TOptional<TString>>;

const SortedPair = Type.Object({
  sort_order: Int(),
  key: Type.Optional(Str(255)),
  value: Type.Optional(Str(1000)),
});

/** One store as the ERP sends it (interface §4.7). */
export const StoreInput = Type.Object({
  store_number: TextId(64, { minLength: 1 }),
  store_name: Str(255, { minLength: 1 }),
  is_active: Type.Boolean(),
  is_active_data_exchange: Type.Boolean(),
  is_warehouse: Type.Boolean(),
  address: Type.Optional(Str(500)),
  area_description: Type.Optional(Str(255)),
  area_id: Type.Optional(TextId(64)),
  city: Type.Optional(Str(255)),
  contact_details: Type.Optional(Str(1000)),
  cost_center: Type.Optional(TextId(64)),
  country_code: Type.Optional(Str(3, { description: 'ISO 3166 country code' })),
  country_name: Type.Optional(Str(255)),
  esl_server_path: Type.Optional(Str(1000)),
  invent_location: Type.Optional(TextId(255)),
  ip_range_begin: Type.Optional(Str(64)),
  ip_range_end: Type.Optional(Str(64)),
  legal_entity: Type.Optional(TextId(255)),
  local_server_path: Type.Optional(Str(1000)),
  phone_number: Type.Optional(TextId(64)),
  postal_code: Type.Optional(TextId(32)),
  store_gln: Type.Optional(TextId(64)),
  store_next_delivery_datetime: Type.Optional(DateTime()),
  store_next_ordering_datetime: Type.Optional(DateTime()),
  ...poolNameProperties,
  store_type_code: Type.Optional(TextId(64)),
  store_type_description: Type.Optional(Str(255)),
  secondary_key: Type.Optional(TextId(255, { description: 'Extension: read back and filterable on GET /stores' })),
  tertiary_key: Type.Optional(TextId(255, { description: 'Extension: read back on GET /stores' })),
  warehouse_id: Type.Optional(TextId(64, { description: 'Extension: read back on GET /stores' })),
  area_manager_user_id: Type.Optional(Int()),
  price_line_id: Type.Optional(Int()),
  free_fields: Type.Optional(SmallArray(SortedPair, 200)),
  opening_hours: Type.Optional(SmallArray(SortedPair, 100)),
  ordering_schema: Type.Optional(
    SmallArray(
      Type.Object({
        day: Type.Integer({ minimum: 1, maximum: 7, description: '1 = Monday … 7 = Sunday' }),
        delivery_offset: Int({ minimum: -366, maximum: 366 }),
        ordering_offset: Int({ minimum: -366, maximum: 366 }),
        time: Str(16),
        category_code: Type.Optional(TextId(64)),
        week_numbers: Type.Optional(TextId(500)),
      }),
      500,
    ),
  ),
  store_printers: Type.Optional(
    SmallArray(
      Type.Object({
        is_bluetooth: Type.Boolean(),
        printer_type: Int(),
        printer_ip: Type.Optional(Str(64)),
        printer_name: Type.Optional(Str(255)),
        printer_serial: Type.Optional(TextId(255)),
        vendor: Type.Optional(Str(255)),
      }),
      100,
    ),
  ),
});
export type StoreInput = Static<typeof StoreInput>;

export const StoresBody = Type.Object({ stores: BulkArray(StoreInput) });
export type StoresBody = Static<typeof StoresBody>;
export const StoresImportQuery = FlushQuery;

/** One store as read (interface §2.7, PRODUCT §6 mappings). */
export const Store = Type.Object({
  id: Type.Integer(),
  is_active: Type.Boolean(),
  is_active_data_exchange: Type.Boolean(),
  is_warehouse: Type.Boolean(),
  area_description: Type.Optional(Type.String()),
  area_id: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  cost_center: Type.Optional(Type.String()),
  country_code: Type.Optional(Type.String()),
  country_name: Type.Optional(Type.String()),
  esl_server_path: Type.Optional(Type.String()),
  ip_range_begin: Type.Optional(Type.String()),
  ip_range_end: Type.Optional(Type.String()),
  local_server_path: Type.Optional(Type.String()),
  opening_hours: Type.Optional(Type.String({ description: '"key value" pairs in sort_order, joined by "; "' })),
  phone_number: Type.Optional(Type.String()),
  secondary_key: Type.Optional(Type.String()),
  store_gln: Type.Optional(Type.String()),
  store_name: Type.Optional(Type.String()),
  store_next_delivery_datetime: Type.Optional(Type.String()),
  store_next_ordering_datetime: Type.Optional(Type.String()),
  store_number: Type.Optional(Type.String()),
  ...Object.fromEntries(POOL_NUMBERS.map((n) => [`store_stock_pool_${n}`, Type.Optional(Type.String())])),
  store_type_code: Type.Optional(Type.String()),
  store_type_description: Type.Optional(Type.String()),
  tertiary_key: Type.Optional(Type.String()),
  warehouse_id: Type.Optional(Type.String()),
  area_manager_user_id: Type.Optional(Type.Integer()),
  price_line_id: Type.Optional(Type.Integer()),
  free_fields: Type.Optional(
    Type.Array(
      Type.Object({
        label: Type.Optional(Type.String()),
        sort_order: Type.Integer(),
        value: Type.Optional(Type.String()),
      }),
    ),
  ),
  ordering_schema: Type.Optional(
    Type.Array(
      Type.Object({
        day: Type.Integer(),
        delivery_offset: Type.Integer(),
        ordering_offset: Type.Integer(),
        time: Type.String(),
        category_code: Type.Optional(Type.String()),
        week_numbers: Type.Optional(Type.String()),
      }),
    ),
  ),
  printers: Type.Optional(
    Type.Array(
      Type.Object({
        is_bluetooth: Type.Boolean(),
        printer_ip: Type.Optional(Type.String()),
        printer_name: Type.Optional(Type.String()),
        printer_type: Type.Optional(Type.Integer()),
      }),
    ),
  ),
});
export type Store = Static<typeof Store>;

export const StoresQuery = Type.Object({
  is_warehouse: Type.Optional(Type.Boolean()),
  search_text: Type.Optional(
    Str(200, { description: 'Case-insensitive literal substring of store_number, store_name or city' }),
  ),
  secondary_key: Type.Optional(Str(255)),
  ...PageQueryProperties,
});
export type StoresQuery = Static<typeof StoresQuery>;

export const StoresPage = PagedResponse(Store);
