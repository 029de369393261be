import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/schema.js';
import { applyCount, itemsCounted, valueAt } from '../../domain/counting.js';
import { requireDateTime } from '../../domain/datetime.js';
import { checkedQuantity, fromQuantity, toQuantity } from '../../domain/decimal.js';
import { requireStore } from '../../ledger/intake.js';
import type { BookingLocation, BookingStore } from '../../ledger/types.js';
import type { Principal } from '../../shared/access.js';
import { unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import * as repo from './repository.js';
import type { CountInput, CountsBody } from './schema.js';
import { assignmentFor, inStoreTurn, nextStamp, refuseClaimed } from './service.js';

/**
 * POST …/{id}/counts (PRODUCT §10 Counting): each count names its line by product (number or
 * any barcode), location and pool; a recount replaces the line's count, `mode: "add"` adds to
 * it; a line outside the assignment is a 422 naming the count, unless the assignment allows
 * extra lines. Counts apply in the order sent; the request is atomic.
 */

const path = (index: number, field?: string) => (field ? `counts[${index}].${field}` : `counts[${index}]`);
const keyOf = (productId: number, locationId: number, pool: number) => `${productId}|${locationId}|${pool}`;

interface NamedCount {
  index: number;
  input: CountInput;
  productId: number;
  productNumber: string;
  purchasePrice: number | null;
  location: BookingLocation | undefined;
  pool: number;
  quantityMilli: number;
  at: number;
}

/** Rules the request alone can break (400). */
function checkCounts(counts: readonly CountInput[]): void {
  const errors: FieldError[] = [];
  counts.forEach((count, index) => {
    if (!count.product_number && !count.barcode)
      errors.push({
        path: path(index, 'product_number'),
        message: 'is required, or a barcode: the count names its product',
      });
  });
  if (errors.length > 0) throw validationFailed('Some counts are invalid', errors);
}

/** Each count's product, location and pool, or every field error at once (422). */
async function nameCounts(
  ctx: AppContext,
  trx: Transaction<Database>,
  store: BookingStore,
  counts: readonly CountInput[],
): Promise<NamedCount[]> {
  const { lookups } = ctx.ledger.policies;
  const byBarcode = await lookups.productsByBarcode(
    trx,
    counts.flatMap((c) => (!c.product_number && c.barcode ? [c.barcode] : [])),
  );
  const numbers = counts.map((c) => c.product_number || byBarcode.get(c.barcode ?? '')?.productNumber);
  const products = await lookups.productsByNumber(
    trx,
    numbers.flatMap((n) => (n ? [n] : [])),
  );
  const locations = await lookups.locations(
    trx,
    store.id,
    counts.flatMap((c) => (c.location_code ? [c.location_code] : [])),
  );
  const errors: FieldError[] = [];
  const named = counts.flatMap((input, index): NamedCount[] => {
    const number = numbers[index];
    const product = number ? products.get(number) : undefined;
    if (!product) {
      errors.push(
        input.product_number
          ? { path: path(index, 'product_number'), message: `unknown product '${input.product_number}'` }
          : { path: path(index, 'barcode'), message: `no product has barcode '${input.barcode}'` },
      );
    }
    const location = input.location_code ? locations.get(input.location_code) : undefined;
    if (input.location_code && !location)
      errors.push({
        path: path(index, 'location_code'),
        message: `unknown location '${input.location_code}' in this store`,
      });
    const scanned = toQuantity(input.counted_quantity);
    const unit = !input.product_number && input.barcode ? byBarcode.get(input.barcode)?.unitQuantityMilli : undefined;
    const items = itemsCounted(scanned, unit ?? 1000);
    if (items === undefined)
      errors.push({
        path: path(index, 'counted_quantity'),
        message: `${input.counted_quantity} × a unit of ${fromQuantity(unit!)} items has more than 3 decimals: a quantity is never rounded`,
      });
    if (!product || (input.location_code && !location) || items === undefined) return [];
    return [
      {
        index,
        input,
        productId: product.id,
        productNumber: product.product_number,
        purchasePrice: product.purchase_price,
        location,
        pool: input.pool ?? location?.default_stock_pool ?? 1,
        quantityMilli: checkedQuantity(items, { path: path(index, 'counted_quantity'), what: 'the counted quantity' }),
        at: requireDateTime(input.counted_at),
      },
    ];
  });
  if (errors.length > 0) throw unprocessable('Some counts refer to unknown data', errors);
  return named;
}

export async function postCounts(
  ctx: AppContext,
  storeNumber: string,
  id: number,
  body: CountsBody,
  by: Principal,
): Promise<string> {
  checkCounts(body.counts);
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  return inStoreTurn(ctx, store, async (trx) => {
    const row = await assignmentFor(ctx, trx, store, id, 'count');
    const now = Date.now();
    const counts = await nameCounts(ctx, trx, store, body.counts);
    const lines = new Map<string, repo.LineRow>();
    for (const line of await repo.linesOfProducts(
      trx,
      id,
      counts.map((c) => c.productId),
    ))
      lines.set(keyOf(line.product_id, line.location_id, line.pool), line);

    const extras = await addExtraLines(ctx, trx, store, row, counts, lines, now);
    const before = new Map<number, repo.LineRow>();
    const after = new Map<number, repo.LineRow>();
    let recounted = 0;
    let added = 0;
    for (const count of counts) {
      const stored = lines.get(keyOf(count.productId, count.location?.id ?? 0, count.pool))!;
      const line = after.get(stored.id) ?? stored;
      if (!before.has(line.id)) before.set(line.id, line);
      const mode = count.input.mode ?? 'replace';
      if (line.counted !== null && mode === 'add') added++;
      else if (line.counted !== null) recounted++;
      const next = applyCount(
        { countedMilli: line.counted, countedAt: line.counted_at },
        {
          quantityMilli: count.quantityMilli,
          at: count.at,
          mode,
        },
      );
      after.set(line.id, {
        ...line,
        counted: checkedQuantity(next.countedMilli, {
          path: path(count.index, 'counted_quantity'),
          what: `the counted total of product '${count.productNumber}'`,
        }),
        counted_at: next.countedAt,
        app_user_name: count.input.app_user_name ?? line.app_user_name,
        status: 'counted',
      });
    }
    const changed = [...after.values()];
    await repo.updateLines(
      trx,
      ctx.dialect,
      changed.map((line) => ({
        id: line.id,
        counted: line.counted,
        countedAt: line.counted_at,
        appUserName: line.app_user_name,
        status: line.status,
        logId: null,
        logAt: null,
      })),
      now,
    );
    // Progress moves by what these lines changed (exact integers; verify recomputes it from the lines).
    let newlyCounted = 0;
    let variance = 0;
    let value = 0;
    for (const line of changed) {
      const old = before.get(line.id)!;
      if (old.counted === null) newlyCounted++;
      const oldVariance = old.counted === null ? 0 : old.counted - old.expected;
      const newVariance = line.counted! - line.expected;
      variance += newVariance - oldVariance;
      value += valueAt(newVariance, line.purchase_price) - valueAt(oldVariance, old.purchase_price);
    }
    await repo.updateAssignment(trx, id, {
      lines_total: row.lines_total + extras,
      lines_counted: row.lines_counted + newlyCounted,
      variance_quantity: row.variance_quantity + variance,
      variance_value: row.variance_value + value,
      updated_on: nextStamp(row, now),
      modified_by: by.name,
    });
    return `counted ${counts.length}: lines ${changed.length}, recounted ${recounted}, added to ${added}, extra lines ${extras}`;
  });
}

/**
 * Counts of lines the assignment does not have: a 422 naming each, unless it allows extra lines
 * — then each becomes a line whose expected level is its balance's level at the count's moment
 * (nothing was snapshotted for it at the start), its product claimed like the others.
 */
async function addExtraLines(
  ctx: AppContext,
  trx: Transaction<Database>,
  store: BookingStore,
  row: repo.AssignmentRow,
  counts: readonly NamedCount[],
  lines: Map<string, repo.LineRow>,
  now: number,
): Promise<number> {
  const missing = new Map<string, NamedCount>();
  for (const count of counts) {
    const key = keyOf(count.productId, count.location?.id ?? 0, count.pool);
    if (!lines.has(key) && !missing.has(key)) missing.set(key, count);
  }
  if (missing.size === 0) return 0;
  const outside = [...missing.values()];
  if (row.allow_extra_lines !== 1) {
    throw unprocessable(
      `Some counts are of lines outside counting assignment ${row.id}, which allows no extra lines`,
      counts
        .filter((c) => missing.has(keyOf(c.productId, c.location?.id ?? 0, c.pool)))
        .map((c) => ({
          path: path(c.index),
          message: `product '${c.productNumber}' at ${c.location ? `location '${c.location.location_code}'` : 'no location'}, pool ${c.pool} is not a line of this assignment`,
        })),
    );
  }
  const productIds = [...new Set(outside.map((c) => c.productId))];
  const firstOf = new Map(outside.map((c) => [c.productId, c.index]));
  await refuseClaimed(ctx, trx, store, productIds, row.id, (productId) => path(firstOf.get(productId)!));
  const levels = await repo.levelsAt(
    trx,
    ctx.dialect,
    store.id,
    outside.map((c, i) => ({
      id: -1 - i,
      productId: c.productId,
      locationId: c.location?.id ?? 0,
      pool: c.pool,
      at: c.at,
    })),
  );
  const fresh = outside.map((c, i) => ({
    assignment_id: row.id,
    store_id: store.id,
    product_id: c.productId,
    location_id: c.location?.id ?? 0,
    pool: c.pool,
    is_extra: 1 as const,
    expected: levels.get(-1 - i) ?? 0,
    purchase_price: c.purchasePrice,
    counted: null,
    counted_at: null,
    app_user_name: null,
    status: 'not_counted',
    log_id: null,
    log_at: null,
    created_on: now,
    updated_on: now,
  }));
  const ids = await repo.insertLines(trx, ctx.dialect, fresh);
  const claimed = await repo.claimsOf(trx, store.id, productIds);
  await repo.insertClaims(
    trx,
    ctx.dialect,
    store.id,
    row.id,
    productIds.filter((p) => !claimed.has(p)),
  );
  fresh.forEach((line, i) =>
    lines.set(keyOf(line.product_id, line.location_id, line.pool), { ...line, id: ids[i]! } as repo.LineRow),
  );
  return fresh.length;
}
