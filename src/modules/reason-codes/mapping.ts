import type { Insertable } from 'kysely';
import type { ReasonCodeTable } from '../../db/schema.js';
import { contentHash } from '../../shared/bulk.js';
import type { ReasonCode, ReasonCodeInput } from './schema.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import type { ReasonCodeRow } from './rows.js';

type ReasonCodeRecord = Omit<
  Insertable<ReasonCodeTable>,
  'id' | 'created_on' | 'updated_on' | 'created_by' | 'modified_by' | 'deleted_on'
>;

const bit = (value: boolean | undefined) => (value ? 1 : 0);

/** Input → columns, normalised so that equal input gives an equal content hash. */
export function toReasonCodeRecord(input: ReasonCodeInput): ReasonCodeRecord {
  const record: Omit<ReasonCodeRecord, 'content_hash'> = {
    reason_code: input.reason_code,
    reason_code_description: input.reason_code_description,
    code_description: orNull(input.code_description),
    reason_code_type: input.reason_code_type,
    default_review_status: input.default_review_status,
    is_comment_mandatory: bit(input.is_comment_mandatory),
    is_gain: bit(input.is_gain),
    is_image_mandatory: bit(input.is_image_mandatory),
    is_loss: bit(input.is_loss),
    is_order_number_mandatory: bit(input.is_order_number_mandatory),
    is_picking_list: bit(input.is_picking_list),
    is_rollback_allowed: bit(input.is_rollback_allowed),
    is_sales_order_discount: bit(input.is_sales_order_discount),
    is_store: bit(input.is_store),
    function_key: orNull(input.function_key),
    store_type: orNull(input.store_type),
  };
  return { ...record, content_hash: contentHash(record) };
}

/** Row → the read shape of §2.6 with the PRODUCT §6 mappings (the misspelling is binding). */
export function toReasonCode(row: ReasonCodeRow): ReasonCode {
  return {
    code: row.reason_code,
    description: row.reason_code_description,
    code_description: orUndefined(row.code_description),
    function_key: orUndefined(row.function_key),
    store_type: orUndefined(row.store_type),
    reason_code_type: row.reason_code_type,
    review_status: row.default_review_status,
    is_comment_mandatory: row.is_comment_mandatory === 1,
    is_gain: row.is_gain === 1,
    is_image_mandatory: row.is_image_mandatory === 1,
    is_loss: row.is_loss === 1,
    is_order_number_mandatory: row.is_order_number_mandatory === 1,
    is_picking_list: row.is_picking_list === 1,
    is_rollback_allowed: row.is_rollback_allowed === 1,
    is_sales_order_discsount: row.is_sales_order_discount === 1,
    is_store: row.is_store === 1,
  };
}
