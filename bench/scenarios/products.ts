import { columnsOfRecords, productBarcodesTable, productsTable } from '../baselines/plain-tables.js';
import { postOk } from '../lib/client.js';
import { picker } from '../lib/data.js';
import { prepareImportVsRaw } from '../lib/import-session.js';
import { tempDir } from '../lib/processes.js';
import { Resources } from '../lib/resources.js';
import type { Scenario } from '../lib/scenario.js';
import { API, startService } from '../lib/service.js';
import { cannedBytesSession } from '../lib/throughput.js';

export const IMPORT_PRODUCTS = 10_000;
const PATH = `${API}/products`;

type Input = Record<string, any>;

const CATEGORIES = ['FRESH', 'FROZEN', 'DAIRY', 'BAKERY', 'DRY', 'NONFOOD'];
const BRANDS = ['HOUSE', 'PREMIUM', 'ACME', 'NORDIC', 'SUNNY'];
const COLORS = ['red', 'green', 'blue', 'white', 'black'];
const UNITS = ['piece', 'kg', 'litre'];

const ean = (index: number, variant: number) =>
  `87${String(variant).padStart(2, '0')}${String(index).padStart(9, '0')}`;

/**
 * One product as an ERP sends a full record (interface §4.9): ~40 scalar fields, two
 * alternative barcodes, two units with their own barcodes, four free fields.
 */
export function productInput(index: number, seed = 1): Input {
  const p = picker(seed * 1_000_003 + index);
  const price = p.int(50, 5000) / 100;
  return {
    product_number: `P${String(index + 1).padStart(7, '0')}`,
    product_name: `${p.pick(BRANDS)} product ${index + 1}`,
    product_description: `Description of product ${index + 1}, ${p.pick(COLORS)} edition`,
    carrier_item_quantity: p.pick([1, 6, 12, 24]),
    is_counted: p.chance(0.9),
    price_compare_multiplier: p.pick([1, 2, 10]),
    allow_decimal: p.chance(0.1),
    is_active: p.chance(0.95),
    is_stock: true,
    is_ordering: p.chance(0.9),
    is_promotion: p.chance(0.2),
    is_expiration: p.chance(0.3),
    average_weight: p.int(10, 5000) / 10,
    expiration_min_range: p.int(0, 30),
    general_ledger_account_number: p.int(8000, 8999),
    moq: p.int(1, 10),
    ioq: p.int(1, 24),
    price,
    promotion_price: Math.round(price * 80) / 100,
    purchase_price: Math.round(price * 55) / 100,
    purchase_unit_quantity: p.pick([6, 12, 24]),
    smallest_quantity: 1,
    barcode: ean(index, 0),
    base_unit_name: p.pick(UNITS),
    brand_code: p.pick(BRANDS),
    brand_description: `Brand ${p.pick(BRANDS)}`,
    category_code: p.pick(CATEGORIES),
    color: p.pick(COLORS),
    country_code: 'NL',
    image_url: `https://img.example.com/p/${index + 1}.jpg`,
    margin_category: `M${p.int(1, 5)}`,
    price_compare_unit: 'kg',
    price_lines: '1,2,3',
    product_type: 'regular',
    promotion_text: p.chance(0.2) ? '2 for 1' : undefined,
    promotion_week: `2026-${p.int(1, 52)}`,
    purchase_unit_name: 'case',
    size: p.pick(['S', 'M', 'L']),
    supplier_name: `Supplier ${p.int(1, 50)}`,
    supplier_number: `SUP-${p.int(1, 50)}`,
    supplier_product_number: `SP-${index + 1}`,
    attention_code: p.chance(0.3) ? ['NEW'] : [],
    stores_allowed: [],
    barcodes_array: [{ barcode: ean(index, 1) }, { barcode: ean(index, 2) }],
    units: [
      { unit_barcode: ean(index, 6), unit_name: 'tray', unit_quantity: 6 },
      { unit_barcode: ean(index, 24), unit_name: 'case', unit_quantity: 24 },
    ],
    free_fields: Array.from({ length: 4 }, (_, i) => ({
      sort_order: i + 1,
      key: `field_${i + 1}`,
      value: `value ${p.int(1, 100_000)}`,
    })),
  };
}

/** The request body of the import scenarios, built once: the same bytes every run. */
function importBody(count = IMPORT_PRODUCTS): { inputs: Input[]; body: string } {
  const inputs = Array.from({ length: count }, (_, index) => productInput(index));
  const body = JSON.stringify({ products: inputs });
  return { inputs: JSON.parse(body).products, body };
}

const IMPORT = 'products.import.10k';
const RESEND = 'products.import.10k.resend';
const WARMUP_PRODUCTS = 1_000;

/**
 * Issue 4: a 10,000-product import should cost at most three raw inserts of the same rows;
 * an identical re-send (PRODUCT §3: nothing changes, no product or barcode row written)
 * well under the first import — measured in the same runs, into the database the run's
 * first import filled.
 */
export const productsImport: Scenario = {
  name: IMPORT,
  description:
    `POST ${PATH} with ${IMPORT_PRODUCTS} new full products (5 barcodes, 2 units, 4 free fields each) over HTTP to a service started fresh ` +
    '(npm start, new file) for each run, against the raw writer process (JSON.parse of the same body text, better-sqlite3 prepared inserts in ' +
    'one transaction into plain tables: products with integer primary key + unique product_number, one column per field, nested arrays as JSON ' +
    'text; product_barcodes with integer primary key + unique barcode, one row per barcode; same synchronous mode)',
  unit: 'ms',
  valueLabel: 'service',
  baselineLabel: 'raw better-sqlite3, plain tables',
  baselineKind: 'raw-driver',
  defaultRuns: 5,
  target: {
    ratio: 3,
    comparison: '<=',
    description: `service import time ≤ 3 × raw prepared-statement inserts of the same ${IMPORT_PRODUCTS} products and their barcodes`,
  },
  companions: [
    {
      name: RESEND,
      description: `POST the identical ${IMPORT_PRODUCTS} full products a second time (nothing changes) against the first import of them, same run, same service and database`,
      unit: 'ms',
      valueLabel: 'service re-send',
      baselineLabel: 'first import',
      baselineKind: 'service',
      target: { ratio: 0.5, comparison: '<=', description: 'identical re-send ≤ 0.5 × the first import' },
    },
  ],

  prepare: () => {
    const { inputs, body } = importBody();
    return prepareImportVsRaw({
      label: 'products-import',
      path: PATH,
      entity: 'products',
      inputs,
      body,
      tables: [productsTable(columnsOfRecords(inputs, ['product_number'])), productBarcodesTable],
      warmupCount: WARMUP_PRODUCTS,
      resendName: RESEND,
    });
  },
};

/** The list reads a handful of products by number: index look-ups, so the catalogue size hardly matters. */
const LIST_CATALOGUE = 2_000;
const LIST_NUMBERS = 20;
const LIST = 'products.list.20numbers';

/** GET /products for 20 numbers, with prices and a discount per product to resolve. */
export const productsList: Scenario = {
  name: LIST,
  description:
    `GET ${PATH}?product_number=… (${LIST_NUMBERS} numbers, each with price records and a discount) on ${LIST_CATALOGUE} full products ` +
    'seeded over HTTP, against a bare Fastify route (own process) serving the same response bytes',
  unit: 'req/s',
  valueLabel: 'service',
  baselineLabel: 'bare fastify, same bytes',
  baselineKind: 'canned-bytes',
  defaultRuns: 3,
  target: {
    ratio: 0.5,
    comparison: '>=',
    description: 'service throughput ≥ 0.5 × a bare Fastify route serving the same JSON bytes (issue 15; 0.4 before)',
  },

  prepare: () =>
    new Resources().preparing(async (resources) => {
      const temp = resources.add(tempDir('products-list'), (t) => t.remove());
      const service = resources.add(await startService(temp.dir, 'service'), (s) => s.stop());
      const { inputs, body } = importBody(LIST_CATALOGUE);
      await postOk(service.baseUrl, PATH, body, `seeding ${LIST_CATALOGUE} products`);
      const numbers = Array.from({ length: LIST_NUMBERS }, (_, i) => inputs[i * 97]!.product_number as string);
      const prices = numbers.flatMap((number, i) => [
        {
          price_id: `CH-${number}`,
          product_number: number,
          price: 9.99,
          price_type: 1,
          valid_from: '2020-01-01T00:00:00Z',
          valid_to: '2100-01-01T00:00:00Z',
        },
        {
          price_id: `NL-${number}`,
          product_number: number,
          price: (899 + i) / 100,
          price_type: 1,
          country_code: 'NL',
          valid_from: '2024-01-01T00:00:00Z',
          valid_to: '2100-01-01T00:00:00Z',
        },
      ]);
      await postOk(service.baseUrl, `${PATH}/prices`, { prices }, 'seeding prices');
      const discounts = numbers.map((number) => ({
        is_delete: false,
        discount_id: `D-${number}`,
        product_number: number,
        price: 7.49,
      }));
      await postOk(service.baseUrl, `${PATH}/discountprices`, { discounts }, 'seeding discounts');

      return cannedBytesSession(resources, {
        dir: temp.dir,
        service,
        routePath: PATH,
        query: `?${numbers.map((n) => `product_number=${n}`).join('&')}`,
        check: (page) => {
          const records = page.json<{ records: Array<{ special_price?: number }> }>().records;
          if (records.length !== LIST_NUMBERS || records.some((r) => r.special_price !== 7.49))
            throw new Error('the seeded products do not read back priced');
        },
      });
    }),
};
