import type { AppContext } from '../../app-context.js';
import { newestUpdatedOn, pageOf } from '../../db/page.js';
import { inTransaction } from '../../db/transaction.js';
import { formatDateTime, requireDateTime } from '../../domain/datetime.js';
import { addQuantities, checkedQuantity, fromQuantity, toQuantity } from '../../domain/decimal.js';
import type { Principal } from '../../shared/access.js';
import { chunk } from '../../shared/bulk.js';
import { unprocessable, validationFailed } from '../../shared/errors.js';
import type { FieldError } from '../../shared/validation.js';
import { pagedResponse, resolvePage, type PagedResult } from '../../shared/paging.js';
import { bookEntries, type EntryDraft } from '../../ledger/book.js';
import { requireStore } from '../../ledger/intake.js';
import { locatedLevelsAt } from '../../ledger/levels.js';
import { logRecord } from '../../db/log-record.js';
import { UnresolvedQuery, type ExternalCountingBody } from './schema.js';

const SOURCE = 'external_counting';
/** Columns of one unresolved_counting_lines insert row. */
const UNRESOLVED_COLUMNS = 7;

/**
 * Items a line counts, in thousandths: a unit barcode counts unit_quantity each. The product
 * of two thousandths can pass 2^53, where a double drops units: it is taken exactly in BigInt.
 * undefined when the items are not whole thousandths (0.001 scans of a 0.5 unit): PRODUCT §3
 * never rounds a quantity silently.
 */
function unitItems(countedMilli: number, unitQuantityMilli: number): number | undefined {
  const product = BigInt(countedMilli) * BigInt(unitQuantityMilli);
  return product % 1000n === 0n ? Number(product / 1000n) : undefined;
}

/** POST /externalcountinglines (interface §4.13, PRODUCT §5). */
export async function submitCountingLines(
  ctx: AppContext,
  body: ExternalCountingBody,
  principal: Principal,
): Promise<string> {
  if (!body.StoreNo)
    throw validationFailed('StoreNo is required', [
      { path: 'StoreNo', message: 'is required: the store that was counted' },
    ]);
  // StoreNo is a StoreRef: a store token that does not hold it was refused before (plugins/auth.ts).
  const store = await requireStore(ctx.ledger, ctx.db, body.StoreNo);
  const at = requireDateTime(body.CountingDateTime);
  const lines = body.Lines ?? [];

  return inTransaction(ctx.handle, async (trx) => {
    const now = Date.now();
    const { lookups } = ctx.ledger.policies;
    const matches = await lookups.productsByBarcode(
      trx,
      lines.flatMap((l) => (l.product_barcode ? [l.product_barcode] : [])),
    );
    // Lines of the same product add up; a unit barcode counts unit_quantity items per scan.
    // The product's counted total is a kept sum (PRODUCT §3 "Exact numbers"): 422 at the line that takes it out of range.
    const countedByProduct = new Map<number, number>();
    const firstLineOf = new Map<number, string>();
    const unresolved: Array<{ barcode: string; countedMilli: number }> = [];
    const inexact: FieldError[] = [];
    lines.forEach((line, index) => {
      const match = line.product_barcode ? matches.get(line.product_barcode) : undefined;
      const countedMilli = toQuantity(line.counted_quantity);
      if (!match) {
        unresolved.push({ barcode: line.product_barcode ?? '', countedMilli });
        return;
      }
      const path = `Lines[${index}].counted_quantity`;
      const site = { path, what: `the counted total of product '${match.productNumber}'` };
      const exactItems = unitItems(countedMilli, match.unitQuantityMilli);
      if (exactItems === undefined) {
        inexact.push({
          path,
          message: `${line.counted_quantity} × a unit of ${fromQuantity(match.unitQuantityMilli)} items has more than 3 decimals: a quantity is never rounded`,
        });
        return;
      }
      const items = checkedQuantity(exactItems, site);
      countedByProduct.set(match.productId, addQuantities(countedByProduct.get(match.productId) ?? 0, items, site));
      if (!firstLineOf.has(match.productId)) firstLineOf.set(match.productId, path);
    });

    if (inexact.length > 0)
      throw unprocessable('Some counting lines count a unit to more decimals than a quantity keeps', inexact);

    const productIds = [...countedByProduct.keys()];
    const numbers = new Map<number, string>();
    for (const match of matches.values()) numbers.set(match.productId, match.productNumber);
    const products = await lookups.productsByNumber(
      trx,
      productIds.map((id) => numbers.get(id)!),
    );
    const located = await locatedLevelsAt(trx, store.id, productIds, at);
    const drafts: EntryDraft[] = productIds.map((productId) => {
      const path = firstLineOf.get(productId)!;
      // The unlocated level the count books: what was counted less what is located (a level, so kept in range too).
      const level = checkedQuantity(countedByProduct.get(productId)! - (located.get(productId) ?? 0), {
        path,
        what: `the unlocated level of product '${numbers.get(productId)}' (counted less located stock)`,
      });
      return {
        product: products.get(numbers.get(productId)!)!,
        at,
        isCount: true,
        poolParts: [{ pool: 1, quantityMilli: level }],
        pending: false,
        path,
        atPath: 'CountingDateTime',
        record: logRecord({ source: SOURCE }),
      };
    });
    await bookEntries(trx, ctx.ledger, store, drafts, principal, now);

    const rows = unresolved.map((u) => ({
      store_id: store.id,
      store_number: store.store_number,
      barcode: u.barcode,
      counted_quantity: u.countedMilli,
      counting_at: at,
      received_on: now,
      created_by: principal.name,
    }));
    // One bound parameter per column and row: batches stay under the dialect's limit (SQLite: 32,766).
    for (const part of chunk(rows, Math.floor(ctx.dialect.maxParameters / UNRESOLVED_COLUMNS))) {
      await trx.insertInto('unresolved_counting_lines').values(part).execute();
    }
    return `counted ${drafts.length} products from ${lines.length} lines; unresolved ${unresolved.length}`;
  });
}

/** GET /stores/{s}/externalcountinglines/unresolved (PRODUCT §5). */
export async function listUnresolved(
  ctx: AppContext,
  storeNumber: string,
  query: UnresolvedQuery,
): Promise<PagedResult<{ barcode: string; counted_quantity: number; counting_datetime: string; received_on: string }>> {
  const store = await requireStore(ctx.ledger, ctx.db, storeNumber);
  const window = resolvePage(query, UnresolvedQuery, `unresolved_counting_lines:${store.id}`, ctx.cursors);
  const base = ctx.db.selectFrom('unresolved_counting_lines').where('store_id', '=', store.id);
  const [rows, total, lastModified] = await Promise.all([
    pageOf(base.selectAll(), 'id', window).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    newestUpdatedOn(base, 'received_on'),
  ]);
  return pagedResponse({
    window,
    rows,
    idOf: (row) => row.id,
    toItem: (row) => ({
      barcode: row.barcode,
      counted_quantity: fromQuantity(row.counted_quantity),
      counting_datetime: formatDateTime(row.counting_at),
      received_on: formatDateTime(row.received_on),
    }),
    totalCount: Number(total.n),
    lastModified,
    cursors: ctx.cursors,
  });
}
