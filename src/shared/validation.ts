import { Ajv, type ErrorObject, type KeywordDefinition, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { decimalPlaces } from '../domain/decimal.js';
import {
  EVENT_TIME_TOLERANCE_MS,
  formatDateTime,
  isDateTime,
  isFutureEvent,
  parseDateTime,
} from '../domain/datetime.js';
import { EVENT_TIME, INTEGER_AS_TEXT } from './schemas.js';

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

/**
 * `eventTime: true` on a date-time (shared/schemas.ts EventDateTime): the moment may not lie
 * more than EVENT_TIME_TOLERANCE_MS after the server's clock, read when each request is
 * validated (PRODUCT §3). A value that is no date-time at all is left to the format.
 */
const eventTimeKeyword: KeywordDefinition = {
  keyword: EVENT_TIME,
  type: 'string',
  schemaType: 'boolean',
  errors: true,
  validate: function validateEventTime(enabled: boolean, value: string) {
    if (!enabled) return true;
    const at = parseDateTime(value);
    const now = Date.now();
    if (at === undefined || !isFutureEvent(at, now)) return true;
    (validateEventTime as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      {
        keyword: EVENT_TIME,
        message: `lies in the future: an event time may be at most ${EVENT_TIME_TOLERANCE_MS / 60_000} minutes after the server's clock (${formatDateTime(now)})`,
        params: {},
      },
    ];
    return false;
  },
};

/** A JSON number a TextId field takes as its decimal text (see INTEGER_AS_TEXT in shared/schemas.ts). */
const isTextableInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * `integersAsText: [names]` on an object: those properties, when sent as integers, become
 * their text before `properties` checks them. Derived from the fields' own marker
 * (`withIntegersAsText`), never written by hand.
 */
const integersAsTextKeyword: KeywordDefinition = {
  keyword: 'integersAsText',
  type: 'object',
  schemaType: 'array',
  modifying: true,
  before: 'properties',
  validate: (names: string[], data: Record<string, unknown>) => {
    for (const name of names) {
      const value = data[name];
      if (isTextableInteger(value)) data[name] = String(value);
    }
    return true;
  },
};

/** `integerItemsAsText: true` on an array of TextId: the same for its items. */
const integerItemsAsTextKeyword: KeywordDefinition = {
  keyword: 'integerItemsAsText',
  type: 'array',
  schemaType: 'boolean',
  modifying: true,
  before: 'items',
  validate: (_enabled: boolean, data: unknown[]) => {
    data.forEach((value, index) => {
      if (isTextableInteger(value)) data[index] = String(value);
    });
    return true;
  },
};

type SchemaNode = Record<string, unknown> & {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
};

const isMarked = (schema: SchemaNode | undefined): boolean =>
  !!schema && (schema[INTEGER_AS_TEXT] === true || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(isMarked));

/**
 * A copy of a body schema where every object or array holding TextId fields carries the
 * keyword that converts them; the route's own schema (and so the OpenAPI document) is untouched.
 */
export function withIntegersAsText<T>(schema: T): T {
  const walk = (node: SchemaNode): SchemaNode => {
    if (typeof node !== 'object' || node === null) return node;
    const copy: SchemaNode = { ...node };
    if (node.properties) {
      copy.properties = Object.fromEntries(Object.entries(node.properties).map(([name, child]) => [name, walk(child)]));
      const names = Object.entries(node.properties)
        .filter(([, child]) => isMarked(child))
        .map(([name]) => name);
      if (names.length > 0) copy.integersAsText = names;
    }
    if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) {
      copy.items = walk(node.items);
      if (isMarked(node.items)) copy.integerItemsAsText = true;
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (node[key]) copy[key] = node[key]!.map(walk);
    return copy;
  };
  return walk(schema as SchemaNode) as T;
}

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
  ajv.addKeyword(eventTimeKeyword);
  ajv.addKeyword(integersAsTextKeyword);
  ajv.addKeyword(integerItemsAsTextKeyword);
  return ajv;
}

/**
 * Bodies are validated as sent (a string is not a number; only TextId fields take an
 * integer as its text); query strings, params and headers are text on the wire, so they
 * are coerced ("50" → 50, a single value → array).
 */
export function createValidatorCompiler() {
  const bodyAjv = buildAjv({ coerceTypes: false });
  const textAjv = buildAjv({ coerceTypes: 'array' });
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    httpPart === 'body' ? bodyAjv.compile(withIntegersAsText(schema)) : textAjv.compile(schema);
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

const PATTERN_MESSAGES = new Map<string, string>();

/**
 * A pattern with the sentence its failure shows instead of Ajv's `must match pattern "…"`,
 * which says nothing to a person typing a list name on a handheld.
 */
export function describedPattern(pattern: string, message: string): string {
  PATTERN_MESSAGES.set(pattern, message);
  return pattern;
}

function patternMessage(error: ErrorObject): string | undefined {
  return error.keyword === 'pattern' ? PATTERN_MESSAGES.get((error.params as { pattern: string }).pattern) : undefined;
}

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
    const message =
      error.keyword === 'required' ? 'is required' : (patternMessage(error) ?? error.message ?? 'is invalid');
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ path: path || (prefix ?? 'body'), message });
  }
  return result;
}
