import type { AppContext } from './app-context.js';
import { importStores } from './modules/stores/service.js';
import type { StoreInput } from './modules/stores/schema.js';
import { importCategories } from './modules/categories/service.js';
import type { CategoryInput } from './modules/categories/schema.js';
import { importReasonCodes } from './modules/reason-codes/service.js';
import { REASON_CODE_TYPES, type ReasonCodeInput } from './modules/reason-codes/schema.js';
import { DEMO_PRODUCTS, seedProducts } from './modules/products/demo.js';
import { seedLocations } from './modules/locations/demo.js';
import { seedStoreProducts } from './modules/store-products/demo.js';
import { DEMO_REVIEW_REASONS, seedPendingReviews, seedStockHistory } from './modules/stock-logs/demo.js';
import { demoDeliveryNumber, seedDeliveries } from './modules/deliveries/demo.js';
import { DEMO_ORDER_REJECTION_REASON, demoOrderNumber, seedCustomerOrders } from './modules/customer-orders/demo.js';
import { STATUS } from './modules/customer-orders/schema.js';

const OPENING_HOURS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((day, index) => ({
  sort_order: index + 1,
  key: day,
  value: index < 5 ? '08:00-21:00' : index === 5 ? '09:00-18:00' : 'closed',
}));

/** Demo stores: two areas and a warehouse that serves both. */
export const DEMO_STORES: StoreInput[] = [
  {
    store_number: '1001',
    store_name: 'Amsterdam Centrum',
    city: 'Amsterdam',
    area_id: 'NH',
    area_description: 'Noord-Holland',
  },
  {
    store_number: '1002',
    store_name: 'Amsterdam Zuid',
    city: 'Amsterdam',
    area_id: 'NH',
    area_description: 'Noord-Holland',
  },
  { store_number: '1003', store_name: 'Haarlem', city: 'Haarlem', area_id: 'NH', area_description: 'Noord-Holland' },
  { store_number: '2001', store_name: 'Utrecht Centraal', city: 'Utrecht', area_id: 'UT', area_description: 'Utrecht' },
  { store_number: '2002', store_name: 'Amersfoort', city: 'Amersfoort', area_id: 'UT', area_description: 'Utrecht' },
].map((store) => ({
  ...store,
  is_active: true,
  is_active_data_exchange: true,
  is_warehouse: false,
  country_code: 'NL',
  country_name: 'Netherlands',
  store_stock_pool_1: 'Sales floor',
  store_stock_pool_2: 'Backroom',
  store_stock_pool_3: 'Damaged',
  opening_hours: OPENING_HOURS,
  free_fields: [{ sort_order: 1, key: 'manager', value: 'Demo Manager' }],
  ordering_schema: [{ day: 1, delivery_offset: 2, ordering_offset: 0, time: '14:00' }],
  store_printers: [{ is_bluetooth: true, printer_type: 1, printer_name: 'Handheld label printer' }],
}));

DEMO_STORES.push({
  store_number: '9001',
  store_name: 'Distribution Centre Utrecht',
  city: 'Nieuwegein',
  area_id: 'UT',
  area_description: 'Utrecht',
  is_active: true,
  is_active_data_exchange: true,
  is_warehouse: true,
  country_code: 'NL',
});

/** Demo category tree: two roots, children listed before their parents on purpose (any order works). */
export const DEMO_CATEGORIES: CategoryInput[] = [
  {
    category_code: 'DAIRY',
    category_name: 'Dairy',
    parent_category_code: 'FOOD',
    is_adjust_min_max: true,
    is_markdown: true,
    markdown_percentages: '25,50',
    expiration_offset: 2,
  },
  {
    category_code: 'BAKERY',
    category_name: 'Bakery',
    parent_category_code: 'FOOD',
    is_adjust_min_max: true,
    is_markdown: true,
    markdown_percentages: '30,50,70',
    expiration_offset: 1,
  },
  {
    category_code: 'CHEESE',
    category_name: 'Cheese',
    friendly_category_name: 'Cheese counter',
    parent_category_code: 'DAIRY',
    is_adjust_min_max: true,
    is_markdown: true,
    markdown_percentages: '35',
    expiration_offset: 5,
  },
  { category_code: 'FOOD', category_name: 'Food', is_adjust_min_max: true, is_markdown: false, receipt_offset: 1 },
  {
    category_code: 'HOUSEHOLD',
    category_name: 'Household',
    parent_category_code: 'NONFOOD',
    is_adjust_min_max: false,
    is_markdown: false,
  },
  {
    category_code: 'NONFOOD',
    category_name: 'Non-food',
    is_adjust_min_max: false,
    is_markdown: false,
    receipt_offset: 2,
  },
];

const reasonCode = (
  reason_code: number,
  description: string,
  type: number,
  flags: Partial<ReasonCodeInput> = {},
): ReasonCodeInput => ({
  reason_code,
  reason_code_description: description,
  reason_code_type: type,
  default_review_status: 0,
  is_comment_mandatory: false,
  is_gain: false,
  is_image_mandatory: false,
  is_loss: false,
  is_order_number_mandatory: false,
  is_picking_list: false,
  is_sales_order_discount: false,
  is_store: true,
  ...flags,
});

/** Demo reason codes: at least one of every reason_code_type 1–9 (interface §2.6). */
export const DEMO_REASON_CODES: ReasonCodeInput[] = [
  reasonCode(101, 'Damaged', REASON_CODE_TYPES.loss, { is_loss: true, is_image_mandatory: true, function_key: 'F1' }),
  reasonCode(102, 'Expired', REASON_CODE_TYPES.loss, { is_loss: true, function_key: 'F2' }),
  reasonCode(DEMO_REVIEW_REASONS.theft, 'Theft', REASON_CODE_TYPES.loss, {
    is_loss: true,
    is_comment_mandatory: true,
    default_review_status: 1,
    code_description: 'Needs a manager review',
  }),
  reasonCode(201, 'Delivery rejected: damaged', REASON_CODE_TYPES.rejection, { is_store: false }),
  reasonCode(DEMO_ORDER_REJECTION_REASON, 'Customer order rejected: product unavailable', REASON_CODE_TYPES.rejection),
  reasonCode(301, 'Move to backroom', REASON_CODE_TYPES.movement),
  reasonCode(401, 'Damaged packaging discount', REASON_CODE_TYPES.salesOrderDiscount, {
    is_sales_order_discount: true,
    is_order_number_mandatory: true,
  }),
  reasonCode(501, 'Chilled', REASON_CODE_TYPES.locationTags),
  reasonCode(601, 'Cycle count', REASON_CODE_TYPES.count),
  reasonCode(701, 'Found in store', REASON_CODE_TYPES.gainLoss, { is_gain: true }),
  reasonCode(702, 'Stock correction', REASON_CODE_TYPES.gainLoss, { is_rollback_allowed: true }),
  reasonCode(DEMO_REVIEW_REASONS.foundNeedsApproval, 'Found in backroom', REASON_CODE_TYPES.gainLoss, {
    is_gain: true,
    default_review_status: 1,
    code_description: 'Needs a manager review',
  }),
  reasonCode(801, 'Click and collect', REASON_CODE_TYPES.salesOrderType, { is_picking_list: true }),
  reasonCode(901, 'Regular delivery', REASON_CODE_TYPES.deliveryOrderType, { is_store: false }),
];

/** `store-ops seed`: demo data through the same services the API uses; re-running changes nothing. */
export async function seedDemoData(ctx: AppContext): Promise<string[]> {
  return [...(await seedData(ctx)), floorTasksLine(), tryLine()];
}

/** The floor tasks to try on the demo store's deliveries and orders (issue 43). */
function floorTasksLine(): string {
  const store = DEMO_STORES.find((s) => !s.is_warehouse)!.store_number;
  return `try a floor task in store ${store}: receive delivery ${demoDeliveryNumber(store, 'open')}, pick customer order ${demoOrderNumber(store, STATUS.new)}`;
}

/** What to type in the console first (issue 43): a store, a barcode to scan and a name to search. */
function tryLine(): string {
  const store = DEMO_STORES.find((s) => !s.is_warehouse)!;
  const product = DEMO_PRODUCTS[0]!;
  const word = product.product_name!.split(' ')[0]!.toLowerCase();
  return `try in the console (/console): store ${store.store_number}, scan ${product.barcode} (${product.product_name}), or type "${word}"`;
}

async function seedData(ctx: AppContext): Promise<string[]> {
  const shops = DEMO_STORES.filter((s) => !s.is_warehouse).map((s) => s.store_number);
  const withHistory = DEMO_PRODUCTS.slice(0, 12).map((p) => p.product_number);
  return [
    `stores: ${await importStores(ctx, { stores: DEMO_STORES }, false, 'seed')}`,
    `categories: ${await importCategories(ctx, { categories: DEMO_CATEGORIES }, false, 'seed')}`,
    `reason codes: ${await importReasonCodes(ctx, { reason_codes: DEMO_REASON_CODES }, false, 'seed')}`,
    ...(await seedProducts(ctx)),
    ...(await seedLocations(ctx, shops)),
    ...(await seedStoreProducts(ctx, shops)),
    ...(await seedStockHistory(ctx, shops, withHistory)),
    // After the history: the orders pick its shelf stock.
    ...(await seedDeliveries(ctx, shops)),
    ...(await seedCustomerOrders(ctx, shops)),
    // A review queue in the store the console suggests first (every store has the history's theft too).
    ...(await seedPendingReviews(ctx, shops[0]!, withHistory)),
  ];
}
