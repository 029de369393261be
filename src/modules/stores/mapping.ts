import type { Insertable } from 'kysely';
import type { StoreTable } from '../../db/schema.js';
import { formatOptionalDateTime, requireDateTime } from '../../domain/datetime.js';
import { contentHash } from '../../shared/bulk.js';
import type { Store, StoreInput } from './schema.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import type { StoreRow } from './rows.js';

const POOLS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

type StoreRecord = Omit<
  Insertable<StoreTable>,
  'id' | 'created_on' | 'updated_on' | 'created_by' | 'modified_by' | 'deleted_on'
>;

const byOrder = <T extends { sort_order: number }>(items: readonly T[]) =>
  [...items].sort((a, b) => a.sort_order - b.sort_order);

/** Input → columns, normalised so that equal input gives an equal content hash. */
export function toStoreRecord(input: StoreInput): StoreRecord {
  const record: Omit<StoreRecord, 'content_hash'> = {
    store_number: input.store_number,
    store_name: input.store_name,
    is_active: input.is_active ? 1 : 0,
    is_active_data_exchange: input.is_active_data_exchange ? 1 : 0,
    is_warehouse: input.is_warehouse ? 1 : 0,
    address: orNull(input.address),
    area_description: orNull(input.area_description),
    area_id: orNull(input.area_id),
    city: orNull(input.city),
    contact_details: orNull(input.contact_details),
    cost_center: orNull(input.cost_center),
    country_code: orNull(input.country_code),
    country_name: orNull(input.country_name),
    esl_server_path: orNull(input.esl_server_path),
    invent_location: orNull(input.invent_location),
    ip_range_begin: orNull(input.ip_range_begin),
    ip_range_end: orNull(input.ip_range_end),
    legal_entity: orNull(input.legal_entity),
    local_server_path: orNull(input.local_server_path),
    phone_number: orNull(input.phone_number),
    postal_code: orNull(input.postal_code),
    store_gln: orNull(input.store_gln),
    store_next_delivery_datetime: input.store_next_delivery_datetime
      ? requireDateTime(input.store_next_delivery_datetime)
      : null,
    store_next_ordering_datetime: input.store_next_ordering_datetime
      ? requireDateTime(input.store_next_ordering_datetime)
      : null,
    store_type_code: orNull(input.store_type_code),
    store_type_description: orNull(input.store_type_description),
    secondary_key: orNull(input.secondary_key),
    tertiary_key: orNull(input.tertiary_key),
    warehouse_id: orNull(input.warehouse_id),
    area_manager_user_id: orNull(input.area_manager_user_id),
    price_line_id: orNull(input.price_line_id),
    stock_pool_names: JSON.stringify(POOLS.map((n) => input[`store_stock_pool_${n}`] ?? null)),
    free_fields: JSON.stringify(
      byOrder(input.free_fields ?? []).map((f) => [f.sort_order, f.key ?? null, f.value ?? null]),
    ),
    opening_hours: JSON.stringify(
      byOrder(input.opening_hours ?? []).map((f) => [f.sort_order, f.key ?? null, f.value ?? null]),
    ),
    ordering_schema: JSON.stringify(
      (input.ordering_schema ?? []).map((o) => [
        o.day,
        o.delivery_offset,
        o.ordering_offset,
        o.time,
        o.category_code ?? null,
        o.week_numbers ?? null,
      ]),
    ),
    store_printers: JSON.stringify(
      (input.store_printers ?? []).map((p) => [
        p.is_bluetooth,
        p.printer_type,
        p.printer_ip ?? null,
        p.printer_name ?? null,
        p.printer_serial ?? null,
        p.vendor ?? null,
      ]),
    ),
  };
  return { ...record, content_hash: contentHash(record) };
}

type Triple = [number, string | null, string | null];

/** Row → the read shape of §2.7 with the PRODUCT §6 mappings. */
export function toStore(row: StoreRow): Store {
  const poolNames = JSON.parse(row.stock_pool_names) as Array<string | null>;
  const openingHours = JSON.parse(row.opening_hours) as Triple[];
  const store: Store = {
    id: row.id,
    is_active: row.is_active === 1,
    is_active_data_exchange: row.is_active_data_exchange === 1,
    is_warehouse: row.is_warehouse === 1,
    area_description: orUndefined(row.area_description),
    area_id: orUndefined(row.area_id),
    city: orUndefined(row.city),
    cost_center: orUndefined(row.cost_center),
    country_code: orUndefined(row.country_code),
    country_name: orUndefined(row.country_name),
    esl_server_path: orUndefined(row.esl_server_path),
    ip_range_begin: orUndefined(row.ip_range_begin),
    ip_range_end: orUndefined(row.ip_range_end),
    local_server_path: orUndefined(row.local_server_path),
    opening_hours:
      openingHours.length === 0
        ? undefined
        : openingHours.map(([, key, value]) => `${key ?? ''} ${value ?? ''}`.trim()).join('; '),
    phone_number: orUndefined(row.phone_number),
    secondary_key: orUndefined(row.secondary_key),
    store_gln: orUndefined(row.store_gln),
    store_name: row.store_name,
    store_next_delivery_datetime: formatOptionalDateTime(row.store_next_delivery_datetime),
    store_next_ordering_datetime: formatOptionalDateTime(row.store_next_ordering_datetime),
    store_number: row.store_number,
    store_type_code: orUndefined(row.store_type_code),
    store_type_description: orUndefined(row.store_type_description),
    tertiary_key: orUndefined(row.tertiary_key),
    warehouse_id: orUndefined(row.warehouse_id),
    area_manager_user_id: orUndefined(row.area_manager_user_id),
    price_line_id: orUndefined(row.price_line_id),
    free_fields: (JSON.parse(row.free_fields) as Triple[]).map(([sort_order, key, value]) => ({
      label: orUndefined(key),
      sort_order,
      value: orUndefined(value),
    })),
    ordering_schema: (
      JSON.parse(row.ordering_schema) as Array<[number, number, number, string, string | null, string | null]>
    ).map(([day, delivery_offset, ordering_offset, time, category_code, week_numbers]) => ({
      day,
      delivery_offset,
      ordering_offset,
      time,
      category_code: orUndefined(category_code),
      week_numbers: orUndefined(week_numbers),
    })),
    printers: (JSON.parse(row.store_printers) as Array<[boolean, number, string | null, string | null]>).map(
      ([is_bluetooth, printer_type, printer_ip, printer_name]) => ({
        is_bluetooth,
        printer_ip: orUndefined(printer_ip),
        printer_name: orUndefined(printer_name),
        printer_type,
      }),
    ),
  };
  POOLS.forEach((n, index) => {
    const name = poolNames[index];
    if (name !== null && name !== undefined) (store as Record<string, unknown>)[`store_stock_pool_${n}`] = name;
  });
  return store;
}
