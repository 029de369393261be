import { branchesOf, typesOf, type JsonSchema } from './openapi.js';

/**
 * A plausible value for a schema, so that hostile variants change one thing at a time
 * and reach past validation where they can. Names of natural keys resolve to the records
 * the test seeds, so requests touch existing data too.
 */
export const SEEDED: Record<string, string> = {
  store_number: 'S1',
  StoreNo: 'S1',
  store_no: 'S1',
  product_number: 'P1',
  article_number: 'P1',
  article_no: 'P1',
  location_code: 'L1',
  from_location_code: 'L1',
  to_location_code: 'L1',
  category_code: 'C1',
  parent_category_code: 'C1',
  barcode: 'B1',
  product_barcode: 'B1',
};

const DATE_TIME = '2024-01-01T00:00:00.000Z';
const LATER_DATE_TIME = '2100-01-01T00:00:00.000Z';

/** The branch of a union a plausible value takes: the first that is not null. */
export function mainBranch(schema: JsonSchema): JsonSchema {
  const branches = branchesOf(schema);
  return branches.find((branch) => !typesOf(branch).includes('null')) ?? branches[0]!;
}

/** The end of a period (`valid_to`, `to_modified_date`) lies after its start. */
const END_OF_PERIOD = /(^|_)(to|until|end)(_|$)/i;

export function exampleString(schema: JsonSchema, name: string | undefined): string {
  if (schema.format === 'date-time')
    return name !== undefined && END_OF_PERIOD.test(name) ? LATER_DATE_TIME : DATE_TIME;
  if (schema.format === 'date') return DATE_TIME.slice(0, 10);
  const candidates = [(name !== undefined ? SEEDED[name] : undefined) ?? `h-${name ?? 'value'}`, '1', 'A1', 'a'].map(
    (text) => {
      let fitted = text;
      if (schema.minLength !== undefined && fitted.length < schema.minLength)
        fitted = fitted.padEnd(schema.minLength, fitted.slice(-1));
      return schema.maxLength !== undefined ? fitted.slice(0, schema.maxLength) : fitted;
    },
  );
  // A field with a pattern (e.g. digits only) gets the first candidate that matches it.
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern, 'u');
  return candidates.find((text) => pattern?.test(text) ?? true) ?? candidates[0]!;
}

export function exampleNumber(schema: JsonSchema): number {
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -Infinity);
  const high = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : Infinity);
  return Math.min(Math.max(1, low), high);
}

/** `all`: every property (the richest request); otherwise only the required ones (the cheapest). */
export function exampleValue(schema: JsonSchema, options: { all: boolean }, name?: string): unknown {
  const branch = mainBranch(schema);
  if (branch.const !== undefined) return branch.const;
  if (branch.enum !== undefined) return branch.enum[0];
  const types = typesOf(branch);
  if (types.includes('object') || branch.properties !== undefined) {
    const value: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(branch.properties ?? {})) {
      if (options.all || branch.required?.includes(key)) value[key] = exampleValue(property, options, key);
    }
    return value;
  }
  if (types.includes('array')) {
    const count = Math.max(1, branch.minItems ?? 0);
    return Array.from({ length: count }, () => exampleValue(branch.items ?? {}, options, name));
  }
  if (types.includes('string')) return exampleString(branch, name);
  // A pool split must add up to the quantity (PRODUCT §3): everything in pool 1.
  if (name !== undefined && /^stock_pool_([2-9]|10)$/.test(name)) return 0;
  if (types.includes('integer') || types.includes('number')) return exampleNumber(branch);
  if (types.includes('boolean')) return false;
  return 'h';
}
