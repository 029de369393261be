import { rowBatches } from '../../db/batches.js';
import { inListChunks } from '../../db/in-list.js';
import type { DbHandle } from '../../db/dialect/types.js';
import type { VerifyCheck, Violation } from '../../db/verify-types.js';
import { parseUnits, productHash, readDocument } from './mapping.js';
import type { ProductRow } from './rows.js';

const MAX_LISTED = 1000;
const BARCODES_PER_QUERY = 5_000;

const JSON_COLUMNS = [
  'attention_code',
  'countries_allowed',
  'countries_not_allowed',
  'promo_stores_allowed',
  'promo_stores_not_allowed',
  'stores_allowed',
  'stores_not_allowed',
  'barcodes_array',
  'free_fields',
  'set_products',
  'shelf_labels',
  'units',
] as const;

function jsonArray(text: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Every barcode a product answers to: its own, barcodes_array, its units'. Its JSON columns parse. */
function barcodesOf(row: ProductRow): Set<string> {
  return new Set<string>([
    ...(row.barcode === null ? [] : [row.barcode]),
    ...(JSON.parse(row.barcodes_array) as string[]),
    ...parseUnits(row).map(([barcode]) => barcode),
  ]);
}

const wellFormed = (row: ProductRow) => JSON_COLUMNS.every((column) => jsonArray(row[column]) !== undefined);

/**
 * The barcodes of one batch of live products against the look-up table: each resolves to the
 * product that carries it. Two live products carrying one barcode show as one of them not
 * resolving (the look-up has one owner per barcode); when the owner is live and carries it
 * too, that is said as well. Reads the batch's barcodes and the few products they resolve to
 * instead: no map of every barcode of the catalogue, so memory follows the batch.
 */
async function checkBarcodes(
  handle: DbHandle,
  live: readonly ProductRow[],
  said: (detail: string) => void,
): Promise<void> {
  const claims = live.flatMap((row) => [...barcodesOf(row)].map((barcode) => ({ barcode, row })));
  const owners = new Map<string, number>();
  for (const part of inListChunks([...new Set(claims.map((c) => c.barcode))], BARCODES_PER_QUERY)) {
    const rows = await handle.db
      .selectFrom('product_barcodes')
      .select(['barcode', 'product_id'])
      .where('barcode', 'in', part)
      .execute();
    for (const row of rows) owners.set(row.barcode, Number(row.product_id));
  }
  const astray = claims.filter((c) => owners.get(c.barcode) !== c.row.id);
  const otherIds = [...new Set(astray.flatMap((c) => owners.get(c.barcode) ?? []))];
  const others = new Map<number, ProductRow>();
  for (const part of inListChunks(otherIds, BARCODES_PER_QUERY)) {
    for (const row of await handle.db.selectFrom('products').selectAll().where('id', 'in', part).execute())
      others.set(row.id, row);
  }
  for (const { barcode, row } of astray) {
    const other = others.get(owners.get(barcode) ?? 0);
    if (other && other.deleted_on === null && wellFormed(other) && barcodesOf(other).has(barcode)) {
      const [first, second] = other.id < row.id ? [other, row] : [row, other];
      said(`barcode '${barcode}' is on live products '${first.product_number}' and '${second.product_number}'`);
    }
    said(`barcode '${barcode}' of product '${row.product_number}' does not resolve to it`);
  }
}

/**
 * Product invariants: the content hash and the read document match the stored content
 * (so an identical re-send is still recognised and reads show what is stored); every barcode a
 * live product carries resolves to it and to no other live product; every look-up row
 * points at a product; price windows are not empty. A batch of products at a time (verify
 * may run on a large catalogue).
 */
export const PRODUCT_CHECKS: VerifyCheck[] = [
  {
    name: 'products',
    async run(handle) {
      const violations: Violation[] = [];
      const said = (detail: string) => violations.push({ check: 'products', detail });
      for await (const rows of rowBatches(handle.db, 'products')) {
        const live: ProductRow[] = [];
        for (const row of rows) {
          const broken = JSON_COLUMNS.filter((column) => jsonArray(row[column]) === undefined);
          for (const column of broken) said(`product '${row.product_number}' has malformed ${column}`);
          if (broken.length > 0) continue;
          if (row.content_hash !== productHash(row))
            said(`product '${row.product_number}' has a content_hash that does not match its content`);
          if (row.read_document !== readDocument(row))
            said(`product '${row.product_number}' has a read_document that does not match its content`);
          if (row.deleted_on === null) live.push(row);
        }
        await checkBarcodes(handle, live, said);
      }
      const orphans = await handle.db
        .selectFrom('product_barcodes as b')
        .leftJoin('products as p', 'p.id', 'b.product_id')
        .select(['b.barcode', 'b.product_id'])
        .where('p.id', 'is', null)
        .limit(MAX_LISTED)
        .execute();
      for (const orphan of orphans)
        said(`barcode '${orphan.barcode}' points at missing product id ${orphan.product_id}`);
      return violations;
    },
  },
  {
    name: 'product prices',
    async run(handle) {
      const prices = await handle.db
        .selectFrom('product_prices')
        .select(['price_id', 'valid_from', 'valid_to'])
        .whereRef('valid_from', '>=', 'valid_to')
        .limit(MAX_LISTED)
        .execute();
      const discounts = await handle.db
        .selectFrom('product_discounts')
        .select(['discount_key'])
        .where('valid_from', 'is not', null)
        .where('valid_to', 'is not', null)
        .whereRef('valid_from', '>=', 'valid_to')
        .limit(MAX_LISTED)
        .execute();
      return [
        ...prices.map((p) => ({
          check: 'product prices',
          detail: `price '${p.price_id}' is valid from ${p.valid_from} to ${p.valid_to}: an empty window`,
        })),
        ...discounts.map((d) => ({
          check: 'product prices',
          detail: `discount ${d.discount_key} has an empty validity window`,
        })),
      ];
    },
  },
];
