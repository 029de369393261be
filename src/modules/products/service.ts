import { requireDateTime } from '../../domain/datetime.js';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.js';
import { upsertByKey } from '../../db/bulk-upsert.js';
import type { Dialect } from '../../db/dialect/types.js';
import type { Database, ProductBarcodeTable } from '../../db/schema.js';
import type { ProductRow } from './rows.js';
import { inTransaction } from '../../db/transaction.js';
import { nextOldPrice } from '../../domain/pricing.js';
import { describeCounts, duplicateKeyErrors } from '../../shared/bulk.js';
import { unprocessable, validationFailed } from '../../shared/errors.js';
import { resolvePage } from '../../shared/paging.js';
import type { FieldError } from '../../shared/validation.js';
import { barcodeClaims, crossProductBarcodeErrors, type BarcodeClaim } from './barcodes.js';
import { productHash, readDocument, toProductItem, toProductRecord, type ProductRecord } from './mapping.js';
import { requireLiveStore } from '../stores/repository.js';
import { pricingOf } from './prices/effective.js';
import * as products from './repository.js';
import {
  ProductsQuery,
  type DeleteProductsBody,
  type ProductInput,
  type ProductsBody,
  type ProductsEnvelope,
} from './schema.js';
import { resetProductStock } from '../../ledger/reset.js';
import type { Principal } from '../../shared/access.js';
import { nextPricingChange } from './prices/repository.js';

interface PlannedProduct {
  index: number;
  input: ProductInput;
  record: ProductRecord & { content_hash: string };
  claims: BarcodeClaim[];
}

/** Everything checkable from the request alone (PRODUCT §3: 400 with every path). */
function planImport(body: ProductsBody): { planned: PlannedProduct[]; deletions: string[] } {
  const errors: FieldError[] = duplicateKeyErrors(body.products, (p) => p.product_number, 'products', 'product_number');
  const planned: PlannedProduct[] = [];
  const deletions: string[] = [];
  body.products.forEach((input, index) => {
    if (input.is_deleted === true) {
      deletions.push(input.product_number);
      return;
    }
    const { claims, errors: claimErrors } = barcodeClaims(input, index);
    errors.push(...claimErrors);
    // Completed in place rather than spread into a copy: a copy of a 90-column object per
    // product is a measurable share of an import (docs/decisions.md "product records in place").
    const record = toProductRecord(input) as PlannedProduct['record'];
    record.content_hash = productHash(record);
    planned.push({ index, input, record, claims });
  });
  errors.push(...crossProductBarcodeErrors(planned.map((p) => p.claims)));
  if (errors.length > 0) throw validationFailed('The products are invalid', errors);
  return { planned, deletions };
}

/**
 * A barcode held by a live product outside this request stays where it is: 422 naming
 * the line, the barcode and its owner. An integrator moves a barcode by sending both
 * products in one request; a soft-deleted owner gives it up. Returns the current owner
 * of every claimed barcode that has one.
 */
async function assertBarcodesFree(
  trx: Transaction<Database>,
  dialect: Dialect,
  toWrite: readonly PlannedProduct[],
  requestNumbers: ReadonlySet<string>,
): Promise<Map<string, products.BarcodeOwner>> {
  const claims = toWrite.flatMap((p) => p.claims.map((claim) => ({ claim, productNumber: p.input.product_number })));
  if (claims.length === 0) return new Map();
  const owners = new Map(
    (
      await products.barcodeOwners(
        trx,
        dialect,
        claims.map((c) => c.claim.barcode),
      )
    ).map((o) => [o.barcode, o]),
  );
  const errors: FieldError[] = [];
  for (const { claim, productNumber } of claims) {
    const owner = owners.get(claim.barcode);
    if (
      !owner ||
      owner.product_number === productNumber ||
      owner.deleted_on !== null ||
      requestNumbers.has(owner.product_number)
    )
      continue;
    errors.push({
      path: claim.path,
      message: `barcode '${claim.barcode}' belongs to product '${owner.product_number}'`,
    });
  }
  if (errors.length > 0) throw unprocessable('Some barcodes belong to other products', errors);
  return owners;
}

/** What the import reads of a stored product besides what upsertByKey decides on: its prices, for old_price. */
type StoredPrices = Pick<ProductRow, 'price' | 'old_price'>;
const STORED_PRICES: ReadonlyArray<keyof StoredPrices> = ['price', 'old_price'];

/**
 * Columns only a written product gets (upsertByKey `derived`), from the stored row the same
 * upsert read: a changed master price moves the previous one into old_price (PRODUCT §6),
 * and the read document follows the record.
 */
const DERIVED_COLUMNS = {
  columns: ['old_price', 'read_document'],
  values: (record: PlannedProduct['record'], stored: StoredPrices | undefined) => [
    stored === undefined ? null : nextOldPrice(stored.price, stored.old_price, record.price),
    readDocument(record),
  ],
};

/**
 * POST /products (interface §4.9): bulk upsert by product_number, atomic. Only products
 * whose content changed (or that come back from a soft delete) get their barcode rows
 * rewritten, so an identical re-send does little more than read. Product imports take
 * turns (`serialise`, docs/decisions.md "overlapping writers"): the stored state one reads
 * is the state it writes over, and what to write, its derived columns and its barcode
 * checks all come from upsertByKey's one read of it.
 */
export async function importProducts(
  ctx: AppContext,
  body: ProductsBody,
  flush: boolean,
  by: Principal,
): Promise<string> {
  const actor = by.name;
  const { planned, deletions } = planImport(body);
  const requestNumbers = new Set(body.products.map((p) => p.product_number));
  const now = Date.now();

  const counts = await inTransaction(
    ctx.handle,
    async (trx) => {
      const deleted = deletions.length === 0 ? [] : await products.softDeleteProducts(trx, deletions, now, actor);
      let owners = new Map<string, products.BarcodeOwner>();
      const result = await upsertByKey<PlannedProduct['record'], StoredPrices>(trx, ctx.dialect, {
        table: 'products',
        keyColumn: 'product_number',
        records: planned.map((p) => p.record),
        actor,
        now,
        flush,
        storedColumns: STORED_PRICES,
        derived: DERIVED_COLUMNS,
        beforeWrite: async (written) => {
          owners = await assertBarcodesFree(
            trx,
            ctx.dialect,
            written.map((w) => planned[w.index]!),
            requestNumbers,
          );
        },
      });

      const barcodeRows: ProductBarcodeTable[] = result.written.flatMap((w) => {
        const productId = result.idsByKey.get(w.record.product_number)!;
        return planned[w.index]!.claims.map((claim) => ({
          barcode: claim.barcode,
          product_id: productId,
          kind: claim.kind,
          unit_quantity: claim.unitQuantityMilli,
        }));
      });
      // Only products that existed can hold rows; only barcodes with another owner need freeing.
      const previousIds = new Set(result.written.flatMap((w) => w.stored?.id ?? []));
      const movedBarcodes = barcodeRows.filter((row) => {
        const owner = owners.get(row.barcode);
        return owner !== undefined && !previousIds.has(owner.product_id);
      });
      await products.replaceBarcodes(trx, ctx.dialect, {
        productIds: [...previousIds],
        barcodes: movedBarcodes.map((row) => row.barcode),
        rows: barcodeRows,
      });
      // is_reset_store_stock on a product that is written (new or changed): its stock in
      // every store goes to zero through the ledger. An identical re-send resets nothing.
      const resetIds = result.written
        .filter((w) => w.record.is_reset_store_stock === 1)
        .map((w) => result.idsByKey.get(w.record.product_number)!);
      await resetProductStock(trx, ctx.ledger, resetIds, by, now);
      return { ...result, deleted: result.deleted + deleted.length };
    },
    { serialise: ['products'] },
  );
  return describeCounts(counts);
}

/** GET /products (interface §4.9, §2.12): one query for the page, one each for its prices and discounts. */
/**
 * `onValidUntil` learns until when this answer stays right as time passes (the next start
 * or end of a price or discount of the page's products), for the list cache.
 */
export async function listProducts(
  ctx: AppContext,
  query: ProductsQuery,
  onValidUntil?: (at: number) => void,
): Promise<ProductsEnvelope> {
  // Paging clamps as PRODUCT §3.1; this envelope has no scroll_id (the schema declares none), so offset paging only.
  const window = resolvePage(query, ProductsQuery, 'products', ctx.cursors);
  const filters: products.ProductFilters = {
    productNumbers: query.product_number,
    updatedFrom: query.last_modified_date === undefined ? undefined : requireDateTime(query.last_modified_date),
  };
  const store =
    query.store_number === undefined ? undefined : await requireLiveStore(ctx.db, query.store_number, 'does not exist');
  const fetched = await products.pageOfProducts(ctx.db, filters, window);
  const rows = fetched.slice(0, window.pageSize);
  // A page with nothing after it, and something in it (or the first page), is the last one: it tells the total without counting.
  const lastPage = fetched.length <= window.pageSize && (rows.length > 0 || window.offset === 0);
  const total = lastPage ? window.offset + rows.length : await products.countProducts(ctx.db, filters);
  const now = Date.now();
  const [pricing, nextChange] = await Promise.all([
    pricingOf(ctx.db, rows, store, now),
    nextPricingChange(
      ctx.db,
      rows.map((r) => r.id),
      now,
    ),
  ]);
  onValidUntil?.(nextChange ?? Number.POSITIVE_INFINITY);
  return {
    page_number: window.pageStart,
    page_size: window.pageSize,
    total_record_count: total,
    records: rows.map((row) => toProductItem(row, pricing.get(row.id)!)),
  };
}

const MAX_LISTED_UNKNOWN = 50;

/**
 * DELETE /products: soft delete only — stock, logs and orders may refer to a product
 * (PRODUCT §3). Unknown or already deleted numbers are reported, not a failure.
 */
export async function deleteProducts(ctx: AppContext, body: DeleteProductsBody, actor: string): Promise<string> {
  const numbers = [...new Set(body.product_number)];
  const deleted = await inTransaction(
    ctx.handle,
    (trx) => products.softDeleteProducts(trx, numbers, Date.now(), actor),
    { serialise: ['products'] },
  );
  const deletedSet = new Set(deleted);
  const unknown = numbers.filter((n) => !deletedSet.has(n));
  if (unknown.length === 0) return `deleted ${deleted.length}`;
  const listed = unknown.slice(0, MAX_LISTED_UNKNOWN).join(', ');
  const more = unknown.length > MAX_LISTED_UNKNOWN ? ` and ${unknown.length - MAX_LISTED_UNKNOWN} more` : '';
  return `deleted ${deleted.length}; unknown: ${listed}${more}`;
}
