import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import { fromQuantity, toQuantity } from '../../domain/decimal.js';
import type { PoolNumber } from '../../domain/stock-rules.js';
import type { Principal } from '../../shared/access.js';
import { chunk } from '../../shared/bulk.js';
import { conflict, unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { findBookingProducts } from '../products/repository.js';
import { MAX_REASON_CODE } from '../reason-codes/schema.js';
import { findReasonCodes } from '../reason-codes/repository.js';
import { bookEntries, type EntryDraft } from '../../ledger/book.js';
import { InsufficientStockError } from '../../ledger/postings.js';
import { orderNumberErrors, reservedSourceErrors } from '../customer-orders/bound-stock.js';
import { findLocationsByCodes, type LocationRef } from '../locations/repository.js';
import { requireLiveStore } from '../stores/repository.js';
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
  location?: LocationRef;
  pool: PoolNumber;
  order?: MovementLocation;
}

function sideOf(spec: MovementLocation | undefined, locations: ReadonlyMap<string, LocationRef>): Side {
  const location = spec?.location_code ? locations.get(spec.location_code) : undefined;
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

async function draftMoves(
  trx: Transaction<Database>,
  dialect: Dialect,
  storeId: number,
  moves: readonly MovementInput[],
  query: MovementQuery,
  now: number,
): Promise<EntryDraft[]> {
  const products = await findBookingProducts(
    trx,
    moves.map((m) => m.product_number!),
  );
  // §4.11 sends the code as text (digits by the schema); reason codes are stored as numbers.
  const reasonCodeOf = (move: MovementInput) => (move.reason_code === undefined ? undefined : Number(move.reason_code));
  // Digits beyond the largest code name no code (and must not reach an int column).
  const lookups = moves
    .map(reasonCodeOf)
    .filter((code): code is number => code !== undefined && code <= MAX_REASON_CODE);
  const reasons = await findReasonCodes(trx, lookups);
  const codes = moves
    .flatMap((m) => [m.from_location?.location_code, m.to_location?.location_code])
    .filter((c): c is string => !!c);
  const locations = await findLocationsByCodes(trx, storeId, codes);
  // Stock bound to a customer order of the store moves only by that order's operations (PRODUCT §5, customer-orders/bound-stock.ts).
  const errors: FieldError[] = [
    ...(await orderNumberErrors(
      trx,
      dialect,
      storeId,
      moves.flatMap((move, index) =>
        (['from_location', 'to_location'] as const).map((side) => ({
          orderNumber: move[side]?.customer_order_number,
          path: path(index, `${side}.customer_order_number`),
        })),
      ),
    )),
    ...reservedSourceErrors(moves.map((move, index) => ({ source: move.source, path: path(index, 'source') }))),
  ];
  const sameSide: FieldError[] = [];
  const drafts: EntryDraft[] = [];
  moves.forEach((move, index) => {
    const product = products.get(move.product_number!);
    const reason = move.reason_code === undefined ? undefined : reasons.get(reasonCodeOf(move)!);
    if (!product)
      errors.push({ path: path(index, 'product_number'), message: `unknown product '${move.product_number}'` });
    if (move.reason_code !== undefined && !reason)
      errors.push({ path: path(index, 'reason_code'), message: `unknown reason code ${move.reason_code}` });
    if (reason && reason.reason_code_type !== MOVEMENT_REASON_TYPE) {
      errors.push({
        path: path(index, 'reason_code'),
        message: `reason code ${reason.reason_code} is of type ${reason.reason_code_type}, not a movement code (type 3)`,
      });
    }
    for (const side of ['from_location', 'to_location'] as const) {
      const code = move[side]?.location_code;
      if (code && !locations.has(code))
        errors.push({
          path: path(index, `${side}.location_code`),
          message: `unknown location '${code}' in this store`,
        });
    }
    if (!product || errors.length > 0) return;
    const from = sideOf(move.from_location, locations);
    const to = sideOf(move.to_location, locations);
    if (sameStock(from, to))
      sameSide.push({
        path: path(index, 'to_location'),
        message: 'is the same stock as from_location: nothing would move',
      });
    const quantityMilli = toQuantity(move.quantity);
    const common = {
      product,
      reason,
      at: now,
      onArrival: true,
      path: path(index, 'quantity'),
      isCount: false,
      pending: false,
      appUserName: query.AppUserName,
      reference: move.reference,
      source: move.source,
    } satisfies Partial<EntryDraft>;
    const leg = (side: Side, spec: MovementLocation | undefined, sign: 1 | -1): EntryDraft => ({
      ...common,
      location: side.location,
      poolParts: [{ pool: side.pool, quantityMilli: sign * quantityMilli }],
      customerOrderNumber: side.order?.customer_order_number,
      customerOrderLineNumber: spec?.customer_order_line_number,
      customerOrderShipmentNumber: spec?.customer_order_shipment_number,
      customerOrderShipmentLineNumber: spec?.customer_order_shipment_line_number,
      guard: sign === -1 && move.allow_overage !== true ? { lineIndex: index } : undefined,
    });
    drafts.push(leg(from, move.from_location, -1), leg(to, move.to_location, 1));
  });
  if (sameSide.length > 0) throw validationFailed('Some movements move nothing', sameSide);
  if (errors.length > 0) throw unprocessable('Some movements refer to unknown or unsuitable data', errors);
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
  const store = await requireLiveStore(ctx.db, storeNumber);
  try {
    return await inTransaction(ctx.handle, async (trx) => {
      const now = Date.now();
      const drafts = await draftMoves(trx, ctx.dialect, store.id, body.body, query, now);
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
