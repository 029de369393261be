import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import type { AppContext } from '../../src/app-context.js';
import type { EntryBooking, NewLogRow, Posting } from '../../src/ledger/postings.js';
import { importProducts } from '../../src/modules/products/service.js';
import { productInput } from './factories.js';
import { servicePrincipal } from '../../src/shared/access.js';

/** Engine-level tests book as the service itself: every store. */
export const TEST_PRINCIPAL = servicePrincipal('test');

/** A product through the products service, for engine-level tests that need only its id. */
export async function insertBareProduct(ctx: AppContext, productNumber: string): Promise<number> {
  await importProducts(ctx, { products: [productInput(productNumber)] } as never, false, TEST_PRINCIPAL);
  const row = await ctx.db
    .selectFrom('products')
    .select('id')
    .where('product_number', '=', productNumber)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A bare stock_logs row for the posting engine to write with an entry's posting (engine-level tests). */
export function bareLogRow(storeId: number, productId: number, at: number, extra: Partial<NewLogRow> = {}): NewLogRow {
  const now = Date.now();
  return {
    store_id: storeId,
    store_number: 'S',
    product_id: productId,
    product_number: 'P',
    location_id: null,
    location_code: null,
    reason_code: null,
    reason_code_description: null,
    modification_at: at,
    is_count: 0,
    is_from_receipt: 0,
    quantity: 0,
    pool_quantities: '[]',
    counted_quantity: null,
    review_status: 0,
    is_applied: 1,
    reference_id: null,
    customer_order_number: null,
    customer_order_line_number: null,
    customer_order_shipment_number: null,
    customer_order_shipment_line_number: null,
    app_user_name: null,
    reference: null,
    source: null,
    remarks: null,
    exception_image: null,
    orderno: null,
    barcode: null,
    scanned_at: null,
    order_after_at: null,
    price: null,
    purchase_price: null,
    purchase_unit_quantity: null,
    created_on: now,
    updated_on: now,
    created_by: 'test',
    modified_by: 'test',
    ...extra,
  };
}

/** An entry of one posting on (store, product, location 0 or given, pool 1 or given), as applyEntries takes it. */
export function bareEntry(
  storeId: number,
  productId: number,
  posting: Omit<Posting, 'storeId' | 'productId'>,
  extra: Partial<NewLogRow> = {},
): EntryBooking {
  return {
    row: bareLogRow(storeId, productId, posting.at, {
      is_count: posting.isCount ? 1 : 0,
      quantity: posting.quantityMilli,
      counted_quantity: posting.isCount ? posting.quantityMilli : null,
      ...extra,
    }),
    postings: [{ storeId, productId, ...posting }],
  };
}

/**
 * Non-zero balances of a product as {"location|pool|order": quantity} ("-" for none),
 * optionally in one store: the shape stock tests compare against.
 */
export async function balancesOf(
  db: Kysely<Database>,
  productNumber: string,
  storeNumber?: string,
): Promise<Record<string, number>> {
  let query = db
    .selectFrom('stock_balances as b')
    .innerJoin('products as p', 'p.id', 'b.product_id')
    .leftJoin('locations as l', 'l.id', 'b.location_id')
    .select(['l.location_code', 'b.pool', 'b.order_key', 'b.quantity'])
    .where('p.product_number', '=', productNumber);
  if (storeNumber !== undefined) query = query.where('b.store_number', '=', storeNumber);
  const rows = await query.execute();
  return Object.fromEntries(
    rows
      .filter((r) => Number(r.quantity) !== 0)
      .map((r) => [`${r.location_code ?? '-'}|${r.pool}|${r.order_key || '-'}`, Number(r.quantity) / 1000]),
  );
}
