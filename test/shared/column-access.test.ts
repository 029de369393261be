import { describe, expect, it } from 'vitest';
import { objectOf, valuesOf } from '../../src/shared/column-access.js';

// Names that would break generated source if they were pasted into it rather than quoted.
const HOSTILE_NAMES = [
  'plain',
  'with space',
  'quote"inside',
  "single'quote",
  'back\\slash',
  'line\nbreak',
  '"]; throw new Error("injected"); //',
  '\u2028',
  'constructor',
];

describe('valuesOf (shared/column-access.ts)', () => {
  it('reads the columns in list order, null where a column is absent, undefined or null', () => {
    const read = valuesOf(['b', 'a', 'missing', 'unset', 'nothing', 'zero', 'empty', 'no']);
    expect(
      read({ a: 1, b: 'two', unset: undefined, nothing: null, zero: 0, empty: '', no: false, extra: 'ignored' }),
    ).toEqual(['two', 1, null, null, null, 0, '', false]);
  });

  it('gives what the plain loop gives for any column name, without running any of it as code', () => {
    const record = Object.fromEntries(HOSTILE_NAMES.map((name, index) => [name, index]));
    expect(valuesOf(HOSTILE_NAMES)(record)).toEqual(HOSTILE_NAMES.map((name) => record[name] ?? null));
  });

  it('reads __proto__ as an own column only, never the prototype', () => {
    const read = valuesOf(['id', '__proto__']);
    expect(read({ id: 1 })).toEqual([1, null]);
    const owning = JSON.parse('{"id": 2, "__proto__": "own"}') as object;
    expect(read(owning)).toEqual([2, 'own']);
  });

  it('serves one reader per column list, and a later change to the caller’s list does not change it', () => {
    const columns = ['a', 'b'];
    const read = valuesOf(columns);
    expect(valuesOf(['a', 'b'])).toBe(read);
    columns.push('c');
    expect(read({ a: 1, b: 2, c: 3 })).toEqual([1, 2]);
  });
});

describe('objectOf (shared/column-access.ts)', () => {
  it('builds the object a loop would, keys in order, a later repeated name winning', () => {
    const build = objectOf(['x', 'y', 'x', ...HOSTILE_NAMES]);
    const values = [1, 2, 3, ...HOSTILE_NAMES.map((_, index) => `v${index}`)];
    const expected: Record<string, unknown> = {};
    ['x', 'y', 'x', ...HOSTILE_NAMES].forEach((name, index) => (expected[name] = values[index]));
    const built = build(values);
    expect(built).toEqual(expected);
    expect(Object.keys(built)).toEqual(Object.keys(expected));
  });

  it('makes __proto__ an own property, leaving the prototype alone', () => {
    const built = objectOf(['id', '__proto__'])([1, { polluted: true }]);
    expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(built, '__proto__')?.value).toEqual({ polluted: true });
    expect((built as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
