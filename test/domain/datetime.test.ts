import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EVENT_TIME_TOLERANCE_MS,
  MAX_DATE_TIME_MS,
  MIN_DATE_TIME_MS,
  formatDateTime,
  formatOptionalDateTime,
  isDateTime,
  isFutureEvent,
  parseDateTime,
  requireDateTime,
} from '../../src/domain/datetime.js';

const utc = (text: string) => new Date(text).getTime();
const iso = (text: string) => {
  const parsed = parseDateTime(text);
  return parsed === undefined ? undefined : formatDateTime(parsed);
};

describe('parseDateTime: strict ISO 8601, zone-less read as UTC (PRODUCT §3)', () => {
  it('accepts Z and reads it as UTC', () => {
    expect(parseDateTime('2024-03-01T10:15:30Z')).toBe(utc('2024-03-01T10:15:30.000Z'));
    expect(iso('2024-03-01t10:15:30z')).toBe('2024-03-01T10:15:30.000Z');
    expect(iso('2024-03-01T10:15Z')).toBe('2024-03-01T10:15:00.000Z');
  });

  it('converts offsets to UTC', () => {
    expect(iso('2024-03-01T10:00:00+05:30')).toBe('2024-03-01T04:30:00.000Z');
    expect(iso('2024-03-01T10:00:00+0530')).toBe('2024-03-01T04:30:00.000Z');
    expect(iso('2024-03-01T22:00:00-08:00')).toBe('2024-03-02T06:00:00.000Z');
    expect(iso('2024-01-01T01:00:00+02:00')).toBe('2023-12-31T23:00:00.000Z');
    expect(iso('2024-03-01T10:00:00-00:00')).toBe('2024-03-01T10:00:00.000Z');
    expect(iso('2024-03-01T10:00:00+23:59')).toBe('2024-02-29T10:01:00.000Z');
  });

  it('keeps fractional seconds to the millisecond (extra digits are cut, not rounded)', () => {
    expect(iso('2024-03-01T10:00:00.5Z')).toBe('2024-03-01T10:00:00.500Z');
    expect(iso('2024-03-01T10:00:00,25Z')).toBe('2024-03-01T10:00:00.250Z');
    expect(iso('2024-03-01T10:00:00.123Z')).toBe('2024-03-01T10:00:00.123Z');
    expect(iso('2024-03-01T10:00:00.123999999Z')).toBe('2024-03-01T10:00:00.123Z');
    expect(iso('2024-03-01T10:00:00.999+01:00')).toBe('2024-03-01T09:00:00.999Z');
  });

  it('knows the calendar: leap years and month lengths', () => {
    expect(iso('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(iso('2000-02-29T00:00:00Z')).toBe('2000-02-29T00:00:00.000Z');
    expect(parseDateTime('2023-02-29T00:00:00Z')).toBeUndefined();
    expect(parseDateTime('1900-02-29T00:00:00Z')).toBeUndefined();
    expect(parseDateTime('2024-02-30T10:00:00Z')).toBeUndefined();
    expect(parseDateTime('2024-04-31T10:00:00Z')).toBeUndefined();
    expect(parseDateTime('2024-13-01T10:00:00Z')).toBeUndefined();
    expect(parseDateTime('2024-00-10T10:00:00Z')).toBeUndefined();
    expect(parseDateTime('2024-01-00T10:00:00Z')).toBeUndefined();
    expect(iso('2024-12-31T23:59:59.999Z')).toBe('2024-12-31T23:59:59.999Z');
  });

  it('takes years below 100 as written (not as 19xx)', () => {
    expect(iso('0050-01-01T00:00:00Z')).toBe('0050-01-01T00:00:00.000Z');
    expect(iso('0001-06-15T12:00:00Z')).toBe('0001-06-15T12:00:00.000Z');
  });

  it('refuses impossible times and offsets', () => {
    expect(parseDateTime('2024-01-01T24:00:00Z')).toBeUndefined();
    expect(parseDateTime('2024-01-01T23:60:00Z')).toBeUndefined();
    expect(parseDateTime('2024-01-01T23:59:60Z')).toBeUndefined();
    expect(parseDateTime('2024-01-01T10:00:00+24:00')).toBeUndefined();
    expect(parseDateTime('2024-01-01T10:00:00+05:60')).toBeUndefined();
  });

  it('reads a date-time without a zone as UTC (issue 41: tap-colleqtive sends 2026-06-15T06:30:24.557)', () => {
    expect(iso('2026-06-15T06:30:24.557')).toBe('2026-06-15T06:30:24.557Z');
    expect(parseDateTime('2026-06-15T06:30:24.557')).toBe(parseDateTime('2026-06-15T06:30:24.557Z'));
    expect(iso('2024-01-01T10:00:00')).toBe('2024-01-01T10:00:00.000Z');
    expect(iso('2024-01-01T10:00')).toBe('2024-01-01T10:00:00.000Z');
    expect(iso('2024-01-01t10:00:00,5')).toBe('2024-01-01T10:00:00.500Z');
    expect(iso('2024-01-01T10:00:00.123456')).toBe('2024-01-01T10:00:00.123Z');
    expect(iso('0001-01-01T00:00:00')).toBe('0001-01-01T00:00:00.000Z');
    expect(iso('9999-12-31T23:59:59.999')).toBe('9999-12-31T23:59:59.999Z');
    // Still refused without a zone: what is refused with one.
    for (const text of [
      '2024-02-30T10:00:00',
      '2023-02-29T00:00:00',
      '2024-01-01T24:00:00',
      '2024-01-01T10:60:00',
      '0000-12-31T23:59:59.999',
      '10000-01-01T00:00:00',
      '2024-01-01T10',
      '2024-01-01T10:00:00.',
      '2024-01-01T10:00:00-05',
      '2024-01-01T10:00:00+5:30',
    ]) {
      expect(parseDateTime(text), text).toBeUndefined();
    }
  });

  it('refuses anything that is not a full date-time (a date alone included)', () => {
    for (const text of [
      '2024-01-01',
      '2024-01-01Z',
      'yesterday',
      '',
      '2024-1-1T10:00:00Z',
      '24-01-01T10:00:00Z',
      '2024-01-01T10:00:00.1234567890Z',
      '2024-01-01T10:00:00+5:30',
      '2024-01-01T10:00:00 Z',
      ' 2024-01-01T10:00:00Z',
      '2024-01-01T10:00:00Z ',
      '2024-W01-1T10:00:00Z',
      '1704103200000',
    ]) {
      expect(parseDateTime(text), text).toBeUndefined();
      expect(isDateTime(text), text).toBe(false);
    }
  });

  it('requireDateTime throws a RangeError on invalid text', () => {
    expect(requireDateTime('2024-03-01T10:00:00Z')).toBe(utc('2024-03-01T10:00:00Z'));
    expect(() => requireDateTime('2024-02-30T10:00:00Z')).toThrow(RangeError);
  });
});

describe('the years a date-time may name: 0001–9999 in UTC (PRODUCT §3)', () => {
  it('the bounds are the first and the last millisecond the one shape can show', () => {
    expect(new Date(MIN_DATE_TIME_MS).toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(new Date(MAX_DATE_TIME_MS).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseDateTime('0001-01-01T00:00:00Z')).toBe(MIN_DATE_TIME_MS);
    expect(parseDateTime('9999-12-31T23:59:59.999Z')).toBe(MAX_DATE_TIME_MS);
  });

  it('refuses year 0000, five-digit and signed years', () => {
    for (const text of [
      '0000-01-01T00:00:00Z',
      '0000-12-31T23:59:59.999Z',
      '10000-01-01T00:00:00Z',
      '-000001-12-31T23:59:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      '+002024-01-01T00:00:00Z',
    ]) {
      expect(parseDateTime(text), text).toBeUndefined();
      expect(isDateTime(text), text).toBe(false);
      expect(() => requireDateTime(text), text).toThrow(RangeError);
    }
  });

  it('judges the moment once in UTC: an offset can push a written year out of range, or bring it in', () => {
    expect(parseDateTime('9999-12-31T23:30:00-01:00')).toBeUndefined(); // 10000-01-01T00:30Z
    expect(parseDateTime('0001-01-01T00:30:00+01:00')).toBeUndefined(); // 0000-12-31T23:30Z
    expect(iso('9999-12-31T23:30:00+01:00')).toBe('9999-12-31T22:30:00.000Z');
    expect(iso('0000-12-31T23:30:00-01:00')).toBe('0001-01-01T00:30:00.000Z');
    expect(iso('9999-12-31T23:59:59.999-00:00')).toBe('9999-12-31T23:59:59.999Z');
  });

  it('the ends parse at any offset that can write them; one millisecond past either end never does', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), (offset) => {
        // (At some offsets an end is not writable with a four-digit year: nothing to parse then.)
        const last = withOffset(new Date(MAX_DATE_TIME_MS), offset);
        const first = withOffset(new Date(MIN_DATE_TIME_MS), offset);
        if (/^\d{4}-/.test(last)) expect(parseDateTime(last)).toBe(MAX_DATE_TIME_MS);
        if (/^\d{4}-/.test(first)) expect(parseDateTime(first)).toBe(MIN_DATE_TIME_MS);
        const past = withOffset(new Date(MAX_DATE_TIME_MS + 1), offset);
        const before = withOffset(new Date(MIN_DATE_TIME_MS - 1), offset);
        // Written with a four-digit year, or not writable at all: either way refused.
        if (/^\d{4}-/.test(past)) expect(parseDateTime(past)).toBeUndefined();
        if (/^\d{4}-/.test(before)) expect(parseDateTime(before)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('isFutureEvent: no event more than 5 minutes after the server clock (PRODUCT §3)', () => {
  const now = Date.parse('2026-06-01T12:00:00Z');
  it('takes the past, now and up to 5 minutes ahead; refuses anything later', () => {
    expect(EVENT_TIME_TOLERANCE_MS).toBe(5 * 60_000);
    expect(isFutureEvent(now - 86_400_000, now)).toBe(false);
    expect(isFutureEvent(now, now)).toBe(false);
    expect(isFutureEvent(now + 4 * 60_000, now)).toBe(false);
    expect(isFutureEvent(now + 5 * 60_000, now)).toBe(false);
    expect(isFutureEvent(now + 5 * 60_000 + 1, now)).toBe(true);
    expect(isFutureEvent(now + 6 * 60_000, now)).toBe(true);
    expect(isFutureEvent(Date.parse('2099-01-01T00:00:00Z'), now)).toBe(true);
  });
  it('reads the clock when not given one', () => {
    expect(isFutureEvent(Date.now() + 4 * 60_000)).toBe(false);
    expect(isFutureEvent(Date.now() + 6 * 60_000)).toBe(true);
  });
});

describe('formatDateTime', () => {
  it('never writes anything but YYYY-MM-DDTHH:mm:ss.sssZ: a stored moment outside the years shows as the nearest bound', () => {
    expect(formatDateTime(MAX_DATE_TIME_MS + 1)).toBe('9999-12-31T23:59:59.999Z');
    expect(formatDateTime(8.64e15)).toBe('9999-12-31T23:59:59.999Z');
    expect(formatDateTime(MIN_DATE_TIME_MS - 1)).toBe('0001-01-01T00:00:00.000Z');
    expect(formatDateTime(-8.64e15)).toBe('0001-01-01T00:00:00.000Z');
    expect(() => formatDateTime(9e15)).not.toThrow();
  });

  it('emits YYYY-MM-DDTHH:mm:ss.sssZ', () => {
    expect(formatDateTime(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatDateTime(utc('2024-03-01T10:00:00.5Z'))).toBe('2024-03-01T10:00:00.500Z');
    expect(formatOptionalDateTime(null)).toBeUndefined();
    expect(formatOptionalDateTime(undefined)).toBeUndefined();
    expect(formatOptionalDateTime(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});

const instantArb = fc.date({
  min: new Date('0001-01-02T00:00:00.000Z'),
  max: new Date('9999-12-30T00:00:00.000Z'),
  noInvalidDate: true,
});
const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The wall-clock text of `instant` at `offsetMinutes` east of UTC. */
function withOffset(instant: Date, offsetMinutes: number): string {
  const local = new Date(instant.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.${pad(local.getUTCMilliseconds(), 3)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

describe('date-time properties', () => {
  it('format then parse gives the same instant', () => {
    fc.assert(
      fc.property(instantArb, (instant) => {
        expect(parseDateTime(formatDateTime(instant.getTime()))).toBe(instant.getTime());
      }),
      { numRuns: 1000 },
    );
  });

  it('the same instant written at any offset parses to that instant', () => {
    fc.assert(
      fc.property(instantArb, fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }), (instant, offset) => {
        expect(parseDateTime(withOffset(instant, offset))).toBe(instant.getTime());
      }),
      { numRuns: 1000 },
    );
  });

  it('an instant written without its Z parses to that instant (zone-less is UTC)', () => {
    fc.assert(
      fc.property(instantArb, (instant) => {
        expect(parseDateTime(formatDateTime(instant.getTime()).slice(0, -1))).toBe(instant.getTime());
      }),
      { numRuns: 1000 },
    );
  });

  it('a day past the end of any month is refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const last = new Date(Date.UTC(2000, month, 0));
        last.setUTCFullYear(year, month, 0);
        const lastDay = last.getUTCDate();
        expect(isDateTime(`${pad(year, 4)}-${pad(month)}-${pad(lastDay)}T00:00:00Z`)).toBe(true);
        if (lastDay < 31) expect(isDateTime(`${pad(year, 4)}-${pad(month)}-${pad(lastDay + 1)}T00:00:00Z`)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
