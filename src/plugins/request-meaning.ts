import { createHash } from 'node:crypto';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { parseDateTime } from '../domain/datetime.js';
import { NULL_MEANS_ABSENT } from '../shared/schemas.js';

/**
 * What a write request means, as one hash (PRODUCT §3 Idempotency: "the same request is
 * judged on its meaning, not its spelling"). Built from the request as validated — after
 * query names were mapped to their declared spelling (request-parsing.ts), values coerced
 * and defaults filled — never from the raw URL or bytes:
 * - method and route pattern (`/stores/:store_number/…`), not the path as spelt
 *   (`/stores/K%31/…` is `/stores/K1/…`);
 * - path parameters, and the query parameters and headers the route declares, by name in
 *   sorted order: unknown ones are ignored by the API, so they are ignored here too, and
 *   the order they were sent in does not count;
 * - the body as canonical JSON of what the route's body schema declares: key order,
 *   whitespace, number and escape spelling do not count, nor do unknown fields (ignored by
 *   the API, PRODUCT §3). Strings are compared as validated (a TextId sent as a JSON integer
 *   is its decimal text by then), except date-times (`format: 'date-time'`), which are written
 *   as their instant: `…T19:56:37.000Z`, `…T19:56:37Z`, `…T20:56:37+01:00` and the zone-less
 *   `…T19:56:37` are one meaning (issue 40 item 1). What is deliberately not one meaning:
 *   docs/decisions.md "Idempotency: the same request".
 * The writers are made once per route from its schema; a body is walked once, in the
 * schema's (sorted) property order, so no object's keys are sorted per request.
 */
export interface RequestMeaning {
  /** SHA-256 (hex) of everything above, for one request of this route. */
  hash(request: FastifyRequest): string;
}

/** Header names never part of a request's meaning: who sends it, and the key itself. */
const NOT_MEANING_HEADERS = new Set(['authorization', 'idempotency-key', 'content-type', 'content-length']);

export function requestMeaning(route: RouteOptions): RequestMeaning {
  const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown; params?: unknown; headers?: unknown };
  const head = `${route.method} ${route.url}`;
  const params = declaredWriter(schema.params, undefined);
  const query = declaredWriter(schema.querystring, []);
  const headers = declaredWriter(schema.headers, [], NOT_MEANING_HEADERS);
  // A route without a body schema reads no body: what it carries means nothing.
  const body: Write = schema.body === undefined ? () => undefined : compile(schema.body as Schema);
  return {
    hash(request) {
      const sink = new Sink();
      sink.write(head);
      for (const [write, value] of [
        [params, request.params],
        [query, request.query],
        [headers, request.headers],
        [body, request.body],
      ] as const) {
        sink.write('\n');
        if (value !== undefined && value !== null) write(value, sink);
      }
      return sink.digest();
    },
  };
}

/**
 * Where the canonical text goes: into the hash in pieces of about 64 KiB. One string of a
 * 10,000-product body (15 MB) built by concatenation cost seconds of garbage collection.
 */
class Sink {
  private readonly sha = createHash('sha256');
  private text = '';
  write(piece: string): void {
    this.text += piece;
    if (this.text.length > 65_536) {
      this.sha.update(this.text);
      this.text = '';
    }
  }
  digest(): string {
    this.sha.update(this.text);
    return this.sha.digest('hex');
  }
}

type Schema = {
  type?: unknown;
  format?: unknown;
  [NULL_MEANS_ABSENT]?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema | Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
};

type Write = (value: unknown, out: Sink) => void;

/**
 * The declared parameters of a query, path or header schema, in sorted order. Without a
 * schema: every parameter (`none` undefined: path parameters are all named by the route) or
 * none (`none` an empty list: undeclared query parameters and headers are ignored).
 */
function declaredWriter(schema: unknown, none: [] | undefined, excluded: ReadonlySet<string> = new Set()): Write {
  const properties = (schema as Schema | undefined)?.properties;
  if (properties === undefined) return none === undefined ? generic : () => undefined;
  return compile({
    properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !excluded.has(name))),
  });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Canonical JSON of a value its schema declares. */
function compile(node: Schema | undefined): Write {
  if (node === undefined || typeof node !== 'object') return generic;
  const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? [])];
  if (branches.length > 0) return unionWriter(node, branches);
  const properties = mergedProperties([node, ...(node.allOf ?? [])]);
  if (properties !== undefined) return objectWriter(properties, openValues(node));
  if (node.items !== undefined && !Array.isArray(node.items)) return arrayWriter(compile(node.items));
  if (node.type === 'array') return arrayWriter(generic);
  return node.format === 'date-time' ? instant : scalar;
}

/**
 * A date-time by its instant (PRODUCT §3: a date-time means its instant), unquoted so it
 * cannot be taken for a string. Text that is no date-time (never, after validation) stays text.
 */
function instant(value: unknown, out: Sink): void {
  const at = typeof value === 'string' ? parseDateTime(value) : undefined;
  if (at === undefined) scalar(value, out);
  else out.write(`@${at}`);
}

/** The properties of several schemas of one object (allOf members, union branches), first declaration first. */
function mergedProperties(nodes: readonly Schema[]): Record<string, Schema> | undefined {
  let merged: Record<string, Schema> | undefined;
  for (const node of nodes) {
    if (node.properties === undefined) continue;
    merged ??= {};
    for (const [name, child] of Object.entries(node.properties)) merged[name] ??= child;
  }
  return merged;
}

/** The schema of properties an object takes beyond its declared ones, if it takes any (a map). */
function openValues(node: Schema): Schema | undefined {
  const patterns = node.patternProperties === undefined ? [] : Object.values(node.patternProperties);
  if (patterns.length > 0) return patterns[0];
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
}

/** A union: objects by the properties of every object branch, arrays by the first array branch, the rest as they are. */
function unionWriter(node: Schema, branches: readonly Schema[]): Write {
  const objectBranches = branches.filter((b) => b.properties !== undefined);
  const arrayBranch = branches.find((b) => b.items !== undefined || b.type === 'array');
  const object =
    objectBranches.length === 0 ? generic : objectWriter(mergedProperties([node, ...objectBranches])!, undefined);
  const array = arrayBranch === undefined ? generic : compile(arrayBranch);
  // A date-time or null (or a date-time among other scalars): its strings by their instant.
  const other = branches.some((b) => b.format === 'date-time') ? instant : generic;
  return (value, out) =>
    Array.isArray(value) ? array(value, out) : isPlainObject(value) ? object(value, out) : other(value, out);
}

function objectWriter(properties: Record<string, Schema>, open: Schema | undefined): Write {
  const names = Object.keys(properties).sort();
  const keys = names.map((name) => `${JSON.stringify(name)}:`);
  const writers = names.map((name) => compile(properties[name]));
  // A null the API reads as the field left out (shared/schemas.ts NULL_MEANS_ABSENT) is written as left out.
  const nullIsAbsent = names.map((name) => properties[name]?.[NULL_MEANS_ABSENT] === true);
  if (open !== undefined) {
    // A map: every key counts, in sorted order.
    const values = compile(open);
    const byName = new Map(names.map((name, index) => [name, writers[index]!]));
    return (value, out) => {
      if (!isPlainObject(value)) return generic(value, out);
      let first = true;
      out.write('{');
      for (const name of Object.keys(value).sort()) {
        const item = value[name];
        if (item === undefined) continue;
        out.write(`${first ? '' : ','}${JSON.stringify(name)}:`);
        (byName.get(name) ?? values)(item, out);
        first = false;
      }
      out.write('}');
    };
  }
  return (value, out) => {
    if (!isPlainObject(value)) return generic(value, out);
    let first = true;
    out.write('{');
    for (let i = 0; i < names.length; i++) {
      const item = value[names[i]!];
      if (item === undefined || (item === null && nullIsAbsent[i])) continue;
      out.write(first ? keys[i]! : `,${keys[i]!}`);
      writers[i]!(item, out);
      first = false;
    }
    out.write('}');
  };
}

function arrayWriter(items: Write): Write {
  return (value, out) => {
    if (!Array.isArray(value)) return generic(value, out);
    out.write('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.write(',');
      items(value[i], out);
    }
    out.write(']');
  };
}

/**
 * A leaf of the schema: most are strings and numbers, written without a call into JSON
 * (a 10,000-product body has ~400,000 of them). The text only has to tell values apart:
 * a string is quoted as it is unless it holds a quote or backslash (then JSON-escaped).
 */
function scalar(value: unknown, out: Sink): void {
  if (typeof value === 'string')
    out.write(value.indexOf('"') === -1 && value.indexOf('\\') === -1 ? `"${value}"` : JSON.stringify(value));
  else if (typeof value === 'number' || typeof value === 'boolean') out.write(String(value));
  else generic(value, out);
}

/**
 * A value no schema describes further: a scalar as JSON, objects with sorted keys. Beyond
 * scalars only path parameters without a schema reach it, never an unchecked deep nesting;
 * the depth guard is for safety all the same.
 */
function generic(value: unknown, out: Sink): void {
  out.write(canonical(value, 0));
}

function canonical(value: unknown, depth: number): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object' || value === null || depth > MAX_GENERIC_DEPTH) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item, depth + 1)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const name of Object.keys(record).sort()) {
    if (record[name] !== undefined) parts.push(`${JSON.stringify(name)}:${canonical(record[name], depth + 1)}`);
  }
  return `{${parts.join(',')}}`;
}

const MAX_GENERIC_DEPTH = 32;
