import type { AppContext } from '../../app-context.js';
import { logRecord } from '../../db/log-record.js';
import type { PoolPart } from '../../domain/stock-rules.js';
import { beyondLimit, valueAt, type VarianceLimits } from '../../domain/counting.js';
import { bookEntriesWithMoments, type EntryDraft } from '../../ledger/book.js';
import { requireStore } from '../../ledger/intake.js';
import type { Principal } from '../../shared/access.js';
import { unprocessable } from '../../shared/errors.js';
import * as repo from './repository.js';
import { assignmentFor, inStoreTurn, nextStamp } from './service.js';

const SOURCE = 'counting_assignment';

/**
 * POST …/{id}/submit (PRODUCT §10 Submission): every counted line becomes a count entry at its
 * own counted_at through the ledger — the level at that moment becomes the counted quantity and
 * whatever was booked later stays on top (docs/stock.md "Counts") — all of them in one booking.
 * A line whose variance against the level at its moment is beyond a limit is booked pending
 * (the review queue); a full count zeroes every uncounted line at the submission's moment with
 * its zero reason code. The assignment is closed at once when nothing is pending, else when the
 * review decides the last pending entry (migration 0033's trigger).
 */
export async function submitAssignment(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  by: Principal,
): Promise<{ ids: number[]; message: string }> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inStoreTurn(ctx, store, async (trx) => {
    const row = await assignmentFor(ctx, trx, store, id, 'submit');
    const now = Date.now();
    const { lookups } = ctx.ledger.policies;
    const full = row.kind === 'full';
    const reason =
      full && row.zero_reason_code !== null
        ? (await lookups.reasonCodes(trx, [row.zero_reason_code])).get(row.zero_reason_code)
        : undefined;
    if (full && !reason)
      throw unprocessable(`Counting assignment ${id} zeroes with reason code ${row.zero_reason_code}, which is gone`, [
        { path: 'zero_reason_code', message: `unknown reason code ${row.zero_reason_code}` },
      ]);

    const lines = await repo.allLines(trx, id);
    const booking = lines
      .filter((line) => line.counted !== null || full)
      .map((line) => ({
        line,
        zeroed: line.counted === null,
        counted: line.counted ?? 0,
        at: line.counted_at ?? now,
      }))
      .sort((a, b) => a.at - b.at || a.line.id - b.line.id);
    const levels = await repo.levelsAt(
      trx,
      ctx.dialect,
      store.id,
      booking.map(({ line, at }) => ({
        id: line.id,
        productId: line.product_id,
        locationId: line.location_id,
        pool: line.pool,
        at,
      })),
    );
    const products = await lookups.productsById(trx, [...new Set(booking.map((b) => b.line.product_id))]);
    const limits: VarianceLimits = {
      quantityMilli: row.max_variance_quantity,
      valueMoney: row.max_variance_value,
      percentMilli: row.max_variance_percent,
    };
    const drafts = booking.map(({ line, zeroed, counted, at }, index): EntryDraft => {
      const pending =
        beyondLimit(counted, levels.get(line.id) ?? 0, line.purchase_price, limits) ||
        (zeroed && reason?.default_review_status === 1);
      return {
        product: products.get(line.product_id)!,
        location: line.location_id === 0 ? undefined : { id: line.location_id, location_code: line.location_code! },
        reason: zeroed ? reason : undefined,
        at,
        isCount: true,
        poolParts: [{ pool: line.pool as PoolPart['pool'], quantityMilli: counted }],
        pending,
        path: `lines[${line.id}].counted_quantity`,
        atPath: `lines[${line.id}].counted_at`,
        record: logRecord({
          source: SOURCE,
          app_user_name: zeroed ? undefined : line.app_user_name,
          counting_assignment_id: id,
          // The assignment's lines not yet booked once this entry is, in booking order (docs/counting.md).
          counting_lines_remaining: lines.length - index - 1,
        }),
      };
    });
    const booked = await bookEntriesWithMoments(trx, ctx.ledger, store, drafts, by, now);
    await repo.updateLines(
      trx,
      ctx.dialect,
      booking.map(({ line, counted, at }, index) => ({
        id: line.id,
        counted,
        countedAt: at,
        appUserName: line.app_user_name,
        status: drafts[index]!.pending ? 'pending' : 'booked',
        logId: booked.ids[index]!,
        logAt: booked.moments[index]!,
      })),
      now,
    );
    await repo.releaseClaims(trx, id);

    const pending = drafts.filter((d) => d.pending).length;
    let variance = row.variance_quantity;
    let value = row.variance_value;
    for (const { line, zeroed } of booking) {
      if (!zeroed) continue;
      variance -= line.expected;
      value += valueAt(-line.expected, line.purchase_price);
    }
    await repo.updateAssignment(trx, id, {
      status: pending > 0 ? 'submitted' : 'closed',
      submitted_at: now,
      closed_at: pending > 0 ? null : now,
      lines_counted: row.lines_counted + booking.filter((b) => b.zeroed).length,
      lines_pending: pending,
      variance_quantity: variance,
      variance_value: value,
      updated_on: nextStamp(row, now),
      modified_by: by.name,
    });
    const zeroed = booking.filter((b) => b.zeroed).length;
    return {
      ids: booked.ids,
      message: `booked ${booked.ids.length}: counted ${booking.length - zeroed}, zeroed ${zeroed}, pending review ${pending}`,
    };
  });
}
