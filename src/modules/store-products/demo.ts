import type { AppContext } from '../../app-context.js';
import { DEMO_PRODUCTS } from '../products/demo.js';
import { liveProductIds } from '../products/repository.js';
import type { StoreProductInput } from './schema.js';
import { upsertStoreProducts } from './service.js';

/** Min/max, an order level and a four-week sales history for the first demo products. */
function demoStoreProducts(productNumbers: readonly string[]): StoreProductInput[] {
  return productNumbers.map((product_number, index) => ({
    product_number,
    min: 2 + (index % 4),
    max: 12 + 2 * (index % 5),
    order_level: 4 + (index % 3),
    is_replenishment: true,
    is_promotion: index % 7 === 0,
    history_keys: ['W1', 'W2', 'W3', 'W4'],
    history_array: [10 + index, 12 + index, 9 + index, 11 + index],
    group_code: index % 2 === 0 ? 'FRESH' : 'DRY',
  }));
}

/** `store-ops seed`: store products for the demo assortment in the demo stores; re-running changes nothing. */
export async function seedStoreProducts(ctx: AppContext, storeNumbers: readonly string[]): Promise<string[]> {
  const wanted = DEMO_PRODUCTS.slice(0, 20).map((p) => p.product_number);
  const live = await liveProductIds(ctx.db, wanted);
  const products = wanted.filter((n) => live.has(n)).map((product_number) => ({ product_number }));
  if (products.length === 0) return [];
  const stores = await ctx.db
    .selectFrom('stores')
    .select('store_number')
    .where('store_number', 'in', [...storeNumbers])
    .where('deleted_on', 'is', null)
    .execute();
  const inputs = demoStoreProducts(products.map((p) => p.product_number));
  const lines: string[] = [];
  for (const { store_number } of stores) {
    lines.push(
      `store products ${store_number}: ${await upsertStoreProducts(ctx, store_number, { products: inputs }, 'PUT', 'seed')}`,
    );
  }
  return lines;
}
