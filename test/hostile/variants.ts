import { exampleNumber, exampleString, exampleValue, mainBranch } from './examples.js';
import { fieldPath, typesOf, type JsonSchema, type Operation, type Parameter } from './openapi.js';

/**
 * Hostile variants of one operation, derived from its schemas (issue 10 §2): each changes
 * one thing in an otherwise plausible request and says what the answer must be. Every
 * answer must also be below 500 and, from 400 up, the PRODUCT §3 envelope; that is
 * checked for all of them by the test.
 */
export interface Variant {
  operation: Operation;
  name: string;
  method: string;
  /** Sent byte for byte as the request target. */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  credential: boolean;
  /** Statuses allowed (besides "below 500"); absent: any. */
  status?: number[];
  /** A path the envelope's errors must name. */
  errorPath?: string;
  /** Must answer the status the plausible request (the first variant) answered: what it adds is ignored. */
  sameStatusAsPlausible?: boolean;
}

/** Bad percent-encodings: not hex, truncated, lone `%`, overlong UTF-8, a UTF-8 surrogate, a byte never valid. */
export const BAD_PERCENT_ENCODINGS = ['%zz', '%E0%A4%A', '%', '%C0%AF', '%ED%A0%80', '%FF'];
/** More variants than this per operation are thinned evenly (runtime stays modest as endpoints grow). */
export const MAX_VARIANTS_PER_OPERATION = 400;

/** Valid but extreme: the first and last moments ISO 8601 writes with four-digit years. */
const EXTREME_DATE_TIMES = ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2024-01-01T00:00:00+23:59'];

/** Valid but extreme: a number's own published bounds (and zero when inside them). */
const boundariesOf = (schema: JsonSchema): number[] =>
  [schema.minimum, schema.maximum, 0].filter(
    (value): value is number =>
      value !== undefined && value >= (schema.minimum ?? -Infinity) && value <= (schema.maximum ?? Infinity),
  );

const RAW = '"__hostile_raw__"';
const MAX_SAFE_PLUS_TWO = '9007199254740993';
const NOT_A_KEY = 'hostile-unknown-key';
type Keys = Array<string | number>;

interface Slot {
  keys: Keys;
  schema: JsonSchema;
}

/** Leaves (strings, numbers, booleans) and arrays of an example, with their schemas. */
function slotsOf(
  schema: JsonSchema,
  value: unknown,
  keys: Keys = [],
  found: { leaves: Slot[]; arrays: Slot[] } = { leaves: [], arrays: [] },
) {
  const branch = mainBranch(schema);
  if (Array.isArray(value)) {
    found.arrays.push({ keys, schema: branch });
    if (value.length > 0) slotsOf(branch.items ?? {}, value[0], [...keys, 0], found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      slotsOf(branch.properties?.[key] ?? {}, item, [...keys, key], found);
  } else {
    found.leaves.push({ keys, schema: branch });
  }
  return found;
}

function setAt(root: unknown, keys: Keys, replacement: unknown): unknown {
  if (keys.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[keys[keys.length - 1]!] = replacement;
  return copy;
}

/** The example with `rawJson` (JSON text, possibly not what JSON.stringify would write) at `keys`. */
const withRaw = (example: unknown, keys: Keys, rawJson: string) =>
  JSON.stringify(setAt(example, keys, '__hostile_raw__')).replace(RAW, () => rawJson);

const isRecord = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
const valueAt = (root: unknown, keys: Keys): unknown =>
  keys.reduce<unknown>((at, key) => (at as Record<string | number, unknown> | undefined)?.[key], root);

function removeAt(root: unknown, keys: Keys): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  delete at[keys[keys.length - 1]!];
  return copy;
}

const wrongTypeFor = (schema: JsonSchema): unknown => {
  const types = typesOf(schema);
  if (types.includes('string')) return { not: 'a string' };
  if (types.includes('boolean')) return 'yes';
  if (types.includes('array')) return 'not an array';
  if (types.includes('object')) return ['not an object'];
  return 'not a number';
};

/** Builds one operation's requests, sent with `token` unless a variant says otherwise. */
export function variantsOf(operation: Operation, options: { token: string }): Variant[] {
  const auth = { authorization: `Bearer ${options.token}` };
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const plausible = (p: Parameter) => encodeURIComponent(exampleString(mainBranch(p.schema), p.name));
  const pathWith = (overrides: Record<string, string> = {}, query = '') =>
    operation.path.replace(
      /\{([^}]+)\}/g,
      (_, name: string) => overrides[name] ?? plausible(pathParams.find((p) => p.name === name)!),
    ) + query;
  const example = operation.body ? exampleValue(operation.body, { all: true }) : undefined;
  const exampleText = example === undefined ? undefined : JSON.stringify(example);
  const jsonHeaders = exampleText === undefined ? auth : { ...auth, 'content-type': 'application/json' };
  const variant = (name: string, changes: Partial<Variant>): Variant => ({
    operation,
    name,
    method: operation.method,
    path: pathWith(),
    headers: jsonHeaders,
    body: exampleText,
    credential: true,
    ...changes,
  });

  const variants: Variant[] = [
    variant('plausible request', {}),
    variant('plausible request with required fields only', {
      body: operation.body ? JSON.stringify(exampleValue(operation.body, { all: false })) : undefined,
    }),
    // The caller's request id is echoed in a response header: long and beyond ASCII.
    variant('an x-request-id of 8,000 Latin-1 characters', {
      headers: { ...jsonHeaders, 'x-request-id': 'é'.repeat(8000) },
    }),
    variant('plausible request without a credential', {
      headers: exampleText === undefined ? {} : { 'content-type': 'application/json' },
      credential: false,
      status: operation.needsCredential ? [401] : undefined,
    }),
  ];

  for (const p of pathParams) {
    const at = `params.${p.name}`;
    for (const bad of [...BAD_PERCENT_ENCODINGS, '%00']) {
      variants.push(variant(`path ${p.name} = ${bad}`, { path: pathWith({ [p.name]: `a${bad}!` }), status: [400] }));
    }
    variants.push(
      variant(`path ${p.name} without a credential = %zz`, {
        path: pathWith({ [p.name]: '%zz' }),
        headers: {},
        credential: false,
        status: [400],
      }),
    );
    const maxLength = p.schema.maxLength ?? 0;
    variants.push(
      variant(`path ${p.name} one over maxLength`, {
        path: pathWith({ [p.name]: 'x'.repeat(maxLength + 1) }),
        status: [400],
        errorPath: at,
      }),
    );
    variants.push(
      variant(`path ${p.name} of 5,000 characters`, {
        path: pathWith({ [p.name]: 'x'.repeat(5000) }),
        status: [400, 414],
      }),
    );
    variants.push(variant(`path ${p.name} unknown`, { path: pathWith({ [p.name]: NOT_A_KEY }) }));
  }

  for (const p of operation.parameters.filter((q) => q.in === 'query'))
    variants.push(...queryVariants(p, (query) => pathWith({}, query), variant));
  for (const p of operation.parameters.filter((q) => q.in === 'header')) {
    variants.push(
      variant(`header ${p.name} = a wrong type`, {
        headers: {
          ...jsonHeaders,
          [p.name]: typesOf(p.schema).includes('string') ? 'x'.repeat((p.schema.maxLength ?? 64) + 1) : 'maybe',
        },
      }),
    );
  }
  if (operation.method === 'POST' || operation.method === 'PUT') {
    // Every POST/PUT takes an Idempotency-Key (PRODUCT §3): too long, and Latin-1 bytes beyond ASCII.
    variants.push(
      variant('Idempotency-Key of 256 characters', {
        headers: { ...jsonHeaders, 'idempotency-key': 'k'.repeat(256) },
        status: [400],
        errorPath: 'headers.idempotency-key',
      }),
      variant('Idempotency-Key with Latin-1 bytes', {
        headers: { ...jsonHeaders, 'idempotency-key': `clé-ÿ-${operation.method}-${operation.path}` },
      }),
    );
  }
  if (operation.body && example !== undefined) variants.push(...bodyVariants(operation.body, example, variant));
  return thin(variants);
}

function queryVariants(
  p: Parameter,
  pathWith: (query: string) => string,
  variant: (name: string, changes: Partial<Variant>) => Variant,
): Variant[] {
  const at = `query.${p.name}`;
  const schema = mainBranch(p.schema);
  const types = typesOf(schema);
  const query = (value: string) => `?${encodeURIComponent(p.name)}=${value}`;
  const refused = (name: string, value: string, errorPath: string | undefined = at): Variant =>
    variant(`query ${p.name} ${name}`, { path: pathWith(query(value)), status: [400], errorPath });
  const variants: Variant[] = [
    variant(`query ${p.name} plausible`, {
      path: pathWith(query(encodeURIComponent(String(exampleValue(schema, { all: false }, p.name))))),
    }),
    refused('with NUL', 'a%00b'),
    ...BAD_PERCENT_ENCODINGS.map((bad) => refused(`= ${bad}`, `a${bad}!`)),
    variant(`query ${p.name} repeated 300 times`, {
      path: pathWith(`?${`${encodeURIComponent(p.name)}=1&`.repeat(300)}`),
    }),
  ];
  if (types.includes('string') && schema.maxLength !== undefined && schema.enum === undefined) {
    variants.push(refused('one over maxLength', 'x'.repeat(schema.maxLength + 1)));
  }
  if (types.includes('integer') || types.includes('number')) {
    variants.push(...['abc', '1e400', '-1e400', MAX_SAFE_PLUS_TWO, 'NaN'].map((value) => refused(`= ${value}`, value)));
    variants.push(
      ...boundariesOf(schema).map((value) =>
        variant(`query ${p.name} = ${value}`, { path: pathWith(query(String(value))) }),
      ),
    );
  }
  if (schema.format === 'date-time') {
    variants.push(
      ...EXTREME_DATE_TIMES.map((value) =>
        variant(`query ${p.name} = ${value}`, { path: pathWith(query(encodeURIComponent(value))) }),
      ),
    );
  }
  if (types.includes('boolean')) variants.push(refused('= maybe', 'maybe'));
  if (types.includes('array') && schema.maxItems !== undefined) {
    const repeated = `${encodeURIComponent(p.name)}=1&`.repeat(schema.maxItems + 1);
    // Beyond the 16 KiB request line the HTTP parser answers first (431).
    variants.push(
      variant(`query ${p.name} with maxItems+1 values`, {
        path: pathWith(`?${repeated}`),
        status: repeated.length < 15_000 ? [400] : [431],
      }),
    );
  }
  return variants;
}

function bodyVariants(
  schema: JsonSchema,
  example: unknown,
  variant: (name: string, changes: Partial<Variant>) => Variant,
): Variant[] {
  const { leaves, arrays } = slotsOf(schema, example);
  const variants: Variant[] = [];
  const refused = (name: string, body: string | Buffer, errorPath: string, status = [400]) =>
    variant(name, { body, status, errorPath });

  for (const { keys, schema: array } of arrays) {
    if (array.maxItems === undefined) continue;
    const item = JSON.stringify(exampleValue(array.items ?? {}, { all: false }));
    const oversized = `[${new Array<string>(array.maxItems + 1).fill(item).join(',')}]`;
    variants.push(
      refused(
        `${fieldPath(keys) || 'body'} with maxItems+1 items`,
        withRaw(example, keys, oversized),
        fieldPath(keys),
        [400, 413],
      ),
    );
  }

  for (const { keys, schema: leaf } of leaves) {
    const at = fieldPath(keys);
    const types = typesOf(leaf);
    variants.push(variant(`${at} of a wrong type`, { body: JSON.stringify(setAt(example, keys, wrongTypeFor(leaf))) }));
    if (types.includes('string')) {
      const text = exampleString(leaf, String(keys[keys.length - 1]));
      variants.push(refused(`${at} with NUL`, withRaw(example, keys, JSON.stringify(`${text}\u0000`)), at));
      variants.push(refused(`${at} with a lone high surrogate`, withRaw(example, keys, `"${text}\\ud800"`), at));
      variants.push(refused(`${at} with a lone low surrogate`, withRaw(example, keys, `"\\uDC00${text}"`), at));
      if (leaf.format === 'date-time') {
        for (const value of EXTREME_DATE_TIMES)
          variants.push(variant(`${at} = ${value}`, { body: JSON.stringify(setAt(example, keys, value)) }));
      }
      if (leaf.maxLength !== undefined && leaf.enum === undefined) {
        variants.push(
          refused(`${at} one over maxLength`, JSON.stringify(setAt(example, keys, 'x'.repeat(leaf.maxLength + 1))), at),
        );
      }
    }
    if (types.includes('integer') || types.includes('number')) {
      for (const huge of ['1e400', '-1e400', MAX_SAFE_PLUS_TWO])
        variants.push(refused(`${at} = ${huge}`, withRaw(example, keys, huge), at));
      variants.push(
        variant(`${at} = ${exampleNumber(leaf)}.5`, { body: withRaw(example, keys, `${exampleNumber(leaf)}.5`) }),
      );
      for (const value of boundariesOf(leaf))
        variants.push(variant(`${at} = ${value}`, { body: JSON.stringify(setAt(example, keys, value)) }));
    }
  }

  const required = (mainBranch(schema).required ?? []).map((key) => [key] as Keys);
  for (const { keys, schema: array } of arrays) {
    for (const key of mainBranch(array.items ?? {}).required ?? []) required.push([...keys, 0, key]);
  }
  for (const keys of required)
    variants.push(refused(`${fieldPath(keys)} missing`, JSON.stringify(removeAt(example, keys)), fieldPath(keys)));

  const extra = { hostile_unknown: { nested: [1, 'x', null, { deeper: true }] } };
  variants.push(
    variant('unknown fields at the top and in the first item of every array', {
      sameStatusAsPlausible: true,
      body: JSON.stringify(
        arrays
          .filter(({ keys }) => isRecord(valueAt(example, [...keys, 0])))
          .reduce(
            (value, { keys }) => setAt(value, [...keys, 0, 'hostile_unknown'], extra.hostile_unknown),
            setAt(example, ['hostile_unknown'], extra.hostile_unknown),
          ),
      ),
    }),
  );
  const exampleText = JSON.stringify(example);
  const at = exampleText.indexOf('"', 2);
  variants.push(
    variant('malformed JSON', { body: exampleText.slice(0, -2), status: [400] }),
    variant('an empty body', { body: '', status: [400] }),
    variant('JSON null', { body: 'null', status: [400] }),
    variant('a JSON array', { body: '[]', status: [400] }),
    variant('text/plain', { headers: { ...variant('', {}).headers, 'content-type': 'text/plain' }, status: [415] }),
    refused(
      'bytes that are not UTF-8',
      Buffer.concat([
        Buffer.from(exampleText.slice(0, at)),
        Buffer.from([0xc0, 0xaf]),
        Buffer.from(exampleText.slice(at)),
      ]),
      'body',
    ),
    variant('200 levels of nesting', { body: `{"deep":${'['.repeat(200)}${']'.repeat(200)}}` }),
  );
  return variants;
}

/** Keeps at most MAX_VARIANTS_PER_OPERATION, evenly spread, the first three (plausible requests) always. */
function thin(variants: Variant[]): Variant[] {
  if (variants.length <= MAX_VARIANTS_PER_OPERATION) return variants;
  const step = variants.length / MAX_VARIANTS_PER_OPERATION;
  return [
    ...variants.slice(0, 3),
    ...Array.from({ length: MAX_VARIANTS_PER_OPERATION - 3 }, (_, i) => variants[3 + Math.floor(i * step)]!),
  ].filter((value, index, all) => all.indexOf(value) === index);
}
