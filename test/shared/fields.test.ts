import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { fieldsOf, inputProperties, outputProperties, reader, recordWriter } from '../../src/shared/fields.js';

const field = fieldsOf<{ offset: number }, { n: number; s: string | null }>();
const FIELDS = {
  zeta: field({ input: Type.Number(), column: 'zeta_col', write: (sent, { offset }) => sent + offset }),
  alpha: field({
    input: Type.Optional(Type.String()),
    column: 'alpha_col',
    write: (sent) => sent ?? null,
    output: Type.Optional(Type.String()),
    read: (row) => row.s ?? undefined,
  }),
  path_only: field({ input: Type.String() }),
  beta: field({ output: Type.Number(), read: (row) => row.n }),
  aardvark: field({ output: Type.Optional(Type.Number()), read: (row) => row.n * 2 }),
};

describe('field declarations (shared/fields.ts)', () => {
  it('gives the request its properties in declaration order; a path omits or loosens some', () => {
    expect(Object.keys(Type.Object(inputProperties(FIELDS)).properties)).toEqual(['zeta', 'alpha', 'path_only']);
    expect(Type.Object(inputProperties(FIELDS)).required).toEqual(['zeta', 'path_only']);
    const loosened = Type.Object(inputProperties(FIELDS, { omit: ['zeta'], optional: ['path_only'] }));
    expect(Object.keys(loosened.properties)).toEqual(['alpha', 'path_only']);
    expect(loosened.required).toBeUndefined();
  });

  it("gives the read its properties in the interface's order: required, then optional, each alphabetically", () => {
    expect(Object.keys(outputProperties(FIELDS))).toEqual(['beta', 'aardvark', 'alpha']);
  });

  it("writes the declared columns in the table's order, from the request and the context", () => {
    const write = recordWriter<typeof FIELDS, { offset: number }>(FIELDS, ['id', 'alpha_col', 'other', 'zeta_col']);
    const record = write({ zeta: 1, path_only: 'x' }, { offset: 10 });
    expect(record).toEqual({ alpha_col: null, zeta_col: 11 });
    expect(Object.keys(record)).toEqual(['alpha_col', 'zeta_col']);
  });

  it("refuses a table's column list that lacks a declared column", () => {
    expect(() => recordWriter(FIELDS, ['alpha_col'])).toThrow(/zeta_col/);
  });

  it('reads every output field from the row, in the read order', () => {
    const read = reader<typeof FIELDS, { n: number; s: string | null }, undefined, object>(FIELDS);
    const item = read({ n: 2, s: null }, undefined);
    expect(item).toEqual({ beta: 2, aardvark: 4, alpha: undefined });
    expect(Object.keys(item)).toEqual(['beta', 'aardvark', 'alpha']);
  });
});
