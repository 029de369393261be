import { describe, expect, it } from 'vitest';
import {
  COUNTS_PER_REQUEST,
  countsBodies,
  countsLogBody,
  LINES,
  runCounts,
} from '../../bench/scenarios/counting-assignments.js';

describe('counting.submit.full5000: both sides post the same counts', () => {
  const counts = runCounts(Date.UTC(2026, 11, 8, 8, 0, 0));

  it('scans every product once, at strictly increasing moments, never a negative quantity', () => {
    expect(counts).toHaveLength(LINES);
    expect(new Set(counts.map((c) => c.product_number)).size).toBe(LINES);
    for (let i = 1; i < counts.length; i++)
      expect(Date.parse(counts[i]!.counted_at)).toBeGreaterThan(Date.parse(counts[i - 1]!.counted_at));
    expect(counts.every((c) => c.counted_quantity >= 0)).toBe(true);
  });

  it('sends the assignment its counts in requests of 1,000 and the baseline the same counts in one request', () => {
    const requests = countsBodies(counts).map((body) => JSON.parse(body).counts as Array<Record<string, unknown>>);
    expect(requests.map((r) => r.length)).toEqual(Array(LINES / COUNTS_PER_REQUEST).fill(COUNTS_PER_REQUEST));
    const entries = JSON.parse(countsLogBody(counts)).storeproductlog as Array<Record<string, unknown>>;
    const asCount = (e: Record<string, unknown>) =>
      [
        e.product_number,
        e.location_code,
        e.quantity ?? e.counted_quantity,
        e.modification_datetime ?? e.counted_at,
      ].join('|');
    expect(entries.map(asCount)).toEqual(requests.flat().map(asCount));
  });
});
