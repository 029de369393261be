import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { fromQuantity, toQuantity } from '../../domain/decimal.js';
import type { PoolNumber } from '../../domain/stock-rules.js';
import { bookEntries } from '../../ledger/book.js';
import { type IntakeLine, requireStore, resolveLines } from '../../ledger/intake.js';
import type { Ledger } from '../../ledger/ledger.js';
import { logRecord } from '../../db/log-record.js';
import { InsufficientStockError } from '../../ledger/postings.js';
import type { BookingLocation, EntryDraft } from '../../ledger/types.js';
import type { Principal } from '../../shared/access.js';
import { chunk } from '../../shared/bulk.js';
import { conflict, unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import type { MovementBody, MovementInput, MovementLocation, MovementQuery } from './schema.js';

/** Movement reason codes are type 3 (interface §2.6). */
const MOVEMENT_REASON_TYPE = 3;

const path = (index: number, field: string) => `body[${index}].${field}`;

/** Rules the request alone can break (400). */
function checkMoves(moves: readonly MovementInput[]): void {
  const errors: FieldError[] = [];
  moves.forEach((move, index) => {
    if (!move.product_number)
      errors.push({ path: path(index, 'product_number'), message: 'is required: the move must name its product' });
    if (toQuantity(move.quantity) <= 0) errors.push({ path: path(index, 'quantity'), message: 'must be more than 0' });
  });
  if (errors.length > 0) throw validationFailed('Some movements are invalid', errors);
}

interface Side {
  location?: BookingLocation;
  pool: PoolNumber;
  order?: MovementLocation;
}

function sideOf(spec: MovementLocation | undefined, location: BookingLocation | undefined): Side {
  return {
    location,
    pool: (spec?.stock_pool ?? location?.default_stock_pool ?? 1) as PoolNumber,
    order: spec?.customer_order_number ? spec : undefined,
  };
}

const sameStock = (a: Side, b: Side) =>
  a.location?.id === b.location?.id &&
  a.pool === b.pool &&
  (a.order?.customer_order_number ?? '') === (b.order?.customer_order_number ?? '');

/** What each move names, for the ledger's intake: product, reason, both sides' locations and orders. */
const intakeLines = (moves: readonly MovementInput[]): IntakeLine[] =>
  moves.map((move, index) => ({
    product: { key: move.product_number!, path: path(index, 'product_number') },
    // §4.11 sends the code as text (digits by the schema); reason codes are stored as numbers.
    reason:
      move.reason_code === undefined
        ? undefined
        : { key: Number(move.reason_code), sent: move.reason_code, path: path(index, 'reason_code') },
    locations: SIDES.map((side) => {
      const code = move[side]?.location_code;
      return code ? { key: code, path: path(index, `${side}.location_code`) } : undefined;
    }),
    // Stock bound to a customer order of the store moves only by that order's operations (PRODUCT §5).
    orderNumbers: SIDES.map((side) => ({
      orderNumber: move[side]?.customer_order_number,
      path: path(index, `${side}.customer_order_number`),
    })),
    source: { key: move.source, path: path(index, 'source') },
  }));

const SIDES = ['from_location', 'to_location'] as const;

async function draftMoves(
  trx: Transaction<Database>,
  ledger: Ledger,
  storeId: number,
  moves: readonly MovementInput[],
  query: MovementQuery,
  now: number,
): Promise<EntryDraft[]> {
  const resolution = await resolveLines(trx, ledger, storeId, intakeLines(moves), {
    reasonType: { type: MOVEMENT_REASON_TYPE, name: 'movement' },
  });
  // A move that moves nothing is a 400, reported for the moves before the first one that names unknown data.
  let named = resolution.refusals.length === 0;
  const sameSide: FieldError[] = [];
  const drafts: EntryDraft[] = [];
  moves.forEach((move, index) => {
    const { product, reason, locations, errors } = resolution.lines[index]!;
    named &&= errors.length === 0;
    if (!named) return;
    const [from, to] = SIDES.map((side, at) => sideOf(move[side], locations[at]));
    if (sameStock(from!, to!))
      sameSide.push({
        path: path(index, 'to_location'),
        message: 'is the same stock as from_location: nothing would move',
      });
    const quantityMilli = toQuantity(move.quantity);
    const leg = (side: Side, spec: MovementLocation | undefined, sign: 1 | -1): EntryDraft => ({
      product: product!,
      reason,
      at: now,
      onArrival: true,
      path: path(index, 'quantity'),
      isCount: false,
      pending: false,
      location: side.location,
      poolParts: [{ pool: side.pool, quantityMilli: sign * quantityMilli }],
      customerOrderNumber: side.order?.customer_order_number,
      guard: sign === -1 && move.allow_overage !== true ? { lineIndex: index } : undefined,
      record: logRecord({
        app_user_name: query.AppUserName,
        reference: move.reference,
        source: move.source,
        customer_order_line_number: spec?.customer_order_line_number,
        customer_order_shipment_number: spec?.customer_order_shipment_number,
        customer_order_shipment_line_number: spec?.customer_order_shipment_line_number,
      }),
    });
    drafts.push(leg(from!, move.from_location, -1), leg(to!, move.to_location, 1));
  });
  if (sameSide.length > 0) throw validationFailed('Some movements move nothing', sameSide);
  if (resolution.errors.length > 0)
    throw unprocessable('Some movements refer to unknown or unsuitable data', resolution.errors);
  return drafts;
}

/** Both legs of a move carry the out-leg's id as reference_id (PRODUCT §5 Movement). */
async function linkLegs(trx: Transaction<Database>, ids: readonly number[]): Promise<void> {
  for (const pairs of chunk(ids, 2_000)) {
    const cases = [];
    for (let i = 0; i < pairs.length; i += 2)
      cases.push(
        sql`when ${pairs[i]} then cast(${pairs[i]} as bigint) when ${pairs[i + 1]} then cast(${pairs[i]} as bigint)`,
      );
    await trx
      .updateTable('stock_logs')
      .set({ reference_id: sql<number>`case id ${sql.join(cases, sql` `)} end` })
      .where('id', 'in', pairs)
      .execute();
  }
}

/** POST /stores/{s}/storeproductlocation/movement (interface §4.11): atomic. */
export async function moveStock(
  ctx: AppContext,
  storeNumber: string,
  body: MovementBody,
  query: MovementQuery,
  by: Principal,
): Promise<string> {
  checkMoves(body.body);
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  try {
    return await inTransaction(ctx.handle, async (trx) => {
      const now = Date.now();
      const drafts = await draftMoves(trx, ctx.ledger, store.id, body.body, query, now);
      const ids = await bookEntries(trx, ctx.ledger, store, drafts, by, now);
      await linkLegs(trx, ids);
      return `moved ${body.body.length}`;
    });
  } catch (error) {
    if (error instanceof InsufficientStockError) {
      const move = body.body[error.lineIndex]!;
      throw conflict(`Move ${error.lineIndex} would take its source below zero; send allow_overage=true to allow it`, [
        {
          path: path(error.lineIndex, 'quantity'),
          message: `${move.quantity} requested, ${fromQuantity(Math.max(0, error.availableMilli))} available at the source`,
        },
      ]);
    }
    throw error;
  }
}
