import type { AppContext } from '../../app-context.js';
import { upsertByKey } from '../../db/bulk-upsert.js';
import { inTransaction } from '../../db/transaction.js';
import { importFingerprint, importUnlessIdentical } from '../../db/versions.js';
import { describeCounts, duplicateKeyErrors } from '../../shared/bulk.js';
import { validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { toReasonCode, toReasonCodeRecord } from './mapping.js';
import * as reasonCodes from './repository.js';
import type { ReasonCode, ReasonCodesBody, ReasonCodesQuery } from './schema.js';

/**
 * POST /reasoncodes: bulk upsert by reason_code, atomic (interface §4.5). "flush flushes
 * existing reason codes" is a soft delete of those absent: stock logs keep referring to
 * them (PRODUCT §3), and sending one again restores it.
 */
export async function importReasonCodes(
  ctx: AppContext,
  body: ReasonCodesBody,
  flush: boolean,
  actor: string,
  bodyHash?: string,
): Promise<string> {
  const errors = [
    ...duplicateKeyErrors(body.reason_codes, (r) => String(r.reason_code), 'reason_codes', 'reason_code'),
    ...signErrors(body),
  ];
  if (errors.length > 0) throw validationFailed('Some reason codes are invalid', errors);
  const counts = await inTransaction(
    ctx.handle,
    (trx) =>
      importUnlessIdentical(trx, ctx.dialect, 'reason_codes', importFingerprint(bodyHash, flush), () =>
        upsertByKey(trx, ctx.dialect, {
          table: 'reason_codes',
          keyColumn: 'reason_code',
          records: body.reason_codes.map(toReasonCodeRecord),
          actor,
          now: Date.now(),
          flush,
        }),
      ),
    { serialise: ['reason_codes'] },
  );
  return describeCounts(counts);
}

/** A code that is both loss and gain leaves the sign of its entries undecidable (PRODUCT §5). */
function signErrors(body: ReasonCodesBody): FieldError[] {
  const errors: FieldError[] = [];
  body.reason_codes.forEach((reasonCode, index) => {
    if (reasonCode.is_gain && reasonCode.is_loss) {
      errors.push({
        path: `reason_codes[${index}].is_loss`,
        message: 'is_gain and is_loss cannot both be true: the sign of its stock entries would be undecidable',
      });
    }
  });
  return errors;
}

/** GET /reasoncodes (interface §4.5): a bare array, not paged, ordered by code. */
export async function listReasonCodes(ctx: AppContext, query: ReasonCodesQuery): Promise<ReasonCode[]> {
  const rows = await reasonCodes.listReasonCodes(ctx.db, ctx.dialect, {
    // The schema admits digits only; a number beyond any stored code simply matches none.
    code: query.code === undefined ? undefined : Number(query.code),
    codeDescription: query.code_description,
    functionKey: query.function_key,
    storeType: query.store_type,
    isGain: query.is_gain,
    isLoss: query.is_loss,
    isStore: query.is_store,
  });
  return rows.map(toReasonCode);
}
