import { describe, expect, it } from 'vitest';
import {
  assertSane,
  bareThroughputProblem,
  baselineSlowerProblem,
  loadProblem,
  SanityError,
} from '../../bench/lib/sanity.js';
import { summarise } from '../../bench/lib/report.js';
import type { ResultSpec } from '../../bench/lib/scenario.js';

const cleanLoad = { requests: 50_000, ok2xx: 50_000, errors: 0, timeouts: 0, non2xx: 0 };

describe('bench sanity rules', () => {
  it('accepts a clean load and names every kind of bad answer', () => {
    expect(loadProblem('service', cleanLoad)).toBeUndefined();
    expect(loadProblem('baseline', { ...cleanLoad, errors: 3 })).toMatch(/baseline: .*3 errors/);
    expect(loadProblem('service', { ...cleanLoad, timeouts: 1 })).toMatch(/1 timeouts/);
    expect(loadProblem('service', { ...cleanLoad, non2xx: 7, ok2xx: cleanLoad.requests - 7 })).toMatch(/7 non-2xx/);
    expect(loadProblem('service', { ...cleanLoad, ok2xx: cleanLoad.requests - 2 })).toMatch(
      /2 of 50000 answers not 2xx/,
    );
    expect(loadProblem('service', { ...cleanLoad, requests: 0, ok2xx: 0 })).toMatch(/no request completed/);
  });

  it('refuses a bare route under 5,000 req/s for a body under 64 KiB, and only then', () => {
    expect(bareThroughputProblem(1_235, 23 * 1024)).toMatch(/1235 req\/s for a 23\.0 KiB body/);
    expect(bareThroughputProblem(4_999, 64 * 1024 - 1)).toBeDefined();
    expect(bareThroughputProblem(5_000, 23 * 1024)).toBeUndefined();
    // A big page is limited by its bytes, not by the server: the rule does not apply.
    expect(bareThroughputProblem(1_200, 64 * 1024)).toBeUndefined();
  });

  it('refuses a floor baseline slower than the service, in the direction of the unit', () => {
    expect(baselineSlowerProblem('raw', 100, 40, 'lower')).toBeUndefined();
    expect(baselineSlowerProblem('raw', 100, 120, 'lower')).toMatch(/raw baseline .* slower than the service/);
    expect(baselineSlowerProblem('bare', 6_000, 15_000, 'higher')).toBeUndefined();
    expect(baselineSlowerProblem('bare', 6_000, 5_000, 'higher')).toBeDefined();
  });

  it('assertSane throws a SanityError holding every reason, and nothing when all are sane', () => {
    expect(() => assertSane(undefined, undefined)).not.toThrow();
    expect(() => assertSane('first', undefined, 'second')).toThrow(SanityError);
    expect(() => assertSane('first', 'second')).toThrow('first; second');
  });

  it('marks a result FAILED when its floor baseline is slower, never one compared with the service itself', () => {
    const spec: ResultSpec = {
      name: 'x.import',
      description: '',
      unit: 'ms',
      valueLabel: 'service',
      baselineLabel: 'raw',
      baselineKind: 'raw-driver',
      target: { ratio: 3, comparison: '<=', description: '' },
    };
    const slowRaw = [
      { value: 100, baseline: 150 },
      { value: 110, baseline: 160 },
      { value: 90, baseline: 140 },
    ];
    expect(summarise(spec, slowRaw).failed).toMatch(/slower than the service/);
    expect(summarise({ ...spec, baselineKind: 'service' }, slowRaw).failed).toBeUndefined();
    const sane = summarise(spec, [
      { value: 100, baseline: 40 },
      { value: 120, baseline: 40 },
      { value: 80, baseline: 40 },
    ]);
    expect(sane.failed).toBeUndefined();
    expect([sane.ratio, sane.ratioMin, sane.ratioMax]).toEqual([2.5, 2, 3]);
  });
});
