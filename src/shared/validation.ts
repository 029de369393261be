import { Ajv, type ErrorObject, type KeywordDefinition, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { decimalPlaces } from '../domain/decimal.js';
import { isDateTime } from '../domain/datetime.js';

/** `maxDecimals: n` — a number with more decimals than the field's scale is refused (PRODUCT §3). */
const maxDecimalsKeyword: KeywordDefinition = {
  keyword: 'maxDecimals',
  type: 'number',
  schemaType: 'number',
  errors: true,
  validate: function validateDecimals(limit: number, value: number) {
    if (decimalPlaces(value) <= limit) return true;
    (validateDecimals as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      { keyword: 'maxDecimals', message: `must have at most ${limit} decimals`, params: { limit } },
    ];
    return false;
  },
};

function buildAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    ...options,
  });
  addFormats.default(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addKeyword(maxDecimalsKeyword);
  return ajv;
}

/**
 * Bodies are validated as sent (a string is not a number); query strings, params and
 * headers are text on the wire, so they are coerced ("50" → 50, a single value → array).
 */
export function createValidatorCompiler() {
  const bodyAjv = buildAjv({ coerceTypes: false });
  const textAjv = buildAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
}

export interface FieldError {
  path: string;
  message: string;
}

/** `/stores/17/store_number` → `stores[17].store_number`, the form PRODUCT §3 names. */
export function toFieldPath(instancePath: string, prefix?: string): string {
  let path = prefix ?? '';
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(key) ? `[${key}]` : path === '' ? key : `.${key}`;
  }
  return path;
}

const PART_PREFIX: Record<string, string | undefined> = {
  body: undefined,
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

/** Every failing field, by path; one entry per field and problem. */
export function toFieldErrors(errors: ErrorObject[], context: string | undefined): FieldError[] {
  const prefix = context ? PART_PREFIX[context] : undefined;
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors) {
    // anyOf/oneOf echo their branches' errors; the branch errors already say what is wrong.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    let path = toFieldPath(error.instancePath, prefix);
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      path = path === '' ? missing : `${path}.${missing}`;
    }
    const message = error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid');
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ path: path || (prefix ?? 'body'), message });
  }
  return result;
}
