import { toQuantity } from '../../domain/decimal.js';
import type { FieldError } from '../../shared/validation.js';
import type { ProductInput } from './schema.js';

export type BarcodeKind = 'product' | 'array' | 'unit';

/** One barcode a product answers to, and what one scan of it counts (thousandths). */
export interface BarcodeClaim {
  barcode: string;
  kind: BarcodeKind;
  unitQuantityMilli: number;
  /** Where the request said so, for error messages. */
  path: string;
}

const ONE = 1000;

/**
 * The barcodes of one product: its own barcode, every barcodes_array barcode and every
 * unit barcode (PRODUCT §5 external counting: a unit barcode counts unit_quantity each).
 * A barcode repeated within the product counts once; it is an error only when the
 * repeats disagree on how many items one scan counts.
 */
export function barcodeClaims(input: ProductInput, index: number): { claims: BarcodeClaim[]; errors: FieldError[] } {
  const base = `products[${index}]`;
  const claims = new Map<string, BarcodeClaim>();
  const errors: FieldError[] = [];
  const claim = (next: BarcodeClaim) => {
    const earlier = claims.get(next.barcode);
    if (earlier === undefined) claims.set(next.barcode, next);
    else if (earlier.unitQuantityMilli !== next.unitQuantityMilli) {
      errors.push({
        path: next.path,
        message: `barcode '${next.barcode}' also appears at ${earlier.path} with another quantity per scan`,
      });
    }
  };
  if (input.barcode)
    claim({ barcode: input.barcode, kind: 'product', unitQuantityMilli: ONE, path: `${base}.barcode` });
  const array = input.barcodes_array ?? [];
  array.forEach((entry, j) => {
    if (entry.barcode)
      claim({
        barcode: entry.barcode,
        kind: 'array',
        unitQuantityMilli: ONE,
        path: `${base}.barcodes_array[${j}].barcode`,
      });
  });
  (input.units ?? []).forEach((unit, k) => {
    claim({
      barcode: unit.unit_barcode,
      kind: 'unit',
      unitQuantityMilli: toQuantity(unit.unit_quantity),
      path: `${base}.units[${k}].unit_barcode`,
    });
  });
  return { claims: [...claims.values()], errors };
}

/** Same barcode on two products of one request: 400 naming both paths (a rule of the request alone). */
export function crossProductBarcodeErrors(claimsByProduct: ReadonlyArray<readonly BarcodeClaim[]>): FieldError[] {
  const firstClaim = new Map<string, BarcodeClaim>();
  const errors: FieldError[] = [];
  for (const claims of claimsByProduct) {
    for (const claim of claims) {
      const earlier = firstClaim.get(claim.barcode);
      if (earlier === undefined) firstClaim.set(claim.barcode, claim);
      else errors.push({ path: claim.path, message: `barcode '${claim.barcode}' is also claimed by ${earlier.path}` });
    }
  }
  return errors;
}
