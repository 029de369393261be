import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database } from '../../db/schema.js';
import { inListChunks } from '../../db/in-list.js';
import type { ReasonCodeRow } from './rows.js';
import { MAX_REASON_CODE } from './schema.js';

export interface ReasonCodeFilters {
  code?: number;
  codeDescription?: string;
  functionKey?: string;
  storeType?: string;
  isGain?: boolean;
  isLoss?: boolean;
  isStore?: boolean;
}

/** Codes per `in (…)` list: well below the parameter limit of either database. */
const CODES_PER_QUERY = 10_000;

/** Live reason codes matching every given filter, by code (interface §4.5). */
export function listReasonCodes(
  db: Kysely<Database>,
  dialect: Dialect,
  filters: ReasonCodeFilters,
): Promise<ReasonCodeRow[]> {
  let query = db.selectFrom('reason_codes').selectAll().where('deleted_on', 'is', null);
  if (filters.code !== undefined) query = query.where('reason_code', '=', filters.code);
  if (filters.functionKey !== undefined) query = query.where('function_key', '=', filters.functionKey);
  if (filters.storeType !== undefined) query = query.where('store_type', '=', filters.storeType);
  if (filters.isGain !== undefined) query = query.where('is_gain', '=', filters.isGain ? 1 : 0);
  if (filters.isLoss !== undefined) query = query.where('is_loss', '=', filters.isLoss ? 1 : 0);
  if (filters.isStore !== undefined) query = query.where('is_store', '=', filters.isStore ? 1 : 0);
  if (filters.codeDescription !== undefined && filters.codeDescription !== '') {
    const text = filters.codeDescription;
    query = query.where((eb) => dialect.containsInsensitive(eb.ref('code_description'), text));
  }
  return query.orderBy('reason_code').execute();
}

/**
 * The live reason codes among `codes`, keyed by code; a code absent from the map is
 * unknown or soft-deleted. For the stock writes that look codes up by number (sign
 * rules is_loss/is_gain, review default_review_status = 1, movement type 3, rejection
 * type 2 — PRODUCT §5). Pass the transaction when the check belongs to a write.
 */
export async function findReasonCodes(
  db: Kysely<Database>,
  codes: readonly number[],
): Promise<Map<number, ReasonCodeRow>> {
  const found = new Map<number, ReasonCodeRow>();
  // A number beyond the largest code names no code, and must not reach an int column (a movement's code is digits of any length).
  const possible = codes.filter((code) => Number.isInteger(code) && code >= 0 && code <= MAX_REASON_CODE);
  for (const codeChunk of inListChunks([...new Set(possible)], CODES_PER_QUERY)) {
    const rows = await db
      .selectFrom('reason_codes')
      .selectAll()
      .where('reason_code', 'in', codeChunk)
      .where('deleted_on', 'is', null)
      .execute();
    for (const row of rows) found.set(row.reason_code, row);
  }
  return found;
}
