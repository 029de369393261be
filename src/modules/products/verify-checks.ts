import { rowBatches } from '../../db/batches.js';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../shared/verify-types.js';
import { parseUnits, productHash, readDocument } from './mapping.js';
import type { ProductRow } from './rows.js';

/** Every product row, a batch at a time (verify may run on a large catalogue). */
async function* allProducts(handle: DbHandle): AsyncGenerator<ProductRow> {
  for await (const rows of rowBatches(handle.db, 'products')) yield* rows;
}

const JSON_COLUMNS = [
  'attention_code', 'countries_allowed', 'countries_not_allowed', 'promo_stores_allowed', 'promo_stores_not_allowed',
  'stores_allowed', 'stores_not_allowed', 'barcodes_array', 'free_fields', 'set_products', 'shelf_labels', 'units',
] as const;

function jsonArray(text: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Product invariants: the content hash and the read document match the stored content
 * (so an identical re-send is still recognised and reads show what is stored); every barcode a
 * live product carries resolves to it and to no other live product; every look-up row
 * points at a product; price windows are not empty.
 */
export const PRODUCT_CHECKS: VerifyCheck[] = [
  {
    name: 'products',
    async run(handle) {
      const violations: Violation[] = [];
      const said = (detail: string) => violations.push({ check: 'products', detail });
      const lookup = new Map(
        (await handle.db.selectFrom('product_barcodes').select(['barcode', 'product_id']).execute()).map((row) => [row.barcode, row.product_id]),
      );
      const liveClaims = new Map<string, string>();
      const ids = new Set<number>();
      for await (const row of allProducts(handle)) {
        ids.add(row.id);
        const broken = JSON_COLUMNS.filter((column) => jsonArray(row[column]) === undefined);
        for (const column of broken) said(`product '${row.product_number}' has malformed ${column}`);
        if (broken.length > 0) continue;
        if (row.content_hash !== productHash(row)) said(`product '${row.product_number}' has a content_hash that does not match its content`);
        if (row.read_document !== readDocument(row)) said(`product '${row.product_number}' has a read_document that does not match its content`);
        if (row.deleted_on !== null) continue;
        const barcodes = new Set<string>([
          ...(row.barcode === null ? [] : [row.barcode]),
          ...(JSON.parse(row.barcodes_array) as string[]),
          ...parseUnits(row).map(([barcode]) => barcode),
        ]);
        for (const barcode of barcodes) {
          const other = liveClaims.get(barcode);
          if (other !== undefined) said(`barcode '${barcode}' is on live products '${other}' and '${row.product_number}'`);
          liveClaims.set(barcode, row.product_number);
          if (lookup.get(barcode) !== row.id) said(`barcode '${barcode}' of product '${row.product_number}' does not resolve to it`);
        }
      }
      for (const [barcode, productId] of lookup) {
        if (!ids.has(productId)) said(`barcode '${barcode}' points at missing product id ${productId}`);
      }
      return violations;
    },
  },
  {
    name: 'product prices',
    async run(handle) {
      const prices = await handle.db.selectFrom('product_prices').select(['price_id', 'valid_from', 'valid_to']).whereRef('valid_from', '>=', 'valid_to').execute();
      const discounts = await handle.db
        .selectFrom('product_discounts')
        .select(['discount_key'])
        .where('valid_from', 'is not', null)
        .where('valid_to', 'is not', null)
        .whereRef('valid_from', '>=', 'valid_to')
        .execute();
      return [
        ...prices.map((p) => ({ check: 'product prices', detail: `price '${p.price_id}' is valid from ${p.valid_from} to ${p.valid_to}: an empty window` })),
        ...discounts.map((d) => ({ check: 'product prices', detail: `discount ${d.discount_key} has an empty validity window` })),
      ];
    },
  },
];
