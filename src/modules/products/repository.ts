import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../../db/dialect/types.js';
import { insertMany } from '../../db/insert-many.js';
import type { Database, ProductBarcodeTable } from '../../db/schema.js';
import { chunk } from '../../shared/bulk.js';
import type { BarcodeKind } from './barcodes.js';
import { columnIn, inListChunks, KEYS_PER_QUERY } from '../../db/in-list.js';
import { pageOf, type PageSlice } from '../../db/page.js';

import { PRODUCT_READ_COLUMNS, type BookingProductRow, type ProductReadRow, type ProductRow } from './rows.js';

export interface BarcodeOwner {
  barcode: string;
  product_id: number;
  product_number: string;
  deleted_on: number | null;
}

/**
 * Current owner of each of `barcodes` that has one, live or soft-deleted. The barcodes go
 * as rows sent with one statement (one probe of the barcode key each): an import claims
 * ~50,000, which as `in` lists were five queries of 10,000 parameters built one by one.
 */
export async function barcodeOwners(
  db: Kysely<Database>,
  dialect: Dialect,
  barcodes: readonly string[],
): Promise<BarcodeOwner[]> {
  if (barcodes.length === 0) return [];
  const { rows } = await sql<BarcodeOwner>`
    select b.barcode, b.product_id, p.product_number, p.deleted_on
    from ${dialect.rowsSource(
      'claimed',
      [{ name: 'barcode', type: 'text' }],
      barcodes.map((barcode) => [barcode]),
    )}
    join product_barcodes b on b.barcode = claimed.barcode
    join products p on p.id = b.product_id`.execute(db);
  return rows.map((row) => ({
    ...row,
    product_id: Number(row.product_id),
    deleted_on: row.deleted_on === null ? null : Number(row.deleted_on),
  }));
}

/**
 * Replaces the barcode rows of the written products (`productIds`: those that may hold
 * rows already) with `rows`. `barcodes` still held by another product — a soft-deleted
 * one, or one of this request that gave them up — move over.
 */
export async function replaceBarcodes(
  trx: Transaction<Database>,
  dialect: Dialect,
  change: { productIds: readonly number[]; barcodes: readonly string[]; rows: readonly ProductBarcodeTable[] },
): Promise<void> {
  for (const ids of chunk(change.productIds, KEYS_PER_QUERY)) {
    await trx.deleteFrom('product_barcodes').where('product_id', 'in', ids).execute();
  }
  for (const barcodes of chunk(change.barcodes, KEYS_PER_QUERY)) {
    await trx.deleteFrom('product_barcodes').where('barcode', 'in', barcodes).execute();
  }
  // Value arrays through insertMany: 40,000 barcodes of an import built no query tree.
  await insertMany(
    trx,
    dialect,
    'product_barcodes',
    ['barcode', 'product_id', 'kind', 'unit_quantity'],
    change.rows.map((row) => [row.barcode, row.product_id, row.kind, row.unit_quantity]),
  );
}

/** Soft-deletes the live products among `numbers`; returns the numbers it deleted. */
export async function softDeleteProducts(
  trx: Transaction<Database>,
  numbers: readonly string[],
  now: number,
  actor: string,
): Promise<string[]> {
  const deleted: string[] = [];
  for (const numberChunk of inListChunks(numbers, KEYS_PER_QUERY)) {
    const rows = await trx
      .updateTable('products')
      .set({ deleted_on: now, updated_on: now, modified_by: actor })
      .where('product_number', 'in', numberChunk)
      .where('deleted_on', 'is', null)
      .returning('product_number')
      .execute();
    deleted.push(...rows.map((row) => row.product_number));
  }
  return deleted;
}

/**
 * Locks the live products among `numbers` for a read-modify-write (a no-op update takes
 * the row locks on PostgreSQL and the write lock on SQLite, with no dialect branch),
 * then returns them whole.
 */
export async function lockLiveProducts(
  trx: Transaction<Database>,
  numbers: readonly string[],
): Promise<Map<string, ProductRow>> {
  const locked = new Map<string, ProductRow>();
  for (const numberChunk of inListChunks(numbers, KEYS_PER_QUERY)) {
    const rows = await trx
      .updateTable('products')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('product_number', 'in', numberChunk)
      .where('deleted_on', 'is', null)
      .returningAll()
      .execute();
    for (const row of rows) locked.set(row.product_number, row);
  }
  return locked;
}

export interface ProductFilters {
  productNumbers?: readonly string[];
  /** Epoch ms: records changed at or after it (last_modified_date). */
  updatedFrom?: number;
}

function live(db: Kysely<Database>, filters: ProductFilters) {
  let query = db.selectFrom('products').where('deleted_on', 'is', null);
  const productNumbers = filters.productNumbers;
  if (productNumbers !== undefined) query = query.where((eb) => columnIn(eb, 'product_number', productNumbers));
  if (filters.updatedFrom !== undefined) query = query.where('updated_on', '>=', filters.updatedFrom);
  return query;
}

export async function countProducts(db: Kysely<Database>, filters: ProductFilters): Promise<number> {
  const row = await live(db, filters)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function pageOfProducts(
  db: Kysely<Database>,
  filters: ProductFilters,
  window: PageSlice,
): Promise<ProductReadRow[]> {
  return pageOf(live(db, filters).select(PRODUCT_READ_COLUMNS), 'id', window).execute();
}

/** A live product a barcode resolves to (PRODUCT §5: product barcode, barcodes_array, unit barcodes). */
export interface BarcodeMatch {
  barcode: string;
  productId: number;
  productNumber: string;
  kind: BarcodeKind;
  /** Items one scan counts, in thousandths (1000 for product and barcodes_array barcodes). */
  unitQuantityMilli: number;
}

/** For later resources (stock by barcode, external counting lines): barcode → live product. */
export async function findProductsByBarcodes(
  db: Kysely<Database>,
  barcodes: readonly string[],
): Promise<Map<string, BarcodeMatch>> {
  const matches = new Map<string, BarcodeMatch>();
  for (const barcodeChunk of inListChunks([...new Set(barcodes)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('product_barcodes as b')
      .innerJoin('products as p', 'p.id', 'b.product_id')
      .select(['b.barcode', 'b.product_id', 'b.kind', 'b.unit_quantity', 'p.product_number'])
      .where('b.barcode', 'in', barcodeChunk)
      .where('p.deleted_on', 'is', null)
      .execute();
    for (const row of rows) {
      matches.set(row.barcode, {
        barcode: row.barcode,
        productId: row.product_id,
        productNumber: row.product_number,
        kind: row.kind,
        unitQuantityMilli: row.unit_quantity,
      });
    }
  }
  return matches;
}

/** For later resources: product_number → live product row; unknown and deleted numbers are absent. */
export async function findProductsByNumbers(
  db: Kysely<Database>,
  numbers: readonly string[],
): Promise<Map<string, ProductRow>> {
  const found = new Map<string, ProductRow>();
  for (const numberChunk of inListChunks([...new Set(numbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('products')
      .selectAll()
      .where('product_number', 'in', numberChunk)
      .where('deleted_on', 'is', null)
      .execute();
    for (const row of rows) found.set(row.product_number, row);
  }
  return found;
}

/** product_number → id of the live products among `numbers` (reference checks of prices, discounts). */
/**
 * Ids of the live products among `numbers`. Read from the product_number index alone (it
 * holds the id) minus the few soft-deleted ids of the partial `products_deleted` index: the
 * wide product rows are never read, which made resolving 5,000 numbers cost several times
 * more.
 */
export async function liveProductIds(db: Kysely<Database>, numbers: readonly string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const numberChunk of inListChunks([...new Set(numbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('products')
      .select(['id', 'product_number'])
      .where('product_number', 'in', numberChunk)
      .where('id', 'not in', (eb) =>
        eb.selectFrom('products as deleted').select('deleted.id').where('deleted.deleted_on', 'is not', null),
      )
      .execute();
    for (const row of rows) ids.set(row.product_number, Number(row.id));
  }
  return ids;
}

/** After an in-place change (attributes): the derived columns of each changed product. */
export interface DerivedColumns {
  id: number;
  contentHash: string;
  readDocument: string;
}

export async function writeDerived(trx: Transaction<Database>, changes: readonly DerivedColumns[]): Promise<void> {
  for (const batch of chunk(changes, 1000)) {
    const hashes = sql.join(
      batch.map((c) => sql`when ${c.id} then ${c.contentHash}`),
      sql` `,
    );
    const documents = sql.join(
      batch.map((c) => sql`when ${c.id} then ${c.readDocument}`),
      sql` `,
    );
    await trx
      .updateTable('products')
      .set({
        content_hash: sql<string>`case id ${hashes} else content_hash end`,
        read_document: sql<string>`case id ${documents} else read_document end`,
      })
      .where(
        'id',
        'in',
        batch.map((c) => c.id),
      )
      .execute();
  }
}

/**
 * product_number → the booking columns of live products: a narrow select, since stock
 * writes look up hundreds of products per request and the product row is wide.
 */
export async function findBookingProducts(
  db: Kysely<Database>,
  numbers: readonly string[],
): Promise<Map<string, BookingProductRow>> {
  const found = new Map<string, BookingProductRow>();
  for (const numberChunk of inListChunks([...new Set(numbers)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('products')
      .select(['id', 'product_number', 'barcode', 'price', 'purchase_price', 'purchase_unit_quantity'])
      .where('product_number', 'in', numberChunk)
      .where('deleted_on', 'is', null)
      .execute();
    for (const row of rows) found.set(row.product_number, row);
  }
  return found;
}

/**
 * id → the booking columns of products, deleted ones included: stock already announced on
 * a delivery line is still received after its product left the master (PRODUCT §3: nothing
 * stock refers to is hard-deleted).
 */
export async function findBookingProductsByIds(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, BookingProductRow>> {
  const found = new Map<number, BookingProductRow>();
  for (const idChunk of inListChunks([...new Set(ids)], KEYS_PER_QUERY)) {
    const rows = await db
      .selectFrom('products')
      .select(['id', 'product_number', 'barcode', 'price', 'purchase_price', 'purchase_unit_quantity'])
      .where('id', 'in', idChunk)
      .execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}
