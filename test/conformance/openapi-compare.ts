import type { SpecField, SpecType } from './spec-fields.js';
import type { SpecEndpoint } from './spec-parser.js';

/**
 * Compares what the interface document says with what the service serves in its
 * OpenAPI document, field by field. Every difference is a Mismatch; the test decides
 * which are allowed (exceptions.ts) and fails on the rest.
 */

export type Problem =
  /** The spec's endpoint is not served. */
  | 'endpoint missing'
  /** A served operation the spec does not have. */
  | 'endpoint added'
  /** The spec's field is not in the served schema. */
  | 'missing'
  /** The JSON types differ. */
  | 'type'
  /** The spec requires (or promises) it; the served schema does not. */
  | 'not required'
  /** The served request schema requires what the spec leaves optional. */
  | 'stricter';

export interface Mismatch {
  /** `POST /stores/{store_number}/storeproducts` (relative to /api/v2/public). */
  endpoint: string;
  /** `body.products[].price`, `query.page_size`, `response.list[].id`; empty for endpoint problems. */
  at: string;
  problem: Problem;
  detail: string;
}

export const API_PREFIX = '/api/v2/public';

export interface JsonSchema {
  type?: string | string[];
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  patternProperties?: Record<string, JsonSchema>;
}

interface Parameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

export const endpointKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** The served operations under the API prefix, keyed like the spec's endpoints. */
export function servedOperations(document: OpenApiDocument): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(document.paths)) {
    if (!path.startsWith(`${API_PREFIX}/`)) continue;
    for (const [method, operation] of Object.entries(methods))
      operations.set(endpointKey(method, path.slice(API_PREFIX.length)), operation);
  }
  return operations;
}

/** One schema per alternative: `anyOf`/`oneOf` and `type: [a, b]` flattened. */
function alternatives(schema: JsonSchema): JsonSchema[] {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.flatMap(alternatives);
  if (Array.isArray(schema.type)) return schema.type.map((type) => ({ ...schema, type }));
  return [schema];
}

const describe = (schema: JsonSchema): string =>
  alternatives(schema)
    .map((s) => (s.type === 'array' ? `array of ${s.items ? describe(s.items) : 'anything'}` : (s.type ?? 'anything')))
    .join(' | ');

function describeSpec(type: SpecType): string {
  if (type.kind === 'array') return `array of ${type.items ? describeSpec(type.items) : 'anything'}`;
  return type.kind;
}

function matchesKind(spec: SpecType, served: JsonSchema): boolean {
  const type = served.type;
  switch (spec.kind) {
    case 'unknown':
      return true;
    case 'number':
      return type === 'number' || type === 'integer';
    case 'map':
      return type === 'object' && served.properties === undefined;
    case 'object':
      return type === 'object';
    default:
      return type === spec.kind;
  }
}

export type Direction = 'request' | 'response';

/** Mismatches between one spec type and one served schema, below `at`. */
export function compareType(
  spec: SpecType,
  served: JsonSchema,
  at: string,
  direction: Direction,
): Omit<Mismatch, 'endpoint'>[] {
  const branch = alternatives(served).find((s) => s.type !== 'null' && matchesKind(spec, s));
  if (!branch) return [{ at, problem: 'type', detail: `spec: ${describeSpec(spec)}; served: ${describe(served)}` }];
  if (spec.kind === 'array' && spec.items) {
    if (!branch.items)
      return [{ at, problem: 'type', detail: `spec: ${describeSpec(spec)}; served: array without item schema` }];
    return compareType(spec.items, branch.items, `${at}[]`, direction);
  }
  if (spec.kind === 'map' && spec.values) {
    const values =
      typeof branch.additionalProperties === 'object'
        ? branch.additionalProperties
        : Object.values(branch.patternProperties ?? {})[0];
    if (!values) return [{ at, problem: 'type', detail: 'spec: map with typed values; served: values untyped' }];
    return compareType(spec.values, values, `${at}{}`, direction);
  }
  if (spec.kind === 'object' && spec.fields) return compareFields(spec.fields, branch, at, direction);
  return [];
}

function compareFields(
  fields: SpecField[],
  served: JsonSchema,
  at: string,
  direction: Direction,
): Omit<Mismatch, 'endpoint'>[] {
  const mismatches: Omit<Mismatch, 'endpoint'>[] = [];
  const properties = served.properties ?? {};
  const required = new Set(served.required ?? []);
  const specNames = new Set(fields.map((f) => f.name));
  for (const field of fields) {
    const path = at === '' ? field.name : `${at}.${field.name}`;
    const property = properties[field.name];
    if (!property) {
      mismatches.push({
        at: path,
        problem: 'missing',
        detail: `spec: ${field.required ? 'required ' : ''}${describeSpec(field.type)}`,
      });
      continue;
    }
    if (field.required && !required.has(field.name)) {
      mismatches.push({
        at: path,
        problem: 'not required',
        detail: direction === 'request' ? 'spec requires it' : 'spec says always present',
      });
    }
    mismatches.push(...compareType(field.type, property, path, direction));
  }
  if (direction === 'request') {
    for (const name of required) {
      if (fields.find((f) => f.name === name)?.required) continue;
      const detail = specNames.has(name)
        ? 'served requires a field the spec leaves optional'
        : 'served requires a field the spec does not have';
      mismatches.push({ at: at === '' ? name : `${at}.${name}`, problem: 'stricter', detail });
    }
  }
  return mismatches;
}

const jsonBody = (content: Record<string, { schema: JsonSchema }> | undefined) => content?.['application/json']?.schema;

/** Every mismatch of one spec endpoint against its served operation. */
export function compareEndpoint(spec: SpecEndpoint, operation: Operation): Mismatch[] {
  const endpoint = endpointKey(spec.method, spec.path);
  const found: Omit<Mismatch, 'endpoint'>[] = [];
  const parameters = operation.parameters ?? [];
  const compareParameters = (location: Parameter['in'], prefix: string, fields: SpecField[]) => {
    const served = parameters.filter((p) => p.in === location);
    // Header names are case-insensitive in HTTP; query and path names are compared as written.
    const find = (name: string) =>
      served.find((p) => (location === 'header' ? p.name.toLowerCase() === name.toLowerCase() : p.name === name));
    for (const field of fields) {
      const at = `${prefix}.${field.name}`;
      const parameter = find(field.name);
      if (!parameter) {
        found.push({ at, problem: 'missing', detail: `spec: ${describeSpec(field.type)} ${prefix} parameter` });
        continue;
      }
      if (field.required && !parameter.required)
        found.push({ at, problem: 'not required', detail: 'spec requires it' });
      if (!field.required && parameter.required && location !== 'path')
        found.push({ at, problem: 'stricter', detail: 'served requires a parameter the spec leaves optional' });
      found.push(...compareType(field.type, parameter.schema, at, 'request'));
    }
  };
  // A required parameter the interface does not name would refuse its clients.
  for (const parameter of parameters) {
    const named = { query: spec.query, header: spec.headers, path: spec.pathParams, cookie: [] }[parameter.in];
    const known = named.some((f) =>
      parameter.in === 'header' ? f.name.toLowerCase() === parameter.name.toLowerCase() : f.name === parameter.name,
    );
    if (parameter.required && !known)
      found.push({
        at: `${parameter.in}.${parameter.name}`,
        problem: 'stricter',
        detail: 'served requires a parameter the spec does not have',
      });
  }
  compareParameters('path', 'path', spec.pathParams);
  compareParameters('query', 'query', spec.query);
  compareParameters('header', 'header', spec.headers);
  if (spec.body) {
    const body = jsonBody(operation.requestBody?.content);
    if (!body) found.push({ at: 'body', problem: 'missing', detail: 'spec has a JSON body; served takes none' });
    else found.push(...compareType(spec.body, body, 'body', 'request'));
  }
  if (spec.response) {
    const status = Object.keys(operation.responses ?? {}).find((code) => /^2\d\d$/.test(code));
    const response = status ? jsonBody(operation.responses![status]!.content) : undefined;
    if (!response)
      found.push({
        at: 'response',
        problem: 'missing',
        detail: 'spec has a JSON response; served declares no 2xx schema',
      });
    else found.push(...compareType(spec.response, response, 'response', 'response'));
  }
  return found.map((mismatch) => ({ endpoint, ...mismatch }));
}

/** Every field named `name` in a spec type, with the served schema at the same place. */
export function findFields(
  spec: SpecType,
  served: JsonSchema,
  name: string,
  at: string,
): { at: string; served?: JsonSchema }[] {
  const branch = alternatives(served).find((s) => s.type !== 'null' && matchesKind(spec, s));
  if (!branch) return [];
  if (spec.kind === 'array' && spec.items && branch.items) return findFields(spec.items, branch.items, name, `${at}[]`);
  if (spec.kind !== 'object' || !spec.fields) return [];
  return spec.fields.flatMap((field) => {
    const path = `${at}.${field.name}`;
    const property = branch.properties?.[field.name];
    const own = field.name === name ? [{ at: path, served: property }] : [];
    return property ? [...own, ...findFields(field.type, property, name, path)] : own;
  });
}
