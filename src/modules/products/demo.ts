import type { AppContext } from '../../app-context.js';
import { servicePrincipal } from '../../shared/access.js';
import { importDiscounts } from './discounts/service.js';
import type { DiscountInput } from './discounts/schema.js';
import { liveStoreNumbers } from './prices/repository.js';
import { importPrices } from './prices/service.js';
import type { PriceInput } from './prices/schema.js';
import type { ProductInput } from './schema.js';
import { importProducts } from './service.js';

/** [name, category code (the demo categories, when seeded), price, tray size or 0]. */
const ASSORTMENT: Array<[string, string, number, number]> = [
  ['Whole milk 1L', 'DAIRY', 1.29, 12],
  ['Semi-skimmed milk 1L', 'DAIRY', 1.19, 12],
  ['Greek yoghurt 500g', 'DAIRY', 2.49, 6],
  ['Butter 250g', 'DAIRY', 2.99, 0],
  ['Cream 200ml', 'DAIRY', 1.09, 0],
  ['Gouda young 500g', 'CHEESE', 5.49, 0],
  ['Gouda aged 500g', 'CHEESE', 6.99, 0],
  ['Brie 200g', 'CHEESE', 3.79, 0],
  ['Goat cheese 150g', 'CHEESE', 3.29, 0],
  ['Edam slices 300g', 'CHEESE', 3.49, 8],
  ['White bread', 'BAKERY', 1.89, 0],
  ['Whole wheat bread', 'BAKERY', 2.19, 0],
  ['Croissants 4 pcs', 'BAKERY', 2.49, 0],
  ['Baguette', 'BAKERY', 1.29, 0],
  ['Rye bread', 'BAKERY', 2.69, 0],
  ['Apples 1kg', 'FOOD', 2.29, 0],
  ['Bananas 1kg', 'FOOD', 1.79, 0],
  ['Pasta 500g', 'FOOD', 1.15, 20],
  ['Rice 1kg', 'FOOD', 2.05, 10],
  ['Olive oil 500ml', 'FOOD', 5.95, 6],
  ['Tomato sauce 400g', 'FOOD', 1.39, 12],
  ['Coffee beans 1kg', 'FOOD', 12.99, 0],
  ['Tea 20 bags', 'FOOD', 2.25, 0],
  ['Dish soap 500ml', 'HOUSEHOLD', 1.99, 12],
  ['Laundry detergent 2L', 'HOUSEHOLD', 9.49, 4],
  ['Paper towels 4 rolls', 'HOUSEHOLD', 3.29, 0],
  ['Toilet paper 8 rolls', 'HOUSEHOLD', 4.99, 0],
  ['Batteries AA 4 pcs', 'NONFOOD', 4.49, 0],
  ['Light bulb LED', 'NONFOOD', 3.99, 0],
  ['Umbrella', 'NONFOOD', 12.5, 0],
];

const productNumber = (index: number) => String(100001 + index);
const barcodeOf = (index: number, variant: number) =>
  `871${String(variant).padStart(2, '0')}${String(100001 + index).padStart(8, '0')}`;

/** ~30 demo products: barcodes, alternative barcodes, trays with unit barcodes, free fields. */
export const DEMO_PRODUCTS: ProductInput[] = ASSORTMENT.map(([name, category, price, tray], index) => ({
  product_number: productNumber(index),
  product_name: name,
  product_description: name,
  carrier_item_quantity: tray || 1,
  is_counted: true,
  price_compare_multiplier: 1,
  is_active: true,
  is_stock: true,
  allow_decimal: category === 'FOOD' && name.endsWith('1kg'),
  barcode: barcodeOf(index, 0),
  barcodes_array: index % 3 === 0 ? [{ barcode: barcodeOf(index, 1) }] : [],
  units: tray > 0 ? [{ unit_barcode: barcodeOf(index, 9), unit_name: `tray of ${tray}`, unit_quantity: tray }] : [],
  category_code: category,
  brand_code: index % 2 === 0 ? 'HOUSE' : 'PREMIUM',
  base_unit_name: 'piece',
  country_code: 'NL',
  price,
  purchase_price: Math.round(price * 6000) / 10000,
  supplier_number: index < 15 ? 'SUP-1' : 'SUP-2',
  supplier_name: index < 15 ? 'Fresh Supplies BV' : 'General Goods BV',
  free_fields: [{ sort_order: 1, key: 'origin', value: 'NL' }],
}));

const SEED_FROM = '2020-01-01T00:00:00Z';
const SEED_TO = '2100-01-01T00:00:00Z';

/** A chain price, a country price and a price only store 1001 charges. */
const DEMO_PRICES: PriceInput[] = [
  {
    price_id: 'DEMO-CHAIN-100001',
    product_number: '100001',
    price: 1.25,
    price_type: 1,
    valid_from: SEED_FROM,
    valid_to: SEED_TO,
  },
  {
    price_id: 'DEMO-NL-100006',
    product_number: '100006',
    price: 5.29,
    price_type: 1,
    country_code: 'NL',
    valid_from: SEED_FROM,
    valid_to: SEED_TO,
  },
  {
    price_id: 'DEMO-1001-100011',
    product_number: '100011',
    price: 1.79,
    price_type: 1,
    store_number: '1001',
    valid_from: SEED_FROM,
    valid_to: SEED_TO,
  },
];

const DEMO_DISCOUNTS: DiscountInput[] = [
  {
    is_delete: false,
    discount_id: 'DEMO-COFFEE',
    product_number: '100022',
    line_number: 1,
    price: 9.99,
    discount_description: 'Coffee week',
    valid_from: SEED_FROM,
    valid_to: SEED_TO,
  },
];

/** `store-ops seed`: the demo assortment through the same services the API uses; re-running changes nothing. */
export async function seedProducts(ctx: AppContext): Promise<string[]> {
  return [
    `products: ${await importProducts(ctx, { products: DEMO_PRODUCTS }, false, servicePrincipal('seed'))}`,
    // A store-scoped price needs store 1001; without the demo stores it is left out.
    `prices: ${await importPrices(ctx, { prices: await withKnownStores(ctx, DEMO_PRICES) }, 'seed')}`,
    `discounts: ${await importDiscounts(ctx, { discounts: DEMO_DISCOUNTS }, {}, 'seed')}`,
  ];
}

async function withKnownStores(ctx: AppContext, prices: PriceInput[]): Promise<PriceInput[]> {
  const stores = await liveStoreNumbers(
    ctx.db,
    prices.flatMap((price) => price.store_number ?? []),
  );
  return prices.filter((price) => price.store_number === undefined || stores.has(price.store_number));
}
