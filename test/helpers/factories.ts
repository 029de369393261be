import type { Static } from '@sinclair/typebox';
import type { CategoryInput as CategorySchema } from '../../src/modules/categories/schema.js';
import type { LocationInput as LocationSchema } from '../../src/modules/locations/schema.js';
import type { DiscountInput as DiscountSchema } from '../../src/modules/products/discounts/schema.js';
import type { PriceInput as PriceSchema } from '../../src/modules/products/prices/schema.js';
import type { ProductInput as ProductSchema } from '../../src/modules/products/schema.js';
import type { ReasonCodeInput as ReasonCodeSchema } from '../../src/modules/reason-codes/schema.js';
import type { StoreInput as StoreSchema } from '../../src/modules/stores/schema.js';

/** Records as the module schemas type them: a factory or override a schema would refuse does not compile. */
type StoreInput = Static<typeof StoreSchema>;
type CategoryInput = Static<typeof CategorySchema>;
type ReasonCodeInput = Static<typeof ReasonCodeSchema>;
type ProductInput = Static<typeof ProductSchema>;
type PriceInput = Static<typeof PriceSchema>;
type DiscountInput = Static<typeof DiscountSchema>;
type LocationInput = Static<typeof LocationSchema>;

/** Minimal valid records; tests spread overrides over them. */
export function storeInput(storeNumber: string, overrides: Partial<StoreInput> = {}): StoreInput {
  return {
    store_number: storeNumber,
    store_name: `Store ${storeNumber}`,
    is_active: true,
    is_active_data_exchange: true,
    is_warehouse: false,
    ...overrides,
  };
}

export function categoryInput(categoryCode: string, overrides: Partial<CategoryInput> = {}): CategoryInput {
  return {
    category_code: categoryCode,
    category_name: `Category ${categoryCode}`,
    is_adjust_min_max: false,
    is_markdown: false,
    ...overrides,
  };
}

/** Every field §4.5 requires, as a plain code with no sign, review or flags. */
export function reasonCodeInput(reasonCode: number, overrides: Partial<ReasonCodeInput> = {}): ReasonCodeInput {
  return {
    reason_code: reasonCode,
    reason_code_description: `Reason ${reasonCode}`,
    reason_code_type: 1,
    default_review_status: 0,
    is_comment_mandatory: false,
    is_gain: false,
    is_image_mandatory: false,
    is_loss: false,
    is_order_number_mandatory: false,
    is_picking_list: false,
    is_sales_order_discount: false,
    is_store: false,
    ...overrides,
  };
}

/**
 * A database that outlives one app, for restart tests: a temporary SQLite file, or a
 * PostgreSQL schema (dropped by the dialect's cleanup). Pass it as `databaseUrl`.
 */
export async function restartableDatabaseUrl(dialect: {
  name: string;
  freshDatabaseUrl(): Promise<string>;
}): Promise<string> {
  if (dialect.name !== 'sqlite') return dialect.freshDatabaseUrl();
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'store-ops-test-'));
  if (temporaryDirs.size === 0)
    process.once('exit', () => temporaryDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  temporaryDirs.add(dir);
  return `sqlite:${join(dir, 'db.sqlite')}`;
}
const temporaryDirs = new Set<string>();

/** Every field §4.9 requires of a product. */
export function productInput(productNumber: string, overrides: Partial<ProductInput> = {}): ProductInput {
  return {
    product_number: productNumber,
    product_name: `Product ${productNumber}`,
    carrier_item_quantity: 1,
    is_counted: true,
    price_compare_multiplier: 1,
    ...overrides,
  };
}

/** A price record of §4.9 valid from 2020 to 2100 unless overridden. */
export function priceInput(
  priceId: string,
  productNumber: string,
  price: number,
  overrides: Partial<PriceInput> = {},
): PriceInput {
  return {
    price_id: priceId,
    product_number: productNumber,
    price,
    price_type: 1,
    valid_from: '2020-01-01T00:00:00Z',
    valid_to: '2100-01-01T00:00:00Z',
    ...overrides,
  };
}

/** A discount line of §4.9 (not a delete) for a product. */
export function discountInput(
  productNumber: string,
  price: number,
  overrides: Partial<DiscountInput> = {},
): DiscountInput {
  return { is_delete: false, product_number: productNumber, price, ...overrides };
}

/** A location of PRODUCT §5 (Locations) with no tags or default pool unless overridden. */
export function locationInput(locationCode: string, overrides: Partial<LocationInput> = {}): LocationInput {
  return { location_code: locationCode, ...overrides };
}

/**
 * Overrides the schema's type does not allow, sent on purpose: wrong types and unknown
 * fields in hostile tests, numbers where an id's type says string in coercion tests.
 */
export const unchecked = (overrides: Record<string, unknown>): never => overrides as never;

/** One storeproductlog entry as a handheld posts it (§2.8), at `at` (epoch ms or ISO text). */
export function stockLogInput(
  productNumber: string,
  quantity: number,
  at: number | string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    product_number: productNumber,
    quantity,
    customer_order_line_number: 0,
    modification_datetime: typeof at === 'number' ? new Date(at).toISOString() : at,
    ...extra,
  };
}
