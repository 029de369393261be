import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inListChunks } from '../../src/db/in-list.js';

describe('inListChunks (db/in-list.ts)', () => {
  it('pads each list to a power of two or the cap by repeating its last value', () => {
    expect(inListChunks([], 8)).toEqual([]);
    expect(inListChunks([7], 8)).toEqual([[7]]);
    expect(inListChunks([1, 2, 3], 8)).toEqual([[1, 2, 3, 3]]);
    expect(inListChunks([1, 2, 3, 4, 5], 6)).toEqual([[1, 2, 3, 4, 5, 5]]);
    expect(inListChunks([1, 2, 3, 4, 5, 6, 7], 6)).toEqual([[1, 2, 3, 4, 5, 6], [7]]);
  });

  it('keeps exactly the values given, in order, within the cap, in few shapes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 300 }), fc.integer({ min: 1, max: 100 }), (values, size) => {
        const chunks = inListChunks(values, size);
        const seen = chunks.flatMap((part) => [...new Set(part)]);
        expect(seen).toEqual(chunks.flatMap((_part, i) => [...new Set(values.slice(i * size, (i + 1) * size))]));
        for (const part of chunks) {
          expect(part.length).toBeLessThanOrEqual(size);
          expect(part.length === size || (part.length & (part.length - 1)) === 0).toBe(true);
        }
      }),
    );
  });
});
