import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARAM_LENGTH } from '../../src/plugins/framework-errors.js';
import { buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import {
  API_PREFIX,
  apiOperations,
  fieldPath,
  schemaNodes,
  typesOf,
  type JsonSchema,
  type Operation,
} from './openapi.js';

/**
 * PRODUCT §3 hostile input: every value a client sends has a published bound, so that an
 * endpoint added later cannot forget one. Read from the served document, not the source.
 */
function missingLimits(schema: JsonSchema, where: string): string[] {
  const problems: string[] = [];
  for (const { keys, schema: node } of schemaNodes(schema)) {
    const at = `${where}${keys.length > 0 ? ` ${fieldPath(keys)}` : ''}`;
    if (node.$ref !== undefined) problems.push(`${at}: a $ref the test cannot follow`);
    const types = typesOf(node);
    const closed = node.enum !== undefined || node.const !== undefined;
    if (types.includes('array') && node.maxItems === undefined) problems.push(`${at}: array without maxItems`);
    if (types.includes('string') && !closed && node.maxLength === undefined)
      problems.push(`${at}: string without maxLength`);
    if ((types.includes('number') || types.includes('integer')) && !closed) {
      if (node.minimum === undefined && node.exclusiveMinimum === undefined)
        problems.push(`${at}: number without minimum`);
      if (node.maximum === undefined && node.exclusiveMaximum === undefined)
        problems.push(`${at}: number without maximum`);
    }
  }
  return problems;
}

const label = (operation: Operation) => `${operation.method} ${operation.path}`;

describe('published limits of every request value (PRODUCT §3)', () => {
  let t: TestApp;
  let operations: Operation[];
  beforeAll(async () => {
    t = await buildTestApp(DIALECTS[0]!);
    operations = apiOperations((await t.get(`${API_PREFIX}/openapi.json`, null)).json());
  });
  afterAll(async () => {
    await t.close();
    await DIALECTS[0]!.cleanup();
  });

  it('reads the operations from the served document', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(operations.filter((o) => o.body !== undefined).length).toBeGreaterThan(10);
  });

  it('every array has maxItems, every string maxLength, every number a minimum and maximum', () => {
    const problems = operations.flatMap((operation) => [
      ...(operation.body ? missingLimits(operation.body, `${label(operation)} body`) : []),
      ...operation.parameters.map((p) => missingLimits(p.schema, `${label(operation)} ${p.in}.${p.name}`)).flat(),
    ]);
    expect(problems).toEqual([]);
  });

  it('every path parameter is bounded below the router limit, so its schema names it when too long', () => {
    const tooLong = operations.flatMap((operation) =>
      operation.parameters
        .filter((p) => p.in === 'path' && !((p.schema.maxLength ?? Infinity) < MAX_PARAM_LENGTH))
        .map((p) => `${label(operation)} ${p.name}: maxLength ${p.schema.maxLength}`),
    );
    expect(tooLong).toEqual([]);
  });
});
