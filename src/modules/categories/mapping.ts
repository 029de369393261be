import type { Insertable } from 'kysely';
import type { CategoryTable } from '../../db/schema.js';
import { formatDateTime } from '../../domain/datetime.js';
import { contentHash } from '../../shared/bulk.js';
import { ROOT_CATEGORY_CODE, type Category, type CategoryInput } from './schema.js';
import { orNull, orUndefined } from '../../shared/nullable.js';
import type { CategoryRow } from './rows.js';

type CategoryRecord = Omit<
  Insertable<CategoryTable>,
  'id' | 'created_on' | 'updated_on' | 'created_by' | 'modified_by' | 'deleted_on'
>;

/** Input → columns, normalised so that equal input gives an equal content hash. */
export function toCategoryRecord(input: CategoryInput): CategoryRecord {
  const record: Omit<CategoryRecord, 'content_hash'> = {
    category_code: input.category_code,
    category_name: input.category_name,
    friendly_category_name: orNull(input.friendly_category_name),
    parent_category_code: input.parent_category_code ?? ROOT_CATEGORY_CODE,
    is_adjust_min_max: input.is_adjust_min_max ? 1 : 0,
    is_markdown: input.is_markdown ? 1 : 0,
    markdown_percentages: orNull(input.markdown_percentages),
    expiration_offset: orNull(input.expiration_offset),
    receipt_offset: orNull(input.receipt_offset),
  };
  return { ...record, content_hash: contentHash(record) };
}

/** Row → the read shape of PRODUCT §6 (Category read). */
export function toCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    category_code: row.category_code,
    category_name: row.category_name,
    friendly_category_name: orUndefined(row.friendly_category_name),
    parent_category_code: row.parent_category_code,
    is_adjust_min_max: row.is_adjust_min_max === 1,
    is_markdown: row.is_markdown === 1,
    markdown_percentages: orUndefined(row.markdown_percentages),
    expiration_offset: orUndefined(row.expiration_offset),
    receipt_offset: orUndefined(row.receipt_offset),
    created_on: formatDateTime(row.created_on),
    updated_on: formatDateTime(row.updated_on),
  };
}

const PERCENTAGE = /^(100(\.0{1,2})?|\d{1,2}(\.\d{1,2})?)$/;

/**
 * Parts of a markdown_percentages string that are not a percentage from 0 to 100
 * (at most 2 decimals, spaces around a part allowed). An empty string means none.
 */
export function invalidMarkdownPercentages(text: string): string[] {
  if (text.trim() === '') return [];
  return text.split(',').filter((part) => !PERCENTAGE.test(part.trim()));
}
