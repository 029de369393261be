/**
 * The served OpenAPI document, read as data: its operations and the JSON schemas of their
 * bodies and parameters. The hostile-input tests derive everything from it, so a new
 * endpoint is covered the moment it is served.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  maxItems?: number;
  minItems?: number;
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI template, e.g. `/api/v2/public/stores/{store_number}/locations`. */
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  /** False for routes the document marks `security: []` (no credential needed). */
  needsCredential: boolean;
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
        security?: unknown[];
      }
    >
  >;
}

export const API_PREFIX = '/api/v2/public';

/** Every operation under the API prefix, in document order. */
export function apiOperations(document: unknown): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries((document as OpenApiDocument).paths)) {
    if (!path.startsWith(API_PREFIX)) continue;
    for (const [method, operation] of Object.entries(item)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
        needsCredential: !(Array.isArray(operation.security) && operation.security.length === 0),
      });
    }
  }
  return operations;
}

export const typesOf = (schema: JsonSchema): string[] =>
  schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];

/** The branches a value may take: a union's members, or the schema itself. */
export const branchesOf = (schema: JsonSchema): JsonSchema[] => schema.anyOf ?? schema.oneOf ?? [schema];

/** A field path as the error envelope names it (PRODUCT §3): `stores[0].store_number`. */
export function fieldPath(keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>(
    (at, key) => (typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`),
    '',
  );
}

/** Each schema node under `schema` with its path, descending through unions and items. */
export function* schemaNodes(
  schema: JsonSchema,
  keys: Array<string | number> = [],
): Generator<{ keys: Array<string | number>; schema: JsonSchema }> {
  yield { keys, schema };
  for (const union of [schema.anyOf, schema.oneOf, schema.allOf])
    for (const branch of union ?? []) yield* schemaNodes(branch, keys);
  if (schema.items) yield* schemaNodes(schema.items, [...keys, 0]);
  for (const [name, property] of Object.entries(schema.properties ?? {})) yield* schemaNodes(property, [...keys, name]);
  if (typeof schema.additionalProperties === 'object') yield* schemaNodes(schema.additionalProperties, [...keys, '*']);
}
